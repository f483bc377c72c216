"""Per-keyword draft-07 cases written from the specification (draft-handrews-json-schema-01
and -validation-01): a schema wrapped as a property of an object, and instances on both
sides of each keyword's boundary, with the types it must ignore. The expected verdict is the
spec's; ``jsonschema`` (Draft 7, format checking on) is used only to double-check the table.

Each schema sits at ``/properties/v`` of a closed object, so the case also proves the keyword
is enforced where the generator renders it as a field type; a few cases sit at the root.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import TypeAdapter, ValidationError

from codegen.diagnostics import CodegenError
from codegen.driver import ModelSource
from codegen.pipeline import model_source
from tests._load import load_module

D7 = "http://json-schema.org/draft-07/schema#"

Case = tuple[str, dict[str, Any] | bool, list[Any], list[Any]]
"""(name, schema of the value, accepted values, rejected values)."""

ANY_TYPE = [None, True, "s", 1.5, [1], {"a": 1}]
"""Values of every other JSON type: an untyped keyword lets each of them through."""

CASES: list[Case] = [
    # -- untyped keywords apply to their own JSON type only ------------------------------
    ("untyped minimum", {"minimum": 2}, [2, 2.5, 3, *ANY_TYPE[:3], [1], {"a": 1}], [1, 1.9, -5]),
    ("untyped maximum", {"maximum": 2}, [2, 1.5, "s", None, [9]], [3, 2.01]),
    ("untyped exclusiveMinimum", {"exclusiveMinimum": 2}, [2.1, 3, "s", {}], [2, 1]),
    ("untyped exclusiveMaximum", {"exclusiveMaximum": 2}, [1.9, "x", False], [2, 3]),
    ("untyped multipleOf", {"multipleOf": 2}, [4, 4.0, 0, "s", [3]], [3, 4.5]),
    ("untyped minLength", {"minLength": 2}, ["ab", "é€", 1, None, ["a"]], ["a", ""]),
    ("untyped maxLength", {"maxLength": 2}, ["ab", "", 123, {"abc": 1}], ["abc"]),
    ("untyped pattern", {"pattern": "^a"}, ["ab", 1, None, ["b"]], ["ba", ""]),
    (
        "untyped format date-time",
        {"format": "date-time"},
        ["2020-01-01T00:00:00Z", 5, None, ["x"]],
        ["2020-13-01T00:00:00Z", "2020-01-01 00:00:00Z"],
    ),
    ("untyped minItems", {"minItems": 2}, [[1, 2], "a", 1, {}], [[1], []]),
    ("untyped maxItems", {"maxItems": 1}, [[1], [], "ab", {"a": 1, "b": 2}], [[1, 2]]),
    (
        "untyped uniqueItems",
        {"uniqueItems": True},
        [[1, 2], [1, True], [{"a": 1}, {"a": 2}], [[1], [True]], "aa", 1],
        [[1, 1], [1, 1.0], [{"a": 1, "b": 2}, {"b": 2, "a": 1}], [[1], [1]], ["x", "x"]],
    ),
    ("untyped items", {"items": {"type": "integer"}}, [[1, 2], [], "s", {"a": "b"}], [[1, "x"]]),
    ("untyped contains", {"contains": {"type": "string"}}, [["a"], [1, "b"], 5, {}], [[1], []]),
    ("untyped required", {"required": ["a"]}, [{"a": 1}, [1], "a", 3], [{}, {"b": 1}]),
    (
        "untyped properties",
        {"properties": {"a": {"type": "integer"}}},
        [{"a": 1}, {"b": "x"}, [1], "a"],
        [{"a": "x"}],
    ),
    (
        "untyped additionalProperties",
        {"properties": {"a": {}}, "additionalProperties": False},
        [{"a": 1}, {}, [1, 2], "s"],
        [{"b": 1}],
    ),
    ("untyped minProperties", {"minProperties": 1}, [{"a": 1}, [], "s"], [{}]),
    ("untyped maxProperties", {"maxProperties": 1}, [{"a": 1}, {}, [1, 2]], [{"a": 1, "b": 2}]),
    (
        "untyped patternProperties",
        {"patternProperties": {"^x": {"type": "integer"}}},
        [{"x1": 1, "y": "s"}, {}, "x"],
        [{"x1": "s"}],
    ),
    (
        "untyped propertyNames",
        {"propertyNames": {"maxLength": 2}},
        [{"ab": 1}, {}, "abc", [1]],
        [{"abc": 1}],
    ),
    (
        "untyped dependencies (array)",
        {"dependencies": {"a": ["b"]}},
        [{"a": 1, "b": 2}, {"b": 1}, {}, "a"],
        [{"a": 1}],
    ),
    (
        "untyped dependencies (schema)",
        {"dependencies": {"a": {"required": ["c"]}}},
        [{"a": 1, "c": 2}, {"c": 1}, 1],
        [{"a": 1}],
    ),
    # -- typed keywords the generator renders loosely --------------------------------------
    (
        "uniqueItems on typed array",
        {"type": "array", "uniqueItems": True},
        [[1, 2], [1, "1"], [0, False]],
        [[1, 1.0], [{"a": [1]}, {"a": [1]}]],
    ),
    (
        "uniqueItems of strings",
        {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        [["a", "b"], []],
        [["a", "a"]],
    ),
    (
        "contains on typed array",
        {"type": "array", "contains": {"minimum": 5}},
        [[5], [1, 7]],
        [[1, 2], []],
    ),
    (
        "additionalItems false",
        {"type": "array", "items": [{"type": "integer"}], "additionalItems": False},
        [[1], []],
        [[1, 2], ["a"]],
    ),
    (
        "patternProperties typed",
        {
            "type": "object",
            "patternProperties": {"^n_": {"type": "number"}},
            "additionalProperties": False,
        },
        [{"n_a": 1}, {}],
        [{"n_a": "x"}, {"m": 1}],
    ),
    (
        "propertyNames typed",
        {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}},
        [{"ab": 1}, {}],
        [{"A": 1}],
    ),
    (
        "dependencies typed",
        {"type": "object", "properties": {"a": {}, "b": {}}, "dependencies": {"a": ["b"]}},
        [{"a": 1, "b": 1}, {}],
        [{"a": 1}],
    ),
    # -- oneOf is exclusive ---------------------------------------------------------------
    ("oneOf exclusive", {"oneOf": [{"type": "integer"}, {"minimum": 2}]}, [1, 2.5, "s"], [3]),
    (
        "oneOf of typed branches",
        {"oneOf": [{"type": "string", "maxLength": 3}, {"type": "string", "minLength": 2}]},
        ["a", "abcd"],
        ["ab", 5],
    ),
    # -- const and enum use JSON equality --------------------------------------------------
    ("const false", {"const": False}, [False], [0, None, "false", 0.0]),
    ("const 0", {"const": 0}, [0, 0.0], [False, None, "0"]),
    ("const 1.0", {"const": 1.0}, [1, 1.0], [True]),
    (
        "const object",
        {"const": {"a": [1, {"b": None}]}},
        [{"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]}],
        [{"a": [1, {"b": None}], "c": 1}, {"a": [True, {"b": None}]}, {}],
    ),
    ("const array", {"const": [1, "a"]}, [[1, "a"]], [["a", 1], [True, "a"], [1]]),
    ("const null", {"const": None}, [None], [0, False, "null"]),
    ("enum of true", {"enum": [True]}, [True], [1, 1.0, "true"]),
    (
        "enum mixed",
        {"enum": [1, "a", None, [0], {"k": False}]},
        [1, 1.0, "a", None, [0], [0.0], {"k": False}],
        [True, "1", [False], {"k": 0}, False],
    ),
    # -- defaults are annotations ---------------------------------------------------------
    ("default does not make nullable", {"type": "string", "default": "abc"}, ["x"], [None, 1]),
    ("default of another type", {"type": "integer", "default": "x"}, [1], ["x", None]),
    # -- boolean schemas and not / if anywhere ----------------------------------------------
    ("schema true", True, ANY_TYPE, []),
    ("schema false", False, [], [None, 1, "s"]),
    (
        "not anywhere",
        {"anyOf": [{"not": {"type": "string"}}, {"const": "ok"}]},
        [1, None, "ok"],
        ["no"],
    ),
    (
        "if/then/else in an array item",
        {
            "type": "array",
            "items": {
                "if": {"type": "integer"},
                "then": {"minimum": 0},
                "else": {"type": "string"},
            },
        },
        [[1, "a"], []],
        [[-1], [None]],
    ),
    ("if without then", {"if": {"minimum": 10}}, [1, 20, "x"], []),
    # -- numbers ---------------------------------------------------------------------------
    ("integer accepts 5.0", {"type": "integer"}, [5, 5.0, -3], [5.5, True, "5"]),
    ("number rejects booleans", {"type": "number", "minimum": 0}, [0, 0.5], [True, False]),
    ("multipleOf 0.5", {"type": "number", "multipleOf": 0.5}, [1, 1.5, 0], [0.25, 1.2]),
    (
        "type list",
        {"type": ["integer", "string"], "minimum": 2, "minLength": 2},
        [2, "ab"],
        [1, "a", None, 2.5],
    ),
    ("enum without type", {"enum": ["a", 1]}, ["a", 1], ["b", True]),
    # -- formats: RFC 3339 date and time, RFC 4122 uuid, RFC 6901 pointer, IP addresses ----
    (
        "format date",
        {"type": "string", "format": "date"},
        ["2020-02-29"],
        ["2021-02-29", "2020-1-01", "20200101", "2020-01-01T00:00:00Z"],
    ),
    (
        "format time",
        {"type": "string", "format": "time"},
        ["12:30:00Z", "08:30:06.283185+01:00"],
        ["25:00:00Z", "12:30:00", "12:30Z"],
    ),
    (
        "format uuid is unknown to draft-07",
        {"type": "string", "format": "uuid"},
        ["2eb8aa08-aa98-11ea-b4aa-73b441d16380", "x"],
        [5],
    ),
    (
        "format json-pointer",
        {"type": "string", "format": "json-pointer"},
        ["", "/a~0b/0"],
        ["a", "/a~2"],
    ),
    (
        "format ipv4",
        {"type": "string", "format": "ipv4"},
        ["192.168.0.1"],
        ["256.0.0.1", "1.2.3", "01.2.3.4"],
    ),
    ("format ipv6", {"type": "string", "format": "ipv6"}, ["::1", "fe80::1"], ["12345::", "1:2:3"]),
    (
        "format untyped ipv4",
        {"format": "ipv4"},
        [5, "10.0.0.1"],
        ["nope"],
    ),
    # -- patterns are ECMA-262: ASCII classes, `.` stops at line terminators, `$` at the end
    (
        "pattern \\d is ASCII",
        {"type": "string", "pattern": "^\\d+$"},
        ["123"],
        ["\u0661\u0662", "12\n"],
    ),
    ("pattern \\w is ASCII", {"type": "string", "pattern": "^\\w+$"}, ["a_1"], ["é", "a-b"]),
    (
        "pattern \\s is ECMA whitespace",
        {"type": "string", "pattern": "^\\s$"},
        [" ", "\u00a0", "\ufeff"],
        ["a", "\u0085"],
    ),
    (
        "pattern dot",
        {"type": "string", "pattern": "^a.b$"},
        ["axb", "a\tb"],
        ["a\nb", "a\u2028b", "a\rb"],
    ),
    (
        "pattern in a rule",
        {"anyOf": [{"pattern": "^\\d$"}, {"type": "integer"}]},
        ["1", 5, None],
        ["\u0661", "12"],
    ),
    (
        "patternProperties with \\d",
        {
            "type": "object",
            "patternProperties": {"^\\d$": {"type": "integer"}},
            "additionalProperties": False,
        },
        [{"1": 1}, {}],
        [{"\u0661": 1}, {"1": "x"}],
    ),
]

ROOT_CASES: list[Case] = [
    # lookaround and backreferences: ECMA-262, matched by backtracking in a rule
    (
        "lookahead in a pattern",
        {"type": "string", "pattern": "^(?!x)\\d+$"},
        ["12", "0"],
        ["x1", "1a", 5, ""],
    ),
    ("a backreference in a pattern", {"pattern": "^(a|b)\\1$"}, ["aa", "bb", 3], ["ab", "a"]),
    # a rule on a root that is no object: the root type carries it
    (
        "a rule at the root of a non-object schema",
        {"type": "integer", "not": {"const": 13}},
        [1, 12, 14.0],
        [13, 13.0, "x", 1.5],
    ),
    (
        "untyped keywords at the root",
        {"minimum": 2, "maxLength": 2},
        [2, 2.5, "ab", None, [], {}],
        [1, 1.5, "abc"],
    ),
    (
        "a tuple at the root",
        {"type": "array", "items": [{"type": "integer"}, {"type": "string"}]},
        [[], [1], [1, "a"], [1, "a", None]],
        [["a"], [1, 2], {}],
    ),
    # recursion by name: the rule's $ref resolves in the schema's reference table
    (
        "a recursive reference inside a rule",
        {
            "type": "object",
            "properties": {"t": {"not": {"$ref": "#/definitions/tree"}}},
            "definitions": {"tree": {"type": "array", "items": {"$ref": "#/definitions/tree"}}},
        },
        [{}, {"t": 1}, {"t": [1]}, {"t": [[], [2]]}],
        [{"t": []}, {"t": [[]]}, {"t": [[], [[]]]}],
    ),
    # keywords on the root object itself (a model validator)
    (
        "root dependencies",
        {"type": "object", "properties": {"a": {}, "b": {}}, "dependencies": {"a": ["b"]}},
        [{"a": 1, "b": 2}, {}],
        [{"a": 1}],
    ),
    (
        "root propertyNames",
        {
            "type": "object",
            "propertyNames": {"maxLength": 1},
            "properties": {"a": {"type": "integer"}},
        },
        [{"a": 1}, {"b": "x"}],
        [{"ab": 1}, {"a": "x"}],
    ),
    (
        "root minProperties",
        {"type": "object", "properties": {"a": {}}, "minProperties": 1},
        [{"a": 1}, {"z": None}],
        [{}],
    ),
]


def case_schema(cases: list[Case]) -> dict[str, Any]:
    """One object with each case's schema as property ``c<index>`` (one build for all)."""
    return {
        "$schema": D7,
        "type": "object",
        "properties": {f"c{index}": schema for index, (_, schema, _, _) in enumerate(cases)},
        "additionalProperties": False,
    }


