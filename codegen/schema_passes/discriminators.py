"""``oneOf``/``anyOf`` whose members carry distinct ``const`` values on a common required
property gain a ``discriminator`` (a tagged union the generator renders exactly)."""

from __future__ import annotations

from codegen._json import JsonObject
from codegen.schema_passes import walk
from codegen.schema_passes.context import Context


def add_discriminators(ctx: Context) -> None:
    for node in reversed(walk.subschemas(ctx.root)):  # the innermost first
        _discriminate(ctx, node)


def _discriminate(ctx: Context, node: JsonObject) -> None:
    for key in ("oneOf", "anyOf"):
        members = node.get(key)
        if isinstance(members, list) and len(members) > 1 and "discriminator" not in node:
            prop = ctx.common_const_property(members)
            if prop is not None:
                node["discriminator"] = {"propertyName": prop}
