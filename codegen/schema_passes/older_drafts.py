"""A draft-04 or draft-06 schema spelled as the draft-07 schema that means the same.

The rest of the build step reads draft-07. The older drafts differ from it in a few keywords,
each rewritten here so that a draft-07 reader accepts exactly what the older draft accepts:

- keywords a later draft added are unknown, so annotations, in the older one: draft-04 has no
  ``const``, ``contains``, ``propertyNames``; neither has ``if``/``then``/``else``;
- draft-04's ``exclusiveMaximum``/``exclusiveMinimum`` are booleans that make ``maximum``/
  ``minimum`` exclusive (draft-06 made them numbers of their own);
- draft-04 names a schema's URI ``id``, not ``$id``;
- a format a later draft defined is an annotation in the older one (``date`` and ``time`` came
  with draft-07, ``json-pointer`` and ``uri-reference`` with draft-06): the build step asserts
  them, so they are left out where the draft does not define them.

One difference has no draft-07 spelling: draft-04's ``integer`` is "a JSON number without a
fraction or exponent part", so ``1.0`` is none, where draft-06 on counts it (the same number).
The document keeps its ``$schema``, so the normaliser knows it is draft-04's and says so to
the models: their integers are ``StrictInt`` (which refuses ``1.0``) and their rules' reference
table holds ``INTEGERS_AS_WRITTEN``, which gives the rule evaluator draft-04's integer test.
"""

from __future__ import annotations

from codegen._json import Json, JsonObject
from codegen.schema_passes.walk import rewrite

DRAFT_04 = ("http://json-schema.org/draft-04/schema", "https://json-schema.org/draft-04/schema")
DRAFT_06 = ("http://json-schema.org/draft-06/schema", "https://json-schema.org/draft-06/schema")
DRAFT_07 = "http://json-schema.org/draft-07/schema#"
INTEGERS_AS_WRITTEN = "$integers-as-written"
"""A key of a generated module's reference table (no JSON pointer is spelled so): when true,
an integer is a number written without a fraction, as draft-04 says."""

_LATER_KEYWORDS = {
    "draft-04": ("const", "contains", "propertyNames", "if", "then", "else"),
    "draft-06": ("if", "then", "else"),
}
_LATER_FORMATS = {
    "draft-04": ("date", "time", "json-pointer", "uri-reference"),
    "draft-06": ("date", "time"),
}


def draft_of(document: Json) -> str | None:
    """``draft-04`` or ``draft-06`` when the document says it is one, else None."""
    dialect = document.get("$schema") if isinstance(document, dict) else None
    if not isinstance(dialect, str):
        return None
    base = dialect.rstrip("#")
    if base.startswith(DRAFT_04):
        return "draft-04"
    if base.startswith(DRAFT_06):
        return "draft-06"
    return None


def as_draft_07(document: JsonObject) -> JsonObject:
    """The document as draft-07 (a copy, its ``$schema`` kept), or itself when it is no older
    draft."""
    draft = draft_of(document)
    if draft is None:
        return document
    later, formats = _LATER_KEYWORDS[draft], _LATER_FORMATS[draft]

    def change(node: JsonObject) -> JsonObject:
        out = {k: v for k, v in node.items() if k not in later}
        if out.get("format") in formats:
            del out["format"]
        if draft == "draft-04":
            _exclusive_bounds(out)
            if isinstance(out.get("id"), str) and "$id" not in out:
                out["$id"] = out.pop("id")
        return out

    result = rewrite(document, change)
    assert isinstance(result, dict)
    return result


def _exclusive_bounds(node: JsonObject) -> None:
    for bound, exclusive in (("maximum", "exclusiveMaximum"), ("minimum", "exclusiveMinimum")):
        flag: Json = node.get(exclusive)
        if not isinstance(flag, bool):
            continue  # not draft-04's spelling: left for the schema's own check to refuse
        del node[exclusive]
        if flag and bound in node:
            node[exclusive] = node.pop(bound)
