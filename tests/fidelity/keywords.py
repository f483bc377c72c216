"""Small draft-07 schemas, one per keyword the seeds use, for the same differential test.

They prove the guarantee is a property of the pipeline, not of the three seeds: each goes
through ``python -m codegen model``'s code path and is judged by the same oracle.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from codegen.driver import ModelSource
from codegen.pipeline import model_source
from tests.fidelity.oracles import Subject, _generation_schema, json_schema_oracle

D7 = "http://json-schema.org/draft-07/schema#"


def _object(properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"$schema": D7, "type": "object", "properties": properties, **extra}


KEYWORD_SCHEMAS: dict[str, dict[str, Any]] = {
    "type": _object(
        {
            "s": {"type": "string"},
            "n": {"type": "number"},
            "i": {"type": "integer"},
            "b": {"type": "boolean"},
            "z": {"type": "null"},
            "sn": {"type": ["string", "null"]},
        },
        required=["s", "n", "i", "b", "z", "sn"],
    ),
    "properties+required": _object(
        {"a": {"type": "string"}, "b": {"type": "integer"}}, required=["a"]
    ),
    "additionalProperties false": _object(
        {"a": {"type": "string"}}, required=["a"], additionalProperties=False
    ),
    "additionalProperties schema": _object(
        {"a": {"type": "string"}}, additionalProperties={"type": "integer"}
    ),
    "items": _object({"xs": {"type": "array", "items": {"type": "integer"}}}, required=["xs"]),
    "enum": _object({"e": {"type": "string", "enum": ["red", "green"]}}, required=["e"]),
    "const": _object({"c": {"const": "fixed"}, "k": {"const": 1}}, required=["c", "k"]),
    "minimum": _object(
        {
            "i": {"type": "integer", "minimum": 0, "maximum": 10},
            "x": {"type": "number", "exclusiveMinimum": 0.5},
        },
        required=["i"],
    ),
    "minItems": _object(
        {"xs": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 3}},
        required=["xs"],
    ),
    "pattern": _object({"p": {"type": "string", "pattern": "^[a-z]{2,4}$"}}, required=["p"]),
    "format date-time": _object({"t": {"type": "string", "format": "date-time"}}, required=["t"]),
    "$ref/definitions": {
        "$schema": D7,
        "type": "object",
        "properties": {"item": {"$ref": "#/definitions/item"}},
        "required": ["item"],
        "definitions": {
            "item": {
                "type": "object",
                "properties": {"id": {"type": "integer", "minimum": 1}},
                "required": ["id"],
                "additionalProperties": False,
            }
        },
    },
    "oneOf": _object(
        {
            "shape": {
                "oneOf": [
                    {"$ref": "#/definitions/circle"},
                    {"$ref": "#/definitions/square"},
                ]
            }
        },
        required=["shape"],
        definitions={
            "circle": {
                "type": "object",
                "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
                "required": ["kind", "r"],
                "additionalProperties": False,
            },
            "square": {
                "type": "object",
                "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
                "required": ["kind", "side"],
                "additionalProperties": False,
            },
        },
    ),
    "anyOf": _object(
        {"v": {"anyOf": [{"type": "string", "minLength": 2}, {"type": "integer"}]}},
        required=["v"],
    ),
    "allOf": _object(
        {
            "v": {
                "allOf": [
                    {"$ref": "#/definitions/named"},
                    {"type": "object", "properties": {"age": {"type": "integer"}}},
                ]
            }
        },
        required=["v"],
        definitions={
            "named": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            }
        },
    ),
    "if/then (enum-keyed)": _object(
        {"settings": {"$ref": "#/definitions/settings"}},
        required=["settings"],
        definitions={
            "settings": {
                "type": "object",
                "properties": {
                    "mode": {"type": "string", "enum": ["auto", "manual"]},
                    "speed": {"type": "integer", "minimum": 1},
                },
                "required": ["mode"],
                "additionalProperties": False,
                "allOf": [
                    {
                        "if": {"properties": {"mode": {"const": "manual"}}, "required": ["mode"]},
                        "then": {"required": ["speed"]},
                    },
                    {
                        "if": {"properties": {"mode": {"const": "auto"}}, "required": ["mode"]},
                        "then": {"not": {"required": ["speed"]}},
                    },
                ],
            }
        },
    ),
}

# `not` and general if/then/else: lifted into model rules (a validator + the published allOf).
KEYWORD_SCHEMAS["not"] = _object(
    {
        "v": {"type": "integer", "not": {"const": 13}},
        "w": {"type": "string", "not": {"pattern": "^x"}},
    },
    required=["v"],
)
KEYWORD_SCHEMAS["if/then/else (general)"] = _object(
    {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "boolean"}},
    required=["a"],
    **{
        "if": {"properties": {"a": {"minimum": 5}}},
        "then": {"required": ["b"]},
        "else": {"not": {"required": ["c"]}},
    },
)

# A rule where no object owns it (an anyOf branch) is carried by a named type instead.
KEYWORD_SCHEMAS["not inside an anyOf branch"] = _object(
    {"v": {"anyOf": [{"type": "integer", "not": {"const": 13}}, {"type": "string"}]}}
)

# What cannot be enforced is refused at generation time (with its JSON pointer), never
# dropped: a rule at the root of a schema that is not an object has no model to check it.
REFUSED_SCHEMAS: dict[str, tuple[dict[str, Any], str]] = {
    # the build step never fetches anything: a reference out of the document is refused
    "a remote reference": (
        {
            "$schema": D7,
            "type": "object",
            "properties": {"p": {"$ref": "https://example.com/other.json"}},
        },
        "/properties/p/$ref",
    ),
}


def keyword_subject(name: str, workdir: Path) -> Subject:
    """Generate the model for one keyword schema (as ``codegen model`` would) and import it."""
    schema = KEYWORD_SCHEMAS[name]
    code, _ = model_source(
        schema,
        class_name="Root",
        source=ModelSource(f"keyword:{name}", "-"),
        strict=False,
    )
    module_name = "kw_" + "".join(c if c.isalnum() else "_" for c in name)
    path = workdir / f"{module_name}.py"
    path.write_text(code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    model = module.Root
    assert isinstance(model, type)
    assert issubclass(model, BaseModel)
    model.model_rebuild(_types_namespace=vars(module))
    generation = _generation_schema(schema)
    return Subject(name, model, generation, {"jsonschema": json_schema_oracle(schema)}, schema)
