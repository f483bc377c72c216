"""mypy checks the mappers' every use of a generated field, reading and writing.

A copy of the project gets, in each schema, one field retyped and one removed; after
``generate`` mypy must name the line of the reader *and* the line of the writer that use
each, so an upstream change surfaces as type errors where the mapper must change, not as an
internal error at run time.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codegen.__main__ import main

ROOT = Path(__file__).resolve().parent.parent

# format module -> schema file, the field retyped (and its new schema) and the field removed
MUTATIONS: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "cortex": ("cortex-run-journal.schema.json", "updated_at", {"type": "integer"}, "branch"),
    "portable": ("portable-run-record.schema.json", "condition", {"type": "integer"}, "run_index"),
    "agentrun": ("agent-run.struct.json", "trace_url", {"type": "int32"}, "framework"),
}


def _mutate(schemas: Path, file: str, retyped: str, new: dict[str, Any], removed: str) -> None:
    path = schemas / file
    schema: dict[str, Any] = json.loads(path.read_text())
    schema["properties"][retyped] = new
    del schema["properties"][removed]
    schema["required"] = [name for name in schema.get("required", []) if name != removed]
    path.write_text(json.dumps(schema, indent=2))


def _spans(module: Path) -> dict[str, tuple[int, int]]:
    """Lines of the ``read`` and ``write`` methods of the module's format class."""
    spans: dict[str, tuple[int, int]] = {}
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.FunctionDef) and node.name in ("read", "write"):
            assert node.end_lineno is not None
            spans[node.name] = (node.lineno, node.end_lineno)
    return spans


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, int, str]]:
    tree = tmp_path_factory.mktemp("mutated")
    for part in ("schemas", "generated", "src"):
        shutil.copytree(ROOT / part, tree / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    for file, retyped, new, removed in MUTATIONS.values():
        _mutate(tree / "schemas", file, retyped, new, removed)
    assert (
        main(["generate", "--schemas", str(tree / "schemas"), "--out", str(tree / "generated")])
        == 0
    )
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tree / ".mypy_cache"), "src/agentruns"],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    found = re.findall(r"^src/agentruns/formats/(\w+)\.py:(\d+): error: (.*)$", done.stdout, re.M)
    return [(module, int(line), message) for module, line, message in found]


@pytest.mark.parametrize("kind", ["retyped", "removed"])
@pytest.mark.parametrize("method", ["read", "write"])
@pytest.mark.parametrize("module", sorted(MUTATIONS))
def test_mypy_names_the_mapper_line_that_uses_a_changed_field(
    mypy_errors: list[tuple[str, int, str]], module: str, method: str, kind: str
) -> None:
    _, retyped, _, removed = MUTATIONS[module]
    field = retyped if kind == "retyped" else removed
    path = ROOT / "src" / "agentruns" / "formats" / f"{module}.py"
    source = path.read_text().splitlines()
    first, last = _spans(path)[method]
    named = [
        (line, message)
        for where, line, message in mypy_errors
        if where == module
        and first <= line <= last
        and (f'"{field}"' in message or re.search(rf"\b{field}\b", source[line - 1]))
    ]
    assert named, f"mypy named no line of {module}.{method} that uses {field}: {mypy_errors}"
