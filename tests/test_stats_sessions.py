"""``agentruns stats FOLDER`` reads the session files agents keep directly, and remembers each
unchanged file: a second look reads nothing, any change to a file reads it again, and what the
cache gives is what reading gives."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import agentruns.transcripts as readers
from agentruns.cli import main
from tests._settings import PROPERTY_SETTINGS
from tests.test_session_import import LOGS

Json = dict[str, Any]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTRUNS_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sessions read (``-j 1``: in this process), by name: opened, or read for their
    figures alone (a Claude Code session's summary)."""
    seen: list[str] = []
    real, real_light = readers.open_session, readers.light_summary

    def counting(name: str, harness: str | None = None, **more: Any) -> Any:
        read = real(name, harness, **more)
        if isinstance(read, readers.Transcript):
            seen.append(name)
        return read

    def counting_light(name: str, harness: str | None = None) -> Any:
        read = real_light(name, harness)
        if read is not None:
            seen.append(name)
        return read

    monkeypatch.setattr(readers, "open_session", counting)
    monkeypatch.setattr(readers, "light_summary", counting_light)
    return seen


def _stats(*args: str) -> Json:
    result = CliRunner().invoke(main, ["stats", "--output-format", "json", "-j", "1", *args])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert isinstance(shown, dict)
    return shown


IN_OWN_TERMS = frozenset(
    {
        "cost_usd",
        "by_format_and_status",
        "most_failing_tools",
        "tokens_by_day",
        "tokens_by_month",
        "tokens_by_kind",
        "tokens_by_model",
        "largest_runs",
    }
)
"""What ``stats`` of a session folder and of its imported records say each in its own terms:
the format column names the harness (not "atif"); ATIF keeps no failed status of a tool call;
a record is booked on the day it started, a session call by call; an ATIF subagent keeps no
cache writes (the import reports its subagents lost); sessions are priced call by call,
records (which keep no calls' usage) are not, and a session books each call's tokens under
the model it was made with where a record keeps one model a run. Everything else is the
same."""


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    shutil.copytree(LOGS, folder)
    return folder


def test_a_folder_of_sessions_is_every_session_counted(tmp_path: Path) -> None:
    shown = _stats("--no-cache", str(_copy(tmp_path)))
    assert shown["runs"] == 19
    assert shown["rejected"] == 0
    assert shown["by_format_and_status"]["claude-code-session"] == {"completed": 4}


def test_a_folder_gives_what_importing_it_then_stats_gives(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    records = tmp_path / "runs.jsonl"
    imported = CliRunner().invoke(
        main, ["import", "-q", str(folder), "--to", "atif", "-o", str(records)]
    )
    assert imported.exit_code in (0, 1), imported.output
    direct, through = _stats("--no-cache", str(folder)), _stats(str(records))
    assert {k: v for k, v in direct.items() if k not in IN_OWN_TERMS} == {
        k: v for k, v in through.items() if k not in IN_OWN_TERMS
    }
    without_cost = [{**run, "usd": None} for run in direct["largest_runs"]]
    assert without_cost == [{**run, "usd": None} for run in through["largest_runs"]]
    # a record is priced where its run states its cost (the sessions that recorded theirs),
    # at the cost the folder gives the session
    stated = [
        (run["usd"], of["usd"])
        for run, of in zip(through["largest_runs"], direct["largest_runs"], strict=True)
        if run["usd"] is not None
    ]
    assert stated
    assert all(usd == pytest.approx(session) for usd, session in stated)
    assert direct["most_failing_tools"]  # sessions hold failed calls; the folder sees them
    # a session's agent is the harness that kept it, as importing it states it
    agents = [entry["name"] for entry in direct["runs_per_agent"]]
    assert "claude-code" in agents
    assert all(isinstance(name, str) and name for name in agents)

    def booked(shown: Json) -> int:
        return sum(entry["tokens"] for entry in shown["tokens_by_day"])

    assert booked(direct) == booked(through)
    kinds, kept = direct["tokens_by_kind"], through["tokens_by_kind"]
    assert {k: v for k, v in kinds.items() if k != "cache_creation"} == {
        k: v for k, v in kept.items() if k != "cache_creation"
    }
    assert kept["cache_creation"] <= kinds["cache_creation"]


def test_a_second_look_at_an_unchanged_folder_reads_nothing(
    tmp_path: Path, loads: list[str]
) -> None:
    folder = _copy(tmp_path)
    first = _stats(str(folder))
    assert len(loads) == 19
    loads.clear()
    assert _stats(str(folder)) == first
    assert loads == []


def _append(path: Path) -> None:
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines) + lines[-1])


