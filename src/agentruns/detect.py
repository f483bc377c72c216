"""Which format a JSON document is, from its shape.

Each format has required top-level properties no other format shares in full; a document
that has all of one format's is that format. When several match (or none), validation
decides, and a document no single format accepts is reported with the reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pydantic import BaseModel, JsonValue, ValidationError

from agentruns.models import AgentRun, CortexRunJournal, PortableRunRecord

MODELS: dict[str, type[BaseModel]] = {
    "portable": PortableRunRecord,
    "cortex": CortexRunJournal,
    "agentrun": AgentRun,
}

_REQUIRED: dict[str, frozenset[str]] = {
    name: frozenset(n for n, f in model.model_fields.items() if f.is_required())
    for name, model in MODELS.items()
}


_DECLARED: dict[str, frozenset[str]] = {
    name: frozenset(model.model_fields) for name, model in MODELS.items()
}


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
