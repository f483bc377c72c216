"""An upstream upgrade replayed on a copy of the project, as a maintainer meets it.

eval-magic's run record after 1019c00 adds ``skills`` at the top and, inside objects the portable
reader keeps whole, ``skill_source.skills`` (a list of objects: a new class),
``skill_source.eval_owner`` and ``codebase.exclude_skill_sources``. After ``generate`` alone the
package must import, export the new class, and report exactly what does not come back.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codegen.__main__ import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"

_SCRIPT = """
import json, sys
import agentruns
from agentruns import AgentRun, CortexRunJournal, PortableRunRecord, convert
from agentruns.models import SkillSourceSkill  # the class the new schema adds
document = json.loads(sys.argv[1])
record = PortableRunRecord.model_validate_json(json.dumps(document))
out = {}
for target in (AgentRun, CortexRunJournal):
    first = convert(record, target)
    back = convert(first.target, PortableRunRecord)
    out[target.__name__] = {
        "losses": [loss.pointer for loss in first.losses],
        "back": json.loads(back.target.model_dump_json()),
    }
print(json.dumps(out))
"""


def _upgraded(tree: Path) -> None:
    path = tree / "schemas" / "portable-run-record.schema.json"
    schema: dict[str, Any] = json.loads(path.read_text())
    schema["properties"]["skills"] = {"type": "array", "items": {"type": "string"}}
    definitions = schema["definitions"]
    definitions["skillSource"]["properties"]["skills"] = {
        "type": "array",
        "items": {
            "type": "object",
            "title": "SkillSourceSkill",
            "additionalProperties": False,
            "required": ["name"],
            "properties": {"name": {"type": "string"}, "path": {"type": "string"}},
        },
    }
    definitions["skillSource"]["properties"]["eval_owner"] = {"type": "string"}
    definitions["codebase"]["properties"]["exclude_skill_sources"] = {"type": "boolean"}
    path.write_text(json.dumps(schema, indent=2))


def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads((FIXTURES / "portable.min.json").read_text())
    document["codebase"] = {
        "kind": "git",
        "source": "https://example.org/repo.git",
        "branch": "main",
        "exclude_skill_sources": True,
    }
    document["skill_source"] = {
        "kind": "path",
        "source": "./skills/review",
        "branch": "main",
        "eval_owner": "team-a",
        "skills": [{"name": "review", "path": "skills/review"}, {"name": "lint"}],
    }
    return document


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tree = tmp_path_factory.mktemp("upgrade")
    shutil.copytree(ROOT / "schemas", tree / "schemas")
    shutil.copytree(ROOT / "generated", tree / "generated")
    _upgraded(tree)
    assert (
        main(["generate", "--schemas", str(tree / "schemas"), "--out", str(tree / "generated")])
        == 0
    )
    document = _document()
    # the regenerated package shadows the installed one, as it replaces it in a checkout
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tree / "generated"), str(ROOT / "src")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, json.dumps({**document, "skills": ["review"]})],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    result["document"] = document
    return result


@pytest.mark.parametrize("target", ["AgentRun", "CortexRunJournal"])
def test_after_an_upgrade_only_the_field_no_reader_reads_is_reported_lost(
    upgraded: dict[str, Any], target: str
) -> None:
    assert upgraded[target]["losses"] == ["/skills"]


@pytest.mark.parametrize("target", ["AgentRun", "CortexRunJournal"])
def test_after_an_upgrade_new_fields_inside_objects_read_whole_come_back(
    upgraded: dict[str, Any], target: str
) -> None:
    back = upgraded[target]["back"]
    document = upgraded["document"]
    assert back["skill_source"] == document["skill_source"]
    assert back["codebase"] == document["codebase"]
