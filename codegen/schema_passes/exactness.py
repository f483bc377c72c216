"""Every schema the generator would render loosely made exact, or refused: the keywords it
would loosen become a rule the value must also satisfy (on an object model, in its published
``allOf``; anywhere else, on a named type alias)."""

from __future__ import annotations

import copy
import json

from codegen._json import Json, JsonObject, pointer, resolve_pointer
from codegen._names import pascal
from codegen.schema_passes.context import (
    ANNOTATION_ONLY,
    FORMAT_TYPES,
    ROOT_RULE,
    Context,
    as_list,
    ref_tokens,
)


def enforce_exactly(ctx: Context) -> None:
    """Make every schema the generator would render loosely exact, or refuse it.

    The generator drops or loosens some keywords: untyped keywords, ``uniqueItems``,
    ``contains``, ``patternProperties``, ``propertyNames``, ``dependencies``, min/max
    properties, ``oneOf`` (as ``anyOf``), ``const``/``enum`` other than strings and
    integers, ``false``, and ``not``/``if`` left where no object owns them. Its rendering
    of what remains is a superset of the schema. So each such schema keeps, as its type,
    what the generator renders exactly, and the keywords it would loosen become a rule
    the value must also satisfy, checked by ``agentruns_generated._json.satisfies``: on
    an object model, in its published ``allOf`` (a model validator); anywhere else, on a
    named type alias (``Annotated[T, SchemaRule(...)]``). ``default`` is an annotation
    and is not rendered (a default would fill in absent fields and make them nullable).
    """
    defs = ctx.root.get(ctx.defs_key)
    if isinstance(defs, dict):
        for name in list(defs):
            sub = defs[name]
            at = pointer(ctx.defs_key, name)
            defs[name] = _exact(ctx, sub, at, alias=name)
    root = _exact(ctx, ctx.root, "", alias=None)
    assert isinstance(root, dict)
    if root is not ctx.root:
        ctx.root.clear()
        ctx.root.update(root)


