"""Folders of sessions in, one record per session out; the layouts the agents keep (Claude
Code's subagent files and sidechains, OpenCode's SQLite database) read as runs linked to
their parents."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tracemalloc
from pathlib import Path

from click.testing import CliRunner, Result
from pydantic import MISSING

from agentruns.cli import main
from agentruns.transcripts import load, sessions

LOGS = Path(__file__).parent / "fixtures" / "upstream" / "agent-logs"

Json = dict[str, object]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _jsonl(path: Path, lines: list[Json]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _entry(kind: str, uuid: str, content: object, **more: object) -> Json:
    message: Json = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(id=f"msg-{uuid}", model=more.pop("model", "claude-x"))
        message["usage"] = {"input_tokens": 1, "output_tokens": 2}
    return {
        "type": kind,
        "uuid": uuid,
        "sessionId": "s-1",
        "timestamp": f"2026-01-01T00:00:{len(uuid):02d}Z",
        "isSidechain": False,
        "message": message,
        **more,
    }


def _task_session(folder: Path) -> Path:
    """A Claude Code session whose Task call ran a subagent written to its own file."""
    task = {"type": "tool_use", "id": "call-task", "name": "Task", "input": {"prompt": "look"}}
    done = {"type": "tool_result", "tool_use_id": "call-task", "content": "found it"}
    session = _jsonl(
        folder / "project" / "s-1.jsonl",
        [
            _entry("user", "u1", "find the bug"),
            _entry("assistant", "a1", [task]),
            _entry("user", "u2", [done], toolUseResult={"agentId": "abc", "status": "completed"}),
            _entry("assistant", "a22", [{"type": "text", "text": "Fixed."}]),
        ],
    )
    read = {"type": "tool_use", "id": "call-read", "name": "Read", "input": {"file": "x"}}
    answer = {"type": "tool_result", "tool_use_id": "call-read", "content": "..."}
    side = {"isSidechain": True, "agentId": "abc"}
    child = [
        {**_entry("user", "c1", "look"), **side},
        {**_entry("assistant", "c22", [read], model="claude-small"), **side},
        {**_entry("user", "c333", [answer]), **side},
    ]
    _jsonl(folder / "project" / "s-1" / "subagents" / "agent-abc.jsonl", child)
    return session


def test_a_subagent_file_is_a_child_run_linked_to_the_task_call(tmp_path: Path) -> None:
    run = load(_task_session(tmp_path)).run
    assert run.steps is not MISSING
    assert [s.name for s in run.steps if s.kind == "tool_call"] == ["Task"]
    assert run.subagents is not MISSING
    (child,) = run.subagents
    assert child.parent_call_id == "call-task"
    assert child.steps is not MISSING
    assert [s.name for s in child.steps if s.kind == "tool_call"] == ["Read"]
    assert child.model == "claude-small"
    assert (run.input_tokens, run.output_tokens) == (2, 4)  # the parent's own two responses
    assert run.goal == "find the bug"
    assert run.final_message == "Fixed."


def test_sidechain_entries_in_the_session_file_are_a_child_run(tmp_path: Path) -> None:
    read = {"type": "tool_use", "id": "r", "name": "Read", "input": {}}
    lines = [
        _entry("user", "u1", "go"),
        {**_entry("assistant", "s1", [read]), "isSidechain": True},
        _entry("assistant", "a1", [{"type": "text", "text": "done"}]),
    ]
    run = load(_jsonl(tmp_path / "s.jsonl", lines)).run
    assert run.steps is not MISSING
    assert [s.kind for s in run.steps] == ["message"]
    assert run.subagents is not MISSING
    assert len(run.subagents) == 1


def test_a_response_split_over_lines_is_counted_once(tmp_path: Path) -> None:
    first = _entry("assistant", "a1", [{"type": "text", "text": "a"}])
    second = _entry("assistant", "a2", [{"type": "tool_use", "id": "t", "name": "X", "input": {}}])
    usage = {"input_tokens": 1, "output_tokens": 9}
    second["message"] = {**second["message"], "id": "msg-a1", "usage": usage}  # type: ignore[dict-item]
    run = load(_jsonl(tmp_path / "s.jsonl", [first, second])).run
    assert (run.input_tokens, run.output_tokens) == (1, 9)


def test_a_folder_imports_every_session_once(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    shutil.copytree(LOGS, folder)
    _task_session(folder / "claude")
    (folder / "notes.json").write_text('{"not": "a session"}')
    found = list(sessions(folder))
    names = [Path(name.partition("#")[0]).name for name, _ in found]
    assert "agent-abc.jsonl" not in names  # a subagent belongs to its session
    assert "notes.json" not in names
    assert "README.md" not in names
    out = tmp_path / "runs.jsonl"
    result = invoke(
        "import", str(folder), "--to", "agentrun", "--set", "agent_id=a", "-o", str(out)
    )
    assert "Traceback" not in result.output
    written = out.read_text().splitlines()
    rejected = result.stderr.count("needs values the transcript does not give")
    assert len(written) + rejected == len(found)
    assert f"{len(found)} runs from 1 input" in result.stderr
    ids = {json.loads(line)["run_id"] for line in written}
    assert {"s-1", "55604662-cf2a-4331-851a-ec234028f8ca", "gemini_stage0_jsonl"} <= ids


def test_an_empty_folder_is_rejected(tmp_path: Path) -> None:
    result = invoke("import", str(tmp_path), "--to", "agentrun")
    assert result.exit_code == 1
    assert "no session of a known harness" in result.stderr


def test_an_explicit_harness_that_recognizes_nothing_rejects_the_file() -> None:
    rollout = next((LOGS / "codex-rollout").glob("agentcmd-*.jsonl"))
    result = invoke("import", str(rollout), "--harness", "codex", "--to", "agentrun")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "nothing in it is a codex event" in result.stderr


def test_an_output_that_is_a_session_in_the_folder_is_refused(tmp_path: Path) -> None:
    session = _task_session(tmp_path)
    before = session.read_bytes()
    result = invoke("import", str(tmp_path), "--to", "agentrun", "-o", str(session))
    assert result.exit_code == 2
    assert session.read_bytes() == before


def _database(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE session (id TEXT, project_id TEXT, time_created INT, data TEXT)")
    db.execute("CREATE TABLE message (id TEXT, session_id TEXT, time_created INT, data TEXT)")
    db.execute(
        "CREATE TABLE part (id TEXT, message_id TEXT, session_id TEXT, time_created INT, data TEXT)"
    )
    for sid in ("ses_a", "ses_b"):
        times = {"created": 1_700_000_000_000, "updated": 1_700_000_004_000}
        db.execute("INSERT INTO session VALUES (?, 'p', 1, ?)", (sid, json.dumps({"time": times})))
        user = {"role": "user", "time": {"created": 1_700_000_000_000}}
        db.execute("INSERT INTO message VALUES (?, ?, 1, ?)", (f"{sid}-m1", sid, json.dumps(user)))
        text = {"type": "text", "text": "list files"}
        db.execute(
            "INSERT INTO part VALUES (?, ?, ?, 1, ?)",
            (f"{sid}-p1", f"{sid}-m1", sid, json.dumps(text)),
        )
        tokens = {"input": 10, "output": 3, "reasoning": 2, "cache": {"read": 5, "write": 1}}
        reply = {"role": "assistant", "modelID": "m-1", "tokens": tokens, "cost": 0.5}
        db.execute("INSERT INTO message VALUES (?, ?, 2, ?)", (f"{sid}-m2", sid, json.dumps(reply)))
        state = {"status": "error", "input": {"command": "ls"}, "error": "denied"}
        tool = {"type": "tool", "tool": "bash", "callID": "c1", "state": state}
        db.execute(
            "INSERT INTO part VALUES (?, ?, ?, 2, ?)",
            (f"{sid}-p2", f"{sid}-m2", sid, json.dumps(tool)),
        )
    db.commit()
    db.close()
    return path


def test_an_opencode_database_gives_each_session(tmp_path: Path) -> None:
    db = _database(tmp_path / "opencode.db")
    found = list(sessions(tmp_path))
    assert found == [(f"{db}#ses_a", "opencode-storage"), (f"{db}#ses_b", "opencode-storage")]
    transcript = load(f"{db}#ses_b")
    run = transcript.run
    assert (run.run_id, run.goal, run.model) == ("ses_b", "list files", "m-1")
    assert (run.input_tokens, run.output_tokens, run.cache_read_tokens) == (16, 5, 5)
    assert (run.cache_creation_tokens, run.reasoning_tokens, run.cost_usd) == (1, 2, 0.5)
    assert run.steps is not MISSING
    (call,) = [s for s in run.steps if s.kind == "tool_call"]
    assert (call.name, call.output, call.status) == ("bash", "denied", "error")
    assert run.duration_ms == 4000


def test_a_database_of_several_sessions_without_one_named_is_an_error(tmp_path: Path) -> None:
    db = _database(tmp_path / "opencode.db")
    result = invoke("import", str(db), "--to", "agentrun")
    assert result.exit_code == 1
    assert "holds 2 sessions" in result.stderr


def test_a_folder_of_many_sessions_imports_in_bounded_memory(tmp_path: Path) -> None:
    sample = (LOGS / "claude-session" / "spotter-short.jsonl").read_text()
    for i in range(300):
        (tmp_path / "p" / f"{i:04d}").mkdir(parents=True)
        text = sample.replace("55604662-cf2a-4331-851a-ec234028f8ca", f"session-{i:04d}")
        (tmp_path / "p" / f"{i:04d}" / "s.jsonl").write_text(text)
    out = tmp_path / "runs.jsonl"
    tracemalloc.start()
    result = invoke(
        "import", str(tmp_path / "p"), "--to", "agentrun", "--set", "agent_id=a", "-o", str(out)
    )
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert result.exit_code == 0, result.stderr[-500:]
    assert len(out.read_text().splitlines()) == 300
    assert peak < 40 * 2**20  # one session at a time (300 at once would hold them all)


def test_an_imported_session_exports_its_model_and_token_kinds(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    record = tmp_path / "run.json"
    session = LOGS / "claude-session" / "spotter-short.jsonl"
    imported = invoke(
        "import", str(session), "--to", "agentrun", "--set", "agent_id=a", "-o", str(record)
    )
    assert imported.exit_code == 0, imported.stderr
    assert invoke("export", str(record), "-o", str(tmp_path / "tables")).exit_code == 0
    (row,) = pq.read_table(tmp_path / "tables" / "runs.parquet").to_pylist()
    assert row["model"] == "claude-opus-4-6"
    assert (row["cache_read_tokens"], row["cache_creation_tokens"]) == (11515, 13835)
    assert row["total_tokens"] == row["input_tokens"] + row["output_tokens"]


def test_a_record_larger_than_the_other_commands_read_is_a_rejected_run(tmp_path: Path) -> None:
    """What import writes, validate and stats read: a run whose record is larger than the
    record limit they share is refused with its size (it was written, then refused by the
    next command of README's own path), and the runs beside it are still written."""
    out = tmp_path / "runs.jsonl"
    folder = LOGS / "claude-session"
    result = invoke(
        "import", str(folder), "--to", "atif", "--max-record-size", "20000", "-o", str(out)
    )
    assert result.exit_code == 1
    assert "larger than the maximum record size (20,000 bytes; --max-record-size)" in result.stderr
    written = out.read_bytes().splitlines()
    assert written
    assert all(len(line) <= 20_000 for line in written)
    assert "2 written as atif, 2 rejected" in result.stderr
    read_back = CliRunner().invoke(main, ["validate", "--max-record-size", "20000", str(out)])
    assert read_back.exit_code == 0, read_back.output


def test_files_of_a_folder_no_harness_wrote_are_no_runs_whatever_their_place(
    tmp_path: Path,
) -> None:
    """Files are recognized in the workers: a file no harness wrote is no run (not a
    rejection), wherever it sits among the sessions, and the runs come in path order."""
    sample = LOGS / "claude-session" / "spotter-short.jsonl"
    folder = tmp_path / "projects"
    for index, name in enumerate(["a", "b", "c", "d", "e", "f"]):
        target = folder / f"p{index % 2}" / f"{name}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        if name in {"b", "e"}:
            target.write_text("not a session\n")
        else:
            target.write_text(sample.read_text().replace("spotter", f"spotter-{name}"))
    out = tmp_path / "out.jsonl"
    for jobs in ("1", "2"):
        done = invoke("import", "-q", "-j", jobs, str(folder), "--to", "agentrun", "-o", str(out))
        assert done.exit_code == 0, done.output
        assert "4 runs from 1 input: 4 written as agentrun, 0 rejected" in done.output
        assert len(out.read_text().splitlines()) == 4


def test_a_folder_whose_files_no_harness_wrote_is_rejected_as_what_it_is(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    (folder / "deep").mkdir(parents=True)
    (folder / "a.txt").write_text("hello\n")
    (folder / "deep" / "b.jsonl").write_text('{"not": "a session"}\n')
    done = invoke("import", str(folder), "-o", str(tmp_path / "out.jsonl"))
    assert done.exit_code == 1
    assert "a folder with no session of a known harness in it" in done.output
    assert "1 run from 1 input: 0 written as atif, 1 rejected" in done.output
