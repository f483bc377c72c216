"""Every subschema of a draft-07 schema, by the keywords that hold them, and nothing else:
``enum``, ``const``, ``default``, ``examples`` hold values, and a ``properties`` key or a
``definitions`` name is no keyword."""

from __future__ import annotations

from collections.abc import Callable

from codegen._json import Json, JsonObject, pointer

_ONE = ("additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if",
        "then", "else", "items")  # fmt: skip
_MANY = ("allOf", "anyOf", "oneOf", "items", "prefixItems")
_NAMED = ("properties", "patternProperties", "definitions", "$defs", "dependencies",
          "dependentSchemas")  # fmt: skip


def children_at(node: JsonObject) -> list[tuple[tuple[str | int, ...], JsonObject]]:
    """The schemas directly inside ``node``, each with the pointer tokens that lead there
    (an unknown keyword holds no schema: an ``$id`` or ``$ref`` inside it is no identifier)."""
    found: list[tuple[tuple[str | int, ...], JsonObject]] = []
    for key in _ONE:
        value = node.get(key)
        if isinstance(value, dict):
            found.append(((key,), value))
    for key in _MANY:
        value = node.get(key)
        if isinstance(value, list):
            found += [
                ((key, i), member) for i, member in enumerate(value) if isinstance(member, dict)
            ]
    for key in _NAMED:
        value = node.get(key)
        if isinstance(value, dict):
            found += [
                ((key, name), member) for name, member in value.items() if isinstance(member, dict)
            ]
    return found


def children(node: JsonObject) -> list[JsonObject]:
    """The schemas directly inside ``node``."""
    found: list[JsonObject] = []
    for key in _ONE:
        value = node.get(key)
        if isinstance(value, dict):
            found.append(value)
    for key in _MANY:
        value = node.get(key)
        if isinstance(value, list):
            found += [member for member in value if isinstance(member, dict)]
    for key in _NAMED:
        value = node.get(key)
        if isinstance(value, dict):
            # a `dependencies` entry may be a list of property names: no schema
            found += [member for member in value.values() if isinstance(member, dict)]
    return found


def subschemas(schema: Json) -> list[JsonObject]:
    """``schema`` and every schema inside it, parents first (iterative: a deep schema costs
    no Python recursion)."""
    if not isinstance(schema, dict):
        return []
    found: list[JsonObject] = []
    pending = [schema]
    while pending:
        node = pending.pop()
        found.append(node)
        pending.extend(reversed(children(node)))
    return found


def subschemas_at(schema: Json) -> list[tuple[str, JsonObject]]:
    """``schema`` and every schema inside it, each with its JSON pointer, parents first."""
    if not isinstance(schema, dict):
        return []
    found: list[tuple[str, JsonObject]] = []
    pending: list[tuple[str, JsonObject]] = [("", schema)]
    while pending:
        at, node = pending.pop()
        found.append((at, node))
        pending.extend(
            (at + pointer(*tokens), child) for tokens, child in reversed(children_at(node))
        )
    return found


def rewrite(schema: Json, change: Callable[[JsonObject], JsonObject]) -> Json:
    """``schema`` with ``change`` applied to every subschema, innermost first (a copy: the
    input is left as it was). Iterative: a deep schema costs no Python recursion."""
    if not isinstance(schema, dict):
        return schema
    import copy

    root = copy.deepcopy(schema)
    order: list[JsonObject] = []
    pending = [root]
    while pending:
        node = pending.pop()
        order.append(node)
        pending.extend(children(node))
    for node in reversed(order):  # children before their parents
        changed = change(node)
        if changed is not node:
            node.clear()
            node.update(changed)
    return root
