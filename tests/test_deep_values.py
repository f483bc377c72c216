"""A value nested deeper than a format's models validate is the run's refusal, named with
its place, never a crash: every target, depths on both sides of pydantic-core's guard."""

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


@pytest.mark.parametrize("depth", [120, 250, 280, 400])
@pytest.mark.parametrize("to", ["agentrun", "atif", "cortex", "portable"])
def test_importing_a_deeply_nested_argument_writes_the_run_or_refuses_it(
    tmp_path: Path, to: str, depth: int
) -> None:
    stream = _codex_stream(tmp_path / "events.jsonl", depth)
    out = tmp_path / "run.json"
    extra = ["--set", "eval_id=e", "--set", "condition=c", "--set", "files=[]"]
    extra += ["--set", "prompt=p", "--set", "skill_path=s"]
    extra = extra if to == "portable" else []
    result = CliRunner().invoke(main, ["import", str(stream), "--to", to, "-o", str(out), *extra])
    assert result.exit_code in (0, 1), result.output
    if result.exit_code == 1:
        assert "cannot hold" in result.output
        assert "0 written" in result.output
    else:
        assert out.stat().st_size > 0