def _exact(ctx: Context, node: Json, at: str, *, alias: str | None) -> Json:
    """``node`` made exact: its children first, then itself (``alias``: the definition
    name it is, if it is one)."""
    if node is False:
        node = {"not": {}}  # the false schema: a value here is never valid
    if not isinstance(node, dict):
        return node
    node.pop("default", None)
    original = copy.deepcopy(node)  # the rule states the schema as written
    _exact_children(ctx, node, at)
    _hoist_merged_rules(ctx, node)
    _declare_required(node)
    _distinct_branches(node)
    loose = _loose_keywords(ctx, node)
    if not loose:
        return node
    kind = node.get("type")
    if kind == "number" or (isinstance(kind, list) and "number" in kind):
        # the generator's type for a number is a float, which holds an integer past 2**53
        # inexactly, and a rule judges the value the model holds: 2**70 as a float is a
        # multiple of 3. With a rule, the whole node is the rule, over the value as read.
        loose |= set(node) - ANNOTATION_ONLY - {"title", "x-allOf"}
    if loose & {"patternProperties", "additionalItems"} or (
        "items" in loose and "additionalItems" in node
    ):
        # which properties or items are "additional" depends on these: judged together
        loose |= set(node) & {"additionalProperties", "additionalItems", "items"}
    rendered = {key: node.pop(key) for key in loose}
    # the rule states the schema as written where the document still holds it there:
    # what the normaliser lifted or rewrote below this node cannot leak into the rule
    stated = resolve_pointer(ctx.stated, ref_tokens("#" + at) or [])
    source = stated if isinstance(stated, dict) else {}
    rule: JsonObject = {}
    for key in sorted(loose):
        if key in source:
            rule[key] = source[key]
        elif key in original:
            rule[key] = _restated(original[key])
    if "additionalProperties" in rule and "properties" in (source or original):
        rule["properties"] = (source or original)["properties"]
    # Beside keywords the generator renders (a type, a minimum) it would render the
    # union alone: the branches' JsonValue with the minimum applied to it, the type
    # dropped (a string then reached the comparison and raised TypeError). Such a node
    # keeps its own keywords, and the rule judges the branches.
    rendered_beside = set(node) - ANNOTATION_ONLY - {"title", "x-allOf"}
    if "oneOf" in loose and not rendered_beside:
        node["anyOf"] = rendered["oneOf"]  # the superset: any one (exact) branch
        _distinct_branches(node)
    object_model = (
        isinstance(node.get("properties"), dict) and node.get("type") in ("object", None)
    ) or _merged_class(ctx, node)
    if not object_model and "x-allOf" in node:
        # rules lifted into what is no object model now: they join this node's rule
        lifted = node.pop("x-allOf")
        assert isinstance(lifted, list)
        rule["allOf"] = [*as_list(rule.get("allOf")), *lifted]
    inlined = ctx.rule(rule, at)
    if object_model:
        # an object model: the rule joins its published allOf, checked by its validator
        rules = node.setdefault("x-allOf", [])
        assert isinstance(rules, list)
        rules.append(inlined)
        ctx.sink.warn(at, f"{', '.join(sorted(loose))}: enforced by a model validator")
        return node
    if ctx.is_free_form(node):
        # nothing the generator renders is left: the value is any JSON value
        node["anyOf"] = [ctx.json_value_ref()]
    if at == "" and alias is None:
        # the root type, named by the caller: the rule is attached by that name
        ctx.rules[ROOT_RULE] = inlined
        ctx.sink.warn(at, f"{', '.join(sorted(loose))}: enforced by the root type")
        return node
    name = alias if alias is not None else _rule_name(ctx, at)
    # the type's name is decided here, as a name the generator keeps as it is (an
    # identifier no other schema title or definition takes), so the rule finds its alias
    title = node.get("title")
    type_name = _type_name(
        ctx, title if isinstance(title, str) else name, own=pascal(alias) if alias else None
    )
    node["title"] = type_name
    ctx.rules[type_name] = inlined
    ctx.sink.warn(at, f"{', '.join(sorted(loose))}: enforced by the type {type_name}")
    if alias is not None:
        return node
    defs = ctx.root.setdefault(ctx.defs_key, {})
    assert isinstance(defs, dict)
    # the definition is named as its type: the generator names an alias after its
    # definition, so name and title agree and the rule finds its alias by name
    defs[type_name] = node
    reference: JsonObject = {"$ref": "#" + pointer(ctx.defs_key, type_name)}
    return reference


def _merged_class(ctx: Context, node: JsonObject) -> bool:
    """Whether the generator renders ``node`` as one class merging its ``allOf`` of object
    models (a model, which carries rules in its published allOf, not a type alias)."""
    all_of = node.get("allOf")
    return (
        isinstance(all_of, list)
        # one reference alone the generator reads as that model itself, not a new class
        and (len(all_of) > 1 or any("$ref" not in m for m in all_of if isinstance(m, dict)))
        and all(ctx.is_object_model(member) for member in all_of)
        and node.get("type") in ("object", None)
        and not set(node) & {"anyOf", "oneOf"}
    )


def _hoist_merged_rules(ctx: Context, node: JsonObject) -> None:
    """The generator merges an ``allOf`` of object models into one class and keeps none
    of an inline member's own settings: the rules lifted into a member (``x-allOf``) move
    to the node that becomes the class (they judge the same value)."""
    all_of = node.get("allOf")
    if not isinstance(all_of, list) or not _merged_class(ctx, node):
        return
    hoisted: list[Json] = []
    for member in all_of:
        if isinstance(member, dict) and "$ref" not in member:
            hoisted += as_list(member.pop("x-allOf", None))
    if hoisted:
        node["x-allOf"] = [*as_list(node.get("x-allOf")), *hoisted]


def _type_name(ctx: Context, wanted: str, *, own: str | None = None) -> str:
    """A class name for a rule's type (``own``: the definition's own name, which it may
    keep)."""
    base = pascal(wanted) or "Value"
    if not base[0].isalpha() or not base.isascii():
        base = "Value" + base if base.isascii() else "Value"
    name, counter = base, 1
    while (name in ctx.taken_names and name != own) or name in ctx.rules:
        counter += 1
        name = f"{base}{counter}"
    ctx.taken_names.add(name)
    return name


