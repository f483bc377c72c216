"""A value nested deeper than a format's models validate is left out of the record and
reported lost at its own place; the run is written and its record validates. Every target,
depths on both sides of pydantic-core's guard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentruns.cli import main
from agentruns_generated._json import JsonValue


def _nested(depth: int) -> JsonValue:
    value: JsonValue = "x"
    for _ in range(depth):
        value = {"a": value}
    return value


def _codex_stream(path: Path, depth: int) -> Path:
    call: dict[str, JsonValue] = {
        "id": "i1",
        "type": "mcp_tool_call",
        "server": "s",
        "tool": "t",
        "arguments": _nested(depth),
        "result": {"content": []},
        "status": "completed",
    }
    lines: list[JsonValue] = [
        {"type": "thread.started", "thread_id": "t1"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": call},
        {"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 5}},
    ]
    # (json.dumps of a deep value needs the recursion room pydantic-core's parser does not)
    path.write_text("\n".join(_dumps(line) for line in lines) + "\n")
    return path


def _dumps(value: JsonValue) -> str:
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 5000))
    try:
        return json.dumps(value)
    finally:
        sys.setrecursionlimit(limit)


def _import(tmp_path: Path, to: str, depth: int) -> tuple[int, str, Path, list[JsonValue]]:
    stream = _codex_stream(tmp_path / "events.jsonl", depth)
    out, report = tmp_path / "run.json", tmp_path / "losses.jsonl"
    extra = ["--set", "eval_id=e", "--set", "condition=c", "--set", "files=[]"]
    extra += ["--set", "prompt=p", "--set", "skill_path=s"]
    extra = extra if to == "portable" else []
    command = ["import", str(stream), "--to", to, "-o", str(out), "--losses", str(report)]
    result = CliRunner().invoke(main, [*command, *extra])
    lines = report.read_text().splitlines() if report.exists() else []
    losses: list[JsonValue] = [loss for line in lines for loss in json.loads(line)["losses"]]
    return result.exit_code, result.output, out, losses


@pytest.mark.parametrize("depth", [120, 250, 256, 280, 400])
@pytest.mark.parametrize("to", ["agentrun", "atif", "cortex", "portable"])
def test_importing_a_deeply_nested_argument_writes_the_run_the_models_then_validate(
    tmp_path: Path, to: str, depth: int
) -> None:
    code, output, out, _ = _import(tmp_path, to, depth)
    assert code == 0, output
    valid = CliRunner().invoke(main, ["validate", str(out)])
    assert valid.exit_code == 0, valid.output


@pytest.mark.parametrize("depth", [256, 280, 400])
@pytest.mark.parametrize("to", ["agentrun", "atif", "cortex", "portable"])
def test_an_argument_too_deep_for_the_models_is_reported_lost_at_its_step(
    tmp_path: Path, to: str, depth: int
) -> None:
    _, _, _, losses = _import(tmp_path, to, depth)
    said = {loss["pointer"]: loss["reason"] for loss in losses if isinstance(loss, dict)}
    assert "/steps/0/input" in said, losses
    if to in ("agentrun", "cortex", "portable"):  # (ATIF keeps such a turn minimal)
        assert "nests 128 levels or more" in str(said["/steps/0/input"])


@pytest.mark.parametrize("depth", [120, 250])
@pytest.mark.parametrize("to", ["agentrun", "cortex", "portable"])
def test_an_argument_the_models_hold_is_not_lost(tmp_path: Path, to: str, depth: int) -> None:
    _, _, _, losses = _import(tmp_path, to, depth)
    assert all(isinstance(x, dict) and x["pointer"] != "/steps/0/input" for x in losses)


@pytest.mark.parametrize(
    ("to", "where"), [("agentrun", "/steps/0/input"), ("portable", "/tool_invocations/0/args")]
)
def test_from_canonical_refuses_a_run_whose_value_it_would_leave_out(
    tmp_path: Path, to: str, where: str
) -> None:
    """``from_canonical`` reports no losses, so a value too deep for the format is the run's
    refusal, naming its place, not a record written without it in silence."""
    from agentruns import from_canonical
    from agentruns.conversion import models_by_name
    from agentruns.errors import ConversionError
    from agentruns.transcripts import read

    run = read(str(_codex_stream(tmp_path / "events.jsonl", 280)), harness="codex")
    with pytest.raises(ConversionError, match=f"{where}: nested deeper than its models"):
        from_canonical(run, models_by_name()[to])
    shallow = read(str(_codex_stream(tmp_path / "shallow.jsonl", 20)), harness="codex")
    from_canonical(shallow, models_by_name()[to])  # held: written
