"""AgentRun <-> canonical run.

AgentRun is the most general of the three (goal, status, steps, result, metrics) and its
objects allow additional properties: foreign data is carried in one reserved root property,
``x-agentruns-carry``, that readers skip.
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar, get_args

from pydantic import MISSING, JsonValue
from typing_extensions import TypeIs

from agentruns.canonical import Run, Step
from agentruns.conversion import Coverage, Derived, Format, Use, Written, fields, is_carry
from agentruns.derivations import derive_run_id, derive_status
from agentruns.formats._shared import (
    as_object,
    extras_for,
    reported,
    status_from_agentrun,
    status_to_agentrun,
    text_or_derived,
)
from agentruns.models import (
    AgentRun,
    AgentRunField,
    AgentRunStatus,
    Metrics,
    MetricsField,
    Result,
    ResultField,
    StepField,
    StepType,
)
from agentruns.models import Step as AgentStep

CARRY_KEY = "x-agentruns-carry"

_STEP_TYPES = frozenset(get_args(StepType))


def _is_step_type(value: str) -> TypeIs[StepType]:
    return value in _STEP_TYPES


_POINTERS = {
    "final_message": "/result/summary",
    "result_output": "/result/output",
    "result_extra": "/result",
    "input_tokens": "/metrics/input_tokens",
    "output_tokens": "/metrics/output_tokens",
    "tool_call_count": "/metrics/tool_call_count",
    "cost_usd": "/metrics/cost_usd",
    "metrics_extra": "/metrics",
    "extra": "",
}


_RUN: dict[AgentRunField, Use] = {
    "run_id": "read",
    "agent_id": "read",
    "framework": "read",
    "goal": "read",
    "status": "read",
    "started_at": "read",
    "ended_at": "read",
    "steps": "read",
    "result": "read",
    "metrics": "read",
    "trace_url": "read",
}
_STEP: dict[StepField, Use] = {
    "index": "read",
    "type": "read",
    "name": "read",
    "input": "read",
    "output": "read",
    "started_at": "read",
    "duration_ms": "read",
}
_RESULT: dict[ResultField, Use] = {"summary": "read", "output": "read"}
_METRICS: dict[MetricsField, Use] = {
    "input_tokens": "read",
    "output_tokens": "read",
    "tool_call_count": "read",
    "cost_usd": "read",
}
_COVERAGE: Coverage = {
    AgentRun.__name__: fields(_RUN),
    AgentStep.__name__: fields(_STEP),
    Result.__name__: fields(_RESULT),
    Metrics.__name__: fields(_METRICS),
}


class AgentRunFormat(Format[AgentRun]):
    name: ClassVar[str] = "agentrun"
    pointers: ClassVar[dict[str, str]] = _POINTERS
    coverage: ClassVar[Coverage] = _COVERAGE
    model = AgentRun

    def read(self, record: AgentRun) -> Run:
        result, metrics = record.result, record.metrics
        extra = {
            k: v for k, v in (record.model_extra or {}).items() if k != CARRY_KEY or not is_carry(v)
        }
        return Run(
            run_id=record.run_id,
            agent_id=record.agent_id,
            framework=record.framework,
            goal=record.goal,
            status=status_from_agentrun(record.status),
            started_at=record.started_at,
            ended_at=record.ended_at,
            steps=MISSING if record.steps is MISSING else tuple(_step(s) for s in record.steps),
            final_message=MISSING if result is MISSING else result.summary,
            result_output=MISSING if result is MISSING else result.output,
            result_extra=MISSING if result is MISSING else dict(result.model_extra or {}),
            input_tokens=MISSING if metrics is MISSING else metrics.input_tokens,
            output_tokens=MISSING if metrics is MISSING else metrics.output_tokens,
            tool_call_count=MISSING if metrics is MISSING else metrics.tool_call_count,
            cost_usd=MISSING if metrics is MISSING else metrics.cost_usd,
            metrics_extra=MISSING if metrics is MISSING else dict(metrics.model_extra or {}),
            trace_url=record.trace_url,
            extra=extra if extra else MISSING,
        )

    def write(self, run: Run) -> Written[AgentRun]:
        derived: list[Derived] = []
        extra = extras_for(AgentRun, run.extra)
        record = AgentRun(
            run_id=run.run_id
            if isinstance(run.run_id, str)
            else reported(derive_run_id(run), derived, "/run_id"),
            agent_id=self._agent_id(run, derived),
            framework=run.framework,
            goal=text_or_derived(
                run.goal, derived, "/goal", "", "AgentRun requires a goal; the source has none"
            ),
            status=self._status(run, derived),
            started_at=run.started_at,
            ended_at=run.ended_at if isinstance(run.ended_at, datetime) else MISSING,
            steps=MISSING
            if not isinstance(run.steps, tuple)
            else [_agent_step(step, i) for i, step in enumerate(run.steps)],
            result=self._result(run),
            metrics=self._metrics(run),
            trace_url=run.trace_url,
            **extra,
        )
        return Written(record, tuple(derived))

    @staticmethod
    def _agent_id(run: Run, derived: list[Derived]) -> str:
        if isinstance(run.agent_id, str):
            return run.agent_id
        derived.append(
            Derived("/agent_id", "unknown", "AgentRun requires agent_id; the source has none")
        )
        return "unknown"

    @staticmethod
    def _status(run: Run, derived: list[Derived]) -> AgentRunStatus:
        if run.status is not MISSING:
            return status_to_agentrun(run.status)
        return status_to_agentrun(reported(derive_status(run), derived, "/status"))

    @staticmethod
    def _result(run: Run) -> Result | MISSING:
        if (
            run.final_message is MISSING
            and run.result_output is MISSING
            and run.result_extra is MISSING
        ):
            return MISSING
        extra = extras_for(Result, run.result_extra)
        return Result(summary=run.final_message, output=run.result_output, **extra)

    @staticmethod
    def _metrics(run: Run) -> Metrics | MISSING:
        values = (run.input_tokens, run.output_tokens, run.tool_call_count, run.cost_usd)
        if all(v is MISSING for v in values) and run.metrics_extra is MISSING:
            return MISSING
        extra = extras_for(Metrics, run.metrics_extra)
        return Metrics(
            input_tokens=run.input_tokens,
            output_tokens=run.output_tokens,
            tool_call_count=run.tool_call_count,
            cost_usd=run.cost_usd,
            **extra,
        )

    def carried(self, record: AgentRun) -> dict[str, JsonValue] | None:
        payload = (record.model_extra or {}).get(CARRY_KEY)
        return payload if isinstance(payload, dict) and is_carry(payload) else None

    def carried_at(self, record: AgentRun) -> str:
        return "/" + CARRY_KEY

    def carry(self, record: AgentRun, payload: dict[str, JsonValue]) -> AgentRun | None:
        if CARRY_KEY in (record.model_extra or {}):
            return None  # the user's own data holds the name: report losses, never overwrite
        copy = record.model_copy()  # shallow: the carry is the only change
        copy.__pydantic_extra__ = {**(record.model_extra or {}), CARRY_KEY: payload}
        return copy


def _step(step: AgentStep) -> Step:
    extra = step.model_extra
    return Step(
        kind=step.type,
        name=step.name,
        index=step.index,
        input=step.input,
        output=step.output,
        started_at=step.started_at,
        duration_ms=step.duration_ms,
        extra=dict(extra) if extra else MISSING,
    )


def _agent_step(step: Step, position: int) -> AgentStep:
    extra = extras_for(AgentStep, step.extra)
    index = (
        step.index if isinstance(step.index, int) and -(2**31) <= step.index < 2**31 else position
    )
    duration = step.duration_ms
    return AgentStep(
        index=index,
        # cortex events and other kinds have no AgentRun step type; they are messages here
        type=step.kind if _is_step_type(step.kind) else "message",
        name=step.name,
        input=as_object(step.input),
        output=as_object(step.output),
        started_at=step.started_at,
        duration_ms=duration
        if isinstance(duration, int) and -(2**31) <= duration < 2**31
        else MISSING,
        **extra,
    )


AGENTRUN = AgentRunFormat()
