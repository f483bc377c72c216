"""The JSON Structure -> JSON Schema translator, one spec construct per test."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from codegen._json import Json, JsonObject
from codegen.diagnostics import CodegenError
from codegen.structure import translate

META = "https://json-structure.org/meta/core/v0/#"


def doc(root: JsonObject, **extra: Json) -> JsonObject:
    return {"$schema": META, "$id": "https://example.com/t", "name": "T", **root, **extra}


def prop(type_: Json, **keywords: Json) -> JsonObject:
    """A one-property object document whose property ``v`` has the given type."""
    return doc(
        {
            "type": "object",
            "properties": {"v": {"type": type_, **keywords}},
            "required": ["v"],
        }
    )


def schema_of(type_: Json, **keywords: Json) -> Any:
    translated = translate(prop(type_, **keywords), source="t.json").schema
    return translated["properties"]["v"]  # type: ignore[index,call-overload]


def accepts(schema: JsonObject, instance: Json) -> bool:
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    return bool(validator.is_valid(instance))


def value_accepted(type_: Json, value: Json, **keywords: Json) -> bool:
    return accepts(translate(prop(type_, **keywords), source="t.json").schema, {"v": value})


def test_output_declares_json_schema_2020_12_and_keeps_id() -> None:
    schema = translate(prop("string"), source="t.json").schema
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "https://example.com/t"
    assert schema["title"] == "T"


@pytest.mark.parametrize("name", ["string", "boolean", "null", "number"])
def test_json_primitives_keep_their_name(name: str) -> None:
    assert schema_of(name) == {"type": name}


@pytest.mark.parametrize(
    ("name", "low", "high"),
    [
        ("int8", -128, 127),
        ("uint8", 0, 255),
        ("int16", -32768, 32767),
        ("uint16", 0, 65535),
        ("int32", -(2**31), 2**31 - 1),
        ("uint32", 0, 2**32 - 1),
    ],
)
def test_sized_integers_are_integers_with_their_range(name: str, low: int, high: int) -> None:
    assert schema_of(name) == {"type": "integer", "minimum": low, "maximum": high}
    assert value_accepted(name, high)
    assert not value_accepted(name, high + 1)
    assert not value_accepted(name, low - 1)


def test_integer_is_an_alias_of_int32() -> None:
    assert schema_of("integer") == schema_of("int32")


@pytest.mark.parametrize("name", ["int64", "uint64", "int128", "uint128"])
def test_wide_integers_travel_as_strings(name: str) -> None:
    assert schema_of(name)["type"] == "string"
    assert value_accepted(name, "12345678901234567")
    assert not value_accepted(name, 12345)
    assert not value_accepted(name, "12a")


def test_unsigned_wide_integers_reject_a_sign() -> None:
    assert not value_accepted("uint64", "-1")
    assert value_accepted("int64", "-1")


def test_decimal_is_a_string_keeping_precision_and_scale_as_annotations() -> None:
    schema = schema_of("decimal", precision=10, scale=2)
    assert schema["type"] == "string"
    assert schema["x-precision"] == 10
    assert schema["x-scale"] == 2
    assert value_accepted("decimal", "12.50")
    assert not value_accepted("decimal", 12.5)


@pytest.mark.parametrize("name", ["float8", "float", "double"])
def test_floats_are_numbers(name: str) -> None:
    assert schema_of(name) == {"type": "number"}


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("date", "date"),
        ("datetime", "date-time"),
        ("uuid", "uuid"),
        ("jsonpointer", "json-pointer"),
    ],
)
def test_string_encoded_primitives_carry_their_format(name: str, fmt: str) -> None:
    assert schema_of(name) == {"type": "string", "format": fmt}


@pytest.mark.parametrize("name", ["time", "duration"])
def test_time_and_duration_are_json_structures_own_patterns_not_json_schema_formats(
    name: str,
) -> None:
    """JSON Schema's time needs an offset and its duration has no fractions; JSON
    Structure's have neither rule, so no format of JSON Schema may judge them."""
    translated = schema_of(name)
    assert set(translated) == {"type", "pattern"}


def test_uri_is_a_uri_reference_because_the_spec_allows_relative_references() -> None:
    assert schema_of("uri") == {"type": "string", "format": "uri-reference"}


def test_binary_is_a_base64_string() -> None:
    assert schema_of("binary") == {"type": "string", "contentEncoding": "base64"}


