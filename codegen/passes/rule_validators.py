"""Pass: give every model whose config carries lifted rules a check that enforces them.

``normalize`` lifts ``not`` and ``if``/``then``/``else`` (which the generator drops) into the
owning object's ``allOf``, published in its ``json_schema_extra``; the validator evaluates them.
"""

from __future__ import annotations

import ast

from codegen.passes._source import Edit, add_imports, apply, bound_names, local_name, span
from codegen.passes.json_scalars import RUNTIME_MODULE

_VALIDATOR = """

    def model_post_init(self, context: object, /) -> None:
        \"\"\"Enforce the schema rules in this model's ``allOf`` (``not``,
        if/then/else) once, when the model is made (from data or in code): a
        model passed as it is into a parent is not checked again, and no
        validator sees its input as Python data first (pydantic would convert
        a JSON input to Python objects for a wrap validator at every level).\"\"\"
        {check}(self)"""


def rule_validators(code: str) -> str:
    tree = ast.parse(code)
    owners = [n for n in tree.body if isinstance(n, ast.ClassDef) and _has_rules(n)]
    if not owners:
        return code
    taken = bound_names(tree)
    names = {
        (RUNTIME_MODULE, "check_rules"): local_name(tree, RUNTIME_MODULE, "check_rules", taken),
    }
    text = _VALIDATOR.format(check=names[(RUNTIME_MODULE, "check_rules")])
    edits = [Edit(end, end, text) for end in (span(code, owner)[1] for owner in owners)]
    return add_imports(apply(code, edits), names)


def _has_rules(node: ast.ClassDef) -> bool:
    for statement in node.body:
        if (
            isinstance(statement, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "model_config" for t in statement.targets)
            and isinstance(statement.value, ast.Call)
        ):
            for keyword in statement.value.keywords:
                if keyword.arg == "json_schema_extra" and isinstance(keyword.value, ast.Dict):
                    keys = [k.value for k in keyword.value.keys if isinstance(k, ast.Constant)]
                    if "allOf" in keys:
                        return True
    return False
