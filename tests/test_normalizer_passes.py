"""The normaliser's passes, each by its golden input and output on a schema of a few lines,
and the driver that runs them in the one declared order (``codegen.normalize``)."""

from __future__ import annotations

import pytest

from codegen import normalize as driver
from codegen._json import Json, JsonObject
from codegen.diagnostics import DiagnosticSink, Severity
from codegen.schema_passes.conditionals import split_conditionals
from codegen.schema_passes.context import Context
from codegen.schema_passes.definition_names import safe_definition_names
from codegen.schema_passes.discriminators import add_discriminators
from codegen.schema_passes.exactness import enforce_exactly
from codegen.schema_passes.free_form import free_form
from codegen.schema_passes.item_unions import name_item_unions
from codegen.schema_passes.lift_rules import lift_rules
from codegen.schema_passes.local_refs import check_refs, local_refs
from codegen.schema_passes.patterns import translate_patterns
from codegen.schema_passes.ref_siblings import ref_siblings_apply, ref_siblings_ignored


def _after(step: driver.Pass, schema: JsonObject) -> Context:
    ctx = Context(schema, DiagnosticSink("s.json"))
    step(ctx)
    return ctx


def _said(ctx: Context) -> list[tuple[str, str, Severity]]:
    return [(d.pointer, d.message, d.severity) for d in ctx.sink.items]


def test_local_refs_spell_the_documents_uri_and_an_id_anchor_as_local_pointers() -> None:
    ctx = _after(
        local_refs,
        {
            "$id": "https://x.test/s.json",
            "properties": {
                "a": {"$ref": "https://x.test/s.json#/definitions/A"},
                "b": {"$ref": "#n"},
            },
            "definitions": {"A": {"type": "string"}, "N": {"$id": "#n", "type": "integer"}},
        },
    )
    assert ctx.root == {
        "$id": "https://x.test/s.json",
        "properties": {"a": {"$ref": "#/definitions/A"}, "b": {"$ref": "#/definitions/N"}},
        "definitions": {"A": {"type": "string"}, "N": {"type": "integer"}},
    }


def test_check_refs_refuses_a_remote_reference_and_one_that_does_not_resolve() -> None:
    ctx = _after(
        check_refs,
        {
            "properties": {
                "a": {"$ref": "https://elsewhere.test/x.json"},
                "b": {"$ref": "#/definitions/missing"},
            }
        },
    )
    assert _said(ctx) == [
        (
            "/properties/a/$ref",
            "reference 'https://elsewhere.test/x.json' leaves the document; remote references "
            "are refused (the build step never fetches anything)",
            Severity.ERROR,
        ),
        (
            "/properties/b/$ref",
            "reference '#/definitions/missing' does not resolve",
            Severity.ERROR,
        ),
    ]


def test_a_pointer_written_without_its_leading_slash_is_refused_naming_the_one_meant() -> None:
    ctx = _after(
        check_refs,
        {
            "properties": {
                "a": {"$ref": "#definitions/period"},
                "b": {"$ref": "#definitions/missing"},
            },
            "definitions": {"period": {"type": "string"}},
        },
    )
    assert _said(ctx) == [
        (
            "/properties/a/$ref",
            "reference '#definitions/period' does not resolve (a JSON pointer starts with "
            "'/': '#/definitions/period' would resolve)",
            Severity.ERROR,
        ),
        (
            "/properties/b/$ref",
            "reference '#definitions/missing' does not resolve",
            Severity.ERROR,
        ),
    ]


def test_definition_names_with_dots_or_spelled_like_own_types_are_renamed_with_their_refs() -> None:
    ctx = _after(
        safe_definition_names,
        {
            "properties": {"p": {"$ref": "#/definitions/io.k8s.Pod"}},
            "definitions": {"io.k8s.Pod": {"type": "object"}, "uri": {"type": "integer"}},
        },
    )
    assert ctx.root == {
        "properties": {"p": {"$ref": "#/definitions/io_k8s_Pod"}},
        "definitions": {"io_k8s_Pod": {"type": "object"}, "uri_2": {"type": "integer"}},
    }
    assert [pointer for pointer, *_ in _said(ctx)] == [
        "/definitions/io.k8s.Pod",
        "/definitions/uri",
    ]


def test_patterns_take_the_rust_spelling_or_are_left_to_the_backtracking_matcher() -> None:
    ctx = _after(
        translate_patterns,
        {
            "properties": {
                "p": {"type": "string", "pattern": "^\\d+$"},
                "q": {"type": "string", "pattern": "^(?=a)a$"},
            }
        },
    )
    assert ctx.root == {
        "properties": {
            "p": {"type": "string", "pattern": "^[0-9]+$"},  # ECMA-262's \d is ASCII only
            "q": {"type": "string", "pattern": "^(?=a)a$"},
        }
    }
    assert ctx.backtracking == {"^(?=a)a$"}
    assert [pointer for pointer, *_ in _said(ctx)] == ["/properties/q/pattern"]


