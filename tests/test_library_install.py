"""A library install has no terminal libraries: the models, conversions, readers and stats
work without click and rich (the ``cli`` extra), and the command then says what to install.

Each check runs in a fresh interpreter in which importing click or rich fails, as it does
where they are not installed."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
SESSION = FIXTURES / "upstream" / "agent-logs" / "claude-session" / "spotter-short.jsonl"

_WITHOUT = """
import importlib.abc, sys

class _NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("click", "rich"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NotInstalled())
"""


def _without_terminal_libraries(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT + code],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        timeout=300,
    )


def test_the_library_works_without_the_commands_libraries() -> None:
    done = _without_terminal_libraries(
        f"""
import agentruns
from agentruns import convert, to_canonical
from agentruns.models import AgentRun, PortableRunRecord
from agentruns import batch, conversion, engine, io, otlp, stats, transcripts
record = PortableRunRecord.model_validate_json(open({str(FIXTURES / "portable.min.json")!r}).read())
converted = convert(record, AgentRun)
assert isinstance(converted.target, AgentRun)
run = transcripts.read({str(SESSION)!r})
assert run.steps
stats.RunStats().add(stats.RunFacts.of(to_canonical(converted.target), "agentrun"))
assert not [name for name in sys.modules if name.split(".")[0] in ("click", "rich")]
print("ok")
"""
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_command_without_its_libraries_names_the_extra_to_install() -> None:
    done = _without_terminal_libraries("from agentruns._command import run; run()")
    assert done.returncode == 2
    assert "pip install 'agentruns[cli]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_cli_extra_is_what_the_command_imports_and_the_library_needs_neither() -> None:
    from agentruns._command import EXTRA, LIBRARIES

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extra = project["optional-dependencies"][EXTRA]
    assert sorted(spec.split(">")[0].split("=")[0] for spec in extra) == sorted(LIBRARIES)
    required = {spec.split(">")[0].split("=")[0].split("<")[0] for spec in project["dependencies"]}
    assert not required & set(LIBRARIES)
    assert project["scripts"]["agentruns"] == "agentruns._command:run"
