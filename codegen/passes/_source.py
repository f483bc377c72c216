"""Editing Python source at the spans of syntax-tree nodes, and resolving imported names."""

from __future__ import annotations

import ast
import functools
import itertools
import keyword
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Edit:
    """Replace the UTF-8 byte span ``[start, end)`` of a module's source by ``text``."""

    start: int
    end: int
    text: str


@functools.lru_cache(maxsize=2)
def _line_starts(code: str) -> list[int]:
    """The byte offset of each line of the code's UTF-8 form, kept for the module being edited
    (a pass asks for the spans of hundreds of nodes of one module: a module of 100,000 lines
    took ten seconds when each span split it again)."""
    starts = [0]
    for line in code.encode("utf-8").splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def span(code: str, node: ast.expr | ast.stmt) -> tuple[int, int]:
    """The byte span of a node (``ast`` column offsets count UTF-8 bytes, not characters)."""
    starts = _line_starts(code)
    assert node.end_lineno is not None
    assert node.end_col_offset is not None
    return (
        starts[node.lineno - 1] + node.col_offset,
        starts[node.end_lineno - 1] + node.end_col_offset,
    )


def replace_nodes(code: str, replacements: Iterable[tuple[ast.expr | ast.stmt, str]]) -> str:
    """The code with each node's source replaced by its new text."""
    starts = _line_starts(code)
    edits: list[Edit] = []
    for node, text in replacements:
        assert node.end_lineno is not None
        assert node.end_col_offset is not None
        start = starts[node.lineno - 1] + node.col_offset
        end = starts[node.end_lineno - 1] + node.end_col_offset
        edits.append(Edit(start, end, text))
    return apply(code, edits)


def apply(code: str, edits: Iterable[Edit]) -> str:
    data = code.encode("utf-8")
    ordered = sorted(edits)
    for before, after in itertools.pairwise(ordered):
        if before.end > after.start:
            raise ValueError(f"overlapping edits at bytes {after.start}-{before.end}")
    # pieces joined once: splicing the whole module per edit was quadratic in its size
    pieces: list[bytes] = []
    done = 0
    for edit in ordered:
        pieces += (data[done : edit.start], edit.text.encode("utf-8"))
        done = edit.end
    pieces.append(data[done:])
    return b"".join(pieces).decode("utf-8")


def imported(tree: ast.Module, module: str, name: str) -> set[str]:
    """The local names under which ``module.name`` is imported (``from m import n as x``)."""
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == module:
            for alias in node.names:
                if alias.name == name:
                    found.add(alias.asname or alias.name)
    return found


def bound_names(tree: ast.Module) -> set[str]:
    """Every name the module binds or its classes declare (a field shadows a module name
    when pydantic resolves the annotations of that class)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef | ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.split(".")[0])
    return names


def add_imports(code: str, wanted: dict[tuple[str, str], str]) -> str:
    """The code with ``from module import name as local`` for each ((module, name) -> local)
    that is not imported so yet, placed after the ``__future__`` import (ruff sorts them)."""
    tree = ast.parse(code)
    lines: list[str] = []
    for (module, name), local in sorted(wanted.items()):
        if local in imported(tree, module, name):
            continue
        lines.append(
            f"from {module} import {name}" + ("" if local == name else f" as {local}") + "\n"
        )
    if not lines:
        return code
    future = next(
        (
            node
            for node in tree.body
            if isinstance(node, ast.ImportFrom) and node.module == "__future__"
        ),
        None,
    )
    if future is None:
        raise ValueError("unexpected generator output: no __future__ import")
    _, end = span(code, future)
    return apply(code, [Edit(end, end, "\n" + "".join(lines).rstrip("\n"))])


def local_name(tree: ast.Module, module: str, name: str, taken: set[str]) -> str:
    """The name to use for ``module.name`` in this module: how it is imported already, else
    the name itself, else (taken by a class, field or another import) ``name_aliased``."""
    existing = sorted(imported(tree, module, name))
    if existing:
        return existing[0]
    candidate = name
    counter = 1
    while candidate in taken or keyword.iskeyword(candidate):
        candidate = f"{name}_aliased" if counter == 1 else f"{name}_aliased_{counter}"
        counter += 1
    taken.add(candidate)
    return candidate
