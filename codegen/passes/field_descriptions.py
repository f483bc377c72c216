"""Pass: each field's docstring is also its ``description`` (``Field(description=...)``).

The docstring under a field stays (editors show it); the description is what pydantic
publishes (``model_fields``, ``model_json_schema()``). pydantic can read the docstrings itself
(``use_attribute_docstrings``), but it does so by finding each class's source through the
interpreter's frames and parsing it, when the class is created: about 70 ms to import the
four formats' models, paid by every process. Written here once, it costs nothing at import.
The text is the docstring as pydantic would have read it (``inspect.cleandoc``).
"""

from __future__ import annotations

import ast
import inspect
import itertools

from codegen.passes._source import Edit, apply, bound_names, imported, span

_ALIAS = "_DescribedField"
"""The name ``Field`` is imported under when the module does not import it (or a class of
the schema is called ``Field``)."""


def field_descriptions(code: str) -> str:
    tree = ast.parse(code)
    known = imported(tree, "pydantic", "Field")
    field = min(known) if known else _ALIAS
    edits: list[Edit] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            edits += _described(code, node, field)
    if not edits:
        return code
    if not known:
        if _ALIAS in bound_names(tree):
            raise ValueError(f"the schema names a class {_ALIAS}")
        at = _after_imports(code, tree)
        edits.append(Edit(at, at, f"from pydantic import Field as {_ALIAS}\n"))
    return apply(code, edits)


def _after_imports(code: str, tree: ast.Module) -> int:
    """Where the module's first statement after its imports (and docstring) begins."""
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        return span(code, node)[0] - node.col_offset
    return len(code.encode("utf-8"))


def _described(code: str, node: ast.ClassDef, field: str) -> list[Edit]:
    edits: list[Edit] = []
    body = node.body
    for statement, following in itertools.pairwise(body):
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            continue
        name = statement.target.id
        if name.startswith("_") or name == "model_config":
            continue
        if not (
            isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            continue
        description = repr(inspect.cleandoc(following.value.value))
        if statement.value is None:
            end = span(code, statement.annotation)[1]
            edits.append(Edit(end, end, f" = {field}(description={description})"))
            continue
        value = statement.value
        if _is_field_call(value):
            raise ValueError(f"{node.name}.{name}: a Field() default is not expected here")
        start, end = span(code, value)
        default = code.encode("utf-8")[start:end].decode("utf-8")
        edits.append(Edit(start, end, f"{field}({default}, description={description})"))
    return edits


def _is_field_call(value: ast.expr) -> bool:
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "Field"
    )
