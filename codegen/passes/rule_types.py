"""Pass: attach each schema rule ``normalize`` recorded to its type alias.

``Name = TypeAliasType("Name", T)`` becomes ``TypeAliasType("Name", Annotated[T,
SchemaRule({...})])``: the type keeps what the generator renders exactly and the rule checks
the rest (see ``normalize._enforce_exactly``). A rule whose alias is not found is an error:
dropping it would loosen the model in silence.
"""

from __future__ import annotations

import ast

from codegen._json import Json
from codegen.passes._source import add_imports, bound_names, local_name, replace_nodes
from codegen.passes.json_scalars import RUNTIME_MODULE


class RuleNotAttached(ValueError):
    """A recorded rule has no alias in the generated code."""


def rule_types(code: str, rules: dict[str, Json]) -> str:
    if not rules:
        return code
    tree = ast.parse(code)
    taken = bound_names(tree)
    annotated = local_name(tree, "typing", "Annotated", taken)
    marker = local_name(tree, RUNTIME_MODULE, "SchemaRule", taken)
    replacements: list[tuple[ast.expr, str]] = []
    attached: set[str] = set()
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in rules
            and isinstance(node.value, ast.Call)
            and len(node.value.args) == 2
        ):
            name = node.targets[0].id
            value = node.value.args[1]
            literal = repr(rules[name])  # a JSON value's repr is a Python literal of it
            replacements.append((value, f"{annotated}[{ast.unparse(value)}, {marker}({literal})]"))
            attached.add(name)
    missing = sorted(set(rules) - attached)
    if missing:
        raise RuleNotAttached(f"schema rules without a type alias to carry them: {missing}")
    code = replace_nodes(code, replacements)
    return add_imports(
        code, {("typing", "Annotated"): annotated, (RUNTIME_MODULE, "SchemaRule"): marker}
    )
