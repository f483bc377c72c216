"""``agentruns import``: transcripts in, validated records out, with what is missing named."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from agentruns.cli import main
from agentruns.models import CortexRunJournal
from agentruns.transcripts import HARNESSES, read
from tests._fields import optional_text_field

SAMPLES = Path(__file__).parent / "fixtures" / "upstream" / "eval-magic" / "transcripts"
CLAUDE = SAMPLES / "claude-code" / "record-runs-one-tool.jsonl"
CODEX = SAMPLES / "codex" / "full-summary.jsonl"
PORTABLE_VALUES = [
    "--set",
    "eval_id=eval-7",
    "--set",
    "condition=with_skill",
    "--set",
    "skill_path=null",
    "--set",
    "prompt=Fix the date.",
    "--set",
    "files=[]",
]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_import_writes_a_record_from_a_transcript_and_the_values_given() -> None:
    result = invoke("import", str(CLAUDE), "--to", "portable", *PORTABLE_VALUES)
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["eval_id"] == "eval-7"
    assert record["skill_path"] is None
    assert record["files"] == []
    assert record["final_message"] == "Closing summary from claude -p."
    assert record["tool_invocations"] == [
        {"name": "Bash", "args": {"command": "bun test"}, "result": "ok", "ordinal": 0}
    ]
    assert record["total_tokens"] == 125
    assert record["duration_ms"] == 30000


def test_a_value_import_asks_for_is_never_said_to_be_made_up() -> None:
    """The writer's reason for a made-up value ("the run id is used") is not what an import
    does: it writes none, and asks for it."""
    result = invoke("import", str(CLAUDE), "--to", "portable")
    assert result.exit_code == 1
    asked = [line for line in result.stderr.splitlines() if "--set " in line]
    assert any("/eval_id:" in line for line in asked)
    for line in asked:
        assert " is used" not in line, line
        assert "the source has none" not in line, line


def test_import_names_every_required_value_the_transcript_does_not_give() -> None:
    result = invoke("import", str(CLAUDE), "--to", "portable", "--set", "eval_id=e")
    assert result.exit_code == 1
    assert result.stdout == ""
    for name in ("condition", "skill_path", "prompt", "files"):
        assert f"--set {name}=" in result.stderr
    assert "--set eval_id=" not in result.stderr


def test_set_reads_a_value_as_json_when_it_parses_and_as_text_otherwise() -> None:
    text = optional_text_field(CortexRunJournal, but=("run_id", "kind", "agent_id"))
    values = ["--set", "kind=implement", "--set", f"/{text}=42 apples"]
    result = invoke("import", str(CODEX), "--to", "cortex", *values)
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["kind"] == "implement"
    assert record[text] == "42 apples"
    bad = invoke("import", str(CODEX), "--to", "cortex", "--set", "kind=7")
    assert bad.exit_code == 1
    assert "/kind" in bad.stderr


def test_a_sidecar_gives_values_and_set_wins_over_it(tmp_path: Path) -> None:
    sidecar = tmp_path / "values.json"
    sidecar.write_text(json.dumps({"agent_id": "from-file", "goal": "Fix it."}))
    args = ["import", str(CODEX), "--to", "agentrun", "--sidecar", str(sidecar)]
    result = invoke(*args, "--set", "agent_id=from-set")
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["agent_id"] == "from-set"
    assert record["goal"] == "Fix it."
    assert record["framework"] == "codex"
    assert record["run_id"] == "thread-codex-1"


def test_losses_name_what_the_target_format_cannot_hold(tmp_path: Path) -> None:
    losses = tmp_path / "losses.jsonl"
    args = ["--set", "eval_id=e", "--set", "prompt=p", "--losses", str(losses)]
    args += ["--set", "condition=c", "--set", "run_index=1", "--set", "files=[]"]
    args += ["--set", "skill_path=null", "--set", "final_message=m"]
    result = invoke("import", str(CODEX), "--to", "portable", *args)
    assert result.exit_code == 0, result.output
    report = json.loads(losses.read_text())
    assert {loss["pointer"] for loss in report["losses"]} >= {"/cache_read_tokens", "/run_id"}


def test_what_a_format_has_no_field_for_is_carried_where_it_can_carry(tmp_path: Path) -> None:
    from agentruns import to_canonical
    from agentruns.models import AgentRun

    losses = tmp_path / "losses.jsonl"
    args = ["--set", "agent_id=a", "--set", "goal=g", "--losses", str(losses)]
    result = invoke("import", str(CODEX), "--to", "agentrun", *args)
    assert result.exit_code == 0, result.output
    report = json.loads(losses.read_text())
    pointers = [loss["pointer"] for loss in report["losses"]]
    assert pointers  # the steps' outputs that are not objects, their absent indexes
    assert all(re.fullmatch(r"/steps/\d+/(output|index)", pointer) for pointer in pointers)
    run = to_canonical(AgentRun.model_validate_json(result.stdout))
    assert (run.total_tokens, run.cache_read_tokens, run.run_id) == (120, 75, "thread-codex-1")


def test_a_transcript_cut_short_is_a_failed_run_with_its_reason_and_exit_1() -> None:
    cut = SAMPLES / "claude-code" / "no-result-event.jsonl"
    values = [
        "--set",
        "kind=implement",
        "--set",
        "run_id=r",
        "--set",
        "started_at=2026-01-01T00:00:00Z",
    ]
    result = invoke("import", str(cut), "--to", "cortex", *values)
    assert result.exit_code == 1
    record = json.loads(result.stdout)
    assert record["status"] == "failed"
    own = [event for event in record["events"] if event["type"] != "x-agentruns-carry"]
    assert own[-1]["type"] == "error"
    assert "without Claude Code's closing result event" in own[-1]["message"]
    assert "with problems" in result.stderr


def test_several_transcripts_are_the_rounds_of_one_run_and_each_makes_one_run_each() -> None:
    folder = SAMPLES / "codex"
    turns = [str(folder / f"multiturn-scripted.turn-{n}.jsonl") for n in (1, 2, 3)]
    one = invoke("import", *turns, "--to", "agentrun", "--set", "agent_id=a", "--set", "goal=g")
    assert one.exit_code == 0, one.output
    assert json.loads(one.stdout)["result"]["summary"] == "Updated the date handling."
    each = invoke(
        "import", "--each", *turns, "--to", "agentrun", "--set", "agent_id=a", "--set", "goal=g"
    )
    assert each.exit_code == 0, each.output
    assert len(each.stdout.splitlines()) == 3


def test_codex_denials_come_from_the_sibling_stderr_log(tmp_path: Path) -> None:
    folder = SAMPLES / "codex"
    for name in ("permission-denial-events.jsonl", "permission-denial-stderr.log"):
        shutil.copy(folder / name, tmp_path / name)
    values = ["--set", "agent_id=a", "--set", "goal=g"]
    result = invoke(
        "import", str(tmp_path / "permission-denial-events.jsonl"), "--to", "agentrun", *values
    )
    assert result.exit_code == 0, result.output
    denials = json.loads(result.stdout)["permission_denials"]
    assert denials == [
        {"tool": "Bash", "reason": "This command requires approval", "input_keys": ["command"]}
    ]


def test_an_unknown_harness_is_a_usage_error_naming_the_choices() -> None:
    result = invoke("import", str(CODEX), "--harness", "vim", "--to", "portable")
    assert result.exit_code == 2
    assert ", ".join((*HARNESSES, "auto")) in result.stderr


def test_a_descriptor_file_is_a_harness(tmp_path: Path) -> None:
    descriptor = (
        Path(__file__).parent
        / "fixtures"
        / "upstream"
        / "eval-magic"
        / "declarative"
        / "codex.toml"
    )
    run = read(CODEX, str(descriptor))
    assert run.run_id == "thread-codex-1"
    assert run.total_tokens == 45


def test_the_python_api_returns_the_canonical_run() -> None:
    run = read(CLAUDE, harness="claude-code")
    assert run.status == "completed"
    assert run.final_message == "Closing summary from claude -p."
    assert run.framework == "claude-code"


def test_import_never_overwrites_its_input(tmp_path: Path) -> None:
    copy = tmp_path / "t.jsonl"
    shutil.copy(CLAUDE, copy)
    result = invoke("import", str(copy), "--to", "portable", "-o", str(copy), *PORTABLE_VALUES)
    assert result.exit_code == 2
    assert copy.read_bytes() == CLAUDE.read_bytes()


def test_a_value_given_is_what_derived_values_rest_on() -> None:
    # Claude Code's stream has no times: cortex dates each event by the run's start, which
    # here only the user gives
    cut = SAMPLES / "claude-code" / "result-event-summary.jsonl"
    start = "2026-08-21T09:00:00Z"
    values = ["--set", "kind=implement", "--set", f"started_at={start}"]
    result = invoke("import", str(cut), "--to", "cortex", *values)
    assert result.exit_code == 0, result.output
    events = json.loads(result.stdout)["events"]
    assert events
    assert {event["at"] for event in events} == {start}


def test_one_transcript_that_cannot_be_read_costs_only_its_own_run(tmp_path: Path) -> None:
    unknown = tmp_path / "notes.jsonl"
    unknown.write_text('{"hello": "world"}\n')
    values = ["--set", "agent_id=a", "--set", "goal=g"]
    result = invoke("import", "--each", str(unknown), str(CODEX), "--to", "agentrun", *values)
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == 1  # the Codex run
    assert "no event of a known harness" in result.stderr
    assert "1 written as agentrun, 1 rejected" in result.stderr


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        ("notes.jsonl", b"\xff\xfe not text\n", "line 1: not a JSON event, skipped: invalid UTF-8"),
        ("runs.jsonl.gz", b"not gzip at all\n", "compressed input broken here: not a valid gzip"),
        ("runs.jsonl", b"[1, 2\n", "line 1: not a JSON document"),
    ],
)
def test_a_file_no_harness_is_recognized_in_says_what_was_wrong_with_its_lines(
    name: str, data: bytes, said: str, tmp_path: Path
) -> None:
    """Not only that no event told the harness: why (the first problem of its lines), before
    the way out (--harness)."""
    path = tmp_path / name
    path.write_bytes(data)
    result = invoke("import", str(path), "--to", "atif")
    assert result.exit_code == 1
    assert "no event of a known harness" in result.stderr
    assert said in result.stderr
    assert "--harness" in result.stderr


def test_a_missing_file_or_a_folder_is_an_error_naming_it_not_a_traceback(tmp_path: Path) -> None:
    for given in (tmp_path / "missing.jsonl", tmp_path):
        for harness in ("auto", "codex"):
            result = invoke("import", str(given), "--harness", harness, "--to", "portable")
            assert result.exit_code == 1
            assert str(given) in result.stderr
            assert "0 written as portable, 1 rejected" in result.stderr


def test_a_transcript_on_standard_input_is_read_whole_after_recognizing_its_harness() -> None:
    values = ["--set", "agent_id=a", "--set", "goal=g"]
    result = CliRunner().invoke(
        main, ["import", "-", "--to", "agentrun", *values], input=CODEX.read_bytes()
    )
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["run_id"] == "thread-codex-1"
    assert record["framework"] == "codex"
    assert [s["name"] for s in record["steps"] if s["type"] == "tool_call"] == ["command_execution"]


def test_import_run_is_the_command_without_click(tmp_path: Path) -> None:
    from agentruns.transcripts import import_run

    session = (
        Path(__file__).parent / "fixtures/upstream/agent-logs/claude-session/spotter-subagent.jsonl"
    )
    done = import_run([str(session)], "atif")
    assert done.record is not None
    assert done.report is not None
    assert json.loads(done.report)["file"] == [str(session)]
    missing = import_run([str(tmp_path / "nope.jsonl")], "agentrun")
    assert missing.record is None
    assert missing.error
    assert json.loads(missing.rejected)["line"] == 0


LOGS = Path(__file__).parent / "fixtures" / "upstream" / "agent-logs"


def test_session_files_given_together_are_a_run_each_as_a_glob_gives_them() -> None:
    """A shell glob over a folder of sessions: each kept session is a run of its own (its own
    id, its own time), never rounds merged into one."""
    files = sorted(str(p) for p in (LOGS / "claude-session").glob("*.jsonl"))
    done = invoke("import", *files, "--to", "atif")
    assert done.exit_code in (0, 1), done.output
    made = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(made) == len(files) == 4
    assert len({run["session_id"] for run in made}) == 4


def test_sessions_of_different_harnesses_given_together_are_each_read_by_its_own() -> None:
    files = [
        str(sorted((LOGS / "claude-session").glob("*.jsonl"))[0]),
        str(sorted((LOGS / "codex-rollout").glob("*.jsonl"))[0]),
    ]
    done = invoke("import", *files, "--to", "atif")
    assert done.exit_code in (0, 1), done.output
    made = [json.loads(line) for line in done.stdout.splitlines()]
    assert [run["agent"]["name"] for run in made] == ["claude-code", "codex"]


def test_a_named_pipe_is_not_read_to_decide_whether_inputs_are_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Process substitution gives pipes, which are read once: recognizing whether the inputs
    are sessions looks only at regular files."""
    import os

    import agentruns.transcripts as readers
    from agentruns.cli._sessions import _sessions_among

    pipe = tmp_path / "turn"
    os.mkfifo(pipe)
    looked: list[str] = []
    real = readers.detect

    def detect(path: str) -> str:
        looked.append(path)
        return real(path)

    monkeypatch.setattr(readers, "detect", detect)
    turn = str(SAMPLES / "codex" / "multiturn-scripted.turn-1.jsonl")
    assert _sessions_among((turn, str(pipe)), "auto") is False
    assert looked == [turn]


