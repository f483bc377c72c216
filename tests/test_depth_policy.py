"""One depth policy: a record the models validate is followed by every command and by the
library, however deep its subagents nest; past the models' guard every command refuses it as
``validate`` does. Never a ``RecursionError``, never exit 70."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentruns.cli import main
from agentruns_generated._json import JsonValue

FIXTURE = Path(__file__).parent / "fixtures" / "atif.min.json"

GUARD = 251
"""The deepest subagent nesting the ATIF model validates (pydantic-core's guard)."""


def _trajectory(levels: int) -> dict[str, JsonValue]:
    """The fixture trajectory with its subagent holding a subagent, ``levels`` deep, each
    linked from its parent's task call."""
    base = json.loads(FIXTURE.read_text())
    root: dict[str, JsonValue] = copy.deepcopy(base)
    current: Any = root  # the JSON as read: indexed freely
    for level in range(levels):
        sub = current["subagent_trajectories"][0]
        child = copy.deepcopy(base)
        del child["session_id"]
        ref = child["steps"][2]["observation"]["results"][1]["subagent_trajectory_ref"][0]
        ref["trajectory_id"] = f"sub-{level + 3}"
        child["subagent_trajectories"][0]["trajectory_id"] = f"sub-{level + 3}"
        sub.update({key: value for key, value in child.items() if key != "trajectory_id"})
        current = sub
    return root


def _write(path: Path, value: JsonValue) -> Path:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))  # json.dumps recurses per level
    try:
        path.write_text(json.dumps(value))
    finally:
        sys.setrecursionlimit(limit)
    return path


def _read(path: Path) -> JsonValue:
    """The document as ``validate`` reads it (pydantic's own JSON parser stops past 201 levels
    of nesting, before the models' guard)."""
    value: JsonValue = json.loads(path.read_text())
    return value


COMMANDS = {
    "validate": ["validate"],
    "convert to agentrun": ["convert", "--to", "agentrun"],
    "convert to cortex": ["convert", "--to", "cortex"],
    "convert to portable": ["convert", "--to", "portable"],
    "stats": ["stats"],
    "show": ["show"],
    "export otlp": ["export", "--to", "otlp", "-o", "{out}/spans.json"],
}


@pytest.fixture(scope="module")
def deep_files(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("deep")
    return {
        levels: _write(folder / f"deep{levels}.json", _trajectory(levels))
        for levels in (1, 150, 200, GUARD, GUARD + 1)
    }


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("levels", [1, 150, 200, GUARD])
def test_a_record_the_models_validate_is_followed_by_every_command(
    deep_files: dict[int, Path], tmp_path: Path, command: str, levels: int
) -> None:
    args = [part.format(out=tmp_path) for part in COMMANDS[command]]
    result = CliRunner().invoke(main, [*args, str(deep_files[levels])])
    assert result.exit_code == 0, result.output
    assert "rejected: " not in result.output


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_past_the_models_guard_every_command_refuses_the_record_as_validate_does(
    deep_files: dict[int, Path], tmp_path: Path, command: str
) -> None:
    args = [part.format(out=tmp_path) for part in COMMANDS[command]]
    result = CliRunner().invoke(main, [*args, str(deep_files[GUARD + 1])])
    assert result.exit_code == 1, result.output
    assert "subagent_trajectories/0/subagent_trajectories/0" in result.output
    assert "nested too deep to validate" in result.output
    assert "internal error" not in result.output


def test_subagents_too_deep_to_carry_are_one_loss_and_the_record_still_serializes(
    deep_files: dict[int, Path],
) -> None:
    from agentruns import AgentRun, AtifTrajectory, convert

    record = AtifTrajectory.model_validate(_read(deep_files[150]))
    conversion = convert(record, AgentRun)
    assert conversion.target.model_dump_json()
    assert [loss.pointer for loss in conversion.losses] == ["/subagent_trajectories"]
    assert "it nests too deep to be carried" in conversion.losses[0].reason


def test_shallow_subagents_are_still_carried_whole(deep_files: dict[int, Path]) -> None:
    from agentruns import AgentRun, AtifTrajectory, convert, to_canonical

    record = AtifTrajectory.model_validate(_read(deep_files[1]))
    conversion = convert(record, AgentRun)
    assert conversion.losses == ()
    assert to_canonical(conversion.target).subagents == to_canonical(record).subagents


def test_the_library_follows_a_deep_record_at_pythons_default_recursion_limit(
    deep_files: dict[int, Path],
) -> None:
    script = (
        "import json, sys; assert sys.getrecursionlimit() == 1000\n"
        "from agentruns import AtifTrajectory, convert, to_canonical\n"
        f"text = open({str(deep_files[GUARD])!r}).read()\n"
        "record = AtifTrajectory.model_validate(json.loads(text))\n"
        "run = to_canonical(record)\n"
        "for to in ('agentrun', 'cortex', 'portable'):\n"
        "    convert(record, to).target.model_dump_json()\n"
        "print('followed')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "followed"