def _shorten(path: Path) -> None:
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[: len(lines) // 2]))


def _touch(path: Path) -> None:
    stamp = path.stat().st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


def _same_size_other_text(path: Path) -> None:
    text = path.read_bytes()
    path.write_bytes(text.replace(b"Bash", b"Bosh"))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))


@pytest.mark.parametrize("change", [_append, _shorten, _touch, _same_size_other_text])
def test_a_changed_file_is_read_again_and_the_cache_agrees_with_reading(
    tmp_path: Path, loads: list[str], change: Any
) -> None:
    folder = _copy(tmp_path)
    _stats(str(folder))
    session = folder / "claude-session" / "spotter-subagent.jsonl"
    change(session)
    loads.clear()
    cached = _stats(str(folder))
    assert loads == [str(session)]
    assert cached == _stats("--no-cache", str(folder))


def test_no_cache_reads_every_file_and_remembers_nothing(tmp_path: Path, loads: list[str]) -> None:
    folder = _copy(tmp_path)
    _stats("--no-cache", str(folder))
    _stats("--no-cache", str(folder))
    assert len(loads) == 38
    assert not (tmp_path / "cache" / "sessions.sqlite3").exists()


def test_since_leaves_files_older_than_the_range_unopened(tmp_path: Path, loads: list[str]) -> None:
    folder = _copy(tmp_path)
    old = folder / "claude-session" / "spotter-short.jsonl"
    os.utime(old, (1_500_000_000, 1_500_000_000))  # 2017
    shown = _stats("--no-cache", "--since", "2026-01-01", str(folder))
    assert str(old) not in loads
    old.unlink()  # what the range holds is what the other files hold
    assert shown["runs"] == sum(
        1 for days in _days(folder) if max(days, default="") >= "2026-01-01"
    )


def _days(folder: Path) -> list[set[str]]:
    """The days each run has tokens booked on (or started on): a range keeps a run with any
    of them in it, and leaves out runs with none known."""
    from agentruns.stats import RunStats, _session_facts
    from agentruns.transcripts import sessions

    found = []
    for name, harness in sessions(str(folder), lambda path, why: None):
        outcome = _session_facts((name, harness))
        assert outcome.accepted, outcome.problems
        facts = outcome.value
        assert facts is not None
        one = RunStats()
        one.add(facts)
        found.append(set(one.runs_by_day) - {"(none)"})
    return found


