"""The translator against the official json-structure SDK: same verdicts on the same instances.

For each construct, a few instances around its edges are judged by the SDK (on the JSON
Structure source) and by jsonschema (on the translation). They must agree, except where the
SDK departs from the spec; those cases are listed with the reason.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from json_structure import InstanceValidator

from codegen.structure import translate

META = "https://json-structure.org/meta/core/v0/#"


def document(type_: Any, **keywords: Any) -> dict[str, Any]:
    return {
        "$schema": META,
        "$id": "https://example.com/t",
        "name": "T",
        "type": "object",
        "properties": {"v": {"type": type_, **keywords}},
        "required": ["v"],
    }


CASES: list[tuple[str, dict[str, Any], list[Any]]] = [
    ("int8", document("int8"), [1, -128, 127, 128, -129, "1", 1.5]),
    ("uint32", document("uint32"), [0, 2**32 - 1, 2**32, -1]),
    ("int32", document("int32"), [2**31 - 1, 2**31, "7"]),
    (
        "int64",
        document("int64"),
        ["9223372036854775807", "9223372036854775808", "-9223372036854775808", 5, "1.5"],
    ),
    ("uint64", document("uint64"), ["18446744073709551615", "18446744073709551616", "-1", "abc"]),
    ("decimal", document("decimal"), ["1.50", "-0.5", "abc", 1.5]),
    ("number", document("double"), [1.5, 1, "1.5", None]),
    ("string", document("string"), ["x", 1, None]),
    ("boolean", document("boolean"), [True, "true", 0]),
    ("date", document("date"), ["2026-01-31", "31/01/2026", 20260131]),
    (
        "datetime",
        document("datetime"),
        ["2026-01-31T12:00:00Z", "2026-01-31 12:00:00Z", "2026-01-31T12:00:00"],
    ),
    ("uuid", document("uuid"), ["0f8fad5b-d9cb-469f-a165-70867728950e", "nope"]),
    ("duration", document("duration"), ["P1D", "PT5M", "1 day"]),
    # JSON Structure's own meanings, not JSON Schema's formats: fractional seconds in a
    # duration, a time of day without an offset
    (
        "duration with fractions",
        document("duration"),
        ["PT2.5S", "P1Y2M3DT4H5M6.7S", "P0.5D", "P1W2D", "-P1D", "P1DT"],
    ),
    ("time without offset", document("time"), ["09:00:00", "09:00:00.5", "24:00:00", "9:00"]),
    ("binary", document("binary"), ["aGVsbG8=", 5]),
    ("union", document(["string", "null"]), [None, "x", 1]),
    ("array", document("array", items={"type": "int8"}), [[1, 2], [1, 300], "x"]),
    ("set", document("set", items={"type": "string"}), [["a", "b"], ["a", "a"]]),
    ("map", document("map", values={"type": "int32"}), [{"a": 1}, {"a": "x"}, [1]]),
    (
        "tuple",
        document(
            "tuple", properties={"a": {"type": "string"}, "b": {"type": "int32"}}, tuple=["a", "b"]
        ),
        [["x", 1], [1, "x"], ["x"], ["x", 1, 2]],
    ),
    (
        "choice",
        document("choice", choices={"s": {"type": "string"}, "n": {"type": "int32"}}),
        [{"s": "x"}, {"n": 1}, {"n": "x"}, {"s": "x", "n": 1}, {}],
    ),
    (
        "object",
        document(
            "object",
            properties={"a": {"type": "string"}, "b": {"type": "int32"}},
            required=["a"],
            additionalProperties=False,
        ),
        [{"a": "x"}, {"a": "x", "b": 1}, {"b": 1}, {"a": "x", "c": 1}],
    ),
]

# Where the SDK departs from the spec (the translation follows the spec):
SDK_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("int8", "true"): "the SDK accepts true as an integer",
    ("date", "2026-13-01"): "the SDK checks the date shape only",
    ("time without offset", "24:00:00"): "the SDK checks the time shape only (RFC 3339: 00-23)",
    ("duration with fractions", "P1DT"): "the SDK accepts a T with no time after it",
}


def test_a_time_with_an_offset_is_a_time_as_the_spec_says() -> None:
    """The SDK rejects an offset; the core spec's time is RFC 3339's, which allows one."""
    doc = document("time")
    assert translation_accepts(doc, "09:00:00+01:00")
    assert translation_accepts(doc, "09:00:00Z")
    assert not translation_accepts(doc, "09:00:00+24:00")


def sdk_accepts(doc: dict[str, Any], value: Any) -> bool:
    return not InstanceValidator(doc).validate_instance({"v": value})


def translation_accepts(doc: dict[str, Any], value: Any) -> bool:
    schema = translate(doc, source="t.json").schema
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    return bool(validator.is_valid({"v": value}))


@pytest.mark.parametrize(("name", "doc", "values"), CASES, ids=[c[0] for c in CASES])
def test_translation_agrees_with_the_sdk(name: str, doc: dict[str, Any], values: list[Any]) -> None:
    disagreements = [
        value
        for value in values
        if sdk_accepts(doc, value) != translation_accepts(doc, value)
        and (name, str(value)) not in SDK_EXCEPTIONS
    ]
    assert not disagreements
