"""Keywords beside a ``$ref``, as the schema's dialect means them: ignored up to draft-07 (left
out, in place), applied from 2019-09 on (spelled as ``allOf`` of the two, for the rule
evaluator, which follows draft-07)."""

from __future__ import annotations

from codegen._json import JsonObject
from codegen.schema_passes import walk
from codegen.schema_passes.context import ASSERTING


def ref_siblings_ignored(schema: JsonObject) -> None:
    """Up to draft-07 every keyword beside a ``$ref`` is ignored; the generator applied them
    (``{"$ref": "#/definitions/nullable_string", "minLength": 1}`` refused ``""``, which
    GitHub's FUNDING.yml schema allows). The asserting ones are left out, in place;
    annotations and the definitions a pointer may lead into stay."""
    for node in walk.subschemas(schema):
        if isinstance(node.get("$ref"), str):
            for key in [k for k in node if k in ASSERTING and k != "$ref"]:
                del node[key]


def ref_siblings_apply(schema: JsonObject) -> JsonObject:
    """From 2019-09 on, the keywords beside a ``$ref`` apply too; the evaluator follows
    draft-07 (they are ignored), so they are spelled as ``allOf`` of the two."""

    def spell(node: JsonObject) -> JsonObject:
        rest = {k: v for k, v in node.items() if k != "$ref"}
        if "$ref" not in node or not set(rest) & ASSERTING:
            return node
        return {"allOf": [{"$ref": node["$ref"]}, rest]}

    result = walk.rewrite(schema, spell)
    assert isinstance(result, dict)
    return result
