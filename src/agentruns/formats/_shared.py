"""Small helpers the format modules share: JSON narrowing, derivations, status vocabularies."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import TypeVar

from pydantic import MISSING, BaseModel, JsonValue

from agentruns.canonical import Status
from agentruns.conversion import Derived
from agentruns.derivations import Derivation
from agentruns.models import AgentRunStatus, CortexRunJournalStatus

T = TypeVar("T")


def given(value: T | MISSING) -> bool:
    return value is not MISSING


def as_object(value: JsonValue | MISSING) -> dict[str, JsonValue] | MISSING:
    """The value if it is a JSON object, else MISSING (the target cannot hold it)."""
    return value if isinstance(value, dict) else MISSING


def extras_for(
    model: type[BaseModel], extra: dict[str, JsonValue] | MISSING
) -> dict[str, JsonValue]:
    """The extra properties ``model`` can hold as extras.

    A key that names one of the model's declared fields (or its alias) would be read as that
    field, or collide with it in the constructor; it is left out here, and the conversion's
    trip back then sees the difference and carries or reports it.
    """
    if not isinstance(extra, dict):
        return {}
    taken = _declared(model)
    return {key: value for key, value in extra.items() if key not in taken}


@cache
def _declared(model: type[BaseModel]) -> frozenset[str]:
    names: set[str] = set()
    for name, info in model.model_fields.items():
        names.add(name)
        for alias in (info.alias, info.validation_alias, info.serialization_alias):
            if isinstance(alias, str):
                names.add(alias)
    return frozenset(names)


def reported(derivation: Derivation[T], derived: list[Derived], where: str) -> T:
    """The derived value, noted in ``derived`` at the target pointer ``where``."""
    value = derivation.value
    shown: JsonValue = (
        (getattr(value, "text", None) or value.isoformat())
        if isinstance(value, datetime)
        else value  # type: ignore[assignment]
    )
    derived.append(Derived(where, shown, derivation.reason))
    return value


def text_or_derived(
    value: str | MISSING, derived: list[Derived], where: str, default: str, reason: str
) -> str:
    if isinstance(value, str):
        return value
    derived.append(Derived(where, default, reason))
    return default


# Status vocabularies: canonical <-> each format (bijective where both have the word).
# the formats' own words come from the generated models (one source of truth)
CortexStatus = CortexRunJournalStatus

_TO_AGENTRUN: dict[Status, AgentRunStatus] = {
    "queued": "queued",
    "running": "running",
    "awaiting_human": "awaiting-human",
    "completed": "completed",
    "failed": "failed",
    "canceled": "cancelled",
}
_FROM_AGENTRUN: dict[AgentRunStatus, Status] = {v: k for k, v in _TO_AGENTRUN.items()}
_TO_CORTEX: dict[Status, CortexStatus] = {
    "queued": "queued",
    "running": "running",
    # cortex has no word for waiting on a person; the run is still running
    "awaiting_human": "running",
    "completed": "completed",
    "failed": "failed",
    "canceled": "canceled",
}


def status_to_agentrun(status: Status) -> AgentRunStatus:
    return _TO_AGENTRUN[status]


def status_from_agentrun(status: AgentRunStatus) -> Status:
    return _FROM_AGENTRUN[status]


def status_to_cortex(status: Status) -> CortexStatus:
    return _TO_CORTEX[status]


def status_from_cortex(status: CortexStatus) -> Status:
    return status
