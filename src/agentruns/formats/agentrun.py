"""AgentRun <-> canonical run.

AgentRun is the most general of the three (goal, status, steps, result, metrics) and its
objects allow additional properties: foreign data is carried in one reserved root property,
``x-agentruns-carry``, that readers skip.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import ClassVar, Final, get_args

from pydantic import MISSING, JsonValue
from typing_extensions import TypeIs

from agentruns.canonical import Run, RunStep, Status
from agentruns.crosswalk import Crosswalk, Writing, kept, required
from agentruns.derivations import Derivation, derive_run_id, derive_status
from agentruns.formats._base import CARRY_PROPERTY, Format, InExtras, is_carry
from agentruns.formats._shared import status_from_agentrun, status_to_agentrun
from agentruns.models import AgentRun, AgentRunStatus, Metrics, Result, StepType
from agentruns.models import Step as AgentStep
from agentruns_generated._json import JsonDateTime

__all__ = [
    "AGENTRUN",
    "CARRY_KEY",
    "METRICS",
    "RESULT",
    "RUN",
    "STEP",
    "AgentRunFormat",
]


CARRY_KEY: Final = CARRY_PROPERTY

_STEP_TYPES = frozenset(get_args(StepType))
_INT32 = range(-(2**31), 2**31)


def _is_step_type(value: str) -> TypeIs[StepType]:
    return value in _STEP_TYPES


# -- conversions the rows name -----------------------------------------------------------


def _agent_id(value: str | MISSING | None, writing: Writing[Run]) -> str:
    """The agent id; without one (or null), ``unknown``."""
    if isinstance(value, str):
        return value
    return writing.derive(Derivation("unknown", "AgentRun requires agent_id; the source has none"))


def _no_goal(run: Run) -> Derivation[str]:
    """``""``: AgentRun requires a goal."""
    return Derivation("", "AgentRun requires a goal; the source has none")


def _status(value: Status | MISSING, writing: Writing[Run]) -> AgentRunStatus:
    """The run's status (``canceled`` is ``cancelled``); without one, derived from how the run
    ended (``agentruns.derivations.derive_status``)."""
    if value is MISSING:
        return status_to_agentrun(writing.derive(derive_status(writing.run)))
    return status_to_agentrun(value)


def _no_null(value: JsonDateTime | MISSING | None, writing: Writing[Run]) -> JsonDateTime | MISSING:
    """The end time; an end recorded as null has no AgentRun form."""
    return value if isinstance(value, datetime) else MISSING


def _read_steps(steps: list[AgentStep] | MISSING) -> tuple[RunStep, ...] | MISSING:
    return MISSING if steps is MISSING else STEP.read_items(steps)


def _write_steps(
    steps: tuple[RunStep, ...] | MISSING, writing: Writing[Run]
) -> list[AgentStep] | MISSING:
    """Every step, in order."""
    return MISSING if steps is MISSING else STEP.write_items(steps, writing)


def _index(value: int | MISSING, writing: Writing[RunStep]) -> int:
    """The step's index (int32); out of range or absent, its position."""
    return value if isinstance(value, int) and value in _INT32 else writing.position


def _type(value: str, writing: Writing[RunStep]) -> StepType:
    """The step's kind; a kind AgentRun has no type for (a cortex event) is a ``message``."""
    return value if _is_step_type(value) else "message"


def _object(
    value: JsonValue | MISSING, writing: Writing[RunStep]
) -> dict[str, JsonValue] | MISSING:
    """The value if it is an object (AgentRun step inputs and outputs are)."""
    return value if isinstance(value, dict) else MISSING


def _int32(value: int | MISSING, writing: Writing[RunStep]) -> int | MISSING:
    """The duration if it fits an int32."""
    return value if isinstance(value, int) and value in _INT32 else MISSING


def _text_or_null(value: JsonValue) -> bool:
    return value is None or isinstance(value, str)


def _text(value: JsonValue) -> bool:
    return isinstance(value, str)


def _not_carry(key: str, value: JsonValue) -> bool:
    return key == CARRY_KEY and is_carry(value)


# -- the crosswalk -------------------------------------------------------------------------

