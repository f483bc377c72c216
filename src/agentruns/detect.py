"""Which format a JSON document is, from its shape.

Each format has required top-level properties no other format shares in full; a document
that has all of one format's is that format. When several match (or none), validation
decides, and a document no single format accepts is reported with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel, JsonValue, ValidationError

from agentruns.conversion import models_by_name, registrations

__all__ = [
    "MODELS",
    "Detection",
    "detect",
]


MODELS: Mapping[str, type[BaseModel]] = models_by_name()
"""Every registered format's root model by name (the built-in ones, from the generated
format table, and any registered adapter): a live view of the registry."""


def _wire(model: type[BaseModel], required: bool) -> frozenset[str]:
    return frozenset(
        info.alias or name
        for name, info in model.model_fields.items()
        if info.is_required() or not required
    )


class _Shapes:
    """Required and declared top-level properties per format, recomputed when a format is
    registered (adapters may register after this module is imported)."""

    def __init__(self) -> None:
        self.seen = -1
        self.required: dict[str, frozenset[str]] = {}
        self.declared: dict[str, frozenset[str]] = {}

    def current(self) -> _Shapes:
        now = registrations()
        if self.seen != now:  # a format registered since (a name registered again, too)
            self.required = {name: _wire(m, True) for name, m in MODELS.items()}
            self.declared = {name: _wire(m, False) for name, m in MODELS.items()}
            self.seen = now
        return self


_SHAPES = _Shapes()


@dataclass(frozen=True)
class Detection:
    format: str | None
    reason: str
    closest: str | None = None
    """For an unknown document: the format whose properties it uses most (validate against it
    to tell the user what is wrong), if it uses any."""


def detect(value: JsonValue) -> Detection:
    """The format of a document, or None with the reason it is ambiguous or unknown."""
    if not isinstance(value, dict):
        return Detection(None, f"a run record is a JSON object, not {type(value).__name__}")
    keys = set(value)
    shapes = _SHAPES.current()
    _REQUIRED, _DECLARED = shapes.required, shapes.declared
    matching = [name for name, required in _REQUIRED.items() if required <= keys]
    if len(matching) == 1:
        return Detection(matching[0], f"has every property {matching[0]} requires")
    if not matching:
        # most like: the format whose declared properties it uses most, then fewest missing
        closest = max(
            _DECLARED,
            key=lambda n: (len(_DECLARED[n] & keys), -len(_REQUIRED[n] - keys), n),
        )
        if not _DECLARED[closest] & keys:
            return Detection(None, "unknown format: no property of any known format")
        missing = ", ".join(sorted(_REQUIRED[closest] - keys))
        return Detection(
            None,
            f"not a complete record of any format; most like {closest}, which requires {missing}",
            closest,
        )
    valid = [name for name in matching if _accepts(MODELS[name], value)]
    if len(valid) == 1:
        return Detection(
            valid[0], f"shaped like {' and '.join(matching)}; only {valid[0]} accepts it"
        )
    return Detection(None, f"ambiguous: shaped like {' and '.join(matching)}")


def _accepts(model: type[BaseModel], value: JsonValue) -> bool:
    try:
        model.model_validate_json(json.dumps(value))
    except ValidationError:
        return False
    return True