def test_any_accepts_everything() -> None:
    assert schema_of("any") == {}


def test_object_keeps_properties_required_and_allows_extras_by_default() -> None:
    schema = translate(prop("string"), source="t.json").schema
    assert schema["type"] == "object"
    assert schema["required"] == ["v"]
    assert schema["additionalProperties"] is True
    assert accepts(schema, {"v": "x", "extra": 1})
    assert not accepts(schema, {})


def test_object_additional_properties_false_forbids_extras() -> None:
    schema = translate(
        doc(
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": False,
            }
        ),
        source="t.json",
    ).schema
    assert not accepts(schema, {"a": "x", "b": 1})


def test_object_additional_properties_schema_is_translated() -> None:
    schema = translate(
        doc(
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": {"type": "int8"},
            }
        ),
        source="t.json",
    ).schema
    assert accepts(schema, {"a": "x", "b": 1})
    assert not accepts(schema, {"a": "x", "b": 1000})


def test_array_translates_its_items() -> None:
    assert schema_of("array", items={"type": "uint8"}) == {
        "type": "array",
        "items": {"type": "integer", "minimum": 0, "maximum": 255},
    }


def test_set_is_an_array_of_unique_items() -> None:
    schema = schema_of("set", items={"type": "string"})
    assert schema["uniqueItems"] is True
    assert not value_accepted("set", ["a", "a"], items={"type": "string"})


def test_map_is_an_object_of_values() -> None:
    assert schema_of("map", values={"type": "string"}) == {
        "type": "object",
        "additionalProperties": {"type": "string"},
    }


def test_tuple_is_a_fixed_length_array_in_tuple_order() -> None:
    schema = schema_of(
        "tuple",
        properties={"name": {"type": "string"}, "age": {"type": "uint8"}},
        tuple=["name", "age"],
    )
    assert schema["prefixItems"][0] == {"type": "string"}
    assert schema["minItems"] == schema["maxItems"] == 2
    keywords: dict[str, Json] = {
        "properties": {"name": {"type": "string"}, "age": {"type": "uint8"}},
        "tuple": ["name", "age"],
    }
    assert value_accepted("tuple", ["Ada", 36], **keywords)
    assert not value_accepted("tuple", [36, "Ada"], **keywords)
    assert not value_accepted("tuple", ["Ada", 36, 1], **keywords)


def test_type_ref_points_into_defs() -> None:
    document = doc(
        {"type": "object", "properties": {"a": {"type": {"$ref": "#/definitions/Name"}}}},
        definitions={"Name": {"type": "string", "maxLength": 3}},
    )
    schema = translate(document, source="t.json").schema
    assert schema["properties"] == {"a": {"$ref": "#/$defs/Name"}}
    assert schema["$defs"] == {"Name": {"type": "string", "maxLength": 3}}


def test_namespaced_definitions_get_qualified_keys() -> None:
    document = doc(
        {"type": "object", "properties": {"a": {"type": {"$ref": "#/definitions/ns/Name"}}}},
        definitions={"ns": {"Name": {"type": "string"}}},
    )
    schema = translate(document, source="t.json").schema
    assert schema["properties"] == {"a": {"$ref": "#/$defs/ns_Name"}}


def test_root_pointer_designates_the_root_type() -> None:
    document: JsonObject = {
        "$schema": META,
        "$id": "https://example.com/t",
        "$root": "#/definitions/Thing",
        "definitions": {"Thing": {"type": "object", "properties": {"a": {"type": "string"}}}},
    }
    schema = translate(document, source="t.json").schema
    assert schema["$ref"] == "#/$defs/Thing"
    assert accepts(schema, {"a": "x"})
    assert not accepts(schema, {"a": 1})


