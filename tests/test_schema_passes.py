"""The schema passes: each rewrite, by its golden input and output, and the walker that finds
every subschema (and no value)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegen.__main__ import main
from codegen._json import Json
from codegen.normalize import ref_tokens
from codegen.schema_passes.boolean_schemas import boolean_schemas
from codegen.schema_passes.empty_objects import empty_objects
from codegen.schema_passes.nested_refs import nested_refs
from codegen.schema_passes.nullable_enums import nullable_enums
from codegen.schema_passes.walk import children, children_at
from tests._load import load_module

D7 = "http://json-schema.org/draft-07/schema#"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            {"enum": ["a", "b", None], "description": "d"},
            {"description": "d", "anyOf": [{"enum": ["a", "b"]}, {"type": "null"}]},
        ),
        (
            {"type": ["integer", "null"], "enum": [1, None, 2]},
            {"anyOf": [{"enum": [1, 2]}, {"type": "null"}]},
        ),
        ({"enum": ["a", 1, None]}, {"enum": ["a", 1, None]}),  # no exact Literal of both
        ({"enum": ["a", None], "type": "string"}, {"enum": ["a", None], "type": "string"}),
        ({"enum": ["a", None], "minLength": 2}, {"enum": ["a", None], "minLength": 2}),
        ({"enum": [True, None]}, {"enum": [True, None]}),
        ({"enum": ["a", "b"]}, {"enum": ["a", "b"]}),
        ({"const": None}, {"const": None}),
    ],
)
def test_nullable_enums_golden(before: dict[str, Any], after: dict[str, Any]) -> None:
    assert nullable_enums({"properties": {"p": before}}) == {"properties": {"p": after}}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (True, {}),
        (False, {"not": {}}),
        ({"anyOf": [True, False]}, {"anyOf": [{}, {"not": {}}]}),
        ({"properties": {"a": True, "b": False}}, {"properties": {"a": {}, "b": {"not": {}}}}),
        ({"not": True, "if": False}, {"not": {}, "if": {"not": {}}}),
        ({"items": [True, {"items": [False]}]}, {"items": [{}, {"items": [{"not": {}}]}]}),
        (
            {"dependencies": {"a": False, "b": ["c"]}},
            {"dependencies": {"a": {"not": {}}, "b": ["c"]}},
        ),
        # the generator renders these booleans exactly: left as they are
        (
            {"additionalProperties": False, "additionalItems": False, "items": False},
            {"additionalProperties": False, "additionalItems": False, "items": False},
        ),
        (
            {"const": True, "enum": [False], "default": True},
            {"const": True, "enum": [False], "default": True},
        ),
    ],
)
def test_boolean_schemas_golden(before: Json, after: Json) -> None:
    assert boolean_schemas(before) == after


def test_children_at_names_the_pointer_of_each_subschema_and_skips_unknown_keywords() -> None:
    schema: dict[str, Any] = {
        "properties": {"a/b": {"title": "p"}},
        "anyOf": [{"title": "x"}, {"title": "y"}],
        "not": {"title": "n"},
        "x-unknown": {"$id": "#not-an-identifier", "title": "u"},
    }
    found = {tokens: child["title"] for tokens, child in children_at(schema)}
    assert found == {
        ("properties", "a/b"): "p",
        ("anyOf", 0): "x",
        ("anyOf", 1): "y",
        ("not",): "n",
    }


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({"type": "object", "additionalProperties": False}, {"type": "object", "maxProperties": 0}),
        ({"additionalProperties": False, "properties": {}}, {"maxProperties": 0}),
        ({"additionalProperties": False, "maxProperties": 3}, {"maxProperties": 0}),
        (
            {"additionalProperties": False, "properties": {"a": {}}},
            {"additionalProperties": False, "properties": {"a": {}}},
        ),
        (
            {"additionalProperties": False, "patternProperties": {"^a": {}}},
            {"additionalProperties": False, "patternProperties": {"^a": {}}},
        ),
        ({"type": "object"}, {"type": "object"}),
    ],
)
def test_empty_objects_golden(before: Json, after: Json) -> None:
    assert empty_objects({"anyOf": [before]}) == {"anyOf": [after]}


def test_nested_refs_golden() -> None:
    run = {"type": "integer", "minimum": 3}
    before: dict[str, Any] = {
        "properties": {
            "a": {"$ref": "#/definitions/step/oneOf/1/properties/run"},
            "b": {"$ref": "#/definitions/step/oneOf/1/properties/run"},
            "c": {"$ref": "#/definitions/step"},
            "d": {"$ref": "#"},
        },
        "definitions": {"step": {"oneOf": [{"type": "string"}, {"properties": {"run": run}}]}},
    }
    after = nested_refs(
        json.loads(json.dumps(before)), defs_key="definitions", tokens_of=ref_tokens
    )
    assert after["properties"] == {
        "a": {"$ref": "#/definitions/StepRun"},
        "b": {"$ref": "#/definitions/StepRun"},
        "c": {"$ref": "#/definitions/step"},
        "d": {"$ref": "#"},
    }
    definitions = after["definitions"]
    assert isinstance(definitions, dict)
    assert definitions["StepRun"] == run
    assert definitions["step"] == before["definitions"]["step"]


def test_nullable_enums_leaves_values_alone() -> None:
    value: Json = {"enum": ["a", None]}
    schema: Json = {"default": value, "examples": [value], "const": value, "enum": [value]}
    assert nullable_enums(schema) == schema


def test_the_walker_finds_every_subschema_and_no_value() -> None:
    schema: dict[str, Any] = {
        "properties": {"enum": {"title": "a property called enum"}},
        "patternProperties": {"^x": {"title": "p"}},
        "items": [{"title": "i0"}, {"title": "i1"}],
        "additionalItems": {"title": "ai"},
        "dependencies": {"a": ["b"], "c": {"title": "dep"}},
        "definitions": {"d": {"title": "def"}},
        "allOf": [{"title": "all"}],
        "not": {"title": "not"},
        "if": {"title": "if"},
        "default": {"title": "not a schema"},
        "enum": [{"title": "not a schema"}],
    }
    titles = sorted(str(child["title"]) for child in children(schema))
    assert titles == sorted(
        ["a property called enum", "p", "i0", "i1", "ai", "dep", "def", "all", "not", "if"]
    )


def test_an_enum_with_null_is_a_literal_or_none_and_means_the_same(tmp_path: Path) -> None:
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"level": {"enum": ["low", "high", None]}},
        "additionalProperties": False,
    }
    path = tmp_path / "levels.json"
    path.write_text(json.dumps(schema))
    out = tmp_path / "levels_models.py"
    assert main(["model", str(path), "--out", str(out), "--class-name", "Levels"]) == 0
    assert 'level: Literal["low", "high"] | MISSING | None = MISSING' in out.read_text()
    model = load_module(out, "levels_models").Levels
    for accepted in ("low", "high", None):
        assert model.model_validate_json(json.dumps({"level": accepted})).level == accepted
    for refused in ("mid", 1, False, ""):
        with pytest.raises(ValueError, match="validation error"):
            model.model_validate_json(json.dumps({"level": refused}))
