"""Cortex Agent Run Journal <-> canonical run.

A journal is about the execution around an agent (worktree, branch, commits, phase) and a
timeline of events. Its root forbids extra properties, but events allow them: foreign data is
carried in one reserved event (type ``x-agentruns-carry``) that readers skip.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import ClassVar, get_args

from pydantic import MISSING, JsonValue
from typing_extensions import TypeIs

from agentruns._results import Derived
from agentruns.canonical import Run, RunStep, Status
from agentruns.crosswalk import Crosswalk, Writing, kept, required
from agentruns.derivations import Derivation, derive_run_id, derive_started_at, derive_status
from agentruns.formats._base import CarryPlace, Format, is_carry
from agentruns.formats._shared import (
    STEP_KINDS,
    CortexStatus,
    status_from_cortex,
    status_to_cortex,
)
from agentruns.models import (
    CortexRunJournal,
    CortexRunJournalKind,
    Event,
    TranscriptRef,
)
from agentruns_generated._json import JsonDateTime, date_time_text

__all__ = [
    "CARRY_EVENT",
    "CORTEX",
    "EVENT",
    "JOURNAL",
    "CortexFormat",
    "CortexKind",
]


CARRY_EVENT = "x-agentruns-carry"
_CARRY_KEY = "carry"
_ABSENT_KEY = "events_absent"

CortexKind = CortexRunJournalKind
_KINDS = frozenset(get_args(CortexKind))


def _is_kind(value: str) -> TypeIs[CortexKind]:
    return value in _KINDS


# -- conversions the rows name -----------------------------------------------------------


def _empty(value: str) -> bool:
    return not value  # cortex ids have at least one character


def _kind(value: str | MISSING, writing: Writing[Run]) -> CortexKind:
    """The run's kind; without one, ``conversation`` for a run with a (portable)
    conversation, else ``implement``."""
    if isinstance(value, str) and _is_kind(value):
        return value
    kind: CortexKind = "conversation" if writing.run.conversation is not MISSING else "implement"
    reason = (
        "cortex requires a kind; a run with a conversation is a conversation run, "
        "any other agent run an implement run"
    )
    return writing.derive(Derivation(kind, reason))


def _status(value: Status | MISSING, writing: Writing[Run]) -> CortexStatus:
    """The run's status (``awaiting_human`` is ``running``); without one, derived from how
    the run ended (``agentruns.derivations.derive_status``)."""
    if value is MISSING:
        return status_to_cortex(writing.derive(derive_status(writing.run)))
    return status_to_cortex(value)


def _refs(refs: list[TranscriptRef] | MISSING) -> tuple[JsonValue, ...] | MISSING:
    return MISSING if refs is MISSING else tuple(ref.model_dump(mode="json") for ref in refs)


def _write_refs(
    refs: tuple[JsonValue, ...] | MISSING, writing: Writing[Run]
) -> list[TranscriptRef] | MISSING:
    """The references as they were read."""
    if refs is MISSING:
        return MISSING
    return [TranscriptRef.model_validate(ref) for ref in refs]


def _at(value: JsonDateTime | MISSING, writing: Writing[RunStep]) -> JsonDateTime:
    """The step's time; without one, the run's start time (reported once for the list)."""
    if isinstance(value, datetime):
        return value
    start = writing.memo.get("start")
    if not isinstance(start, datetime):  # once per record: deriving it reads every step
        start = writing.memo["start"] = _start(writing.run)
    return start


def _start(run: Run) -> JsonDateTime:
    return run.started_at if isinstance(run.started_at, datetime) else derive_started_at(run).value


def _type(value: str | MISSING, writing: Writing[RunStep]) -> str:
    """The step's name; a step without one is an event of its kind."""
    return value if isinstance(value, str) and value else writing.of.kind


def _step_kind(value: JsonValue) -> bool:
    """A kind of step other than an event (an event's own ``kind`` property, of any other
    value, is the user's and stays so)."""
    return isinstance(value, str) and value in STEP_KINDS


def _integer(value: JsonValue) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _any(value: JsonValue) -> bool:
    return True


def _text(value: JsonValue) -> bool:
    return isinstance(value, str)


def _read_events(events: list[Event] | MISSING) -> tuple[RunStep, ...] | MISSING:
    if events is MISSING:
        return MISSING
    carry = _carry_event(events)
    own = events if carry is None else events[:-1]
    absent = carry is not None and (carry.model_extra or {}).get(_ABSENT_KEY) is True
    return MISSING if absent and not own else EVENT.read_items(own)


def _write_events(
    steps: tuple[RunStep, ...] | MISSING, writing: Writing[Run]
) -> list[Event] | MISSING:
    """Every step an event; a step without a time is dated by the run's start (reported)."""
    if steps is MISSING:
        return MISSING
    where = writing.pointer
    untimed = [i for i, step in enumerate(steps) if not isinstance(step.started_at, datetime)]
    if untimed:
        start = _start(writing.run)
        shown = date_time_text(start)
        if len(untimed) == 1:
            reason = "the step has no time; the run's start time is used"
            writing.derived.append(Derived(f"{where}/{untimed[0]}/at", shown, reason))
        else:  # one entry, not one per event: a portable run has no times at all
            reason = f"{len(untimed)} steps have no time; their `at` is the run's start time"
            writing.derived.append(Derived(where, shown, reason))
    return EVENT.write_items(steps, writing)


# -- the crosswalk -------------------------------------------------------------------------

