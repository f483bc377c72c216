"""An anonymous union of array items named after its owner and one item
(``conversation.events`` -> ``ConversationEvent``), not after the plural property."""

from __future__ import annotations

from codegen._json import Json
from codegen._names import pascal
from codegen.schema_passes.context import Context


def name_item_unions(ctx: Context) -> None:
    defs = ctx.root.get(ctx.defs_key)
    owners: list[tuple[str, Json]] = [("", ctx.root)]
    if isinstance(defs, dict):
        owners.extend(defs.items())
    for owner, node in owners:
        properties = node.get("properties") if isinstance(node, dict) else None
        if isinstance(properties, dict):
            for name, sub in properties.items():
                _name_union_items(owner, name, sub)


def _name_union_items(owner: str, property_name: str, node: Json) -> None:
    """Name an anonymous union of array items after its owner and one item.

    ``conversation.events`` -> ``ConversationEvent``. The generator would otherwise name the
    alias after the plural property ("Events"), which reads as a list type although it is the
    type of one element, and collides across formats.
    """
    if not isinstance(node, dict) or node.get("type") != "array":
        return
    items = node.get("items")
    if not isinstance(items, dict) or "title" in items:
        return
    if not any(key in items for key in ("oneOf", "anyOf")):
        return
    singular = property_name[:-1] if property_name.endswith("s") else f"{property_name}_item"
    items["title"] = pascal(owner) + pascal(singular)