def test_until_keeps_the_runs_started_by_that_day(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    shown = _stats("--no-cache", "--until", "2025-12-31", str(folder))
    assert shown["runs"] == sum(
        1 for days in _days(folder) if min(days, default="~") <= "2025-12-31"
    )
    assert all(entry["day"] <= "2025-12-31" for entry in shown["tokens_by_day"])


def test_an_unreadable_file_in_the_folder_is_named_and_the_exit_says_so(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    os.mkfifo(folder / "claude-session" / "pipe.jsonl")
    result = CliRunner().invoke(main, ["stats", "-j", "1", str(folder)])
    assert result.exit_code == 1
    assert "pipe.jsonl" in result.output
    assert "not a regular file" in result.output


def test_a_file_no_harness_wrote_is_no_session_and_is_not_sniffed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _copy(tmp_path)
    (folder / "notes.json").write_text('{"title": "not a session", "items": [1, 2]}\n')
    sniffed: list[str] = []
    real = readers.detect

    def counting(path: str) -> Any:
        sniffed.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(readers, "detect", counting)
    first = _stats(str(folder))
    assert first["runs"] == 19
    assert first["rejected"] == 0
    assert "notes.json" in sniffed
    sniffed.clear()
    assert _stats(str(folder)) == first
    assert sniffed == []


def test_session_files_named_one_by_one_give_what_their_folder_gives(tmp_path: Path) -> None:
    folder = _copy(tmp_path) / "claude-session"
    files = sorted(str(path) for path in folder.glob("*.jsonl"))
    assert len(files) > 1
    assert _stats("--no-cache", *files) == _stats("--no-cache", str(folder))


def test_a_session_file_beside_run_records_is_read_as_a_session(tmp_path: Path) -> None:
    session = sorted((_copy(tmp_path) / "claude-session").glob("*.jsonl"))[0]
    record = Path(__file__).parent / "fixtures" / "agentrun.min.json"
    shown = _stats("--no-cache", str(record), str(session))
    assert shown["runs"] == 2
    assert shown["rejected"] == 0
    assert set(shown["by_format_and_status"]) == {"agentrun", "claude-code-session"}


def test_a_subagents_tokens_are_counted_under_its_own_model() -> None:
    """A Claude Code session on Opus whose Task subagent ran on Haiku: the tokens by model say
    so (ccusage's breakdown: Opus 4.6 481,656, Haiku 4.5 109,659), and add up to the tokens."""
    shown = _stats("--no-cache", str(LOGS / "claude-session"))
    by_model = {entry["name"]: entry["tokens"] for entry in shown["tokens_by_model"]}
    assert by_model["claude-haiku-4-5-20251001"] == shown["subagent_tokens"] == 109_659
    assert by_model["claude-opus-4-6"] == 481_656
    spent = sum(entry["tokens"] for entry in shown["tokens_by_day"])
    assert sum(by_model.values()) == spent


def _by_model(shown: Json) -> dict[str, int]:
    return {entry["name"]: entry["tokens"] for entry in shown["tokens_by_model"]}


def test_a_session_that_switches_models_books_each_call_under_its_own_model() -> None:
    """ccl's edge cases: three calls on Claude 3 Sonnet (670 tokens) and one on Sonnet 4
    (253), as ccusage breaks them down and as each is priced; the run was counted whole under
    its main model."""
    shown = _stats("--no-cache", str(LOGS / "claude-session" / "ccl-edge_cases.jsonl"))
    assert _by_model(shown) == {"claude-3-sonnet-20240229": 670, "claude-sonnet-4": 253}


_MODELS = ("claude-opus-4-6", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001")


@PROPERTY_SETTINGS
@given(
    calls=st.lists(
        st.tuples(st.sampled_from(_MODELS), st.integers(0, 10**6), st.integers(0, 10**5)),
        min_size=1,
        max_size=8,
    )
)
def test_tokens_by_model_are_a_per_message_count(
    calls: list[tuple[str, int, int]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A generated session of calls on any models: the tokens by model are each message's
    input and output under the model it names (an independent count of the lines), and add
    up to the run's tokens."""
    lines: list[Json] = [
        {
            "type": "user",
            "uuid": "u0",
            "sessionId": "s1",
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "go"},
        }
    ]
    expected: dict[str, int] = {}
    for number, (model, read, written) in enumerate(calls, start=1):
        lines.append(
            {
                "type": "assistant",
                "uuid": f"a{number}",
                "parentUuid": f"a{number - 1}" if number > 1 else "u0",
                "sessionId": "s1",
                "timestamp": f"2026-01-01T00:{number:02d}:00Z",
                "message": {
                    "id": f"msg_{number}",
                    "role": "assistant",
                    "model": model,
                    "content": [{"type": "text", "text": f"step {number}"}],
                    "usage": {"input_tokens": read, "output_tokens": written},
                },
            }
        )
        expected[model] = expected.get(model, 0) + read + written
    session = tmp_path_factory.mktemp("switching") / "s1.jsonl"
    session.write_text("".join(json.dumps(line) + "\n" for line in lines))
    shown = _stats("--no-cache", str(session))
    by_model = {name: tokens for name, tokens in _by_model(shown).items() if tokens}
    assert by_model == {name: tokens for name, tokens in expected.items() if tokens}
    assert sum(_by_model(shown).values()) == sum(expected.values())
