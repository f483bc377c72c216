"""A model call is counted once however many session files hold it: a resumed Claude Code
session copies the lines of the calls it resumes from (the same message and request ids), and
``stats`` over the folder counts each such call in the first run it meets it in, as ccusage
does (ccusage/ccusage#1765); a call that has no request id is not said to be one across
files."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentruns.stats import RunFacts, RunStats
from tests._settings import PROPERTY_SETTINGS
from tests._stats import stats_json

Json = dict[str, Any]
SONNET = "claude-sonnet-4-20250514"
START = datetime(2025, 6, 1, 10, tzinfo=UTC)


def _exchange(number: int, tokens: int, *, request: bool, failed: bool | None) -> list[Json]:
    """A response (calling a tool when ``failed`` is not None) and the tool's result."""
    said = _response(number, "x", tokens, request=request)
    if failed is None:
        return [said]
    call = {"type": "tool_use", "id": f"toolu-{number}", "name": "Bash", "input": {"c": "ls"}}
    said["message"]["content"].append(call)
    result: Json = {"type": "tool_result", "tool_use_id": f"toolu-{number}", "content": "ok"}
    result["is_error"] = failed
    answer: Json = {
        "type": "user",
        "uuid": f"u-{number}",
        "sessionId": "x",
        "timestamp": said["timestamp"],
        "message": {"role": "user", "content": [result]},
    }
    return [said, answer]


def _response(number: int, session: str, tokens: int, *, request: bool = True) -> Json:
    line: Json = {
        "type": "assistant",
        "uuid": f"a-{number}",
        "sessionId": session,
        "timestamp": (START + timedelta(minutes=number)).isoformat().replace("+00:00", "Z"),
        "message": {
            "id": f"msg-{number}",
            "role": "assistant",
            "model": SONNET,
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": tokens, "output_tokens": 10},
        },
    }
    if request:
        line["requestId"] = f"req-{number}"
    return line


def _write(folder: Path, files: dict[str, list[Json]]) -> Path:
    for name, lines in files.items():
        (folder / "p").mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
        (folder / "p" / f"{name}.jsonl").write_text(text)
    return folder


def _stats(*args: str) -> Json:
    return stats_json("--timezone", "UTC", *args)


def _resumed(*, request: bool = True) -> dict[str, list[Json]]:
    first = [_response(0, "s1", 1000, request=request), _response(1, "s1", 2000, request=request)]
    copied = [{**line, "sessionId": "s2"} for line in first]
    return {"s1": first, "s2": [*copied, _response(2, "s2", 3000, request=request)]}


def test_a_resumed_sessions_copied_calls_count_once(tmp_path: Path) -> None:
    """ccusage's daily report gives this folder 6,030 tokens and $0.01845."""
    shown = _stats("--no-cache", str(_write(tmp_path, _resumed())))
    assert shown["tokens_by_kind"]["input"] == 6000
    assert shown["tokens_by_kind"]["output"] == 30
    assert shown["cost_usd"]["total"] == pytest.approx(0.01845)
    tokens = {run["run_id"]: run["tokens"] for run in shown["largest_runs"]}
    assert tokens == {"s1": 3020, "s2": 3010}  # each copied call in the first run met


def test_calls_remembered_in_the_cache_count_once_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTRUNS_CACHE_DIR", str(tmp_path / "cache"))
    folder = _write(tmp_path / "logs", _resumed())
    first, second = _stats(str(folder)), _stats(str(folder))
    assert first == second
    assert second["tokens_by_kind"]["input"] == 6000


def test_calls_without_a_request_id_are_not_one_across_files(tmp_path: Path) -> None:
    shown = _stats("--no-cache", str(_write(tmp_path, _resumed(request=False))))
    assert shown["tokens_by_kind"]["input"] == 9000


def _spent(shown: Json) -> Json:
    """What the folder spent, by kind, day and model (a session whose every call was copied
    is a run that spent nothing, where the oracle's emptied file is no session)."""
    return {
        "kinds": shown["tokens_by_kind"],
        "days": {row["day"]: row["tokens"] for row in shown["tokens_by_day"] if row["tokens"]},
        "models": {row["name"]: row["tokens"] for row in shown["tokens_by_model"] if row["tokens"]},
        "subagents": shown["subagent_tokens"],
        "tools": shown["most_used_tools"],
        "failing": shown["most_failing_tools"],
    }