def test_extends_merges_abstract_base_properties_and_abstract_types_are_not_emitted() -> None:
    document: JsonObject = {
        "$schema": META,
        "$id": "https://example.com/t",
        "$root": "#/definitions/Street",
        "definitions": {
            "Address": {
                "abstract": True,
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
            "Street": {
                "type": "object",
                "$extends": "#/definitions/Address",
                "properties": {"street": {"type": "string"}},
                "additionalProperties": False,
            },
        },
    }
    schema: Any = translate(document, source="t.json").schema
    assert list(schema["$defs"]) == ["Street"]
    assert accepts(schema, {"city": "Oslo", "street": "Main"})
    assert not accepts(schema, {"street": "Main"})
    assert not accepts(schema, {"city": "Oslo", "zip": "1"})


def test_redefining_an_inherited_property_is_an_error() -> None:
    document: JsonObject = {
        "$schema": META,
        "$id": "https://example.com/t",
        "$root": "#/definitions/B",
        "definitions": {
            "A": {"abstract": True, "type": "object", "properties": {"x": {"type": "string"}}},
            "B": {
                "type": "object",
                "$extends": "#/definitions/A",
                "properties": {"x": {"type": "string"}},
            },
        },
    }
    with pytest.raises(CodegenError, match="redefines an inherited property"):
        translate(document, source="t.json")


def test_using_an_abstract_type_directly_is_an_error() -> None:
    document = doc(
        {"type": "object", "properties": {"a": {"type": {"$ref": "#/definitions/A"}}}},
        definitions={
            "A": {"abstract": True, "type": "object", "properties": {"x": {"type": "string"}}}
        },
    )
    with pytest.raises(CodegenError, match="abstract"):
        translate(document, source="t.json")


def test_tagged_choice_is_a_one_property_object_per_choice() -> None:
    schema = schema_of("choice", choices={"text": {"type": "string"}, "count": {"type": "int32"}})
    assert len(schema["oneOf"]) == 2
    choice: dict[str, Json] = {"choices": {"text": {"type": "string"}, "count": {"type": "int32"}}}
    assert value_accepted("choice", {"text": "hi"}, **choice)
    assert value_accepted("choice", {"count": 3}, **choice)
    assert not value_accepted("choice", {"text": "hi", "count": 3}, **choice)
    assert not value_accepted("choice", {"count": "3"}, **choice)


def test_inline_choice_injects_the_selector_as_a_const_discriminator() -> None:
    document: JsonObject = {
        "$schema": META,
        "$id": "https://example.com/t",
        "name": "Address",
        "type": "choice",
        "$extends": "#/definitions/Base",
        "selector": "kind",
        "choices": {
            "Street": {"type": {"$ref": "#/definitions/Street"}},
            "Box": {"type": {"$ref": "#/definitions/Box"}},
        },
        "definitions": {
            "Base": {
                "abstract": True,
                "type": "object",
                "properties": {"city": {"type": "string"}},
            },
            "Street": {
                "type": "object",
                "$extends": "#/definitions/Base",
                "properties": {"street": {"type": "string"}},
                "additionalProperties": False,
            },
            "Box": {
                "type": "object",
                "$extends": "#/definitions/Base",
                "properties": {"box": {"type": "string"}},
                "required": ["box"],
                "additionalProperties": False,
            },
        },
    }
    schema = translate(document, source="t.json").schema
    assert accepts(schema, {"kind": "Street", "street": "Main", "city": "Oslo"})
    assert accepts(schema, {"kind": "Box", "box": "12"})
    assert not accepts(schema, {"kind": "Box", "street": "Main"})
    assert not accepts(schema, {"street": "Main"})


def test_type_union_of_primitives_is_a_type_list() -> None:
    assert schema_of(["string", "null"]) == {"type": ["string", "null"]}


def test_type_union_with_a_reference_is_any_of() -> None:
    document = doc(
        {"type": "object", "properties": {"a": {"type": ["string", {"$ref": "#/definitions/N"}]}}},
        definitions={"N": {"type": "int8"}},
    )
    schema = translate(document, source="t.json").schema
    assert schema["properties"]["a"] == {  # type: ignore[call-overload,index]
        "anyOf": [{"type": "string"}, {"$ref": "#/$defs/N"}]
    }


def test_required_alternatives_become_one_of_required_sets() -> None:
    document = doc(
        {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "fins": {"type": "int32"},
                "legs": {"type": "int32"},
            },
            "required": [["name", "fins"], ["name", "legs"]],
        }
    )
    schema = translate(document, source="t.json").schema
    assert accepts(schema, {"name": "fish", "fins": 2})
    assert accepts(schema, {"name": "dog", "legs": 4})
    assert not accepts(schema, {"name": "odd", "fins": 2, "legs": 4})
    assert not accepts(schema, {"name": "blob"})


