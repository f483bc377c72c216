"""The status vocabularies: canonical <-> each format (bijective where both have the word).

The formats' own words come from the generated models (one source of truth).
"""

from __future__ import annotations

from agentruns.canonical import Status
from agentruns.models import AgentRunStatus, CortexRunJournalStatus

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
