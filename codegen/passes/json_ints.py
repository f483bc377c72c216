"""Pass: ``Annotated[JsonInt, Field(ge=0)]`` -> ``Annotated[StrictInt, Field(ge=0), IntegralFloat]``
(the integral-float step after the constraint).

Constraints applied after ``JsonInt``'s validator land on a function schema, which pydantic
publishes as ``"ge": 0``; applied to the int first, they publish as ``"minimum": 0``.
"""

from __future__ import annotations

import ast

from codegen.passes._source import add_imports, bound_names, imported, local_name, replace_nodes
from codegen.passes.json_scalars import RUNTIME_MODULE


def constrained_json_ints(code: str) -> str:
    tree = ast.parse(code)
    json_ints = imported(tree, RUNTIME_MODULE, "JsonInt")
    annotated = imported(tree, "typing", "Annotated")
    taken = bound_names(tree)
    found: list[ast.Subscript] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in annotated
            and isinstance(node.slice, ast.Tuple)
            and isinstance(node.slice.elts[0], ast.Name)
            and node.slice.elts[0].id in json_ints
        ):
            found.append(node)
    if not found:
        return code
    strict_int = local_name(tree, "pydantic", "StrictInt", taken)
    integral = local_name(tree, RUNTIME_MODULE, "IntegralFloat", taken)
    replacements: list[tuple[ast.expr, str]] = []
    for node in found:
        assert isinstance(node.value, ast.Name)
        assert isinstance(node.slice, ast.Tuple)
        metadata = ", ".join(ast.unparse(m) for m in node.slice.elts[1:])
        text = f"{node.value.id}[{strict_int}, {metadata}, {integral}]"
        replacements.append((node, text))
    code = replace_nodes(code, replacements)
    return add_imports(
        code, {("pydantic", "StrictInt"): strict_int, (RUNTIME_MODULE, "IntegralFloat"): integral}
    )
