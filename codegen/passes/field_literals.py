"""Pass: after each model class, a ``Literal`` alias of its field names (``<Class>Field``).

Mappers declare, per model, what happens to each field (read, carried, lost) in a dict keyed
by this alias: mypy then names the mapper line when a schema change removes or renames a
field, and the coverage test names the model, the field and the mapper when one is added.
"""

from __future__ import annotations

import ast

from codegen.passes._source import Edit, apply, bound_names, span


def field_literals(code: str) -> str:
    tree = ast.parse(code)
    taken = bound_names(tree)
    edits: list[Edit] = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        names = [
            statement.target.id
            for statement in node.body
            if isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and not statement.target.id.startswith("_")
        ]
        if not names:
            continue
        alias = f"{node.name}Field"
        while alias in taken:
            alias += "_"
        taken.add(alias)
        members = ", ".join(repr(name) for name in names)
        text = (
            f"\n\n\n{alias} = Literal[{members}]\n"
            f'"""The fields of ``{node.name}``, for mappers to declare what they do with each."""'
        )
        for statement in node.body:
            if not (
                isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
            ):
                continue
            words = _string_literal(statement.annotation)
            if words is None:
                continue
            vocabulary = node.name + "".join(
                part.capitalize() for part in statement.target.id.split("_")
            )
            if vocabulary in taken:
                continue
            taken.add(vocabulary)
            text += (
                f"\n\n\n{vocabulary} = Literal[{', '.join(repr(w) for w in words)}]\n"
                f'"""The words ``{node.name}.{statement.target.id}`` takes, for mappers to '
                'narrow to."""'
            )
        end = span(code, node)[1]
        edits.append(Edit(end, end, text))
    if not edits:
        return code
    from codegen.passes._source import add_imports, local_name

    literal = local_name(tree, "typing", "Literal", set())
    code = apply(code, edits)
    assert literal == "Literal", "a schema name shadows typing.Literal"
    return add_imports(code, {("typing", "Literal"): literal})


def _string_literal(annotation: ast.expr) -> list[str] | None:
    """The strings of the one ``Literal[...]`` of string constants a field annotation holds
    (inside ``Annotated`` and beside ``MISSING``/``None``), if it holds exactly one."""
    found: list[list[str]] = []
    for node in ast.walk(annotation):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == "Literal"
        ):
            members = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            words = [m.value for m in members if isinstance(m, ast.Constant)]
            if len(words) == len(members) and all(isinstance(w, str) for w in words):
                found.append([str(w) for w in words])
    return found[0] if len(found) == 1 and len(found[0]) > 1 else None
