"""Free-form values (``{}``, untyped objects and arrays) as references to one ``JsonValue``
definition (no ``Any`` in the models), objects that allow extra properties saying so (the
generator's default would drop them), a URI format as its exact type, and a type list that
mixes containers with scalars spelled as ``anyOf``."""

from __future__ import annotations

from codegen._json import Json, JsonObject, pointer
from codegen.schema_passes.context import (
    ANNOTATION_ONLY,
    FORMAT_TYPES,
    SCHEMA_LISTS,
    SCHEMA_MAPS,
    SCHEMA_VALUES,
    Context,
)


def free_form(ctx: Context) -> None:
    _walk(ctx, ctx.root, "", value_position=False)
    if ctx.is_free_form(ctx.root):
        ctx.root["anyOf"] = [ctx.json_value_ref()]  # the root accepts any JSON value


def _walk(ctx: Context, node: Json, at: str, *, value_position: bool) -> None:
    if not isinstance(node, dict):
        return
    format_ref = _format_ref(ctx, node)
    if format_ref is not None:
        # a URI anywhere (items, a branch, the root): the exact type, never the
        # generator's own (AnyUrl rewrites the value; uri-reference it does not check)
        node.clear()
        node.update(format_ref)
        return
    for key in SCHEMA_MAPS:
        members = node.get(key)
        if isinstance(members, dict):
            for name, sub in list(members.items()):
                sub_at = at + pointer(key, name)
                if key in ("properties", "patternProperties") and ctx.is_free_form(sub):
                    members[name] = _free(ctx, sub)
                elif key in ("definitions", "$defs") and ctx.is_free_form(sub):
                    # a definition of any value: a named alias of JsonValue
                    assert isinstance(sub, dict)
                    sub["anyOf"] = [ctx.json_value_ref()]
                elif key in ("properties", "patternProperties") and _format_ref(ctx, sub):
                    members[name] = _format_ref(ctx, sub) or {}
                else:
                    _walk(ctx, sub, sub_at, value_position=key != "definitions" and key != "$defs")
    for key in SCHEMA_LISTS:
        members_list = node.get(key)
        if isinstance(members_list, list):
            for index, sub in enumerate(members_list):
                if key in ("anyOf", "oneOf") and ctx.is_free_form(sub):
                    members_list[index] = _free(ctx, sub)
                else:
                    _walk(ctx, sub, at + pointer(key, index), value_position=True)
    for key in SCHEMA_VALUES:
        if key not in node:
            continue
        sub = node[key]
        if key in ("items", "additionalProperties") and ctx.is_free_form(sub):
            node[key] = ctx.json_value_ref()
        else:
            _walk(ctx, sub, at + pointer(key), value_position=True)
    _free_form_types(ctx, node, at)


def _format_ref(ctx: Context, node: Json) -> JsonObject | None:
    """A reference to the named format type for ``{type: string, format: F}``, if any."""
    if not isinstance(node, dict) or node.get("type") != "string":
        return None
    type_name = FORMAT_TYPES.get(str(node.get("format")))
    if type_name is None or set(node) - ANNOTATION_ONLY - {"type", "format"}:
        return None
    ctx.format_types.add(type_name)
    ref: JsonObject = {"$ref": f"#/{ctx.defs_key}/{type_name}"}
    ref.update({k: v for k, v in node.items() if k in ("description", "examples")})
    return ref


def _free(ctx: Context, node: Json) -> JsonObject:
    ref = ctx.json_value_ref()
    if isinstance(node, dict):
        # keep the documentation of the value beside the reference
        ref.update({k: v for k, v in node.items() if k in ("description", "examples")})
    return ref


def _free_form_types(ctx: Context, node: JsonObject, at: str) -> None:
    declared = node.get("type")
    types = (
        [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
    )
    if "object" in types and not any(
        k in node for k in ("properties", "additionalProperties", "patternProperties")
    ):
        node["additionalProperties"] = ctx.json_value_ref()
    elif "object" in types and "properties" in node and "additionalProperties" not in node:
        # JSON Schema allows extras unless told otherwise; say so, so they are kept.
        node["additionalProperties"] = True
    if "array" in types and "items" not in node and "prefixItems" not in node:
        node["items"] = ctx.json_value_ref()
    if (
        isinstance(declared, list)
        and len(declared) > 1
        and ("object" in declared or "array" in declared)
    ):
        # A type list mixing containers with scalars: spell it as anyOf so each
        # branch keeps its own keywords.
        branches: list[Json] = []
        for name in declared:
            branch: JsonObject = {"type": name}
            if name == "object":
                for key in (
                    "properties",
                    "required",
                    "additionalProperties",
                    "patternProperties",
                ):
                    if key in node:
                        branch[key] = node.pop(key)
            if name == "array":
                for key in ("items", "minItems", "maxItems", "uniqueItems", "prefixItems"):
                    if key in node:
                        branch[key] = node.pop(key)
            branches.append(branch)
        del node["type"]
        node["anyOf"] = branches
