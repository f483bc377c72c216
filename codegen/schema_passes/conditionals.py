"""``if``/``then`` rules keyed on an enum property of a definition split it into one variant
per value (a union of them), so the rule lives in the types rather than in a validator; what
this cannot express is left for ``lift_rules`` or refused."""

from __future__ import annotations

import copy

from codegen._json import Json, JsonObject, pointer
from codegen._names import pascal
from codegen.schema_passes.context import Context


def split_conditionals(ctx: Context) -> None:
    defs = ctx.root.get(ctx.defs_key)
    targets: list[tuple[str, JsonObject, str | None]] = []
    if isinstance(defs, dict):
        for name, sub in defs.items():
            if isinstance(sub, dict):
                targets.append((pointer(ctx.defs_key, name), sub, name))
    targets.append(("", ctx.root, None))
    for at, node, def_name in targets:
        if _has_conditional(node):
            _split(ctx, node, at, def_name)


def _has_conditional(node: JsonObject) -> bool:
    all_of = node.get("allOf")
    if "if" in node:
        return True
    return isinstance(all_of, list) and any(isinstance(s, dict) and "if" in s for s in all_of)


def _split(ctx: Context, node: JsonObject, at: str, def_name: str | None) -> None:
    rules = [node] if "if" in node else []
    all_of = node.get("allOf")
    others: list[Json] = []
    if isinstance(all_of, list):
        for sub in all_of:
            if isinstance(sub, dict) and "if" in sub:
                rules.append(sub)
            else:
                others.append(sub)
    properties = node.get("properties")
    if def_name is None or not isinstance(properties, dict) or others:
        return  # left for lift_rules
    keyed: dict[str, list[JsonObject]] = {}
    selector: str | None = None
    for rule in rules:
        parsed = _const_condition(rule.get("if"))
        if parsed is None or "else" in rule:
            return
        prop, matched = parsed
        if selector not in (None, prop):
            return
        selector = prop
        then = rule.get("then")
        if not isinstance(then, dict):
            return
        for value in matched:
            keyed.setdefault(value, []).append(then)
    assert selector is not None
    selector_schema = properties.get(selector)
    values = selector_schema.get("enum") if isinstance(selector_schema, dict) else None
    required = node.get("required")
    if (
        not isinstance(values, list)
        or not all(isinstance(v, str) for v in values)
        or not isinstance(required, list)
        or selector not in required
        or node.get("additionalProperties") is not False
    ):
        return
    base = {k: v for k, v in node.items() if k not in ("allOf", "if", "then", "else")}
    variants: list[Json] = []
    defs = ctx.root[ctx.defs_key]
    assert isinstance(defs, dict)
    for raw_value in values:
        assert isinstance(raw_value, str)
        value = raw_value
        variant = copy.deepcopy(base)
        variant_props = variant["properties"]
        assert isinstance(variant_props, dict)
        variant_required = variant["required"]
        assert isinstance(variant_required, list)
        variant_props[selector] = {"type": "string", "const": value}
        for then in keyed.get(value, []):
            if not _apply_then(then, variant_props, variant_required):
                ctx.sink.error(
                    at,
                    "if/then rule has a 'then' this build step cannot express in types "
                    "(supported: required, and not/anyOf of required)",
                )
                return
        variant_name = f"{pascal(value)}{pascal(def_name)}"
        variant["title"] = variant_name
        defs[f"{def_name}__{value}"] = variant
        variants.append({"$ref": f"#/{ctx.defs_key}/{def_name}__{value}"})
    replacement: JsonObject = {"oneOf": variants}
    for key in ("title", "description"):
        if key in node:
            replacement[key] = node[key]
    node.clear()
    node.update(replacement)
    ctx.sink.warn(
        at,
        f"if/then rules keyed on {selector!r} expressed as a union of one variant per value",
    )


def _apply_then(then: JsonObject, props: JsonObject, required: list[Json]) -> bool:
    for key, value in then.items():
        if key == "required" and isinstance(value, list):
            required.extend(v for v in value if v not in required)
        elif key == "properties" and isinstance(value, dict):
            for name, bounds in value.items():
                if not _tighten(props.get(name), bounds):
                    return False
        elif key == "not":
            forbidden = _forbidden_properties(value)
            if forbidden is None:
                return False
            for name in forbidden:
                props.pop(name, None)
                if name in required:
                    return False
        else:
            return False
    return True


def _tighten(target: Json, bounds: Json) -> bool:
    """Apply a ``then``'s size bounds (``minItems`` and the like) to a property's own schema:
    both hold, so the stricter bound is the one. False when ``bounds`` says anything else."""
    lower = ("minItems", "minLength", "minProperties", "minimum")
    upper = ("maxItems", "maxLength", "maxProperties", "maximum")
    if not isinstance(target, dict) or "$ref" in target or not isinstance(bounds, dict):
        return False
    if not bounds or set(bounds) - set(lower) - set(upper):
        return False
    for key, bound in bounds.items():
        if not isinstance(bound, int | float) or isinstance(bound, bool):
            return False
        current = target.get(key)
        if isinstance(current, int | float) and not isinstance(current, bool):
            target[key] = max(current, bound) if key in lower else min(current, bound)
        else:
            target[key] = bound
    return True


def _const_condition(condition: Json) -> tuple[str, list[str]] | None:
    """Parse ``{properties: {P: {const: V}}, required: [P]}`` (or ``{enum: [V, ...]}``) into
    ``(P, [V, ...])``: the values of P the rule applies to."""
    if not isinstance(condition, dict):
        return None
    props = condition.get("properties")
    if (
        set(condition) - {"properties", "required"}
        or not isinstance(props, dict)
        or len(props) != 1
    ):
        return None
    ((name, sub),) = props.items()
    if condition.get("required") != [name] or not isinstance(sub, dict):
        return None
    if set(sub) == {"const"} and isinstance(sub["const"], str):
        return name, [sub["const"]]
    values = sub.get("enum")
    if (
        set(sub) == {"enum"}
        and isinstance(values, list)
        and all(isinstance(v, str) for v in values)
    ):
        return name, [v for v in values if isinstance(v, str)]
    return None


def _forbidden_properties(negated: Json) -> list[str] | None:
    """Names made absent by ``not {required: [..]}`` or ``not {anyOf: [{required: [..]}, ..]}``."""
    if not isinstance(negated, dict):
        return None
    if set(negated) == {"required"}:
        req = negated["required"]
        if isinstance(req, list) and len(req) == 1 and isinstance(req[0], str):
            return [req[0]]
        return None
    alternatives = negated.get("anyOf")
    if set(negated) != {"anyOf"} or not isinstance(alternatives, list):
        return None
    names: list[str] = []
    for alt in alternatives:
        found = _forbidden_properties(alt)
        if found is None:
            return None
        names.extend(found)
    return names
