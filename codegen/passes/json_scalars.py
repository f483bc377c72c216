"""Pass: swap pydantic's Python-flavoured scalar types for the JSON-faithful ones in ``_json``.

``StrictInt`` rejects ``5.0`` (a JSON integer), ``AwareDatetime`` accepts epoch numbers and
``"2020-01-01 00:00:00Z"``, and ``Literal[1]`` accepts ``true``. The generator has no hook for
this (its type overrides apply to named models only), so the types are replaced in the syntax
tree: only names in type positions that are bound to those pydantic/typing objects, never a
string, a field name or a docstring that happens to spell them.
"""

from __future__ import annotations

import ast

from codegen.passes._source import (
    add_imports,
    bound_names,
    imported,
    local_name,
    replace_nodes,
)

RUNTIME_MODULE = "agentruns_generated._json"
_SWAPS = {("pydantic", "StrictInt"): "JsonInt", ("pydantic", "AwareDatetime"): "JsonDateTime"}


def json_scalars(code: str, *, keep_strict_int: bool = False) -> str:
    """``keep_strict_int``: integers as draft-04 means them (``5.0`` is none)."""
    tree = ast.parse(code)
    taken = bound_names(tree)
    targets: dict[str, str] = {}  # local name in the module -> runtime type name
    for (module, name), runtime in _SWAPS.items():
        if keep_strict_int and name == "StrictInt":
            continue
        for local in imported(tree, module, name):
            targets[local] = runtime
    literals = imported(tree, "typing", "Literal") | imported(tree, "typing_extensions", "Literal")
    needed: dict[str, str] = {}

    def runtime_name(name: str) -> str:
        if name not in needed:
            needed[name] = local_name(tree, RUNTIME_MODULE, name, taken)
        return needed[name]

    annotated: list[str] = []

    def annotated_name() -> str:
        if not annotated:
            annotated.append(local_name(tree, "typing", "Annotated", taken))
        return annotated[0]

    replacements: list[tuple[ast.expr, str]] = []
    seen: set[int] = set()

    def visit(node: ast.expr) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in targets:
            replacements.append((node, runtime_name(targets[node.id])))
            return
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in literals
            and _all_integers(node.slice)
        ):
            text = f"{annotated_name()}[{ast.unparse(node)}, {runtime_name('NotBoolean')}]"
            replacements.append((node, text))
            return
        if isinstance(node, ast.Constant):
            return  # strings are data (a forward reference is not a scalar type here)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                visit(child)

    # every use of the names, wherever the generator puts types (annotations, aliases, the
    # `__annotations__` dicts of models with extras, RootModel parameters)
    for statement in tree.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.expr) and not isinstance(statement, ast.ImportFrom):
                visit(node)
    if not replacements:
        return code
    code = replace_nodes(code, replacements)
    wanted = {(RUNTIME_MODULE, name): local for name, local in needed.items()}
    if annotated:
        wanted[("typing", "Annotated")] = annotated[0]
    return add_imports(code, wanted)


def _all_integers(node: ast.expr) -> bool:
    members = node.elts if isinstance(node, ast.Tuple) else [node]
    return bool(members) and all(_is_integer(m) for m in members)


def _is_integer(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int)
        and not isinstance(node.value, bool)
    )
