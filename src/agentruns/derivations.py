"""What a run's record does not state, derived from what it does: one rule per value.

Writers (a format that requires a value the source lacks), tables, statistics and ``show`` all
ask here, so a run's duration, tokens, id, start and status are the same number or word
wherever they appear. Each rule returns a ``Derivation``: the value and the reason, which a
conversion reports (``Conversion.derived``). Nothing is taken from the clock or chance: the
same record always derives the same values.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final, Generic, TypeVar

from pydantic import MISSING

from agentruns._harnesses import TOTAL_LEAVES_OUT
from agentruns.canonical import STEP_FAILED, Run, RunStep, Status

__all__ = [
    "UNKNOWN_TIME",
    "Derivation",
    "derive_duration_ms",
    "derive_harness_total",
    "derive_run_id",
    "derive_started_at",
    "derive_status",
    "derive_total_tokens",
    "duration_ms",
    "run_id",
    "status",
    "step_failed",
    "total_tokens",
]

T = TypeVar("T", covariant=True)

UNKNOWN_TIME: Final = datetime(1970, 1, 1, tzinfo=UTC)
"""Stands for "no time recorded" where a format requires one (never the clock)."""

_MILLISECOND: Final = timedelta(milliseconds=1)


@dataclass(frozen=True, slots=True)
class Derivation(Generic[T]):
    """A value a record does not state, and why it is what it is."""

    value: T
    reason: str


# -- duration ---------------------------------------------------------------------------


def derive_duration_ms(run: Run) -> Derivation[int] | None:
    """Whole milliseconds from ``started_at`` to ``ended_at`` (a part of a millisecond is not
    one: 1.7 ms is 1, as the formats' integer milliseconds count elapsed time)."""
    start, end = run.started_at, run.ended_at
    if isinstance(start, datetime) and isinstance(end, datetime):
        return Derivation(_elapsed_ms(start, end), "time from started_at to ended_at")
    return None


def _elapsed_ms(start: datetime, end: datetime) -> int:
    """Whole milliseconds from ``start`` to ``end`` (a run's derived duration)."""
    return (end - start) // _MILLISECOND


def duration_ms(run: Run) -> int | None:
    """The run's duration: as recorded, else derived from its times."""
    if isinstance(run.duration_ms, int):
        return run.duration_ms
    derived = derive_duration_ms(run)
    return None if derived is None else derived.value


# -- tokens -----------------------------------------------------------------------------


def derive_total_tokens(run: Run) -> Derivation[int] | None:
    """Input plus output tokens, when both are recorded.

    The one meaning of tokens, for every harness and format: ``input_tokens`` is every token
    the model read (fresh input, cache reads and cache writes), ``output_tokens`` every token
    it wrote (reasoning included); cache and reasoning counts are parts of those, never added
    on top. So the total is input plus output, as OpenTelemetry's GenAI conventions count.
    """
    if isinstance(run.input_tokens, int) and isinstance(run.output_tokens, int):
        return Derivation(run.input_tokens + run.output_tokens, "sum of input and output tokens")
    return None


def derive_harness_total(run: Run) -> Derivation[int] | None:
    """The total as eval-magic counts it for the run's harness (``TOTAL_LEAVES_OUT``): input
    plus output less the kinds that harness leaves out, never below 0; None when the harness is
    not one eval-magic documents or a kind it needs is not recorded."""
    framework = run.framework
    leaves_out = TOTAL_LEAVES_OUT.get(framework) if isinstance(framework, str) else None
    derived = derive_total_tokens(run)
    if leaves_out is None or derived is None:
        return None
    less = [getattr(run, kind) for kind in leaves_out]
    if not all(isinstance(count, int) for count in less):
        return None
    if not less:
        return Derivation(derived.value, f"eval-magic's {framework} total: input plus output")
    kinds = " and ".join(kind.removesuffix("_tokens").replace("_", " ") for kind in leaves_out)
    return Derivation(
        max(derived.value - sum(less), 0),
        f"eval-magic's {framework} total: input plus output less {kinds} tokens",
    )


def total_tokens(run: Run) -> int | None:
    """The run's total tokens: as recorded, else derived from its parts."""
    if isinstance(run.total_tokens, int):
        return run.total_tokens
    derived = derive_total_tokens(run)
    return None if derived is None else derived.value


# -- identity and time ------------------------------------------------------------------


def derive_run_id(run: Run) -> Derivation[str]:
    """An id for a run that has none: built from what identifies a portable run (its eval,
    condition and index), else ``R-unknown``."""
    if isinstance(run.eval_id, str) and run.eval_id:
        parts = [run.eval_id]
        if isinstance(run.condition, str):
            parts.append(run.condition)
        if isinstance(run.run_index, int):
            parts.append(str(run.run_index))
        return Derivation(
            "R-" + "-".join(parts),
            "no run id in the source; built from eval_id, condition and run_index",
        )
    return Derivation("R-unknown", "no run id in the source and nothing to build one from")


def run_id(run: Run) -> str:
    """The run's id: as recorded (if not empty), else derived."""
    if isinstance(run.run_id, str) and run.run_id:
        return run.run_id
    return derive_run_id(run).value


def derive_started_at(run: Run) -> Derivation[datetime]:
    """When a run that records no start began: its earliest step, else ``UNKNOWN_TIME``."""
    times = [
        step.started_at
        for step in (run.steps if isinstance(run.steps, tuple) else ())
        if isinstance(step.started_at, datetime)
    ]
    if times:
        return Derivation(min(times), "no start time in the source; the earliest step time is used")
    return Derivation(UNKNOWN_TIME, "no start time in the source; the Unix epoch marks it unknown")


# -- status -----------------------------------------------------------------------------


def derive_status(run: Run) -> Derivation[Status]:
    """The status of a run whose record states none (a portable record), from what the record
    says of how the run ended.

    A portable record is written once its run is over. A scripted conversation says how it
    ended: ``completed`` is a completed run; ``timed_out`` is a run killed at its deadline, a
    failed one; ``stopped`` is a run the harness ended before its conversation was done (the
    agent did not ask, answered off script, the responder could not answer, or the turns ran
    out), which is what ``canceled`` means: ended from outside, before completion, without a
    failure of its own. Without a conversation, the record's existence says the run ended.
    """
    conversation = run.conversation
    said = conversation.get("status") if isinstance(conversation, dict) else None
    if said == "timed_out":
        return Derivation("failed", "the run's conversation timed out: the run was killed")
    if said == "stopped":
        reason = conversation.get("stop_reason") if isinstance(conversation, dict) else None
        why = f" ({reason})" if isinstance(reason, str) else ""
        return Derivation(
            "canceled", f"the harness stopped the run's conversation before it was done{why}"
        )
    if said == "completed":
        return Derivation("completed", "the run's conversation completed")
    return Derivation(
        "completed",
        "no status in the source; a record without one (portable) is of a run that ended",
    )


def status(run: Run) -> Status:
    """The run's status: as recorded, else derived."""
    return run.status if run.status is not MISSING else derive_status(run).value


# -- steps ------------------------------------------------------------------------------


def step_failed(step: RunStep) -> bool:
    """Whether a step is recorded as failed (``STEP_FAILED``, the one word for it)."""
    return step.status == STEP_FAILED
