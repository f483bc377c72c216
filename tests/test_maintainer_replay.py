"""README's "When a schema changes", replayed on a copy of the project: upstream adds a field to
the cortex journal, renames one, retypes one and removes one. Following the steps alone (the
report of ``codegen changes``, ``generate``, the rows mypy names, the row kinds README gives
for a field no canonical field means, the samples the report names refreshed, the document
rewritten), mypy is clean and the tests that read the journal pass, with no test edited."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentruns.formats.cortex import JOURNAL
from agentruns.models import CortexRunJournal

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = "cortex-run-journal.schema.json"
MODULE = Path("src/agentruns/formats/cortex.py")

TESTS = [
    "tests/test_coverage.py",
    "tests/test_crosswalk.py",
    "tests/test_conversion.py",
    "tests/test_same_format.py",
    "tests/test_upstream.py",
    "tests/test_import_command.py",
]
"""The tests that read the journal's fields, samples and rows (the whole suite takes too long
to run twice; these are the ones a cortex change broke before they found fields by table)."""


def _text_rows(schema: dict[str, Any]) -> list[str]:
    """Optional text fields of the journal's root that a row keeps as they are."""
    return [
        row.field
        for row in JOURNAL.rows
        if row.as_it_is
        and row.field not in schema.get("required", [])
        and "string" in json.dumps(schema["properties"].get(row.field, {}))
    ]


def _run(tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    paths = [str(tree / "src"), str(tree / "generated"), str(tree)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    return subprocess.run(
        [sys.executable, *args], cwd=tree, env=env, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    tree = tmp_path_factory.mktemp("replay")
    ignore = shutil.ignore_patterns("__pycache__", ".mypy_cache", ".pytest_cache")
    for part in ("schemas", "generated", "src", "tests", "docs", "codegen"):
        shutil.copytree(ROOT / part, tree / part, ignore=ignore)
    for file in ("pyproject.toml", "README.md", "noxfile.py"):
        shutil.copy(ROOT / file, tree / file)
    path = tree / "schemas" / SCHEMA
    schema = json.loads(path.read_text(encoding="utf-8"))
    renamed, retyped, removed = _text_rows(schema)[-3:]
    fields = {"renamed": renamed, "retyped": retyped, "removed": removed}
    properties: dict[str, Any] = {}
    for name, value in schema["properties"].items():
        if name == renamed:
            properties[f"{name}_v2"] = value
        elif name == retyped:
            properties[name] = {"type": "integer", "minimum": 0}
        elif name != removed:
            properties[name] = value
    properties["priority"] = {"type": "integer"}  # added upstream
    schema["properties"] = properties
    path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    return tree, fields


def test_the_replay_ends_green_by_readmes_steps_alone(
    replayed: tuple[Path, dict[str, str]],
) -> None:
    tree, fields = replayed
    renamed, retyped, removed = fields["renamed"], fields["retyped"], fields["removed"]

    # 2. what changed, and which samples the new schema refuses
    changes = _run(tree, "-m", "codegen", "changes", "--examples", "5")
    assert changes.returncode == 0, changes.stderr
    assert f"CortexRunJournal.{removed}: removed" in changes.stdout
    assert f"CortexRunJournal.{retyped}: retyped" in changes.stdout
    assert "CortexRunJournal.priority: added" in changes.stdout
    samples = re.findall(r"^sample (\S+): valid before, refused now", changes.stdout, re.M)

    # 3. generate
    generated = _run(tree, "-m", "codegen", "generate")
    assert generated.returncode == 0, generated.stderr

    # 4. mypy names the rows of the removed, renamed and retyped fields, and nothing else
    module = tree / MODULE
    lines = module.read_text(encoding="utf-8").splitlines()
    rows = {
        name: next(n for n, line in enumerate(lines) if f"lambda r: r.{name})" in line)
        for name in (renamed, retyped, removed)
    }
    typed = _run(tree, "-m", "mypy", "src/agentruns")
    named = {
        int(line) - 1
        for line in re.findall(
            r"^src/agentruns/formats/cortex\.py:(\d+): error", typed.stdout, re.M
        )
    }
    assert named == set(rows.values()), typed.stdout

    # fix those rows as README says: the renamed field read under its new name, the retyped
    # one (an integer no canonical field means) and the added one kept as extras, the
    # removed one's row gone
    table = re.match(r"(\w+)\.", lines[rows[retyped]].strip())
    assert table is not None
    t = table.group(1)
    lines[rows[renamed]] = lines[rows[renamed]].replace(
        f"lambda r: r.{renamed})", f"lambda r: r.{renamed}_v2)"
    )
    lines[rows[retyped]] = (
        f"{t}.as_extra({t}.field(lambda r: r.{retyped}))\n"
        f"{t}.as_extra({t}.field(lambda r: r.priority))"
    )
    del lines[rows[removed]]
    module.write_text("\n".join(lines) + "\n", encoding="utf-8")

    # the samples the report named, refreshed as upstream changed them
    for sample in samples:
        where = tree / sample
        document = json.loads(where.read_text(encoding="utf-8"))
        refreshed = {
            (f"{key}_v2" if key == renamed else key): (7 if key == retyped else value)
            for key, value in document.items()
            if key != removed
        }
        where.write_text(json.dumps(refreshed, indent=2, ensure_ascii=False), encoding="utf-8")

    # 6. the document
    documented = _run(tree, "-m", "agentruns._crosswalk_doc", "docs/crosswalk.md")
    assert documented.returncode == 0, documented.stderr

    typed = _run(tree, "-m", "mypy", "src", "codegen", "generated", "tests", "noxfile.py")
    assert typed.returncode == 0, typed.stdout
    tested = _run(tree, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *TESTS)
    assert tested.returncode == 0, tested.stdout[-4000:]


def test_the_replay_changes_the_journal_it_claims_to() -> None:
    """The fields the replay picks exist and are the journal's (a guard on the picking)."""
    schema = json.loads((ROOT / "schemas" / SCHEMA).read_text(encoding="utf-8"))
    picked = _text_rows(schema)[-3:]
    assert len(set(picked)) == 3
    assert all(name in CortexRunJournal.model_fields for name in picked)