def test_description_and_examples_are_kept_and_singular_example_is_collected() -> None:
    schema = schema_of("string", description="A name.", example="Ada")
    assert schema == {"type": "string", "description": "A name.", "examples": ["Ada"]}


def test_altnames_json_sets_the_wire_name() -> None:
    document = doc(
        {
            "type": "object",
            "properties": {"first_name": {"type": "string", "altnames": {"json": "first-name"}}},
            "required": ["first_name"],
        }
    )
    schema = translate(document, source="t.json").schema
    assert schema["required"] == ["first-name"]
    assert accepts(schema, {"first-name": "Ada"})


@pytest.mark.parametrize(
    ("keywords", "good", "bad"),
    [
        ({"minLength": 2, "pattern": "^a"}, "ab", "ba"),
        ({"minimum": 1, "exclusiveMaximum": 3}, 2, 3),
        ({"multipleOf": 5}, 10, 11),
    ],
)
def test_validation_keywords_keep_their_meaning(
    keywords: JsonObject, good: Json, bad: Json
) -> None:
    type_ = "string" if isinstance(good, str) else "int32"
    assert value_accepted(type_, good, **keywords)
    assert not value_accepted(type_, bad, **keywords)


def test_map_entry_counts_become_property_counts() -> None:
    schema = schema_of("map", values={"type": "string"}, minEntries=1, maxEntries=2)
    assert schema["minProperties"] == 1
    assert schema["maxProperties"] == 2


def test_numeric_bounds_on_string_encoded_integers_are_reported_not_silently_dropped() -> None:
    result = translate(prop("int64", minimum=5), source="t.json")
    assert any(d.pointer == "/properties/v/minimum" for d in result.diagnostics)


def test_bare_object_is_read_as_a_free_form_map_and_reported() -> None:
    result = translate(prop("object"), source="seed.json")
    assert result.schema["properties"]["v"] == {  # type: ignore[call-overload,index]
        "type": "object",
        "additionalProperties": {},
    }
    (diagnostic,) = result.diagnostics
    assert diagnostic.source == "seed.json"
    assert diagnostic.pointer == "/properties/v"
    assert "map of any" in diagnostic.message


def test_strict_mode_turns_diagnostics_into_errors() -> None:
    with pytest.raises(CodegenError, match="/properties/v"):
        translate(prop("object"), source="seed.json", strict=True)


def test_unknown_keywords_are_reported_not_dropped_silently() -> None:
    result = translate(prop("string", colour="blue"), source="t.json")
    assert [d.pointer for d in result.diagnostics] == ["/properties/v/colour"]
    properties: Any = result.schema["properties"]
    assert "colour" not in properties["v"]


def test_remote_references_are_refused() -> None:
    with pytest.raises(CodegenError, match="remote references are refused"):
        translate(prop({"$ref": "https://example.com/other.json#/definitions/X"}), source="t.json")


def test_dangling_references_are_errors() -> None:
    with pytest.raises(CodegenError, match="does not resolve"):
        translate(prop({"$ref": "#/definitions/Nope"}), source="t.json")


def test_unknown_type_names_are_errors() -> None:
    with pytest.raises(CodegenError, match="unknown type 'strng'"):
        translate(prop("strng"), source="t.json")


def test_conditional_composition_is_translated_recursively() -> None:
    document = doc(
        {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "if": {"required": ["a"]},
            "then": {"required": ["b"]},
        }
    )
    schema = translate(document, source="t.json").schema
    assert accepts(schema, {"a": "x", "b": "y"})
    assert not accepts(schema, {"a": "x"})


@pytest.mark.parametrize(
    ("name", "low", "high"),
    [
        ("int64", -(2**63), 2**63 - 1),
        ("uint64", 0, 2**64 - 1),
        ("int128", -(2**127), 2**127 - 1),
        ("uint128", 0, 2**128 - 1),
    ],
)
def test_wide_integers_are_bounded_exactly_by_their_pattern(name: str, low: int, high: int) -> None:
    assert value_accepted(name, str(high))
    assert value_accepted(name, str(low))
    assert not value_accepted(name, str(high + 1))
    assert not value_accepted(name, str(low - 1))


@pytest.mark.parametrize("text", ["01", "+1", " 1", "1.0", "", "-"])
def test_wide_integers_follow_the_rfc_8259_int_syntax(text: str) -> None:
    assert not value_accepted("int64", text)
