"""Pass: the generator's ``Model.model_rebuild()`` calls at the end of a module are left out.

Every model derives from ``JsonModel``, whose ``defer_build`` builds a model's validator on its
first use; the generator calls ``model_rebuild()`` for the models that refer to classes defined
after them (a trajectory's embedded trajectories), which builds those validators at import
whatever ``defer_build`` says: a service that imports the models to read one format paid for
the others' validators. Without the call, the forward references resolve when the model is
first used, from the module's namespace (complete by then).
"""

from __future__ import annotations

import ast

from codegen.passes._source import Edit, apply, span


def deferred_build(code: str) -> str:
    tree = ast.parse(code)
    data = code.encode("utf-8")
    edits: list[Edit] = []
    for node in tree.body:
        if _is_rebuild(node):
            start, end = span(code, node)
            if data[end : end + 1] == b"\n":
                end += 1  # the statement's line goes with it
            edits.append(Edit(start, end, ""))
    return apply(code, edits) if edits else code


def _is_rebuild(node: ast.stmt) -> bool:
    """``Name.model_rebuild()``, with no arguments, as a statement of its own."""
    if not isinstance(node, ast.Expr) or not isinstance(node.value, ast.Call):
        return False
    call = node.value
    function = call.func
    return (
        isinstance(function, ast.Attribute)
        and function.attr == "model_rebuild"
        and isinstance(function.value, ast.Name)
        and not call.args
        and not call.keywords
    )
