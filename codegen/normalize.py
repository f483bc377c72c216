"""Rewrite a JSON Schema so that datamodel-code-generator's output means what the schema means.

datamodel-code-generator drops some keywords silently and renders others loosely (design.md
section 4). Each pass rewrites one such construct into an equivalent form the generator
renders faithfully, so the guarantee holds for any schema, not only the seeds. The passes
are small modules of ``codegen.schema_passes`` sharing one ``Context``; this module is their
driver, and ``PREPARE`` and ``PASSES`` are the one order they run in:

* free-form values (``{}``, untyped objects and arrays) become references to one ``JsonValue``
  definition, which the driver maps to ``pydantic.JsonValue`` (no ``Any`` in the models);
* objects that allow extra properties say so explicitly (the generator's default would ignore
  and drop them);
* ``if``/``then`` rules keyed on an enum property split the object into one variant per value,
  so the rule lives in the types (a discriminated union) rather than in a validator;
* ``oneOf``/``anyOf`` whose members carry distinct ``const`` values on a common required
  property gain a ``discriminator``.

Anything the passes cannot express is an error diagnostic: a model that silently accepts what
its schema rejects is worse than no model.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

from codegen._json import Json, JsonObject
from codegen._names import is_class_name
from codegen.diagnostics import Diagnostic, DiagnosticSink
from codegen.schema_passes.boolean_schemas import boolean_schemas
from codegen.schema_passes.conditionals import split_conditionals
from codegen.schema_passes.context import (
    FORMAT_TYPES,
    GENERATED_IMPORTS,
    JSON_VALUE,
    ROOT_RULE,
    Context,
    json_value_definition,
    ref_tokens,
    reserved_name,
)
from codegen.schema_passes.definition_names import safe_definition_names
from codegen.schema_passes.discriminators import add_discriminators
from codegen.schema_passes.empty_objects import empty_objects
from codegen.schema_passes.exactness import enforce_exactly
from codegen.schema_passes.free_form import free_form
from codegen.schema_passes.item_unions import name_item_unions
from codegen.schema_passes.lift_rules import lift_rules
from codegen.schema_passes.local_refs import check_refs, local_refs
from codegen.schema_passes.nested_refs import nested_refs
from codegen.schema_passes.nullable_enums import nullable_enums
from codegen.schema_passes.older_drafts import DRAFT_07, INTEGERS_AS_WRITTEN, draft_of
from codegen.schema_passes.patterns import translate_patterns
from codegen.schema_passes.ref_siblings import ref_siblings_apply, ref_siblings_ignored

__all__ = [
    "FORMAT_TYPES",
    "GENERATED_IMPORTS",
    "JSON_VALUE",
    "PASSES",
    "PREPARE",
    "ROOT_RULE",
    "Normalized",
    "normalize",
    "ref_tokens",
    "reserved_name",
]

Pass = Callable[[Context], None]


def _ignored_ref_siblings(ctx: Context) -> None:
    if ctx.draft7:
        ref_siblings_ignored(ctx.root)


def _nested_refs(ctx: Context) -> None:
    nested_refs(ctx.root, defs_key=ctx.defs_key, tokens_of=ref_tokens)


PREPARE: tuple[Pass, ...] = (
    local_refs,
    check_refs,
    _ignored_ref_siblings,
    _nested_refs,
    safe_definition_names,
    translate_patterns,
)
"""References made local and checked, patterns in the evaluator's spelling: the schema as
it is stated from here on (rules resolve their ``$ref`` in it). A pass that finds an error
ends the run (the schema cannot be used at all)."""

PASSES: tuple[Pass, ...] = (
    name_item_unions,
    split_conditionals,
    lift_rules,
    enforce_exactly,
    free_form,
    add_discriminators,
)
"""The rewrites into what the generator renders exactly, in order; the normaliser's own
definitions (``JsonValue``, the format types) are added after them, where used."""

_STOPS_AFTER = frozenset({check_refs, translate_patterns, enforce_exactly})
"""Passes after which an error ends the run (what follows would read a broken schema)."""


@dataclass(frozen=True)
class Normalized:
    schema: JsonObject
    diagnostics: tuple[Diagnostic, ...]
    rules: dict[str, Json]
    """Type alias name -> the JSON Schema rule its values must also satisfy (see
    ``schema_passes.exactness``); the driver's ``rule_types`` pass attaches each to its alias.
    ``ROOT_RULE`` names the root, whatever the class name the caller gives it."""
    refs: dict[str, Json]
    """The reference table of the rules: JSON pointer -> the subschema there, as the schema
    states it (before any rewriting), for every ``$ref`` a rule can reach."""

    unreachable: frozenset[str] = frozenset()
    """Rules of definitions no reference reaches from the root: the generator may leave their
    types out, and then no model can hold a value the rule would judge."""


def normalize(
    schema: JsonObject,
    *,
    source: str,
    strict: bool = False,
    whole: bool = False,
    class_name: str | None = None,
) -> Normalized:
    """``whole``: the root is any JSON value and one rule, the schema itself, judges it (the
    form for a schema whose types the generator cannot render exactly; exact all the same).

    ``class_name``: the root's class. It is the name users import, so a definition or title
    the generator would also call so is renamed (the generator gave the root's name to the
    definition and renamed the root, or dropped the root); a class name spelled like the build
    step's own types or the module's imports is refused."""
    sink = DiagnosticSink(source)
    if class_name is not None and not is_class_name(class_name):
        sink.error(
            "",
            f"class name {class_name!r} is not a Python class name (a letter or _ first, then "
            "letters, digits and _; no keyword); choose another",
        )
        sink.raise_if(strict=strict)
    if class_name is not None and reserved_name(class_name):
        sink.error(
            "",
            f"class name {class_name!r} is spelled like a name the generated module uses "
            "itself (a type of the build step or an import); choose another",
        )
        sink.raise_if(strict=strict)
    prepared = nullable_enums(empty_objects(boolean_schemas(schema)))  # a copy
    assert isinstance(prepared, dict)
    ctx = Context(prepared, sink, root_name=class_name)
    as_written = draft_of(prepared) == "draft-04"
    result = _run_whole(ctx) if whole else _run(ctx)
    sink.raise_if(strict=strict)
    refs = dict(ctx.refs)
    if as_written:
        # read as draft-07 from here on, but its integers are draft-04's (older_drafts.py)
        result["$schema"] = DRAFT_07
        refs[INTEGERS_AS_WRITTEN] = True
    return Normalized(
        result,
        tuple(sink.items),
        dict(ctx.rules),
        refs,
        frozenset(ctx.unreachable_rules(result)),
    )


def _prepare(ctx: Context) -> bool:
    """The ``PREPARE`` passes, and the schema as stated kept; False when the schema cannot
    be used at all."""
    for step in PREPARE:
        step(ctx)
        if step in _STOPS_AFTER and ctx.sink.errors:
            return False
    # the schema as stated, in the evaluator's spelling: rules resolve their $ref here,
    # never in the rewritten document (where a definition may be split or lifted)
    stated = copy.deepcopy(ctx.root)
    ctx.stated = stated if ctx.draft7 else ref_siblings_apply(stated)
    return True


def _run_whole(ctx: Context) -> JsonObject:
    if not _prepare(ctx):
        return ctx.root
    ctx.rules[ROOT_RULE] = ctx.rule({"$ref": "#"}, "")
    ctx.root = {"anyOf": [ctx.json_value_ref()]}
    ctx.root[ctx.defs_key] = {JSON_VALUE: json_value_definition()}
    return ctx.root


def _run(ctx: Context) -> JsonObject:
    if not _prepare(ctx):
        return ctx.root
    for step in PASSES:
        step(ctx)
        if step in _STOPS_AFTER and ctx.sink.errors:
            return ctx.root
    _own_definitions(ctx)
    return ctx.root


def _own_definitions(ctx: Context) -> None:
    """The definitions of the normaliser's own types the passes referred to."""
    for format_name, type_name in FORMAT_TYPES.items():
        if type_name in ctx.format_types:
            defs = ctx.root.setdefault(ctx.defs_key, {})
            assert isinstance(defs, dict)
            defs[type_name] = {"title": type_name, "type": "string", "format": format_name}
    if ctx.uses_json_value:
        defs = ctx.root.setdefault(ctx.defs_key, {})
        assert isinstance(defs, dict)
        defs[JSON_VALUE] = json_value_definition()