ORACLE_MISTAKES: dict[str, str] = {
    "pattern \\d is ASCII": "Python re: \\d matches every Unicode digit; ECMA-262 [0-9]",
    "pattern \\w is ASCII": "Python re: \\w matches Unicode letters; ECMA-262 [A-Za-z0-9_]",
    "pattern \\s is ECMA whitespace": "Python re: \\s has U+0085 and lacks U+FEFF",
    "pattern dot": "Python re: . matches U+2028 and \\r; ECMA-262 stops at line terminators",
    "pattern in a rule": "Python re: \\d matches every Unicode digit",
    "patternProperties with \\d": "Python re: \\d matches every Unicode digit",
}
"""Cases where jsonschema (Python ``re``) reads a pattern differently from ECMA-262, which
JSON Schema prescribes; the table test checks that jsonschema still disagrees on them."""

CASES += [
    ("required names not declared", {"type": "object", "properties": {"b": {}}, "required": ["a"]},
     [{"a": 1}, {"a": None, "b": 2}], [{}, {"b": 1}]),
    ("required undeclared and closed", {"type": "object", "properties": {"b": {}},
                                        "required": ["a"], "additionalProperties": False},
     [], [{}, {"a": 1}, {"b": 1}]),
]  # fmt: skip


# -- judging generated models on the cases ----------------------------------------------------


