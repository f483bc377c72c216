"""Random small draft-07 schemas: the generated model agrees with jsonschema on random
instances, or the build step refuses the schema. Never a silent change of meaning.

Patterns and formats are left out of the grammar: there the project follows ECMA-262 and
RFC 3339 where jsonschema follows Python (see tests/fidelity/spec_cases.py); both are covered
by the per-keyword cases instead.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from codegen.diagnostics import CodegenError
from codegen.driver import ModelSource
from codegen.pipeline import model_source
from tests._load import load_module
from tests._settings import PROPERTY_SETTINGS

D7 = "http://json-schema.org/draft-07/schema#"
_COUNTER = itertools.count()

small_ints = st.integers(-3, 3)
scalars = (
    st.none()
    | st.booleans()
    | small_ints
    | st.sampled_from([0.0, 1.0, 1.5, -2.5])
    | st.sampled_from(["", "a", "ab", "abc"])
)
json_values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)
    ),
    max_leaves=6,
)

NUMBER_BOUNDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
SIZE_BOUNDS = ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"]
TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]

leaves: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from(TYPES).map(lambda t: {"type": t}),
    st.builds(lambda k, n: {k: n}, st.sampled_from(NUMBER_BOUNDS), small_ints),
    st.builds(lambda k, n: {k: n}, st.sampled_from(SIZE_BOUNDS), st.integers(0, 2)),
    st.builds(lambda n: {"multipleOf": n}, st.sampled_from([2, 3])),
    st.just({"uniqueItems": True}),
    st.builds(
        lambda names: {"required": names},
        st.lists(st.sampled_from(["a", "b"]), min_size=1, max_size=2, unique=True),
    ),
    st.builds(lambda v: {"const": v}, json_values),
    st.builds(lambda vs: {"enum": vs}, st.lists(json_values, min_size=1, max_size=3)),
    st.sampled_from([True, False, {}]),
)


def _merged(a: Any, b: Any) -> Any:
    return {**a, **b} if isinstance(a, dict) and isinstance(b, dict) else a


def _combine(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    branches = st.lists(inner, min_size=1, max_size=3)
    return st.one_of(
        st.builds(lambda b: {"anyOf": b}, branches),
        st.builds(lambda b: {"oneOf": b}, branches),
        st.builds(lambda b: {"allOf": b}, branches),
        st.builds(lambda s: {"not": s}, inner),
        st.builds(lambda s: {"items": s}, inner),
        st.builds(lambda s: {"type": "array", "items": s}, inner),
        st.builds(lambda s: {"contains": s}, inner),
        st.builds(
            lambda props, extra: {"type": "object", "properties": props, **extra},
            st.dictionaries(st.sampled_from(["a", "b"]), inner, min_size=1, max_size=2),
            st.sampled_from([{}, {"additionalProperties": False}, {"required": ["a"]}]),
        ),
        st.builds(lambda s: {"additionalProperties": s}, inner),
        st.builds(lambda c, t, e: {"if": c, "then": t, "else": e}, inner, inner, inner),
        st.builds(_merged, inner, inner),
    )


schemas = st.recursive(leaves, _combine, max_leaves=5)


def _model(schema: dict[str, Any], workdir: Path) -> Any:
    code, _ = model_source(
        schema, class_name="Root", source=ModelSource("random", "-"), strict=False
    )
    name = f"random_schema_{next(_COUNTER)}"
    path = workdir / f"{name}.py"
    path.write_text(code, encoding="utf-8")
    module = load_module(path, name)
    return module.Root


@PROPERTY_SETTINGS
@given(value_schema=schemas, values=st.lists(json_values, min_size=8, max_size=16))
def test_a_random_schema_is_enforced_exactly_or_refused(
    tmp_path_factory: Any, value_schema: Any, values: list[Any]
) -> None:
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"v": value_schema},
        "additionalProperties": False,
    }
    judged_as_jsonschema_judges(
        schema, tmp_path_factory.mktemp("random"), [{"v": value} for value in values]
    )


def judged_as_jsonschema_judges(
    schema: dict[str, Any], workdir: Path, documents: list[Any]
) -> None:
    """The model generated for ``schema`` accepts exactly the documents jsonschema accepts,
    or the build refuses the schema with a diagnostic (allowed)."""
    try:
        model = _model(schema, workdir)
    except CodegenError:
        return  # refused, with a diagnostic: allowed
    agrees(model, jsonschema.Draft7Validator(schema), schema, documents)


def agrees(model: Any, oracle: Any, schema: Any, documents: list[Any]) -> None:
    """The model accepts exactly the documents the oracle (a jsonschema validator) accepts."""
    for document in documents:
        expected = oracle.is_valid(document)
        try:
            model.model_validate_json(json.dumps(document))
            got = True
        except ValidationError:
            got = False
        assert got == expected, (
            f"{'false accept' if got else 'false reject'}: {json.dumps(document)} "
            f"for {json.dumps(schema)}"
        )


# -- at the root, with recursive references: never refused -------------------------------

_REFS = [f"#/definitions/d{k}" for k in range(2)]
# a reference always consumes part of the value (an item, a property), so no schema loops on
# one value without end (jsonschema, the oracle, would recurse forever)
ref_leaves: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from(_REFS).map(lambda r: {"type": "array", "items": {"$ref": r}}),
    st.sampled_from(_REFS).map(lambda r: {"properties": {"a": {"$ref": r}}}),
)
schemas_with_refs = st.recursive(leaves | ref_leaves, _combine, max_leaves=5)


@PROPERTY_SETTINGS
@given(
    root=schemas_with_refs,
    definitions=st.lists(schemas_with_refs, min_size=2, max_size=2),
    values=st.lists(json_values, min_size=8, max_size=16),
)
def test_a_random_schema_at_the_root_with_recursive_references_is_exact_and_never_refused(
    tmp_path_factory: Any, root: Any, definitions: list[Any], values: list[Any]
) -> None:
    schema = {
        "$schema": D7,
        "allOf": [root],
        "definitions": {f"d{k}": d for k, d in enumerate(definitions)},
    }
    model = _model(schema, tmp_path_factory.mktemp("random_root"))  # never a CodegenError
    adapter: TypeAdapter[Any] = TypeAdapter(model)
    oracle = jsonschema.Draft7Validator(schema)
    # the model publishes its JSON Schema (rules' references written out), never stricter
    published = adapter.json_schema()
    jsonschema.Draft202012Validator.check_schema(published)
    loose = jsonschema.Draft202012Validator(published)
    for value in values:
        expected = oracle.is_valid(value)
        assert loose.is_valid(value) or not expected, f"published is stricter on {value!r}"
        for path in ("json", "python"):
            try:
                if path == "json":
                    adapter.validate_json(json.dumps(value))
                else:
                    adapter.validate_python(value)
                got = True
            except ValidationError:
                got = False
            assert got == expected, (
                f"{'false accept' if got else 'false reject'} ({path}): {json.dumps(value)} "
                f"for {json.dumps(schema)}"
            )


@PROPERTY_SETTINGS
@given(
    target=schemas,
    beside=leaves.filter(lambda s: isinstance(s, dict) and bool(s)),
    values=st.lists(json_values, min_size=8, max_size=16),
)
def test_keywords_beside_a_ref_are_ignored_up_to_draft_07(
    tmp_path_factory: Any, target: Any, beside: dict[str, Any], values: list[Any]
) -> None:
    """Draft-07: "all other properties in a $ref object MUST be ignored" (the generator
    applied them: a minLength beside a nullable string's $ref refused "")."""
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"v": {"$ref": "#/definitions/d", **beside}},
        "definitions": {"d": target},
    }
    judged_as_jsonschema_judges(
        schema, tmp_path_factory.mktemp("beside"), [{"v": value} for value in values]
    )
