"""Draft-04 and draft-06 schemas are read as the draft-07 schemas that mean the same: a model
built from one accepts exactly what jsonschema's validator of that draft accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from pydantic import ValidationError

from codegen.__main__ import main
from codegen._json import JsonObject
from codegen.pipeline import json_schema_for
from codegen.schema_passes.older_drafts import as_draft_07
from tests._load import load_module
from tests._settings import PROPERTY_SETTINGS
from tests.test_random_schemas import _combine, _model, agrees, json_values, leaves

D4 = "http://json-schema.org/draft-04/schema#"
D6 = "http://json-schema.org/draft-06/schema#"
D7 = "http://json-schema.org/draft-07/schema#"


def test_older_drafts_golden() -> None:
    before: JsonObject = {
        "$schema": D4,
        "id": "https://example.com/s.json",
        "properties": {
            "n": {"maximum": 5, "exclusiveMaximum": True, "minimum": 0, "exclusiveMinimum": False},
            "id": {"type": "string", "format": "uri-reference", "const": "x"},
            "d": {"format": "date-time", "if": {"type": "string"}, "then": {"minLength": 9}},
            "c": {"contains": {"type": "integer"}, "propertyNames": {"maxLength": 1}},
        },
    }
    assert as_draft_07(before) == {
        "$schema": D4,
        "$id": "https://example.com/s.json",
        "properties": {
            "n": {"exclusiveMaximum": 5, "minimum": 0},
            "id": {"type": "string"},
            "d": {"format": "date-time"},
            "c": {},
        },
    }


def test_draft_06_keeps_its_own_keywords_and_formats() -> None:
    before: JsonObject = {
        "$schema": D6,
        "exclusiveMaximum": 5,
        "const": 3,
        "format": "json-pointer",
        "if": {"const": 1},
        "items": {"format": "date"},
    }
    assert as_draft_07(before) == {
        "$schema": D6,
        "exclusiveMaximum": 5,
        "const": 3,
        "format": "json-pointer",
        "items": {},
    }


def test_a_draft_07_schema_is_left_as_it_is() -> None:
    schema: JsonObject = {"$schema": D7, "id": "x", "exclusiveMaximum": 3, "format": "date"}
    assert as_draft_07(schema) is schema


def test_a_draft_04_schema_builds_a_model_with_its_exclusive_bound(tmp_path: Path) -> None:
    schema = {
        "$schema": D4,
        "title": "Four",
        "type": "object",
        "properties": {"n": {"type": "number", "maximum": 5, "exclusiveMaximum": True}},
    }
    (tmp_path / "four.json").write_text(json.dumps(schema))
    assert main(["model", str(tmp_path / "four.json"), "--out", str(tmp_path / "four.py")]) == 0
    model = load_module(tmp_path / "four.py", "draft_four").Four
    assert model.model_validate({"n": 4.5}).n == 4.5
    with pytest.raises(ValidationError):
        model.model_validate({"n": 5})


def test_a_draft_04_integer_is_a_number_written_without_a_fraction(tmp_path: Path) -> None:
    """Draft-04 refuses 1.0 as an integer, in a typed field and inside a rule alike."""
    schema = {
        "$schema": D4,
        "title": "Four",
        "type": "object",
        "properties": {
            "n": {"type": "integer"},  # a typed field
            "m": {"not": {"type": "integer"}},  # rules
            "p": {"type": "object", "patternProperties": {"^x": {"type": "integer"}}},
        },
    }
    (tmp_path / "four.json").write_text(json.dumps(schema))
    assert main(["model", str(tmp_path / "four.json"), "--out", str(tmp_path / "four.py")]) == 0
    model = load_module(tmp_path / "four.py", "draft_four_integers").Four
    for text in ('{"n": 1}', '{"m": 2.0}', '{"m": "2"}', '{"p": {"x": 3}}'):
        model.model_validate_json(text)
    for text in ('{"n": 1.0}', '{"n": 1e2}', '{"m": 2}', '{"p": {"x": 3.0}}'):
        with pytest.raises(ValidationError):
            model.model_validate_json(text)
    model.model_validate({"m": 2.0})
    with pytest.raises(ValidationError):
        model.model_validate({"n": 1.0})


# -- random draft-04 schemas against jsonschema's draft-04 validator ---------------------------

_FLAGGED_BOUNDS = st.builds(
    lambda bound, n, flag: {bound: n, "exclusive" + bound[0].upper() + bound[1:]: flag},
    st.sampled_from(["minimum", "maximum"]),
    st.integers(-3, 3),
    st.booleans(),
)
_FORMATS = st.sampled_from(["date", "time", "json-pointer", "uri-reference", "ipv4"]).map(
    lambda f: {"type": "string", "format": f}
)
_CLAIMED = {"date", "time", "json-pointer", "uri-reference", "ipv4", "date-time", "uri"}


def _no_numeric_exclusive(schema: Any) -> bool:
    """Draft-04's exclusive bounds are flags: a number there is no draft-04 schema."""
    if isinstance(schema, dict):
        if any(isinstance(schema.get(k), int | float) and not isinstance(schema.get(k), bool)
               for k in ("exclusiveMinimum", "exclusiveMaximum")):  # fmt: skip
            return False
        return all(_no_numeric_exclusive(v) for v in schema.values())
    if isinstance(schema, list):
        return all(_no_numeric_exclusive(v) for v in schema)
    return True


draft_04_schemas = st.recursive(
    leaves.filter(_no_numeric_exclusive) | _FLAGGED_BOUNDS | _FORMATS, _combine, max_leaves=5
).filter(_no_numeric_exclusive)


@PROPERTY_SETTINGS
@given(value_schema=draft_04_schemas, values=st.lists(json_values, min_size=8, max_size=16))
def test_a_random_draft_04_schema_is_judged_as_draft_04_judges(
    tmp_path_factory: Any, value_schema: Any, values: list[Any]
) -> None:
    schema: JsonObject = {"$schema": D4, "type": "object", "properties": {"v": value_schema}}
    try:
        jsonschema.Draft4Validator.check_schema(schema)
    except jsonschema.SchemaError:
        assume(False)
    as_seven, _ = json_schema_for(schema, source="random", strict=False)
    model = _model(as_seven, tmp_path_factory.mktemp("draft4"))
    checker = jsonschema.FormatChecker(
        formats=_CLAIMED & set(jsonschema.Draft4Validator.FORMAT_CHECKER.checkers)
    )
    oracle = jsonschema.Draft4Validator(schema, format_checker=checker)
    more = ["", "a", "1.2.3.4", "2020-01-01", "/a", 1.0, 2, -3.0, [1.0]]
    agrees(model, oracle, schema, [{"v": value} for value in [*values, *more]])