def test_a_broken_archive_beside_a_session_costs_only_its_own_run(tmp_path: Path) -> None:
    fake = tmp_path / "capture.jsonl.gz"
    fake.write_bytes(b"not gzip at all\n")
    good = str(sorted((LOGS / "claude-session").glob("*.jsonl"))[0])
    for inputs in ([str(fake), good], [str(fake)]):
        done = CliRunner().invoke(main, ["import", *inputs, "--to", "atif"])
        assert done.exit_code == 1, done.output
        assert "Traceback" not in done.output
        assert len(done.stdout.splitlines()) == len(inputs) - 1
        said = [line for line in done.stderr.splitlines() if "capture.jsonl.gz" in line]
        assert said
        assert all(line.count(str(fake)) == 1 for line in said)  # the path once, not twice


@pytest.mark.parametrize("fmt", ["agentrun", "atif", "cortex", "portable"])
@pytest.mark.parametrize("layout", ["json", "jsonl"])
def test_a_file_of_run_records_given_to_import_is_named_as_records(
    fmt: str, layout: str, tmp_path: Path
) -> None:
    """Run records given where a session is expected: what they are and the command that
    reads them, not only that no harness's event was found."""
    record = json.loads((Path(__file__).parent / "fixtures" / f"{fmt}.min.json").read_text())
    path = tmp_path / f"runs.{layout}"
    path.write_text(json.dumps(record, indent=2 if layout == "json" else None) + "\n")
    result = invoke("import", str(path), "--to", "atif")
    assert result.exit_code == 1
    assert f"{fmt} run records, not a session: `agentruns convert` converts them" in result.stderr
    assert "--harness" in result.stderr
