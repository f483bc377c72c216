"""A ``$ref`` into the middle of a schema (``#/definitions/step/oneOf/1/properties/run``)
becomes a reference to a definition of its own, a copy of what it points at.

The generator resolves references to definitions only; one that points anywhere else it
reports as unresolved and gives up. A copy under ``definitions`` means the same (a reference
is replaced by its target), and references inside the copy that point into the middle of a
schema are moved the same way.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from codegen._json import JsonObject, pointer, resolve_pointer
from codegen._names import pascal
from codegen.schema_passes import walk

MAX_MOVED = 500
"""Most targets one schema may have moved (each copy may hold more such references)."""


def nested_refs(
    schema: JsonObject, *, defs_key: str, tokens_of: Callable[[str], list[str] | None]
) -> JsonObject:
    """``schema`` (changed in place and returned) with every reference to a place that is no
    definition pointing at a new definition, a copy of that place. ``tokens_of`` reads a
    reference into pointer tokens (None: not a pointer into this document)."""
    moved: dict[str, str] = {}  # the reference as written -> the new one
    pending = [schema]
    while pending:
        for node in walk.subschemas(pending.pop()):
            ref = node.get("$ref")
            if not isinstance(ref, str):
                continue
            if ref in moved:
                node["$ref"] = moved[ref]
                continue
            tokens = tokens_of(ref)
            if not tokens or (len(tokens) == 2 and tokens[0] in ("definitions", "$defs")):
                continue  # the root, or a definition: the generator resolves those
            target = resolve_pointer(schema, tokens)
            if not isinstance(target, dict) or len(moved) >= MAX_MOVED:
                continue  # left to the normaliser, which says what is wrong
            defs = schema.setdefault(defs_key, {})
            assert isinstance(defs, dict)
            name = _name(tokens, defs)
            copied = copy.deepcopy(target)
            defs[name] = copied
            moved[ref] = node["$ref"] = "#" + pointer(defs_key, name)
            pending.append(copied)
    return schema


def _name(tokens: list[str], taken: JsonObject) -> str:
    words = [t for t in tokens if t not in _STRUCTURAL and not t.isdigit()]
    base = pascal("_".join(words[-2:])) or "Target"
    name, counter = base, 1
    while name in taken:
        counter += 1
        name = f"{base}{counter}"
    return name


_STRUCTURAL = frozenset(
    {"properties", "items", "additionalProperties", "anyOf", "oneOf", "allOf", "definitions",
     "$defs", "patternProperties", "additionalItems", "not", "if", "then", "else"}
)  # fmt: skip
