"""Pass: attach each schema rule ``normalize`` recorded to its type alias, with the schema's
reference table.

``Name = TypeAliasType("Name", T)`` becomes ``TypeAliasType("Name", Annotated[T,
SchemaRule({...}, REFS)])``: the type keeps what the generator renders exactly and the rule
checks the rest (see ``schema_passes.exactness``). ``REFS`` is one module-level table of the
subschemas the rules reach by ``$ref`` (recursion is by name there); model validators that
check lifted rules get it too. A rule whose alias is not found is an error: dropping it would
loosen the model in silence.
"""

from __future__ import annotations

import ast

from codegen._json import Json
from codegen.passes._source import (
    Edit,
    add_imports,
    apply,
    bound_names,
    local_name,
    replace_nodes,
    span,
)
from codegen.passes.json_scalars import RUNTIME_MODULE


class RuleNotAttached(ValueError):
    """A recorded rule has no alias in the generated code."""


def rule_types(
    code: str,
    rules: dict[str, Json],
    refs: dict[str, Json] | None = None,
    *,
    optional: frozenset[str] = frozenset(),
) -> str:
    """``optional``: rules of types no reference reaches, which the generator may leave out."""
    if not rules and not refs:
        return code
    tree = ast.parse(code)
    taken = bound_names(tree)
    table = local_name(tree, "", "SCHEMA_REFS", taken) if refs else None
    annotated = local_name(tree, "typing", "Annotated", taken)
    marker = local_name(tree, RUNTIME_MODULE, "SchemaRule", taken)
    checker = local_name(tree, RUNTIME_MODULE, "check_rules", taken)
    replacements: list[tuple[ast.expr | ast.stmt, str]] = []
    attached: set[str] = set()
    extra = f", {table}" if table else ""
    aliases: dict[str, ast.expr] = {
        node.targets[0].id: node.value.args[1]
        for node in tree.body
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Call)
        and len(node.value.args) == 2
    }
    # the alias is found by its name, else by the title the build step gave its schema
    # (the generator names an alias after its definition, a model after its title), when
    # exactly one alias has that title (the generator copies a union's title to its branches)
    titled: dict[str, list[str]] = {}
    for alias, value in aliases.items():
        title = _title(value)
        if title is not None:
            titled.setdefault(title, []).append(alias)
    used = {name for name in rules if name in aliases}
    for name in rules:
        alias_name = name if name in aliases else None
        if alias_name is None and len(titled.get(name, [])) == 1:
            alias_name = titled[name][0]
            if alias_name in used:
                continue  # that alias carries its own rule
            used.add(alias_name)
        if alias_name is None:
            continue
        value = aliases[alias_name]
        literal = repr(rules[name])  # a JSON value's repr is a Python literal of it
        replacements.append(
            (value, f"{annotated}[{ast.unparse(value)}, {marker}({literal}{extra})]")
        )
        attached.add(name)
    if table:
        # model validators of lifted rules: check_rules(self) -> check_rules(self, REFS)
        for call in ast.walk(tree):
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == checker
                and len(call.args) == 1
            ):
                replacements.append((call, f"{checker}({ast.unparse(call.args[0])}, {table})"))
    missing = sorted(set(rules) - attached - optional)
    if missing:
        raise RuleNotAttached(f"schema rules without a type alias to carry them: {missing}")
    code = replace_nodes(code, replacements)
    if table:
        code = _insert_table(code, table, refs or {})
    wanted = {(RUNTIME_MODULE, "SchemaRule"): marker} if attached else {}
    if attached:
        wanted[("typing", "Annotated")] = annotated
    return add_imports(code, wanted)


def _title(value: ast.expr) -> str | None:
    """``X`` of ``Annotated[T, Field(title="X")]``."""
    if not (
        isinstance(value, ast.Subscript)
        and isinstance(value.slice, ast.Tuple)
        and isinstance(value.value, ast.Name)
        and value.value.id == "Annotated"
    ):
        return None
    for meta in value.slice.elts[1:]:
        if isinstance(meta, ast.Call):
            for keyword in meta.keywords:
                if keyword.arg == "title" and isinstance(keyword.value, ast.Constant):
                    title = keyword.value.value
                    return title if isinstance(title, str) else None
    return None


def _insert_table(code: str, name: str, refs: dict[str, Json]) -> str:
    """The table, after the imports (type aliases are built where they stand, so it must be
    bound before the first of them)."""
    tree = ast.parse(code)
    last_import = max(
        (n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)),
        key=lambda n: n.lineno,
    )
    _, end = span(code, last_import)
    text = (
        f"\n\n{name}: dict[str, object] = {refs!r}\n"
        '"""The subschemas the schema rules reach by ``$ref``, by JSON pointer."""\n'
    )
    return apply(code, [Edit(end, end, text)])
