"""What a format requires and a session does not state is derived from the session (reported
as derived, with the reason), so a folder of sessions imports into every format without
``--set``; portable asks only for an eval's own values; ``--set`` fills what is missing and
never replaces what the session holds unless ``--override``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from agentruns.cli import main
from agentruns.detect import MODELS
from tests.test_session_import import LOGS

SESSION = LOGS / "claude-session" / "spotter-short.jsonl"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("to", ["agentrun", "cortex", "atif"])
def test_every_sample_session_imports_with_no_value_given(tmp_path: Path, to: str) -> None:
    out = tmp_path / "runs.jsonl"
    result = invoke("import", str(LOGS), "--to", to, "-o", str(out))
    assert ": 19 written as " + to + ", 0 rejected" in result.stderr, result.stderr
    lines = out.read_bytes().splitlines()
    assert len(lines) == 19
    for line in lines:
        MODELS[to].model_validate_json(line)  # each a valid record of its format


def test_portable_asks_only_for_an_evals_own_values(tmp_path: Path) -> None:
    result = invoke("import", str(LOGS), "--to", "portable", "-o", str(tmp_path / "x.jsonl"))
    asked = {
        name.strip()
        for line in result.stderr.splitlines()
        if "needs values" in line
        for name in line.split("does not give: ")[-1].split(" (")[0].split(",")
    }
    assert asked <= {"eval_id", "condition", "skill_path", "prompt", "files"}
    given = ["--set", "eval_id=e", "--set", "condition=c", "--set", "skill_path=null"]
    given += ["--set", "files=[]", "--set", "prompt=p"]
    out = tmp_path / "runs.jsonl"
    result = invoke("import", str(LOGS), "--to", "portable", "-o", str(out), *given)
    assert "19 written as portable, 0 rejected" in result.stderr, result.stderr


def test_a_derived_value_is_reported_with_its_reason(tmp_path: Path) -> None:
    losses = tmp_path / "losses.jsonl"
    out = tmp_path / "run.json"
    result = invoke(
        "import", str(SESSION), "--to", "agentrun", "-o", str(out), "--losses", str(losses)
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(losses.read_text())
    derived = {entry["pointer"]: entry for entry in report["derived"]}
    assert derived["/agent_id"]["value"] == "claude-code"
    assert "harness" in derived["/agent_id"]["reason"]
    assert json.loads(out.read_text())["agent_id"] == "claude-code"


def test_a_run_id_given_for_many_runs_is_refused(tmp_path: Path) -> None:
    result = invoke("import", str(LOGS), "--to", "agentrun", "--set", "run_id=unknown")
    assert result.exit_code == 2
    assert "every run the one id" in result.stderr


def test_a_given_value_the_session_holds_is_kept_unless_override(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    shutil.copy(SESSION, session)
    own = "55604662-cf2a-4331-851a-ec234028f8ca"  # the session's own id, in every entry
    assert own in session.read_text()
    kept = invoke("import", str(session), "--to", "agentrun", "--set", "run_id=mine")
    assert json.loads(kept.stdout)["run_id"] == own
    assert "the session holds run_id: kept (--override replaces it)" in kept.stderr
    replaced = invoke(
        "import", str(session), "--to", "agentrun", "--set", "run_id=mine", "--override"
    )
    assert json.loads(replaced.stdout)["run_id"] == "mine"


def test_a_value_the_session_lacks_is_filled_by_set(tmp_path: Path) -> None:
    out = invoke("import", str(SESSION), "--to", "agentrun", "--set", "agent_id=my-bot")
    assert json.loads(out.stdout)["agent_id"] == "my-bot"


def test_import_writes_atif_when_no_format_is_named() -> None:
    result = invoke("import", str(SESSION))
    assert result.exit_code == 0, result.stderr
    MODELS["atif"].model_validate_json(result.stdout)


def _tools(stats_json: str) -> tuple[dict[str, int], dict[str, int]]:
    """The most used and the most failing tools of a stats report."""
    shown = json.loads(stats_json)
    return (
        {entry["name"]: entry["count"] for entry in shown["most_used_tools"]},
        {entry["name"]: entry["count"] for entry in shown["most_failing_tools"]},
    )


@pytest.mark.parametrize("to", ["agentrun", "atif", "cortex"])
def test_a_failing_tool_survives_import_as_the_folder_shows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, to: str
) -> None:
    """A journal too: a tool call is an event named after its tool, with its kind, status and
    error kept in the event's own properties (it was an event like any other: no tools)."""
    monkeypatch.setenv("AGENTRUNS_CACHE_DIR", str(tmp_path / "cache"))
    folder = LOGS / "codex-exec-json"
    direct = _tools(invoke("stats", "--output-format", "json", "--no-cache", str(folder)).stdout)
    assert direct[1]  # these sessions hold failed calls
    out = tmp_path / "runs.jsonl"
    invoke("import", str(folder), "--to", to, "-o", str(out))
    assert _tools(invoke("stats", "--output-format", "json", str(out)).stdout) == direct


@pytest.mark.parametrize("to", ["agentrun", "cortex"])
def test_what_a_target_cannot_hold_of_a_step_is_reported_at_that_value(
    tmp_path: Path, to: str
) -> None:
    """Each lost value of a step at its own pointer (``/steps/3/output``), never one line for
    all the steps; and every value not reported comes back as it was."""
    from agentruns import to_canonical
    from agentruns.transcripts import read

    losses = tmp_path / "losses.jsonl"
    out = tmp_path / "run.json"
    result = invoke("import", str(SESSION), "--to", to, "-o", str(out), "--losses", str(losses))
    assert result.exit_code == 0, result.stderr
    pointers = {loss["pointer"] for loss in json.loads(losses.read_text())["losses"]}
    assert "/steps" not in pointers
    run = read(SESSION)
    back = to_canonical(MODELS[to].model_validate_json(out.read_text()))
    assert isinstance(run.steps, tuple)
    assert isinstance(back.steps, tuple)
    for index, (step, kept) in enumerate(zip(run.steps, back.steps, strict=True)):
        for name in ("kind", "name", "input", "output", "status", "message", "call_id"):
            if f"/steps/{index}/{name}" not in pointers:
                assert getattr(kept, name) == getattr(step, name), (index, name)


def test_a_steps_own_extra_property_of_another_type_stays_the_records_own() -> None:
    from agentruns import convert
    from agentruns.models import AgentRun

    record = AgentRun.model_validate(
        {
            "run_id": "r",
            "agent_id": "a",
            "goal": "g",
            "status": "completed",
            "steps": [{"index": 0, "type": "tool_call", "status": 5, "call_id": "c-1"}],
        }
    )
    to_cortex = convert(record, "cortex")
    back = convert(to_cortex.target, AgentRun)
    assert back.target == record
    step = record.steps[0] if isinstance(record.steps, list) else None
    assert step is not None
    assert step.model_extra == {"status": 5, "call_id": "c-1"}
