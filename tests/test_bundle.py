"""A JSON Schema that names other files beside it: bundled, never fetched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from codegen.__main__ import main
from tests._load import load_module

D7 = "http://json-schema.org/draft-07/schema#"
LICENSES: dict[str, Any] = {
    "$schema": D7,
    "$id": "https://example.com/schema/licenses.json",
    "definitions": {
        "id": {"type": "string", "enum": ["MIT", "Apache-2.0"]},
        "choice": {"type": "array", "items": {"$ref": "#/definitions/id"}, "minItems": 1},
    },
}


def _schema(ref: str) -> dict[str, Any]:
    return {
        "$schema": D7,
        "$id": "https://example.com/schema/bom.json",
        "type": "object",
        "properties": {"license": {"$ref": ref}},
        "required": ["license"],
    }


@pytest.mark.parametrize(
    "ref",
    [
        "licenses.json#/definitions/choice",  # relative to the schema's $id: the sibling's $id
        "https://example.com/schema/licenses.json#/definitions/choice",
    ],
)
def test_a_reference_to_a_file_beside_the_schema_is_bundled(tmp_path: Path, ref: str) -> None:
    (tmp_path / "licenses.json").write_text(json.dumps(LICENSES))
    (tmp_path / "bom.json").write_text(json.dumps(_schema(ref)))
    out = tmp_path / "bom.py"
    assert main(["model", str(tmp_path / "bom.json"), "--out", str(out)]) == 0
    model = load_module(out, f"bom_{abs(hash(ref))}").Bom
    assert model.model_validate({"license": ["MIT"]}).license[0] == "MIT"
    bads: list[dict[str, Any]] = [{"license": []}, {"license": ["GPL"]}, {}]
    for bad in bads:
        with pytest.raises(ValidationError):
            model.model_validate(bad)


def test_a_sibling_is_found_by_file_name_when_its_id_differs(tmp_path: Path) -> None:
    """cyclonedx's bom names "spdx.SNAPSHOT.schema.json", whose $id says spdx.schema.json."""
    (tmp_path / "licenses.SNAPSHOT.json").write_text(json.dumps(LICENSES))
    schema = _schema("licenses.SNAPSHOT.json#/definitions/choice")
    (tmp_path / "bom.json").write_text(json.dumps(schema))
    out = tmp_path / "snap.py"
    assert main(["model", str(tmp_path / "bom.json"), "--out", str(out)]) == 0
    model = load_module(out, "bom_snapshot").Bom
    with pytest.raises(ValidationError):
        model.model_validate({"license": ["GPL"]})


def test_a_file_that_is_not_beside_the_schema_stays_a_refused_remote_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bom.json").write_text(json.dumps(_schema("elsewhere.json#/definitions/x")))
    assert main(["model", str(tmp_path / "bom.json"), "--out", str(tmp_path / "x.py")]) == 1
    assert "/properties/license/$ref" in capsys.readouterr().err


def test_draft_06_is_draft_07_without_conditionals(tmp_path: Path) -> None:
    """In draft-06, if/then/else are unknown keywords: they constrain nothing."""
    schema = {
        "$schema": "http://json-schema.org/draft-06/schema#",
        "type": "object",
        "properties": {"n": {"type": "integer", "if": {"minimum": 5}, "then": {"maximum": 6}}},
    }
    (tmp_path / "six.json").write_text(json.dumps(schema))
    assert main(["model", str(tmp_path / "six.json"), "--out", str(tmp_path / "six.py")]) == 0
    model = load_module(tmp_path / "six.py", "draft_six").Six
    assert model.model_validate({"n": 9}).n == 9
    with pytest.raises(ValidationError):
        model.model_validate({"n": "9"})


def test_hostile_files_beside_the_schema_are_not_read_and_never_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FIFO (reading it would block forever), a file nested past Python's recursion and one
    nested past the build step's depth: the first two are skipped, the third is refused."""
    import os

    os.mkfifo(tmp_path / "fifo.json")
    (tmp_path / "recursive.json").write_text("[" * 100_000 + "]" * 100_000)
    deep: Any = {"type": "string"}
    for _ in range(200):
        deep = {"items": deep}
    (tmp_path / "deep.json").write_text(
        json.dumps({"$id": "deep.json", "definitions": {"d": deep}})
    )
    (tmp_path / "licenses.json").write_text(json.dumps(LICENSES))
    (tmp_path / "bom.json").write_text(json.dumps(_schema("licenses.json#/definitions/choice")))
    assert main(["model", str(tmp_path / "bom.json"), "--out", str(tmp_path / "ok.py")]) == 0
    schema = _schema("deep.json#/definitions/d")
    (tmp_path / "deep_bom.json").write_text(json.dumps(schema))
    assert main(["model", str(tmp_path / "deep_bom.json"), "--out", str(tmp_path / "d.py")]) == 1
    err = capsys.readouterr().err
    assert "nests deeper than" in err
    assert "Traceback" not in err


def test_a_reference_into_another_folder_is_not_bundled_from_a_namesake_beside_the_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``../other/licenses.json`` is not the ``licenses.json`` beside the schema, whose own
    ``$id`` says it is in the schema's folder: refused with the reference's pointer."""
    (tmp_path / "licenses.json").write_text(json.dumps(LICENSES))
    schema = _schema("../other/licenses.json#/definitions/choice")
    (tmp_path / "bom.json").write_text(json.dumps(schema))
    assert main(["model", str(tmp_path / "bom.json"), "--out", str(tmp_path / "x.py")]) == 1
    said = capsys.readouterr().err
    assert "/properties/license/$ref" in said
    assert "https://example.com/other/licenses.json" in said
    assert not (tmp_path / "x.py").exists()


def test_a_reference_into_another_folder_is_bundled_from_the_file_whose_id_it_names(
    tmp_path: Path,
) -> None:
    elsewhere = {**LICENSES, "$id": "https://example.com/other/licenses.json"}
    (tmp_path / "licenses.json").write_text(json.dumps(elsewhere))
    schema = _schema("../other/licenses.json#/definitions/choice")
    (tmp_path / "bom.json").write_text(json.dumps(schema))
    out = tmp_path / "other.py"
    assert main(["model", str(tmp_path / "bom.json"), "--out", str(out)]) == 0
    model = load_module(out, "bom_other").Bom
    with pytest.raises(ValidationError):
        model.model_validate({"license": ["GPL"]})