@st.composite
def folders(draw: st.DrawFn) -> tuple[dict[str, list[Json]], dict[str, list[Json]]]:
    """Sessions whose files copy calls of others (as a resume does), and the same sessions
    with each call's lines kept in the first file alone: what the folder spent."""
    calls = [
        _exchange(
            n,
            draw(st.integers(1, 5000)),
            request=draw(st.booleans()),
            failed=draw(st.none() | st.booleans()),
        )
        for n in range(draw(st.integers(1, 8)))
    ]
    names = [f"s{n}" for n in range(draw(st.integers(1, 4)))]
    files: dict[str, list[Json]] = {}
    kept: dict[str, list[Json]] = {}
    seen: set[str] = set()
    for name in names:
        chosen: list[list[Json]] = draw(st.lists(st.sampled_from(calls), max_size=6, unique_by=id))
        streamed: bool = draw(st.booleans())
        files[name], kept[name] = [], []
        for exchange in chosen:
            lines = [{**line, "sessionId": name} for line in exchange]
            said = lines[0]
            if streamed and len(lines) == 1:
                # a streamed response is several lines of one message: repeat one, sometimes
                lines.append({**said, "uuid": f"{said['uuid']}-again"})
            files[name] += lines
            ident = said["message"]["id"]
            # an exchange with no request id is no call of another file: the file keeps it
            if "requestId" not in said or ident not in seen:
                kept[name] += lines
            if "requestId" in said:
                seen.add(ident)
    return files, kept


@PROPERTY_SETTINGS
@given(drawn=folders())
def test_a_folder_counts_what_its_sessions_spent_each_call_once(
    drawn: tuple[dict[str, list[Json]], dict[str, list[Json]]], tmp_path_factory: Any
) -> None:
    files, kept = drawn
    copied = _write(tmp_path_factory.mktemp("copied"), files)
    once = _write(tmp_path_factory.mktemp("once"), kept)
    shown, oracle = _stats("--no-cache", str(copied)), _stats("--no-cache", str(once))
    assert _spent(shown) == _spent(oracle)
    if oracle["cost_usd"] is not None:
        assert shown["cost_usd"]["total"] == pytest.approx(oracle["cost_usd"]["total"])
        assert shown["cost_usd"]["unpriced_tokens"] == oracle["cost_usd"]["unpriced_tokens"]


def test_a_part_merged_in_counts_its_calls_as_counted() -> None:
    """After ``merge``, a call the merged part counted is not counted again by ``add``."""
    call = ("m\x00r", 100, "m-1", "m-1", 50, 5, 0, 0, 0, 0.01, False)

    def facts() -> RunFacts:
        return RunFacts(
            format="claude-code-session",
            status="completed",
            agent="claude-code",
            duration_ms=None,
            tokens=55,
            tools=[],
            model="m-1",
            kinds={"input": 50, "output": 5},
            calls=[call],
        )

    part, whole = RunStats(), RunStats()
    part.add(facts())
    whole.merge(part)
    whole.add(facts())
    assert whole.tokens_by_kind["input"] == 50


@st.composite
def histories(draw: st.DrawFn) -> dict[str, list[Json]]:
    """Sessions over several days whose files copy calls of others (a resume keeps each
    copied line's time), each call with or without a request id."""
    calls = []
    for number in range(draw(st.integers(1, 8))):
        line = _response(number, "x", draw(st.integers(1, 999)), request=draw(st.booleans()))
        at = START + timedelta(days=draw(st.integers(0, 4)), minutes=number)
        line["timestamp"] = at.isoformat().replace("+00:00", "Z")
        calls.append(line)
    files: dict[str, list[Json]] = {}
    for number in range(draw(st.integers(1, 4))):
        chosen = draw(st.lists(st.sampled_from(calls), min_size=1, max_size=6, unique_by=id))
        chosen.sort(key=lambda line: str(line["timestamp"]))
        files[f"s{number}"] = [{**line, "sessionId": f"s{number}"} for line in chosen]
    return files


@PROPERTY_SETTINGS
@given(files=histories(), since=st.integers(0, 4))
def test_a_range_counts_what_the_whole_history_counts_on_its_days(
    files: dict[str, list[Json]], since: int, tmp_path_factory: Any
) -> None:
    """``--since`` leaves a file last modified before the range unopened: its calls, and
    the copies a resumed session holds of them (at their own times), are before the range."""
    import os

    folder = _write(tmp_path_factory.mktemp("history"), files)
    for name, lines in files.items():
        last = max(datetime.fromisoformat(str(line["timestamp"])).timestamp() for line in lines)
        os.utime(folder / "p" / f"{name}.jsonl", (last, last))
    day = (START + timedelta(days=since)).date().isoformat()
    whole = _stats("--no-cache", str(folder))["tokens_by_day"]
    ranged = _stats("--no-cache", "--since", day, str(folder))["tokens_by_day"]
    assert [row for row in whole if row["day"] >= day] == ranged
