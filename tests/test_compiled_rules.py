"""Compiled rules mean what the interpreter means: ``compile_rule(schema, refs)(value)`` is
``satisfies(value, schema, refs)`` on every schema and value, and a model's rules read from the
model are its rules read from its dump. The interpreter (``satisfies``) is the oracle: it is
the proven path the compiled one replaced."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import MISSING, ConfigDict, Field, RootModel

from agentruns_generated._json import (
    MAX_RULE_DEPTH,
    JsonModel,
    RuleDepthError,
    _Compiler,
    _members,
    _names_read,
    _State,
    check_rules,
    compile_rule,
    satisfies,
)
from tests._settings import PROPERTY_SETTINGS
from tests.test_random_schemas import json_values, schemas, schemas_with_refs

extra_keywords: st.SearchStrategy[Any] = st.sampled_from(
    [
        {"pattern": "^a"},
        {"pattern": "b$"},
        {"format": "date"},
        {"propertyNames": {"maxLength": 1}},
        {"patternProperties": {"^a": {"type": "integer"}}},
        {"dependencies": {"a": ["b"]}},
        {"dependencies": {"a": {"required": ["c"]}}},
        {"items": [{"type": "integer"}], "additionalItems": False},
        {"allOf": [{"allOf": [{"type": "object"}]}, {"type": "object"}]},
        {"type": ["string", "null"]},
        {"type": ["integer", "object"], "required": ["a"]},
        {"type": []},
        {"if": {"const": "a"}, "then": {"type": "string"}},
        {"if": {"properties": {"a": {"not": {"const": "x"}}}}, "else": {"required": ["b"]}},
        {"properties": {"a": {"const": "x"}, "b": {"type": "null"}}, "required": ["a"]},
        {"properties": {"a": {"enum": ["x", 1, None]}}, "minProperties": 1},
        {"oneOf": [{"type": "string"}, {"const": "a"}, {"type": "integer"}]},
    ]
)


def _verdict(check: Any) -> object:
    try:
        return check()
    except RuleDepthError:
        return RuleDepthError


def _agree(schema: Any, refs: dict[str, Any], value: Any) -> None:
    """The rule written out as source (``compile_rule``) and the closures it falls back to
    (``_Compiler.node``, which also check every reference's target) both mean ``satisfies``."""
    compiled = compile_rule(schema, refs)
    closures = _Compiler(refs).node(schema)
    expected = _verdict(lambda: satisfies(value, schema, refs))
    got = _verdict(lambda: compiled(value))
    assert got == expected, f"{json.dumps(value)} against {json.dumps(schema)} ({refs})"
    by_closures = _verdict(lambda: closures(value, 0, _State()))
    assert by_closures == expected, f"closures: {json.dumps(value)} against {json.dumps(schema)}"


@PROPERTY_SETTINGS
@given(schema=schemas | extra_keywords, values=st.lists(json_values, min_size=8, max_size=16))
def test_a_compiled_rule_agrees_with_the_interpreter(schema: Any, values: list[Any]) -> None:
    for value in values:
        _agree(schema, {}, value)


@PROPERTY_SETTINGS
@given(
    root=schemas_with_refs,
    definitions=st.lists(schemas_with_refs, min_size=2, max_size=2),
    values=st.lists(json_values, min_size=8, max_size=16),
)
def test_a_compiled_rule_with_references_agrees_with_the_interpreter(
    root: Any, definitions: list[Any], values: list[Any]
) -> None:
    refs = {f"/definitions/d{k}": d for k, d in enumerate(definitions)}
    for value in values:
        _agree(root, refs, value)


def test_a_left_recursive_reference_is_false_as_interpreted() -> None:
    refs = {"/definitions/a": {"allOf": [{"$ref": "#/definitions/a"}]}}
    _agree({"$ref": "#/definitions/a"}, refs, {"x": 1})
    assert compile_rule({"$ref": "#/definitions/a"}, refs)({"x": 1}) is False


def test_a_rule_deeper_than_the_bound_raises_as_interpreted() -> None:
    value: Any = 1
    for _ in range(MAX_RULE_DEPTH + 5):
        value = [value]
    refs = {"/definitions/a": {"items": {"$ref": "#/definitions/a"}}}
    _agree({"$ref": "#/definitions/a"}, refs, value)
    with pytest.raises(RuleDepthError):
        compile_rule({"$ref": "#/definitions/a"}, refs)(value)


@pytest.mark.parametrize("levels", [MAX_RULE_DEPTH // 2 - 2, MAX_RULE_DEPTH // 2 + 5])
def test_a_rule_nested_deeper_than_the_bound_without_references_raises_as_interpreted(
    levels: int,
) -> None:
    """Written out as source, a rule's depth is known per function: past the bound the
    function raises, as the interpreter does at that depth (each ``not`` is a level)."""
    negated: Any = {"type": "integer"}
    for _ in range(levels):
        negated = {"not": {"not": negated}}
    expected = _verdict(lambda: satisfies(1, negated, {}))
    assert _verdict(lambda: compile_rule(negated, {})(1)) == expected
    assert (expected is RuleDepthError) is (2 * levels > MAX_RULE_DEPTH)


def test_fanning_references_are_judged_once_per_value() -> None:
    """Each definition names the next twice: 2**40 paths, judged in linear time."""
    refs: dict[str, Any] = {
        f"/definitions/d{k}": {"allOf": [{"$ref": f"#/definitions/d{k + 1}"}] * 2}
        for k in range(40)
    }
    refs["/definitions/d40"] = {"type": "integer"}
    assert compile_rule({"$ref": "#/definitions/d0"}, refs)(3) is True


@pytest.mark.parametrize(
    ("step", "valid"),
    [
        ({"step_id": 1, "source": "agent", "message": "x", "model_name": "m"}, True),
        ({"step_id": 1, "source": "user", "message": "x", "model_name": "m"}, False),
        ({"step_id": 1, "source": "user", "message": "x", "model_name": None}, True),
        (
            {"step_id": 1, "source": "agent", "message": "x", "llm_call_count": 0, "metrics": {}},
            False,
        ),
        ({"step_id": 1, "source": "agent", "message": [{"type": "text", "text": "t"}]}, True),
    ],
)
def test_a_models_rules_read_from_the_model_are_its_rules_read_from_its_dump(
    step: dict[str, Any], valid: bool
) -> None:
    from pydantic import ValidationError

    from agentruns_generated.atif import SCHEMA_REFS, AtifStep

    extra = AtifStep.model_config.get("json_schema_extra")
    assert isinstance(extra, dict)
    rules = extra["allOf"]
    assert isinstance(rules, list)
    assert all(satisfies(step, rule, SCHEMA_REFS) for rule in rules) is valid
    if not valid:
        with pytest.raises(ValidationError) as raised:
            AtifStep.model_validate(step)
        assert {e["type"] for e in raised.value.errors()} == {"schema_rule"}
        return
    model = AtifStep.model_validate(step)
    dumped = model.model_dump(mode="json", by_alias=True)
    assert all(satisfies(dumped, rule, SCHEMA_REFS) for rule in rules)
    check_rules(model, SCHEMA_REFS)  # read from the model itself: no error


class _Renamed(JsonModel):
    """A property whose JSON name is no Python name, and extra properties."""

    model_config = ConfigDict(extra="allow")

    class_: str | MISSING = Field(MISSING, alias="class")
    plain: int | MISSING = MISSING


class _Plain(JsonModel):
    name: str
    kept: int | MISSING = MISSING


def test_a_rule_reads_a_model_by_its_json_names_with_its_extras_and_without_absent_fields() -> None:
    renamed = _Renamed.model_validate({"class": "c", "x-more": [1]})
    assert _members(renamed) == {"class": "c", "x-more": [1]}
    assert _members(_Plain(name="n")) == {"name": "n"}
    assert _members(_Plain(name="n", kept=1)) == _Plain(name="n", kept=1).model_dump()
    assert json.loads(renamed.model_dump_json()) == _members(renamed)


@PROPERTY_SETTINGS
@given(
    schema=schemas | extra_keywords,
    values=st.lists(st.dictionaries(st.sampled_from("abcd"), json_values), min_size=8, max_size=16),
)
def test_a_rule_read_by_name_judges_the_names_alone_and_missing_as_absent(
    schema: Any, values: list[dict[str, Any]]
) -> None:
    names = _names_read(schema)
    if names is None:
        return  # it may read the object whole: it reads a model's members (``_members``)
    check = compile_rule(schema)
    for value in values:
        expected = _verdict(lambda value=value: check(value))
        alone = {name: item for name, item in value.items() if name in names}
        assert _verdict(lambda alone=alone: check(alone)) == expected, json.dumps(value)
        # a model's ``__dict__``: every field is there, an absent one as MISSING
        held = {**dict.fromkeys("abcde", MISSING), **value}
        assert _verdict(lambda held=held: check(held)) == expected, json.dumps(value)


@pytest.mark.parametrize(
    "rule",
    [
        {"const": {"a": 1}},
        {"enum": [{}]},
        {"$ref": "#/definitions/d0"},
        {"additionalProperties": False},
        {"minProperties": 1},
        {"allOf": [{"properties": {"a": {}}}, {"propertyNames": {"maxLength": 1}}]},
        {"if": {"required": ["a"]}, "then": {"dependencies": {"a": ["b"]}}},
        {"unknown-keyword": 1},
    ],
)
def test_a_rule_that_may_read_an_object_whole_is_not_read_by_name(rule: dict[str, Any]) -> None:
    assert _names_read(rule) is None


def test_the_names_a_rule_reads_are_its_properties_and_required_names_at_every_branch() -> None:
    rule = {
        "if": {"properties": {"source": {"not": {"const": "agent"}}}},
        "then": {"properties": {"tool_calls": {"type": "null"}}, "required": ["message"]},
        "anyOf": [{"type": "object"}, {"minLength": 2}],
    }
    assert _names_read(rule) == frozenset({"source", "tool_calls", "message"})


def test_a_models_rules_read_its_own_fields_when_they_read_it_by_name() -> None:
    from agentruns_generated._json import _BY_NAME
    from agentruns_generated.atif import SCHEMA_REFS, AtifStep

    AtifStep.model_validate({"step_id": 1, "source": "agent", "message": ""})
    assert _BY_NAME[AtifStep] is True
    with pytest.raises(Exception, match="schema rule"):
        AtifStep.model_validate({"step_id": 1, "source": "user", "message": "", "tool_calls": []})
    check_rules(
        AtifStep.model_validate({"step_id": 1, "source": "user", "message": ""}), SCHEMA_REFS
    )


class _Root(RootModel[str | None]):
    """A root model: read as its root (a string, or null)."""


_LEAVES: list[Any] = [
    {"type": "null"},
    {"const": "x"},
    {"not": {"const": "x"}},
    {"not": {"type": "null"}},
    {"not": {"not": {"const": "x"}}},
    True,
    False,
    {},
]
"""The leaf schemas a compiled rule checks inline (``_Emitter.inline``)."""


_HELD: list[tuple[Any, Any]] = [
    (None, None),
    (_Root(None), None),
    ("x", "x"),
    (_Root("x"), "x"),
    (_Root("y"), "y"),
    ("", ""),
    (["x"], ["x"]),
    (("x",), ["x"]),
    ((), []),
    (_Plain(name="x"), {"name": "x"}),
]
"""Values as a rule may meet them (JSON, a root model, a tuple, a model), with their JSON."""


def _placed(leaf: Any, where: str, value: Any) -> tuple[Any, Any]:
    """A schema with ``leaf`` at ``where``, and the value it is checked on there."""
    if where == "properties":
        return {"properties": {"a": leaf}}, {"a": value}
    if where == "if":
        return {"if": leaf, "then": {"type": "string"}, "else": {"type": "array"}}, value
    if where == "not":
        return {"not": leaf}, value
    return {"allOf": [leaf, {"anyOf": [leaf, {"type": "object"}]}]}, value


@pytest.mark.parametrize("leaf", _LEAVES, ids=json.dumps)
@pytest.mark.parametrize("where", ["properties", "if", "not", "allOf"])
def test_an_inline_leaf_judges_a_model_root_model_or_tuple_as_its_json(
    leaf: Any, where: str
) -> None:
    for value, as_json in _HELD:
        schema, made = _placed(leaf, where, value)
        expected = satisfies(_placed(leaf, where, as_json)[1], schema)
        assert compile_rule(schema)(made) == expected, (schema, value)


@pytest.mark.parametrize("extra", range(-5, 3))
@pytest.mark.parametrize("leaf", [{"type": "null"}, {"const": "x"}, {"not": {"const": "x"}}])
def test_an_inline_leaf_near_the_depth_bound_raises_or_not_as_interpreted(
    leaf: Any, extra: int
) -> None:
    """A leaf under a chain of ``not`` is met as deep as the chain is long: near the bound it
    is a function of its own, which raises past it as the interpreter does."""
    schema: Any = leaf
    for _ in range(MAX_RULE_DEPTH + extra):
        schema = {"not": schema}
    compiled = compile_rule(schema)
    for value in (None, "x", [1], []):
        expected = _verdict(partial(satisfies, value, schema))
        assert _verdict(partial(compiled, value)) == expected, value
