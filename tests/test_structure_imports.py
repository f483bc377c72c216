"""JSON Structure's $import and $importdefs, from documents beside the schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from codegen.__main__ import main
from tests._load import load_module

META = "https://json-structure.org/meta/core/v0/#"
PEOPLE: dict[str, Any] = {
    "$schema": META,
    "$id": "https://example.com/people.json",
    "name": "Person",
    "type": "object",
    "properties": {
        "firstName": {"type": "string"},
        "address": {"type": {"$ref": "#/definitions/Address"}},
    },
    "required": ["firstName"],
    "definitions": {
        "Address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            "required": ["city"],
        }
    },
}


def _build(tmp_path: Path, schema: dict[str, Any], name: str) -> Any:
    (tmp_path / "people.json").write_text(json.dumps(PEOPLE))
    path = tmp_path / f"{name}.struct.json"
    path.write_text(json.dumps(schema))
    out = tmp_path / f"{name}.py"
    assert main(["model", str(path), "--out", str(out), "--class-name", "Root"]) == 0
    return load_module(out, f"imports_{name}").Root


def _importing(keyword: str, **properties: Any) -> dict[str, Any]:
    return {
        "$schema": META,
        "$id": "https://example.com/order.json",
        "name": "Order",
        "type": "object",
        "properties": properties,
        "definitions": {"People": {keyword: "https://example.com/people.json"}},
    }


def test_import_brings_the_root_type_and_the_definitions_into_a_namespace(
    tmp_path: Path,
) -> None:
    schema = _importing(
        "$import",
        person={"type": {"$ref": "#/definitions/People/Person"}},
        ship={"type": {"$ref": "#/definitions/People/Address"}},
    )
    root = _build(tmp_path, schema, "order")
    good = {"person": {"firstName": "A", "address": {"city": "B"}}, "ship": {"city": "C"}}
    assert root.model_validate(good).person.address.city == "B"
    for bad in (
        {"person": {"address": {"city": "B"}}},
        {"person": {"firstName": "A", "address": {}}},
    ):
        with pytest.raises(ValidationError):
            root.model_validate(bad)


def test_importdefs_brings_the_definitions_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = _importing("$importdefs", ship={"type": {"$ref": "#/definitions/People/Address"}})
    root = _build(tmp_path, schema, "defs_only")
    assert root.model_validate({"ship": {"city": "C"}}).ship.city == "C"
    schema = _importing("$importdefs", person={"type": {"$ref": "#/definitions/People/Person"}})
    (tmp_path / "no_person.struct.json").write_text(json.dumps(schema))
    assert (
        main(["model", str(tmp_path / "no_person.struct.json"), "--out", str(tmp_path / "n.py")])
        == 1
    )
    assert "'#/definitions/People/Person' does not resolve" in capsys.readouterr().err


def test_a_local_definition_shadows_an_imported_one(tmp_path: Path) -> None:
    schema = _importing("$import", ship={"type": {"$ref": "#/definitions/People/Address"}})
    schema["definitions"]["People"]["Address"] = {
        "type": "object",
        "properties": {"zip": {"type": "string"}},
        "required": ["zip"],
    }
    root = _build(tmp_path, schema, "shadow")
    assert root.model_validate({"ship": {"zip": "1"}})
    with pytest.raises(ValidationError):
        root.model_validate({"ship": {"city": "C"}})


def test_an_import_at_the_root_is_into_the_root_namespace(tmp_path: Path) -> None:
    schema = {
        "$schema": META,
        "$id": "https://example.com/root.json",
        "$import": "https://example.com/people.json",
        "name": "Shipment",
        "type": "object",
        "properties": {"to": {"type": {"$ref": "#/definitions/Address"}}},
    }
    root = _build(tmp_path, schema, "at_root")
    assert root.model_validate({"to": {"city": "X"}}).to.city == "X"


@pytest.mark.parametrize(
    ("uri", "said"),
    [
        ("https://example.com/elsewhere.json", "never fetches anything"),
        ("https://example.com/loop.json", "circular"),
    ],
)
def test_an_import_that_cannot_be_made_locally_is_refused_with_its_pointer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], uri: str, said: str
) -> None:
    loop = {
        "$schema": META,
        "$id": "https://example.com/loop.json",
        "name": "Loop",
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "definitions": {"Again": {"$import": "https://example.com/loop.json"}},
    }
    (tmp_path / "loop.json").write_text(json.dumps(loop))
    schema = _importing("$import", a={"type": "string"})
    schema["definitions"]["People"]["$import"] = uri
    path = tmp_path / "bad.struct.json"
    path.write_text(json.dumps(schema))
    assert main(["model", str(path), "--out", str(tmp_path / "bad.py")]) == 1
    err = capsys.readouterr().err
    assert "/definitions/People/$import" in err
    assert said in err


def _chain(tmp_path: Path, levels: int) -> Path:
    """Documents d0..d<levels>, each importing the next twice, under two namespaces, and
    using both: copied whole, the root would hold 2**levels copies of the last."""
    for k in range(levels + 1):
        doc: dict[str, Any] = {
            "$schema": META,
            "$id": f"https://example.com/d{k}.json",
            "name": f"T{k}",
            "type": "object",
        }
        if k < levels:
            doc["properties"] = {
                "left": {"type": {"$ref": f"#/definitions/A/T{k + 1}"}},
                "right": {"type": {"$ref": f"#/definitions/B/T{k + 1}"}},
            }
            doc["definitions"] = {
                "A": {"$import": f"https://example.com/d{k + 1}.json"},
                "B": {"$import": f"https://example.com/d{k + 1}.json"},
            }
        else:
            doc["properties"] = {"leaf": {"type": "int32"}}
        name = f"d{k}.json" if k else "root.struct.json"
        (tmp_path / name).write_text(json.dumps(doc))
    return tmp_path / "root.struct.json"


def test_a_document_imported_twice_at_every_level_builds_in_linear_time(tmp_path: Path) -> None:
    import time

    levels = 15  # the chain is 16 documents: the deepest the build step takes
    path = _chain(tmp_path, levels)
    out = tmp_path / "chain.py"
    started = time.monotonic()
    assert main(["model", str(path), "--out", str(out), "--class-name", "Root"]) == 0
    assert time.monotonic() - started < 60  # copied whole: hours and gigabytes
    assert len(out.read_text().splitlines()) < 50 * levels
    root = load_module(out, "imports_chain").Root

    def nested(depth: int, leaf: object) -> dict[str, Any]:
        return {"leaf": leaf} if depth == levels else {"right": nested(depth + 1, leaf)}

    assert root.model_validate(nested(0, 3)) is not None
    with pytest.raises(ValidationError):
        root.model_validate(nested(0, "three"))


def test_a_namespace_that_shadows_an_imported_name_keeps_its_own_copy(tmp_path: Path) -> None:
    """The second import differs from the first where the schema writes its own definition
    of an imported name: that namespace is copied, with the schema's definition in it."""
    schema = {
        "$schema": META,
        "$id": "https://example.com/order.json",
        "name": "Order",
        "type": "object",
        "properties": {
            "home": {"type": {"$ref": "#/definitions/A/Person"}},
            "work": {"type": {"$ref": "#/definitions/B/Person"}},
        },
        "definitions": {
            "A": {"$import": "https://example.com/people.json"},
            "B": {
                "$import": "https://example.com/people.json",
                "Address": {"type": "object", "properties": {"zip": {"type": "string"}}},
            },
        },
    }
    root = _build(tmp_path, schema, "shadowed")
    # A's Address requires a city; B's own Address (which B's Person now means) does not
    with pytest.raises(ValidationError):
        root.model_validate({"home": {"firstName": "A", "address": {"zip": "1"}}})
    assert root.model_validate({"work": {"firstName": "A", "address": {"zip": "1"}}}) is not None