def build(schema: dict[str, Any], name: str, workdir: Path) -> ModuleType:
    """Generate the module for a schema (as ``python -m codegen model`` would) and import it."""
    code, _ = model_source(schema, class_name="Root", source=ModelSource(name, "-"), strict=False)
    path = workdir / f"{name}.py"
    path.write_text(code, encoding="utf-8")
    return load_module(path, name)


def accepts(model: Any, document: Any) -> tuple[bool, bool]:
    """Whether the model (a class, or the type alias of a root that is no object) accepts
    the document as JSON text, and as a parsed value."""
    adapter: TypeAdapter[Any] = TypeAdapter(model)
    try:
        adapter.validate_json(json.dumps(document))
        as_json = True
    except ValidationError:
        as_json = False
    try:
        adapter.validate_python(document)
        as_python = True
    except ValidationError:
        as_python = False
    return as_json, as_python


def disagreements(model: Any, documents: list[tuple[str, Any, bool]]) -> list[str]:
    found = []
    for name, document, expected in documents:
        as_json, as_python = accepts(model, document)
        for path, got in (("JSON text", as_json), ("parsed value", as_python)):
            if got != expected:
                kind = "false accept" if got else "false reject"
                found.append(f"{name}: {kind} of {json.dumps(document)} ({path})")
    return found


