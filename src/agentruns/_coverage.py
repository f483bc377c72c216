"""The models a format's root model reaches: the ones its reader's coverage must declare."""

from __future__ import annotations

import types
import typing

from pydantic import BaseModel


def reachable_models(root: type[BaseModel]) -> set[type[BaseModel]]:
    """Every model class reachable from ``root`` through field types (unions, lists, dicts,
    ``Annotated`` and type aliases included)."""
    found: set[type[BaseModel]] = set()
    pending: list[object] = [root]
    while pending:
        hint = pending.pop()
        if isinstance(hint, type) and issubclass(hint, BaseModel):
            if hint in found:
                continue
            found.add(hint)
            pending.extend(info.annotation for info in hint.model_fields.values())
            continue
        value = getattr(hint, "__value__", None)  # a TypeAliasType
        if value is not None:
            pending.append(value)
        pending.extend(typing.get_args(hint))
        if isinstance(hint, types.UnionType):
            pending.extend(hint.__args__)
    return found
