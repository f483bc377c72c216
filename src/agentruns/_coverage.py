"""The models a format's root model reaches: the ones its reader's coverage must declare."""

from __future__ import annotations

import types
import typing
from collections.abc import Collection

from pydantic import BaseModel


def reachable_models(root: type[BaseModel], whole: Collection[str] = ()) -> set[type[BaseModel]]:
    """Every model class reachable from ``root`` through field types (unions, lists, dicts,
    ``Annotated`` and type aliases included), not looking inside the models named in ``whole``:
    what a reader keeps whole as JSON it keeps whole, models inside it included."""
    return reachable_from(root, whole)


def reachable_from(hint: object, whole: Collection[str] = ()) -> set[type[BaseModel]]:
    """Every model class a type hint reaches (the hint's own models included)."""
    found: set[type[BaseModel]] = set()
    pending: list[object] = [hint]
    while pending:
        hint = pending.pop()
        if isinstance(hint, type) and issubclass(hint, BaseModel):
            if hint in found:
                continue
            found.add(hint)
            if hint.__name__ in whole:
                continue
            pending.extend(info.annotation for info in hint.model_fields.values())
            continue
        value = getattr(hint, "__value__", None)  # a TypeAliasType
        if value is not None:
            pending.append(value)
        pending.extend(typing.get_args(hint))
        if isinstance(hint, types.UnionType):
            pending.extend(hint.__args__)
    return found
