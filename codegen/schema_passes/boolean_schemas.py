"""Boolean subschemas become the objects they mean: ``true`` is ``{}``, ``false`` is
``{"not": {}}``.

The generator reads ``true`` inside ``anyOf`` or ``properties`` as nothing at all (it writes
``Any``) and ``false`` as no constraint. Spelled as objects, the rest of the build step treats
them like any schema: ``{}`` is any JSON value, ``{"not": {}}`` a rule no value satisfies.
``additionalProperties``, ``additionalItems`` and ``items`` keep their booleans, which the
generator renders exactly (forbidden extras, no more items).
"""

from __future__ import annotations

from codegen._json import Json, JsonObject
from codegen.schema_passes.walk import rewrite

_ONE = ("not", "if", "then", "else", "contains", "propertyNames")
_MANY = ("allOf", "anyOf", "oneOf", "items", "prefixItems")
_NAMED = ("properties", "patternProperties", "definitions", "$defs", "dependencies",
          "dependentSchemas")  # fmt: skip


def spelled(value: Json) -> Json:
    """A boolean schema as its object; any other value as it is."""
    if value is True:
        return {}
    if value is False:
        return {"not": {}}
    return value


def _spell(node: JsonObject) -> JsonObject:
    for key in _ONE:
        if isinstance(node.get(key), bool):
            node[key] = spelled(node[key])
    for key in _MANY:
        members = node.get(key)
        if isinstance(members, list):
            node[key] = [spelled(member) for member in members]
    for key in _NAMED:
        members = node.get(key)
        if isinstance(members, dict):
            node[key] = {name: spelled(member) for name, member in members.items()}
    return node


def boolean_schemas(schema: Json) -> Json:
    return rewrite(spelled(schema), _spell)
