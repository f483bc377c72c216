"""A fourth format added exactly the way docs/adapters.md says (its code is run from the doc,
and mypy --strict checks it as a module)."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest
from pydantic import BaseModel

from agentruns import AgentRun, CortexRunJournal, PortableRunRecord, convert

DOC = (Path(__file__).resolve().parent.parent / "docs" / "adapters.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", DOC, flags=re.DOTALL)


@pytest.fixture(scope="module")
def tasklog() -> types.ModuleType:
    module = types.ModuleType("tasklog_adapter")
    sys.modules[module.__name__] = module
    exec(compile(BLOCKS[0], "docs/adapters.md", "exec"), module.__dict__)
    return module


def test_the_docs_usage_example_runs(tasklog: types.ModuleType) -> None:
    namespace = dict(tasklog.__dict__)
    exec(compile(BLOCKS[1], "docs/adapters.md", "exec"), namespace)


@pytest.mark.parametrize("other", [PortableRunRecord, CortexRunJournal, AgentRun])
def test_a_registered_format_converts_to_and_from_every_other(
    tasklog: types.ModuleType, other: type[BaseModel]
) -> None:
    log = tasklog.TaskLog(
        id="t-1", task="Fix the build", done=True, calls=[tasklog.Call(tool="make")]
    )
    there = convert(log, other)
    assert isinstance(there.target, other)
    back = convert(there.target, tasklog.TaskLog)
    if not there.losses:
        assert back.target == log
    else:
        assert {loss.pointer for loss in there.losses} <= {"/id", "/task", "/done", "/calls"}


def test_a_registered_format_reports_what_it_cannot_hold(tasklog: types.ModuleType) -> None:
    run = AgentRun.model_validate(
        {"run_id": "r", "agent_id": "a", "goal": "g", "status": "failed", "framework": "x"}
    )
    result = convert(run, tasklog.TaskLog)
    # "failed" has no TaskLog word; and a TaskLog always lists calls, so it cannot say "no steps"
    assert {loss.pointer for loss in result.losses} == {
        "/agent_id",
        "/status",
        "/framework",
        "/steps",
    }
    assert any("cannot say that steps is absent" in loss.reason for loss in result.losses)


def test_an_adapter_offered_by_an_entry_point_reaches_the_command_line(
    tasklog: types.ModuleType,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import importlib
    import importlib.metadata
    import json

    from click.testing import CliRunner

    class Offered:
        name = "tasklog"

        @staticmethod
        def load() -> object:
            return tasklog.TaskLogFormat()

    class Broken:
        name = "broken"

        @staticmethod
        def load() -> object:
            raise ImportError("no module named nowhere")

    def entry_points(*, group: str) -> list[object]:
        return [Offered, Broken] if group == "agentruns.formats" else []

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    from agentruns.cli import _options, main

    options = importlib.reload(_options)  # plugins are looked for once per process
    assert "tasklog" in options._format_names()
    assert "format plugin 'broken' did not load" in capsys.readouterr().err
    source = Path(__file__).parent / "fixtures" / "portable.min.json"
    result = CliRunner().invoke(main, ["convert", "--to", "tasklog", str(source)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["task"]
    monkeypatch.undo()
    importlib.reload(_options)


def test_the_docs_adapter_type_checks(tmp_path: Path) -> None:
    import subprocess

    root = Path(__file__).resolve().parent.parent
    (tmp_path / "tasklog.py").write_text(BLOCKS[0])
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(root / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            str(tmp_path / "tasklog.py"),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_accepts_the_docs_adapter_as_a_module(tmp_path: Path) -> None:
    """The doc says mypy checks its example like the built-in formats: the blocks, as one
    module, pass ``mypy --strict`` with the project's settings (exec() alone never typed it)."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    module = tmp_path / "tasklog_adapter.py"
    module.write_text("\n".join(BLOCKS[:2]), encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(root / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            str(module),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=root,
    )
    assert done.returncode == 0, done.stdout + done.stderr