def _rule_name(ctx: Context, at: str) -> str:
    tokens = [t for t in at.split("/") if t and t not in _STRUCTURAL]
    base = pascal("_".join(tokens[-2:])) + "Rule"
    if not base[0].isalpha():  # a name of branch numbers ("10Rule") is no identifier
        base = "Value" + base
    defs = ctx.root.get(ctx.defs_key)
    taken = set(defs) if isinstance(defs, dict) else set()
    taken |= set(ctx.rules)
    name, counter = base, 1
    while name in taken:
        counter += 1
        name = f"{base}{counter}"
    return name


def _exact_children(ctx: Context, node: JsonObject, at: str) -> None:
    for key in ("properties", "patternProperties"):
        members = node.get(key)
        if isinstance(members, dict):
            for name in list(members):
                members[name] = _exact(ctx, members[name], at + pointer(key, name), alias=None)
    for key in ("items", "additionalProperties", "additionalItems"):
        sub = node.get(key)
        if isinstance(sub, dict) or (sub is False and key == "items"):
            node[key] = _exact(ctx, sub, at + pointer(key), alias=None)
    for key in ("anyOf", "oneOf", "allOf"):
        members_list = node.get(key)
        if isinstance(members_list, list):
            node[key] = [
                _exact(ctx, sub, at + pointer(key, index), alias=None)
                for index, sub in enumerate(members_list)
            ]


def _loose_keywords(ctx: Context, node: JsonObject) -> set[str]:
    """The keywords of ``node`` the generator would not render exactly."""
    keys = set(node)
    declared = node.get("type")
    types = (
        [declared] if isinstance(declared, str) else declared if isinstance(declared, list)
        else None
    )  # fmt: skip
    loose = keys & _ALWAYS_LOOSE
    fmt = node.get("format")
    if "format" in keys and fmt not in _RENDERED_FORMATS and fmt not in ctx.checked_formats:
        # an annotation only (draft-07 lets a validator not assert a format): the
        # generator would render it as a Python type with its own, laxer or stricter,
        # rules (`date` takes epoch numbers, `email` needs a package)
        del node["format"]
        keys.discard("format")
    if types is None:
        loose |= keys & _BY_TYPE_KEYWORDS
    elif len(types) > 1:
        loose |= keys & _BY_TYPE_KEYWORDS
        if fmt in _RENDERED_FORMATS and "string" in types:
            loose.discard("format")  # `JsonDateTime | None` and the like are exact
    else:
        (only,) = types
        own = _TYPE_KEYWORDS.get(str(only), frozenset())
        loose |= keys & (_BY_TYPE_KEYWORDS - own - {"format"})  # no-ops the generator
        # would apply to the wrong type (or fail on)
        if only == "array" and isinstance(node.get("items"), list):
            loose |= {"items"} | (keys & {"additionalItems"})
        required, declared_props = node.get("required"), node.get("properties")
        if only == "object" and isinstance(required, list):
            known = set(declared_props) if isinstance(declared_props, dict) else set()
            if any(name not in known for name in required):
                loose.add("required")  # the generator ignores names it has no field for
        if fmt in FORMAT_TYPES and set(node) - ANNOTATION_ONLY - {"type", "format"}:
            loose.add("format")  # beside other keywords: a rule, not the generator's type
        if only == "string" and fmt in ctx.checked_formats:
            loose.add("format")
        if only in ("number", "integer") and "multipleOf" in keys:
            multiple = node["multipleOf"]
            if not (isinstance(multiple, int) and not isinstance(multiple, bool)):
                loose.add("multipleOf")
    if isinstance(node.get("items"), list):
        loose.add("items")
    if node.get("pattern") in ctx.backtracking:
        loose.add("pattern")  # never the generator's: it would run it with Python's re
    for key in ("const", "enum"):
        if key in node and not _literal_values(node[key] if key == "enum" else [node[key]]):
            loose.add(key)
    one_of = node.get("oneOf")
    if isinstance(one_of, list) and ctx.common_const_property(one_of) is None:
        loose.add("oneOf")
    siblings = keys - ANNOTATION_ONLY - {"title", "anyOf", "oneOf", "x-allOf"}
    for key in ("anyOf", "oneOf"):
        if key in node and (siblings - loose or ("anyOf" in node and "oneOf" in node)):
            # the generator renders a union or the other keywords, not both
            loose.add(key)
    all_of = node.get("allOf")
    if isinstance(all_of, list) and not all(ctx.is_object_model(member) for member in all_of):
        loose.add("allOf")  # the generator merges allOf of object models only
    return loose