STEP = Crosswalk(AgentStep, RunStep)
"""An AgentRun step is a step of the kind its type says."""
STEP.convert(STEP.field(lambda s: s.index), STEP.to(lambda s: s.index), kept, _index)
STEP.convert(STEP.field(lambda s: s.type), STEP.to(lambda s: s.kind), kept, _type)
STEP.same(STEP.field(lambda s: s.name), STEP.to(lambda s: s.name))
STEP.convert(STEP.field(lambda s: s.input), STEP.to(lambda s: s.input), kept, _object)
STEP.convert(STEP.field(lambda s: s.output), STEP.to(lambda s: s.output), kept, _object)
STEP.same(STEP.field(lambda s: s.started_at), STEP.to(lambda s: s.started_at))
STEP.convert(STEP.field(lambda s: s.duration_ms), STEP.to(lambda s: s.duration_ms), kept, _int32)
STEP.keep_extras(STEP.to(lambda s: s.extra))
# what a step is beyond AgentRun's own fields (a tool call that failed, the error text, the
# call's id its result and subagent refer to) is kept in the properties steps allow
STEP.extra("status", STEP.to(lambda s: s.status), _text_or_null)
STEP.extra("message", STEP.to(lambda s: s.message), _text_or_null)
STEP.extra("phase", STEP.to(lambda s: s.phase), _text_or_null)
STEP.extra("activity", STEP.to(lambda s: s.activity), _text_or_null)
STEP.extra("call_id", STEP.to(lambda s: s.call_id), _text)

RESULT = Crosswalk(Result, Run)
"""The run's outcome: its final message and output."""
RESULT.same(RESULT.field(lambda r: r.summary), RESULT.to(lambda run: run.final_message))
RESULT.same(RESULT.field(lambda r: r.output), RESULT.to(lambda run: run.result_output))
RESULT.keep_extras(RESULT.to(lambda run: run.result_extra), empty="empty")

METRICS = Crosswalk(Metrics, Run)
"""What the run used."""
M = METRICS
M.same(M.field(lambda m: m.input_tokens), M.to(lambda run: run.input_tokens))
M.same(M.field(lambda m: m.output_tokens), M.to(lambda run: run.output_tokens))
M.same(M.field(lambda m: m.tool_call_count), M.to(lambda run: run.tool_call_count))
M.same(M.field(lambda m: m.cost_usd), M.to(lambda run: run.cost_usd))
M.keep_extras(M.to(lambda run: run.metrics_extra), empty="empty")
del M

RUN = Crosswalk(AgentRun, Run)
"""An AgentRun is the run: goal, status, steps, result, metrics."""
R = RUN
R.convert(R.field(lambda r: r.run_id), R.to(lambda run: run.run_id), kept, required(derive_run_id))
R.convert(R.field(lambda r: r.agent_id), R.to(lambda run: run.agent_id), kept, _agent_id)
R.same(R.field(lambda r: r.framework), R.to(lambda run: run.framework))
R.convert(R.field(lambda r: r.goal), R.to(lambda run: run.goal), kept, required(_no_goal))
R.convert(R.field(lambda r: r.status), R.to(lambda run: run.status), status_from_agentrun, _status)
R.same(R.field(lambda r: r.started_at), R.to(lambda run: run.started_at))
R.convert(R.field(lambda r: r.ended_at), R.to(lambda run: run.ended_at), kept, _no_null)
R.convert(
    R.field(lambda r: r.steps), R.to(lambda run: run.steps), _read_steps, _write_steps, table=STEP
)
R.nested(R.field(lambda r: r.result), RESULT)
R.nested(R.field(lambda r: r.metrics), METRICS)
R.same(R.field(lambda r: r.trace_url), R.to(lambda run: run.trace_url))
R.keep_extras(R.to(lambda run: run.extra), skip=_not_carry)
del R


class AgentRunFormat(Format[AgentRun]):
    """AgentRun's objects allow additional properties: foreign data is carried in one
    reserved root property, ``x-agentruns-carry``, that readers skip."""

    name: ClassVar[str] = "agentrun"
    steps_one_to_one: ClassVar[bool] = True
    model = AgentRun
    crosswalk = RUN

    carry_place = InExtras[AgentRun]()

    def without_steps(self, run: Run) -> Run | None:
        return replace(run, steps=())  # no row of the run derives a value from its steps

    def keeps_every_step(self, steps: tuple[RunStep, ...]) -> bool:
        return True  # each step an item, each item read as a step (the carry is at the root)


AGENTRUN = AgentRunFormat()
