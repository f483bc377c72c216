"""A session file given where run records are expected is recognized as what it is: ``detect``
names its harness, ``validate`` and ``convert`` say once that it holds no records (and what
reads it), ``show`` shows the run it is. Files of records are never taken for sessions."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agentruns.cli import main

LOGS = Path(__file__).parent / "fixtures" / "upstream" / "agent-logs"
FIXTURES = Path(__file__).parent / "fixtures"
SESSIONS = sorted(
    path
    for path in LOGS.rglob("*")
    if path.is_file() and path.suffix != ".md" and "subagents" not in path.parts
)
"""Every bundled file an agent kept or printed (a subagent's file is read with its session),
whatever its events share with a format (Claude Code's print mode says ``session_id``, as
ATIF does)."""


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("session", SESSIONS, ids=lambda p: p.name)
def test_detect_names_a_session_files_harness_once(session: Path) -> None:
    code, out, _ = _run("detect", str(session))
    assert code == 0, out
    assert len(out.splitlines()) == 1
    assert "unknown format" not in out


@pytest.mark.parametrize("suffix", [".data", ".txt", ".json", ""])
@pytest.mark.parametrize("session", SESSIONS, ids=lambda p: p.name)
def test_a_session_file_under_another_extension_is_the_same_session(
    session: Path, suffix: str, tmp_path: Path
) -> None:
    renamed = tmp_path / f"renamed{suffix}"
    renamed.write_bytes(session.read_bytes())
    harness = _run("detect", str(session))[1].split(": ", 1)[1]
    code, out, _ = _run("detect", str(renamed))
    assert code == 0, out
    assert out.split(": ", 1)[1] == harness
    own = _run("stats", "--output-format", "json", "--no-cache", str(session))
    other = _run("stats", "--output-format", "json", "--no-cache", str(renamed))
    assert other[0] == own[0] == 0
    assert other[1].replace(str(renamed), str(session)) == own[1]


@pytest.mark.parametrize("session", SESSIONS, ids=lambda p: p.name)
def test_validate_says_once_that_a_session_file_holds_no_records(session: Path) -> None:
    code, out, err = _run("validate", str(session))
    assert code == 1
    said = out + err
    assert said.count("not run records") == 1
    assert "agentruns import" in said
    assert "unknown format" not in said


@pytest.mark.parametrize("session", SESSIONS, ids=lambda p: p.name)
def test_convert_says_once_that_a_session_file_holds_no_records(
    session: Path, tmp_path: Path
) -> None:
    """Not one "unknown format" rejection a line: the file is named once, with the command
    that makes records of it in the format asked for."""
    code, out, err = _run(
        "convert", "--to", "atif", "-o", str(tmp_path / "out.jsonl"), str(session)
    )
    assert code == 1
    said = out + err
    assert said.count("not run records") == 1
    assert "agentruns import --to atif" in said
    assert "unknown format" not in said
    assert "rejected" not in said.replace("0 rejected", "")


def test_convert_converts_the_records_beside_a_session_file(tmp_path: Path) -> None:
    session = LOGS / "claude-session" / "spotter-short.jsonl"
    record = FIXTURES / "portable.min.json"
    out = tmp_path / "out.jsonl"
    code, _, err = _run("convert", "--to", "cortex", "-o", str(out), str(session), str(record))
    assert code == 1, err  # the session is not converted: said, and the exit says so
    assert len(out.read_text().splitlines()) == 1
    assert "1 converted" in err
    assert "1 session file, not records" in err


def test_show_shows_the_run_a_session_file_is() -> None:
    session = LOGS / "claude-session" / "spotter-short.jsonl"
    code, out, _ = _run("show", str(session))
    assert code == 0, out
    assert "claude-code-session" in out
    assert "55604662-cf2a-4331-851a-ec234028f8ca" in out  # the session's id is the run's


def test_files_of_records_are_never_taken_for_sessions() -> None:
    files = sorted(str(p) for p in FIXTURES.glob("*.min.json"))
    code, out, _ = _run("detect", *files)
    assert code == 0
    assert [line.rsplit(": ", 1)[1] for line in out.splitlines()] == [
        "agentrun",
        "atif",
        "cortex",
        "portable",
    ]
    code, _, err = _run("validate", *files)
    assert code == 0, err
    assert "session file" not in err


@pytest.mark.parametrize(
    "session", sorted((LOGS / "claude-session").glob("*.jsonl")), ids=lambda p: p.name
)
def test_an_older_claude_export_without_entry_types_reads_as_the_same_session(
    session: Path, tmp_path: Path
) -> None:
    """Some exports write user and assistant lines with ``message.role`` and no ``type``,
    under any name: recognized by what they hold, read as the session they are."""
    import json

    from agentruns.transcripts import load

    lines = []
    for text in session.read_text(encoding="utf-8").splitlines():
        try:
            value = json.loads(text)
        except ValueError:
            lines.append(text)  # the sample's own broken lines stay as they are
            continue
        if isinstance(value, dict):
            message, kind = value.get("message"), value.get("type")
            role = message.get("role") if isinstance(message, dict) else None
            if kind in ("user", "assistant") and role == kind:
                del value["type"]
        lines.append(json.dumps(value))
    renamed = tmp_path / "export.txt.jsonl"
    renamed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    original, exported = load(str(session)).run, load(str(renamed)).run
    assert exported.run_id == original.run_id
    assert exported.input_tokens == original.input_tokens
    assert exported.output_tokens == original.output_tokens
    assert exported.steps == original.steps


def test_show_on_a_session_folder_shows_each_session() -> None:
    folder = LOGS / "claude-session"
    code, out, _ = _run("show", str(folder))
    assert code == 0, out
    assert out.count("timeline") == len(list(folder.glob("*.jsonl")))


def test_show_run_picks_one_run_by_its_position_or_its_id() -> None:
    folder = LOGS / "claude-session"
    code, by_id, _ = _run("show", "--run", "55604662-cf2a-4331-851a-ec234028f8ca", str(folder))
    assert code == 0
    assert by_id.count("timeline") == 1
    assert "55604662-cf2a-4331-851a-ec234028f8ca" in by_id
    position = 1 + sorted(p.name for p in folder.glob("*.jsonl")).index("spotter-short.jsonl")
    code, by_position, _ = _run("show", "--run", str(position), str(folder))
    assert code == 0
    assert by_position == by_id


def test_show_run_that_is_not_there_says_so_and_exits_1() -> None:
    code, out, err = _run("show", "--run", "no-such-run", str(FIXTURES / "cortex.min.json"))
    assert code == 1
    assert out == ""
    assert "no run no-such-run" in err


def test_show_fits_a_run_in_80_columns() -> None:
    inputs = [*sorted(FIXTURES.glob("*.min.json")), LOGS / "claude-session"]
    for path in inputs:
        code, out, _ = _run("show", str(path))
        assert code == 0, path
        too_wide = [line for line in out.splitlines() if len(line) > 80]
        assert too_wide == [], path


def test_open_session_gives_the_transcript_why_not_or_none_for_a_file_no_harness_wrote(
    tmp_path: Path,
) -> None:
    from agentruns.transcripts import Transcript, Unreadable, open_session

    session = tmp_path / "s.jsonl"
    session.write_text(
        '{"type":"user","sessionId":"s","uuid":"u1","timestamp":"2026-01-01T00:00:00Z",'
        '"message":{"role":"user","content":"hi"}}\n'
    )
    other = tmp_path / "notes.jsonl"
    other.write_text('{"hello": "world"}\n')
    opened = open_session(str(session))
    assert isinstance(opened, Transcript)
    assert opened.harness == "claude-code-session"
    assert open_session(str(other)) is None
    gone = open_session(str(tmp_path / "gone.jsonl"), "claude-code-session")
    assert isinstance(gone, Unreadable)
    assert gone.reason
    assert not gone.reason.startswith(str(tmp_path))  # the name is not said twice
