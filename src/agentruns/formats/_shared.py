"""The status vocabularies: canonical <-> each format (bijective where both have the word).

The formats' own words come from the generated models (one source of truth).
"""

from __future__ import annotations

from typing import get_args

from agentruns.canonical import Status
from agentruns.models import AgentRunStatus, CortexRunJournalStatus, StepType

STEP_KINDS = frozenset(get_args(StepType))
"""The kinds of step a run has beside a journal's ``event``: AgentRun's step types (the other
formats' steps are tool calls, results, thoughts and messages, all among them)."""

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
