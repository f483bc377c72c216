"""Cortex Agent Run Journal <-> canonical run.

A journal is about the execution around an agent (worktree, branch, commits, phase) and a
timeline of events. Its root forbids extra properties, but events allow them: foreign data is
carried in one reserved event (type ``x-agentruns-carry``) that readers skip.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, get_args

from pydantic import MISSING, JsonValue
from typing_extensions import TypeIs

from agentruns.canonical import Run, Step
from agentruns.conversion import (
    WHOLE,
    Coverage,
    Derived,
    Format,
    Use,
    Written,
    fields,
    is_carry,
)
from agentruns.derivations import derive_run_id, derive_started_at, derive_status
from agentruns.formats._shared import (
    CortexStatus,
    extras_for,
    reported,
    status_from_cortex,
    status_to_cortex,
)
from agentruns.models import (
    CortexRunJournal,
    CortexRunJournalField,
    CortexRunJournalKind,
    Event,
    EventField,
    TranscriptRef,
)

CARRY_EVENT = "x-agentruns-carry"
_CARRY_KEY = "carry"
_ABSENT_KEY = "events_absent"

_POINTERS = {
    "ended_at": "/finished_at",
    "steps": "/events",
}

CortexKind = CortexRunJournalKind
_KINDS = frozenset(get_args(CortexKind))


def _is_kind(value: str) -> TypeIs[CortexKind]:
    return value in _KINDS


_JOURNAL: dict[CortexRunJournalField, Use] = {
    "schema_version": "read",  # a constant (1): the writer writes it back
    "run_id": "read",
    "task_id": "read",
    "mission_id": "read",
    "agent_id": "read",
    "role": "read",
    "kind": "read",
    "status": "read",
    "phase": "read",
    "activity": "read",
    "worktree_path": "read",
    "branch": "read",
    "base_commit": "read",
    "head_commit": "read",
    "started_at": "read",
    "finished_at": "read",
    "updated_at": "read",
    "events": "read",
    "next_action": "read",
    "transcript_refs": "read",
}
_EVENT: dict[EventField, Use] = {
    "type": "read",
    "phase": "read",
    "status": "read",
    "activity": "read",
    "message": "read",
    "at": "read",
}
_COVERAGE: Coverage = {
    CortexRunJournal.__name__: fields(_JOURNAL),
    Event.__name__: fields(_EVENT),
    TranscriptRef.__name__: WHOLE,  # read as JSON (Run.transcript_refs)
}


class CortexFormat(Format[CortexRunJournal]):
    name: ClassVar[str] = "cortex"
    pointers: ClassVar[dict[str, str]] = _POINTERS
    coverage: ClassVar[Coverage] = _COVERAGE
    model = CortexRunJournal

    def read(self, record: CortexRunJournal) -> Run:
        events = record.events
        steps: tuple[Step, ...] | MISSING = MISSING
        if isinstance(events, list):
            carry = _carry_event(events)
            own = events if carry is None else events[:-1]
            absent = carry is not None and (carry.model_extra or {}).get(_ABSENT_KEY) is True
            steps = MISSING if absent and not own else tuple(_step(e) for e in own)
        refs = record.transcript_refs
        return Run(
            run_id=record.run_id,
            task_id=record.task_id,
            mission_id=record.mission_id,
            agent_id=record.agent_id,
            role=record.role,
            kind=record.kind,
            status=status_from_cortex(record.status),
            phase=record.phase,
            activity=record.activity,
            worktree_path=record.worktree_path,
            branch=record.branch,
            base_commit=record.base_commit,
            head_commit=record.head_commit,
            started_at=record.started_at,
            ended_at=record.finished_at,
            updated_at=record.updated_at,
            steps=steps,
            next_action=record.next_action,
            transcript_refs=MISSING
            if refs is MISSING
            else tuple(ref.model_dump(mode="json") for ref in refs),
        )

    def write(self, run: Run) -> Written[CortexRunJournal]:
        derived: list[Derived] = []
        started_at = (
            run.started_at
            if isinstance(run.started_at, datetime)
            else reported(derive_started_at(run), derived, "/started_at")
        )
        record = CortexRunJournal(
            schema_version=1,
            run_id=run.run_id
            if isinstance(run.run_id, str) and run.run_id  # cortex: at least one character
            else reported(derive_run_id(run), derived, "/run_id"),
            task_id=run.task_id,
            mission_id=run.mission_id,
            agent_id=run.agent_id,
            role=run.role,
            kind=self._kind(run, derived),
            status=self._status(run, derived),
            phase=run.phase,
            activity=run.activity,
            worktree_path=run.worktree_path,
            branch=run.branch,
            base_commit=run.base_commit,
            head_commit=run.head_commit,
            started_at=started_at,
            finished_at=run.ended_at,
            updated_at=run.updated_at,
            events=MISSING
            if not isinstance(run.steps, tuple)
            else _events(run.steps, started_at, derived),
            next_action=run.next_action,
            transcript_refs=MISSING
            if not isinstance(run.transcript_refs, tuple)
            else [TranscriptRef.model_validate(ref) for ref in run.transcript_refs],
        )
        return Written(record, tuple(derived))

    @staticmethod
    def _kind(run: Run, derived: list[Derived]) -> CortexKind:
        if isinstance(run.kind, str) and _is_kind(run.kind):
            return run.kind
        kind: CortexKind = "conversation" if run.conversation is not MISSING else "implement"
        derived.append(
            Derived(
                "/kind",
                kind,
                "cortex requires a kind; a run with a conversation is a "
                "conversation run, any other agent run an implement run",
            )
        )
        return kind

    @staticmethod
    def _status(run: Run, derived: list[Derived]) -> CortexStatus:
        if run.status is not MISSING:
            return status_to_cortex(run.status)
        return status_to_cortex(reported(derive_status(run), derived, "/status"))

    def carried(self, record: CortexRunJournal) -> dict[str, JsonValue] | None:
        event = _carry_event(record.events) if isinstance(record.events, list) else None
        payload = None if event is None else (event.model_extra or {}).get(_CARRY_KEY)
        return payload if isinstance(payload, dict) else None

    def carried_at(self, record: CortexRunJournal) -> str:
        events = record.events if isinstance(record.events, list) else []
        return f"/events/{len(events) - 1}/{_CARRY_KEY}"

    def carry(self, record: CortexRunJournal, payload: dict[str, JsonValue]) -> CortexRunJournal:
        events = list(record.events) if isinstance(record.events, list) else []
        extra: dict[str, JsonValue] = {_CARRY_KEY: payload, _ABSENT_KEY: record.events is MISSING}
        # every declared field given, so the extras can only be extras
        marker = Event(
            type=CARRY_EVENT,
            at=record.started_at,
            phase=MISSING,
            status=MISSING,
            activity=MISSING,
            message=MISSING,
            **extra,
        )
        return record.model_copy(update={"events": [*events, marker]})


def _carry_event(events: list[Event]) -> Event | None:
    """The carry event: the last event, of the reserved type, with a payload this version
    writes. Any other event of that type is the user's own and read like the rest."""
    if not events or events[-1].type != CARRY_EVENT:
        return None
    extra = events[-1].model_extra or {}
    if set(extra) != {_CARRY_KEY, _ABSENT_KEY} or not isinstance(extra[_ABSENT_KEY], bool):
        return None
    return events[-1] if is_carry(extra[_CARRY_KEY]) else None


