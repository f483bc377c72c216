"""Pass: each model's docstring lists its fields (name, type as it reads, whether it may be
absent, the first line of its description), so ``help(Model)`` opens with what a record holds
rather than with pydantic's machinery.

The type is the annotation with what only the validator reads left out (``Annotated``
metadata, ``Field(...)``), pydantic's strict types as the Python type they hold; ``MISSING``
becomes "optional", ``None`` "or null".
"""

from __future__ import annotations

import ast

from codegen.passes._source import Edit, apply, span

_WIDTH = 88
"""Longest field entry (the rest of a description is in the field's own docstring)."""

_READS_AS = {"StrictStr": "str", "StrictInt": "int", "StrictFloat": "float", "StrictBool": "bool"}
"""pydantic's strict types, as the Python type they hold."""


def field_docs(code: str) -> str:
    tree = ast.parse(code)
    edits: list[Edit] = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        entries = _entries(node)
        if not entries:
            continue
        indent = " " * (node.col_offset + 4)
        first = node.body[0]
        existing = ast.get_docstring(node, clean=True)
        lines = [*(existing.splitlines() if existing else []), ""] if existing else []
        lines += ["Fields:", *(f"    {entry}" for entry in entries)]
        text = _literal(lines, indent)
        if existing is not None:
            start, end = span(code, first)
            edits.append(Edit(start, end, text))
        else:
            start = span(code, first)[0]
            edits.append(Edit(start, start, f"{text}\n\n{indent}"))
    return apply(code, edits) if edits else code


def _entries(node: ast.ClassDef) -> list[str]:
    entries: list[str] = []
    body = node.body
    for position, statement in enumerate(body):
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        name = statement.target.id
        if name.startswith("_") or name == "model_config":
            continue
        shown, optional, nullable = _type(statement.annotation)
        how = "optional" if optional else "required"
        if nullable:
            how += ", or null"
        entry = f"{name} ({how}): {shown}"
        following = body[position + 1] if position + 1 < len(body) else None
        said = _description(following)
        if said:
            entry += f" -- {said}"
        entries.append(_cut(entry))
    return entries


def _type(annotation: ast.expr) -> tuple[str, bool, bool]:
    """The type as it reads, whether it may be absent, whether it may be null."""
    members = _members(annotation)
    optional = any(_is_name(member, "MISSING") for member in members)
    nullable = any(isinstance(m, ast.Constant) and m.value is None for m in members)
    kept = [
        m
        for m in members
        if not _is_name(m, "MISSING") and not (isinstance(m, ast.Constant) and m.value is None)
    ]
    shown = " | ".join(ast.unparse(_plain(m)) for m in kept) or "None"
    return shown, optional, nullable


def _members(annotation: ast.expr) -> list[ast.expr]:
    """The members of a ``|`` union (the annotation itself when it is none)."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return [*_members(annotation.left), *_members(annotation.right)]
    if (
        isinstance(annotation, ast.Subscript)
        and _is_name(annotation.value, "Annotated")
        and isinstance(annotation.slice, ast.Tuple)
    ):
        return _members(annotation.slice.elts[0])
    return [annotation]


def _plain(node: ast.expr) -> ast.expr:
    """The type with ``Annotated`` metadata left out, everywhere inside it."""

    class Strip(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.expr:
            return ast.Name(_READS_AS.get(name.id, name.id), name.ctx)

        def visit_Subscript(self, sub: ast.Subscript) -> ast.expr:
            if _is_name(sub.value, "Annotated") and isinstance(sub.slice, ast.Tuple):
                inner = self.visit(sub.slice.elts[0])
                assert isinstance(inner, ast.expr)
                return inner
            self.generic_visit(sub)
            return sub

    copy = ast.parse(ast.unparse(node), mode="eval").body
    stripped = Strip().visit(copy)
    assert isinstance(stripped, ast.expr)
    return stripped


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _description(statement: ast.stmt | None) -> str:
    """The first line of a field's docstring (the string statement after it)."""
    if (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    ):
        for line in statement.value.value.strip().splitlines():
            if line.strip():
                return " ".join(line.split())
    return ""


def _cut(entry: str) -> str:
    return entry if len(entry) <= _WIDTH else entry[: _WIDTH - 1] + "…"


def _literal(lines: list[str], indent: str) -> str:
    """A docstring literal of these lines at ``indent`` (quotes and backslashes escaped)."""
    body = "\n".join(
        f"{indent}{line}".rstrip() for line in (line.replace("\\", "\\\\") for line in lines)
    )
    body = body.replace('"""', '\\"\\"\\"')
    return f'"""\n{body}\n{indent}"""'