def case_documents(cases: list[Case]) -> list[tuple[str, Any, bool]]:
    """The documents of ``case_schema(cases)``: each value under its case's property."""
    return [
        (name, {f"c{index}": value}, expected)
        for index, (name, _, accepted, rejected) in enumerate(cases)
        for values, expected in ((accepted, True), (rejected, False))
        for value in values
    ]


REFUSALS: list[tuple[str, dict[str, Any]]] = [
    (
        "an invalid pattern",
        {"$schema": D7, "type": "object", "properties": {"p": {"pattern": "("}}},
    ),
]
"""Schemas the build step must refuse (each with a diagnostic naming keyword and pointer)."""


def spec_report(workdir: Path) -> tuple[list[str], int]:
    """The report's lines for the per-keyword cases and the refusals, and the number of
    disagreements (false accepts and rejects, and refusals that did not happen)."""
    model = build(case_schema(CASES), "spec_report_cases", workdir).Root
    documents = case_documents(CASES)
    found = disagreements(model, documents)
    lines = [
        f"draft-07 keyword semantics: {len(CASES)} cases, {len(documents)} instances x 2 "
        f"validation paths, {sum('false accept' in f for f in found)} false accepts, "
        f"{sum('false reject' in f for f in found)} false rejects",
        *(f"  {f}" for f in found),
        f"refused at build time: {len(REFUSALS)}",
    ]
    failures = len(found)
    for reason, schema in REFUSALS:
        try:
            model_source(schema, class_name="Root", source=ModelSource(reason, "-"), strict=False)
        except CodegenError as error:
            said = "; ".join(f"{d.pointer or '/'}: {d.message}" for d in error.diagnostics)
            lines.append(f"  {reason}: {said}")
        else:
            failures += 1
            lines.append(f"  {reason}: NOT REFUSED")
    return lines, failures


CASES += [
    # found by tests/test_random_schemas.py: rules named after branch numbers only
    ("rules in numbered branches", {"anyOf": [{"type": "array", "items": {"uniqueItems": True}},
                                              {"oneOf": [{"uniqueItems": True}]}]},
     [None, [1, 1], [[1, 1]], "x"], [[[1, 1], [1, 1]]]),
]  # fmt: skip

CASES += [
    # found by tests/test_random_schemas.py: the generator wrote a repeated branch as Any
    ("anyOf of equal branches", {"anyOf": [{"type": "null"}, {"type": "null"}]},
     [None], [[], 0, "x"]),
    ("anyOf of 1 and true stays two branches", {"anyOf": [{"const": 1}, {"const": True}]},
     [1, True, 1.0], [0, False]),
]  # fmt: skip