def _step(event: Event) -> Step:
    extra = event.model_extra
    return Step(
        kind="event",
        name=event.type,
        started_at=event.at,
        phase=event.phase,
        status=event.status,
        activity=event.activity,
        message=event.message,
        extra=dict(extra) if extra else MISSING,
    )


def _events(steps: tuple[Step, ...], started_at: datetime, derived: list[Derived]) -> list[Event]:
    events = [_event(step, started_at) for step in steps]
    untimed = [i for i, step in enumerate(steps) if not isinstance(step.started_at, datetime)]
    if len(untimed) == 1:
        derived.append(
            Derived(
                f"/events/{untimed[0]}/at",
                started_at.isoformat(),
                "the step has no time; the run's start time is used",
            )
        )
    elif untimed:
        # one entry, not one per event: a portable run has no times at all
        derived.append(
            Derived(
                "/events",
                started_at.isoformat(),
                f"{len(untimed)} steps have no time; their `at` is the run's start time",
            )
        )
    return events


def _event(step: Step, started_at: datetime) -> Event:
    at = step.started_at if isinstance(step.started_at, datetime) else started_at
    # A cortex event's own extras come back as extras; other steps' fields have no place here.
    extra = extras_for(Event, step.extra if step.kind == "event" else MISSING)
    return Event(
        type=step.name if isinstance(step.name, str) and step.name else step.kind,
        at=at,
        phase=step.phase,
        status=step.status,
        activity=step.activity,
        message=step.message,
        **extra,
    )


CORTEX = CortexFormat()
