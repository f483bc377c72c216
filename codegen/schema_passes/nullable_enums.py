"""``{"enum": ["a", "b", null]}`` becomes ``{"anyOf": [{"enum": ["a", "b"]}, {"type": "null"}]}``.

The same values, written so that the generator gives ``Literal["a", "b"] | None`` rather than
an untyped value checked by a rule. Only where the other values are all strings or all
integers (what a ``Literal`` means exactly) and nothing else stands beside the ``enum`` but
annotations, or a ``type`` every value already satisfies.
"""

from __future__ import annotations

from codegen._json import Json, JsonObject
from codegen.schema_passes.walk import rewrite

_ANNOTATIONS = frozenset(
    {"title", "description", "$comment", "examples", "default", "deprecated", "readOnly",
     "writeOnly"}
)  # fmt: skip


def _kind(values: list[Json]) -> str | None:
    if values and all(isinstance(v, str) for v in values):
        return "string"
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "integer"
    return None


def _split(node: JsonObject) -> JsonObject:
    values = node.get("enum")
    if not isinstance(values, list) or None not in values:
        return node
    others: list[Json] = [v for v in values if v is not None]
    kind = _kind(others)
    if kind is None or set(node) - _ANNOTATIONS - {"enum", "type"}:
        return node
    if "type" in node and not _admits(node["type"], kind):
        return node  # a type that refuses a value: leave it to the rule evaluator
    kept: JsonObject = {key: value for key, value in node.items() if key in _ANNOTATIONS}
    kept["anyOf"] = [{"enum": others}, {"type": "null"}]
    return kept


def _admits(declared: Json, kind: str) -> bool:
    """Whether a ``type`` lets every value through: the values' kind (an integer is a
    number too) and null."""
    names = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, list):
        return False
    kinds = {kind, "number"} if kind == "integer" else {kind}
    return "null" in names and any(name in kinds for name in names)


def nullable_enums(schema: Json) -> Json:
    return rewrite(schema, _split)