def test_an_anonymous_union_of_items_is_named_after_its_owner_and_one_item() -> None:
    union: JsonObject = {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    ctx = _after(
        name_item_unions,
        {
            "definitions": {
                "conversation": {"properties": {"events": {"type": "array", "items": union}}}
            }
        },
    )
    assert ctx.root["definitions"] == {
        "conversation": {
            "properties": {
                "events": {"type": "array", "items": {**union, "title": "ConversationEvent"}}
            }
        }
    }


def test_if_then_rules_keyed_on_an_enum_split_a_definition_into_one_variant_per_value() -> None:
    shape: JsonObject = {
        "type": "object",
        "additionalProperties": False,
        "required": ["kind"],
        "properties": {"kind": {"enum": ["a", "b"]}, "x": {"type": "string"}},
        "allOf": [
            {
                "if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]},
                "then": {"required": ["x"]},
            }
        ],
    }
    ctx = _after(
        split_conditionals, {"definitions": {"shape": shape}, "$ref": "#/definitions/shape"}
    )
    variant = {"type": "object", "additionalProperties": False}
    assert ctx.root["definitions"] == {
        "shape": {
            "oneOf": [{"$ref": "#/definitions/shape__a"}, {"$ref": "#/definitions/shape__b"}]
        },
        "shape__a": {
            **variant,
            "required": ["kind", "x"],
            "properties": {"kind": {"type": "string", "const": "a"}, "x": {"type": "string"}},
            "title": "AShape",
        },
        "shape__b": {
            **variant,
            "required": ["kind"],
            "properties": {"kind": {"type": "string", "const": "b"}, "x": {"type": "string"}},
            "title": "BShape",
        },
    }


def test_a_not_inside_a_property_is_lifted_to_its_object_along_the_path_there() -> None:
    ctx = _after(
        lift_rules,
        {"type": "object", "properties": {"p": {"type": "string", "not": {"const": "no"}}}},
    )
    assert ctx.root == {
        "type": "object",
        "properties": {"p": {"type": "string"}},
        "x-allOf": [{"properties": {"p": {"not": {"const": "no"}}}}],
    }


def test_a_keyword_the_generator_drops_becomes_the_rule_of_a_named_type() -> None:
    ctx = _after(
        enforce_exactly,
        {
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
            },
        },
    )
    assert ctx.root == {
        "type": "object",
        "properties": {"tags": {"$ref": "#/$defs/TagsRule"}},
        "$defs": {"TagsRule": {"type": "array", "items": {"type": "string"}, "title": "TagsRule"}},
    }
    assert ctx.rules == {"TagsRule": {"uniqueItems": True}}


def test_free_form_values_are_json_values_and_extras_of_an_object_are_kept() -> None:
    ctx = _after(
        free_form,
        {
            "type": "object",
            "properties": {
                "a": {},
                "b": {"type": "array"},
                "u": {"type": "string", "format": "uri"},
            },
        },
    )
    assert ctx.root == {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/JsonValue"},
            "b": {"type": "array", "items": {"$ref": "#/$defs/JsonValue"}},
            "u": {"$ref": "#/$defs/Uri"},
        },
        "additionalProperties": True,
    }
    assert ctx.uses_json_value
    assert ctx.format_types == {"Uri"}


def test_a_union_of_models_with_distinct_consts_gains_a_discriminator() -> None:
    def model(kind: str) -> JsonObject:
        return {"type": "object", "required": ["kind"], "properties": {"kind": {"const": kind}}}

    union: list[Json] = [{"$ref": "#/definitions/A"}, {"$ref": "#/definitions/B"}]
    ctx = _after(
        add_discriminators, {"oneOf": union, "definitions": {"A": model("a"), "B": model("b")}}
    )
    assert ctx.root["discriminator"] == {"propertyName": "kind"}


def test_draft_7_ignores_what_stands_beside_a_ref_and_keeps_its_annotations() -> None:
    schema: JsonObject = {
        "properties": {"p": {"$ref": "#/definitions/S", "minLength": 1, "description": "d"}},
        "definitions": {"S": {"type": "string"}},
    }
    ref_siblings_ignored(schema)
    assert schema["properties"] == {"p": {"$ref": "#/definitions/S", "description": "d"}}


def test_from_2019_09_what_stands_beside_a_ref_applies_as_all_of_the_two() -> None:
    applied = ref_siblings_apply({"properties": {"p": {"$ref": "#/definitions/S", "minLength": 1}}})
    assert applied == {
        "properties": {"p": {"allOf": [{"$ref": "#/definitions/S"}, {"minLength": 1}]}}
    }


def test_the_driver_runs_the_passes_once_each_in_the_declared_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran: list[str] = []

    def recording(steps: tuple[driver.Pass, ...]) -> tuple[driver.Pass, ...]:
        def wrap(step: driver.Pass) -> driver.Pass:
            def run(ctx: Context) -> None:
                ran.append(step.__name__)
                step(ctx)

            return run

        return tuple(wrap(step) for step in steps)

    monkeypatch.setattr(driver, "PREPARE", recording(driver.PREPARE))
    monkeypatch.setattr(driver, "PASSES", recording(driver.PASSES))
    driver.normalize({"type": "object", "properties": {"a": {}}}, source="s.json")
    assert ran == [
        "local_refs",
        "check_refs",
        "_ignored_ref_siblings",
        "_nested_refs",
        "safe_definition_names",
        "translate_patterns",
        "name_item_unions",
        "split_conditionals",
        "lift_rules",
        "enforce_exactly",
        "free_form",
        "add_discriminators",
    ]


def test_a_reference_error_ends_the_run_before_any_rewrite() -> None:
    from codegen.diagnostics import CodegenError

    with pytest.raises(CodegenError, match="leaves the document"):
        driver.normalize(
            {"properties": {"a": {"$ref": "https://elsewhere.test/x.json"}, "b": {}}},
            source="s.json",
            strict=True,
        )
