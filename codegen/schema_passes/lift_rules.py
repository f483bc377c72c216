"""``not`` and if/then/else the types cannot carry, lifted into model-level rules of the object
that owns them (published in its ``allOf``, enforced by a model validator)."""

from __future__ import annotations

from codegen._json import Json, JsonObject, pointer
from codegen.schema_passes.context import RULE_KEYWORDS, Context


def lift_rules(ctx: Context) -> None:
    """Lift ``not`` and if/then/else the types cannot carry into model-level rules.

    The generator would drop them silently. Each is moved, as plain JSON Schema, into
    ``x-allOf`` of the object schema that owns it (wrapped in the ``properties``/``items``
    path that led there), which the generator publishes as the model's ``allOf`` and the
    driver enforces with a validator. What cannot be lifted exactly is an error.
    """
    _lift(ctx, ctx.root, "", owner=None, path=())


def _lift(
    ctx: Context,
    node: Json,
    at: str,
    *,
    owner: JsonObject | None,
    path: tuple[tuple[str, str], ...],
) -> None:
    if isinstance(node, list):
        return
    if not isinstance(node, dict):
        return
    if isinstance(node.get("properties"), dict):
        owner, path = node, ()
    if any(key in node for key in RULE_KEYWORDS):
        _lift_here(ctx, node, at, owner, path)
    for key, sub in list(node.items()):  # lifting adds x-allOf to owners as it goes
        if key in ("enum", "const", "examples", "default", "x-allOf"):
            continue
        if key in ("properties", "patternProperties") and isinstance(sub, dict):
            for name, member in sub.items():
                step = (key, name)
                _lift(ctx, member, at + pointer(key, name), owner=owner, path=(*path, step))
        elif key in ("definitions", "$defs") and isinstance(sub, dict):
            for name, member in sub.items():
                _lift(ctx, member, at + pointer(key, name), owner=None, path=())
        elif key in ("items", "additionalProperties") and isinstance(sub, dict):
            _lift(ctx, sub, at + pointer(key), owner=owner, path=(*path, (key, "")))
        elif key == "allOf" and isinstance(sub, list):
            for index, member in enumerate(sub):
                _lift(ctx, member, at + pointer(key, index), owner=owner, path=path)
        elif isinstance(sub, list):
            for index, member in enumerate(sub):
                # a branch of anyOf/oneOf/prefixItems: a rule there cannot move up
                _lift(ctx, member, at + pointer(key, index), owner=None, path=())
        elif isinstance(sub, dict):
            _lift(ctx, sub, at + pointer(key), owner=None, path=())


def _lift_here(
    ctx: Context,
    node: JsonObject,
    at: str,
    owner: JsonObject | None,
    path: tuple[tuple[str, str], ...],
) -> None:
    found = [key for key in RULE_KEYWORDS if key in node]
    if owner is None:
        return  # not inside an object's properties: the exactness pass attaches it here
    rule: JsonObject = {key: node.pop(key) for key in found}
    inlined = ctx.rule(rule, at)
    for kind, name in reversed(path):
        inlined = (
            {kind: {name: inlined}}
            if kind in ("properties", "patternProperties")
            else {kind: inlined}
        )
    rules = owner.setdefault("x-allOf", [])
    assert isinstance(rules, list)
    rules.append(inlined)
    ctx.sink.warn(
        at,
        f"{'/'.join(found)} is enforced by a model validator and published in the model's "
        "allOf (no type can carry it)",
    )
