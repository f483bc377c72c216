"""``{"type": "object", "additionalProperties": false}`` with no properties becomes
``{"type": "object", "maxProperties": 0}``.

The same values (an object with no members, and anything that is no object), written so the
generator has something to render: it has no type for a closed object without fields and
writes ``Any``. The bound is then enforced like any other (a rule on a JSON object type).
"""

from __future__ import annotations

from codegen._json import Json, JsonObject
from codegen.schema_passes.walk import rewrite


def _empty(node: JsonObject) -> JsonObject:
    if node.get("additionalProperties") is not False:
        return node
    if node.get("properties") or node.get("patternProperties"):
        return node
    spelled = {
        k: v
        for k, v in node.items()
        if k not in ("additionalProperties", "properties", "patternProperties")
    }
    bound = spelled.get("maxProperties")
    spelled["maxProperties"] = 0 if not isinstance(bound, int) else min(bound, 0)
    return spelled


def empty_objects(schema: Json) -> Json:
    return rewrite(schema, _empty)