_NUMBER_KEYWORDS = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
)
_STRING_KEYWORDS = frozenset({"minLength", "maxLength", "pattern", "format"})
_ARRAY_KEYWORDS = frozenset(
    {"items", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains"}
)
_OBJECT_KEYWORDS = frozenset(
    {
        "properties", "required", "additionalProperties", "patternProperties",
        "minProperties", "maxProperties", "propertyNames", "dependencies",
    }
)  # fmt: skip
_BY_TYPE_KEYWORDS = _NUMBER_KEYWORDS | _STRING_KEYWORDS | _ARRAY_KEYWORDS | _OBJECT_KEYWORDS
_TYPE_KEYWORDS = {
    "number": _NUMBER_KEYWORDS,
    "integer": _NUMBER_KEYWORDS,
    "string": _STRING_KEYWORDS,
    "array": _ARRAY_KEYWORDS - {"uniqueItems", "contains", "additionalItems"},
    "object": _OBJECT_KEYWORDS
    - {"patternProperties", "minProperties", "maxProperties", "propertyNames", "dependencies"},
}
_ALWAYS_LOOSE = frozenset({"not", "if", "then", "else"})
"""Left after lifting (no object owns them): always a rule."""
_RENDERED_FORMATS = frozenset({"date-time", "uri", "uri-reference"})
"""Formats the generated types assert exactly (JsonDateTime, Uri, UriReference)."""


_STRUCTURAL = frozenset(
    {"properties", "items", "additionalProperties", "anyOf", "oneOf", "allOf", "definitions",
     "$defs", "patternProperties", "additionalItems"}
)  # fmt: skip


def _distinct_branches(node: JsonObject) -> None:
    """``anyOf`` of equal branches is that branch once (the generator renders a repeated
    branch as ``Any``). ``oneOf`` is left alone: two equal branches make it unsatisfiable,
    which its rule states."""
    branches = node.get("anyOf")
    if not isinstance(branches, list):
        return
    seen: dict[str, Json] = {}
    for branch in branches:
        # JSON text as the key: Python's == takes 1 for true
        seen.setdefault(json.dumps(branch, sort_keys=True), branch)
    node["anyOf"] = list(seen.values())


def _declare_required(node: JsonObject) -> None:
    """Give a typed object a field for each required name it does not declare, where the
    object admits it (as an additional property, with that schema): the generator has no
    field to make required otherwise, and would ignore the name."""
    required = node.get("required")
    if node.get("type") != "object" or not isinstance(required, list):
        return
    additional = node.get("additionalProperties", True)
    if additional is False or "patternProperties" in node:
        return  # left to a rule (see _loose_keywords)
    properties = node.setdefault("properties", {})
    assert isinstance(properties, dict)
    for name in required:
        if isinstance(name, str) and name not in properties:
            properties[name] = copy.deepcopy(additional) if isinstance(additional, dict) else {}


def _restated(node: Json) -> Json:
    """A schema with its lifted rules (``x-allOf``, from ``lift_rules``) back in ``allOf``:
    a rule built from it must say everything the schema said."""
    if isinstance(node, list):
        return [_restated(sub) for sub in node]
    if not isinstance(node, dict):
        return node
    out: JsonObject = {}
    for key, value in node.items():
        if key == "x-allOf":
            continue
        out[key] = value if key in ("enum", "const", "examples", "default") else _restated(value)
    lifted = _restated(node.get("x-allOf"))
    if isinstance(lifted, list) and lifted:
        existing = out.get("allOf")
        out["allOf"] = [*(existing if isinstance(existing, list) else []), *lifted]
    return out


def _literal_values(values: Json) -> bool:
    """Whether the generator's ``Literal`` of these values means JSON equality: all strings,
    or all integers (marked not-boolean by the driver)."""
    if not isinstance(values, list) or not values:
        return False
    if all(isinstance(v, str) for v in values):
        return True
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)