EVENT = Crosswalk(Event, RunStep)
"""A journal event is a step of kind ``event``."""
EVENT.fix(kind="event")
EVENT.convert(EVENT.field(lambda e: e.type), EVENT.to(lambda s: s.name), kept, _type)
EVENT.same(EVENT.field(lambda e: e.phase), EVENT.to(lambda s: s.phase))
EVENT.same(EVENT.field(lambda e: e.status), EVENT.to(lambda s: s.status))
EVENT.same(EVENT.field(lambda e: e.activity), EVENT.to(lambda s: s.activity))
EVENT.same(EVENT.field(lambda e: e.message), EVENT.to(lambda s: s.message))
EVENT.convert(EVENT.field(lambda e: e.at), EVENT.to(lambda s: s.started_at), kept, _at)
EVENT.keep_extras(EVENT.to(lambda s: s.extra), written=lambda step: step.kind == "event")
# what a step of another kind is beyond an event's own fields (a tool call: its kind, its
# arguments and result, its id) is kept in the properties events allow, so a journal holds
# every step whole and reads back as the tool calls it was written from
EVENT.extra("kind", EVENT.to(lambda s: s.kind), _step_kind)
EVENT.extra("index", EVENT.to(lambda s: s.index), _integer)
EVENT.extra("input", EVENT.to(lambda s: s.input), _any)
EVENT.extra("output", EVENT.to(lambda s: s.output), _any)
EVENT.extra("duration_ms", EVENT.to(lambda s: s.duration_ms), _integer)
EVENT.extra("call_id", EVENT.to(lambda s: s.call_id), _text)

JOURNAL = Crosswalk(CortexRunJournal, Run)
"""The journal is the run: its execution (worktree, branch, commits, phase) and its events."""
J = JOURNAL
J.constant(J.field(lambda r: r.schema_version), 1)
J.convert(
    J.field(lambda r: r.run_id),
    J.to(lambda run: run.run_id),
    kept,
    required(derive_run_id, when=_empty),
)
J.same(J.field(lambda r: r.task_id), J.to(lambda run: run.task_id))
J.same(J.field(lambda r: r.mission_id), J.to(lambda run: run.mission_id))
J.same(J.field(lambda r: r.agent_id), J.to(lambda run: run.agent_id))
J.same(J.field(lambda r: r.role), J.to(lambda run: run.role))
J.convert(J.field(lambda r: r.kind), J.to(lambda run: run.kind), kept, _kind)
J.convert(J.field(lambda r: r.status), J.to(lambda run: run.status), status_from_cortex, _status)
J.same(J.field(lambda r: r.phase), J.to(lambda run: run.phase))
J.same(J.field(lambda r: r.activity), J.to(lambda run: run.activity))
J.same(J.field(lambda r: r.worktree_path), J.to(lambda run: run.worktree_path))
J.same(J.field(lambda r: r.branch), J.to(lambda run: run.branch))
J.same(J.field(lambda r: r.base_commit), J.to(lambda run: run.base_commit))
J.same(J.field(lambda r: r.head_commit), J.to(lambda run: run.head_commit))
J.convert(
    J.field(lambda r: r.started_at),
    J.to(lambda run: run.started_at),
    kept,
    required(derive_started_at),
)
J.same(J.field(lambda r: r.finished_at), J.to(lambda run: run.ended_at))
J.same(J.field(lambda r: r.updated_at), J.to(lambda run: run.updated_at))
J.convert(
    J.field(lambda r: r.events),
    J.to(lambda run: run.steps),
    _read_events,
    _write_events,
    table=EVENT,
)
J.same(J.field(lambda r: r.next_action), J.to(lambda run: run.next_action))
J.convert(
    J.field(lambda r: r.transcript_refs),
    J.to(lambda run: run.transcript_refs),
    _refs,
    _write_refs,
    whole=True,
)
del J


class _AsEvent(CarryPlace[CortexRunJournal]):
    """Cortex's objects allow no additional properties but its events: the payload is one
    reserved event, last in the journal."""

    def carried(self, record: CortexRunJournal) -> dict[str, JsonValue] | None:
        event = _carry_event(record.events) if isinstance(record.events, list) else None
        payload = None if event is None else (event.model_extra or {}).get(_CARRY_KEY)
        return payload if isinstance(payload, dict) else None

    def carried_at(self, record: CortexRunJournal) -> str:
        events = record.events if isinstance(record.events, list) else []
        return f"/events/{len(events) - 1}/{_CARRY_KEY}"

    def carry(
        self, record: CortexRunJournal, payload: dict[str, JsonValue]
    ) -> CortexRunJournal | None:
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


class CortexFormat(Format[CortexRunJournal]):
    name: ClassVar[str] = "cortex"
    steps_one_to_one: ClassVar[bool] = True
    model = CortexRunJournal
    crosswalk = JOURNAL

    carry_place = _AsEvent()

    def without_steps(self, run: Run) -> Run | None:
        # a run that records no start is dated by its earliest step (``derive_started_at``)
        return replace(run, steps=(), started_at=_start(run))

    def keeps_every_step(self, steps: tuple[RunStep, ...]) -> bool:
        # every step an event, every event read as a step but a carry event, which is last
        # and of the reserved type: a last step of that name (or kind, written as its type
        # when it has no name) might be written as one
        return not steps or CARRY_EVENT not in (steps[-1].name, steps[-1].kind)


CORTEX = CortexFormat()
