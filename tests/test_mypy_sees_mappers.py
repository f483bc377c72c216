"""mypy checks the mappers' every use of a generated field, reading and writing.

A copy of the project gets, in each schema, one field retyped and one removed; after
``generate`` mypy must name the crosswalk row of each (the row is the field's reader and its
writer: its types are checked in both directions), so an upstream change surfaces as a type
error where the mapper must change, not as an internal error at run time. Without
``init_typed`` the constructor calls a table makes could not be trusted, so the plugin's
settings are checked too.
"""

from __future__ import annotations

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

FILES = {
    "cortex": "cortex-run-journal.schema.json",
    "portable": "portable-run-record.schema.json",
    "agentrun": "agent-run.struct.json",
}


def _mutations() -> dict[str, tuple[str, str, dict[str, Any], str]]:
    """Per format module: its schema file, the field retyped (and its new schema) and the field
    removed: two optional fields of the root that rows read, the retyped one a row that keeps
    the value as it is, both named by the tables (whatever fields a newer schema has)."""
    from agentruns.conversion import format_named

    found: dict[str, tuple[str, str, dict[str, Any], str]] = {}
    for module, file in FILES.items():
        schema = json.loads((ROOT / "schemas" / file).read_text())
        table = format_named(module).crosswalk
        assert table is not None
        source = (ROOT / "src" / "agentruns" / "formats" / f"{module}.py").read_text()
        rows = [
            row
            for row in table.rows
            if row.target is not None
            and row.table is None
            and not row.whole
            and row.as_extra is None
            and row.field in schema["properties"]
            and row.field not in schema.get("required", [])
            and source.count(f"lambda r: r.{row.field})") == 1
        ]
        retyped = next(row for row in rows if row.as_it_is)
        removed = next(row for row in rows if row is not retyped)
        was = json.dumps(schema["properties"][retyped.field])
        integer = "int32" if file.endswith(".struct.json") else "integer"
        new = {"type": "string" if integer in was else integer}
        found[module] = (file, retyped.field, new, removed.field)
    return found


MUTATIONS = _mutations()


def _mutate(schemas: Path, file: str, retyped: str, new: dict[str, Any], removed: str) -> None:
    path = schemas / file
    schema: dict[str, Any] = json.loads(path.read_text())
    schema["properties"][retyped] = new
    del schema["properties"][removed]
    schema["required"] = [name for name in schema.get("required", []) if name != removed]
    path.write_text(json.dumps(schema, indent=2))


def _row_line(module: Path, field: str) -> int:
    """The line of the crosswalk row of ``field`` (its accessor ``lambda r: r.<field>``)."""
    lines = module.read_text().splitlines()
    (found,) = [n for n, text in enumerate(lines, 1) if f"lambda r: r.{field})" in text]
    return found


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
@pytest.mark.parametrize("module", sorted(MUTATIONS))
def test_mypy_names_the_crosswalk_row_of_a_changed_field(
    mypy_errors: list[tuple[str, int, str]], module: str, kind: str
) -> None:
    _, retyped, _, removed = MUTATIONS[module]
    field = retyped if kind == "retyped" else removed
    row = _row_line(ROOT / "src" / "agentruns" / "formats" / f"{module}.py", field)
    named = [message for where, line, message in mypy_errors if (where, line) == (module, row)]
    assert named, f"mypy named no error on the row of {field} ({module}.py:{row}): {mypy_errors}"


def test_mypy_names_nothing_but_the_changed_rows(mypy_errors: list[tuple[str, int, str]]) -> None:
    rows = {
        (module, _row_line(ROOT / "src" / "agentruns" / "formats" / f"{module}.py", name))
        for module, (_, retyped, _, removed) in MUTATIONS.items()
        for name in (retyped, removed)
    }
    assert {(where, line) for where, line, _ in mypy_errors} == rows


def test_the_plugin_checks_constructor_keywords() -> None:
    import tomllib

    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pydantic-mypy"]
    assert settings == {"init_typed": True, "init_forbid_extra": True}
