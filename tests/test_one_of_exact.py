"""``oneOf`` is exact wherever it stands: at the root, on a nested object, on array items,
beside properties named like keywords (``type``, ``properties``, ``required``...). Branches
that look like a tagged union and are not (a tag not required, two branches matching the same
document, a tag of another type) must be judged as jsonschema judges them, or refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from codegen.diagnostics import CodegenError
from tests._settings import PROPERTY_SETTINGS
from tests.test_random_schemas import D7, _model, judged_as_jsonschema_judges

keys = st.sampled_from(["kind", "type", "properties", "required", "const", "enum", "items"])
tags = st.sampled_from(["a", "b", 1, True, None])
tag_schemas = st.one_of(
    tags.map(lambda tag: {"const": tag}),
    st.lists(tags, min_size=1, max_size=2, unique_by=repr).map(lambda tags: {"enum": tags}),
    st.sampled_from([{"type": "string"}, {"type": "integer"}, {}]),
)
payloads = st.sampled_from(
    [{}, {"x": {"type": "string"}}, {"y": {"type": "integer"}}, {"x": {"type": "integer"}}]
)


@st.composite
def branches(draw: st.DrawFn, key: str) -> dict[str, Any]:
    properties = {key: draw(tag_schemas), **draw(payloads)}
    branch: dict[str, Any] = {"properties": properties}
    required = draw(st.lists(st.sampled_from(sorted(properties)), max_size=2, unique=True))
    if required:
        branch["required"] = required
    if draw(st.booleans()):
        branch["type"] = "object"
    if draw(st.booleans()):
        branch["additionalProperties"] = False
    return branch


@st.composite
def one_of_schemas(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    key = draw(keys)
    one_of = draw(st.lists(branches(key), min_size=2, max_size=3))
    body: dict[str, Any] = {"type": "object", "oneOf": one_of}
    if draw(st.booleans()):
        body["properties"] = {key: draw(st.sampled_from([{"type": "string"}, {}]))}
    where = draw(st.sampled_from(["root", "nested", "items"]))
    if where == "root":
        return where, {"$schema": D7, **body}
    if where == "nested":
        return where, {"$schema": D7, "type": "object", "properties": {"c": body}}
    return where, {"$schema": D7, "type": "object", "properties": {"c": {"items": body}}}


documents = st.fixed_dictionaries(
    {},
    optional={
        "kind": tags,
        "type": tags,
        "properties": tags,
        "required": tags,
        "const": tags,
        "enum": tags,
        "items": tags,
        "x": st.sampled_from(["s", 1]),
        "y": st.sampled_from(["s", 1]),
        "z": st.just(0),
    },
)


def _placed(where: str, document: dict[str, Any]) -> Any:
    return {"root": document, "nested": {"c": document}, "items": {"c": [document]}}[where]


@PROPERTY_SETTINGS
@given(schema=one_of_schemas(), found=st.lists(documents, min_size=8, max_size=12))
def test_one_of_is_judged_as_jsonschema_judges_it_or_refused(
    tmp_path_factory: Any, schema: tuple[str, dict[str, Any]], found: list[dict[str, Any]]
) -> None:
    where, document_schema = schema
    try:
        model = _model(document_schema, tmp_path_factory.mktemp("one_of"))
    except CodegenError:
        return  # refused, with a diagnostic: allowed
    validate = (
        model.model_validate_json
        if hasattr(model, "model_validate_json")
        else TypeAdapter(model).validate_json
    )
    oracle = jsonschema.Draft7Validator(document_schema)
    for document in found:
        placed = _placed(where, document)
        try:
            validate(json.dumps(placed))
            got = True
        except ValidationError:
            got = False
        assert got == oracle.is_valid(placed), (placed, json.dumps(document_schema))


def test_a_root_one_of_with_a_keyword_named_tag_refuses_what_jsonschema_refuses(
    tmp_path: Path,
) -> None:
    schema = {
        "$schema": D7,
        "type": "object",
        "oneOf": [
            {"properties": {"type": {"const": "a"}}, "required": ["type"]},
            {"properties": {"type": {"enum": ["a", "b"]}}},
        ],
    }
    model = _model(schema, tmp_path)
    validate = TypeAdapter(model).validate_json
    for document in ({"type": "a"}, {"type": "b"}, {}):
        expected = jsonschema.Draft7Validator(schema).is_valid(document)
        try:
            validate(json.dumps(document))
            got = True
        except ValidationError:
            got = False
        assert got == expected, document


scalar_types = st.sampled_from([{"type": "integer"}, {"type": "number"}, {"type": "string"}, {}])
scalar_keywords = st.sampled_from(
    [{"minimum": 0}, {"maximum": 10}, {"multipleOf": 2}, {"maxLength": 3}, {"minLength": 1}, {}]
)
scalar_branches = st.sampled_from(
    [
        {"multipleOf": 2},
        {"multipleOf": 3},
        {"type": "string"},
        {"type": "integer"},
        {"maxLength": 1},
        {"minimum": 5},
        {"const": 4},
        {"enum": ["a", 6]},
    ]
)
scalar_values = st.sampled_from(
    [0, 2, 3, 4, 4.0, 4.5, 5, 6, 9, 12, -2, 2**70, True, None, "", "a", "abcd", "4", [4]]
)
"""No float past 2**53: jsonschema judges ``multipleOf`` on its binary value (``1e300`` is a
multiple of 3 there), the build step on the decimal as written (10**300 is not): an oracle
trap, not a difference of meaning. Integers past it (2**70) are judged alike."""


@PROPERTY_SETTINGS
@given(
    own=scalar_types,
    beside=scalar_keywords,
    key=st.sampled_from(["oneOf", "anyOf"]),
    union=st.lists(scalar_branches, min_size=1, max_size=3),
    found=st.lists(scalar_values, min_size=8, max_size=12),
)
def test_a_union_beside_a_type_and_its_keywords_is_judged_as_jsonschema_judges_it(
    tmp_path_factory: Any,
    own: dict[str, Any],
    beside: dict[str, Any],
    key: str,
    union: list[dict[str, Any]],
    found: list[Any],
) -> None:
    """The generator rendered ``{"type": "integer", "minimum": 0, "oneOf": [...]}`` as the
    branches' union with the minimum on it and no type: ``"4"`` reached the comparison and
    raised TypeError (not a validation error), an exactness hole and a crash at once."""
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"v": {**own, **beside, key: union}},
    }
    documents = [{"v": value} for value in found]
    judged_as_jsonschema_judges(schema, tmp_path_factory.mktemp("beside"), documents)
