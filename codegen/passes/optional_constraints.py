"""Pass: ``Annotated[T | MISSING, Field(ge=1)]`` -> ``Annotated[T, Field(ge=1)] | MISSING``.

The generator attaches constraints to the whole union. pydantic validates that correctly but
publishes the constraint under its Python name (``"ge": 1``) instead of ``minimum`` in
``model_json_schema()``; on the value's own type it publishes ``minimum``.
"""

from __future__ import annotations

import ast

from codegen.passes._source import imported, replace_nodes

# Field() keywords that describe the value itself, so they belong to the value's type.
_VALUE_KEYWORDS = frozenset(
    {"ge", "gt", "le", "lt", "multiple_of", "min_length", "max_length", "pattern", "examples"}
)
_ABSENT = frozenset({"MISSING", "None"})


def constraints_inside_optional(code: str) -> str:
    tree = ast.parse(code)
    annotated = imported(tree, "typing", "Annotated")
    fields = imported(tree, "pydantic", "Field")
    annotations = [n.annotation for n in ast.walk(tree) if isinstance(n, ast.AnnAssign)]
    replacements = [
        (a, text) for a in annotations if (text := _moved(a, annotated, fields)) is not None
    ]
    return replace_nodes(code, replacements) if replacements else code


def _moved(annotation: ast.expr, annotated: set[str], fields: set[str]) -> str | None:
    if not (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id in annotated
        and isinstance(annotation.slice, ast.Tuple)
        and len(annotation.slice.elts) == 2
    ):
        return None
    inner, metadata = annotation.slice.elts
    if not (
        isinstance(metadata, ast.Call)
        and isinstance(metadata.func, ast.Name)
        and metadata.func.id in fields
        and not metadata.args
        and all(k.arg in _VALUE_KEYWORDS for k in metadata.keywords)
    ):
        return None
    members = _union_members(inner)
    absent = [m for m in members if ast.unparse(m) in _ABSENT]
    present = [m for m in members if ast.unparse(m) not in _ABSENT]
    if not absent or not present:
        return None
    value = " | ".join(ast.unparse(m) for m in present)
    tail = " | ".join(ast.unparse(m) for m in absent)
    return f"{annotation.value.id}[{value}, {ast.unparse(metadata)}] | {tail}"


def _union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*_union_members(node.left), *_union_members(node.right)]
    return [node]
