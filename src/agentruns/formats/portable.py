"""Portable Run Record <-> canonical run.

A portable record is an eval transcript summary: the prompt, the final message, and the tool
invocations in order. It has no run id, status or timestamps, and no free-form place, so data
from other formats that it cannot hold is reported as lost.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, ClassVar

from pydantic import MISSING, JsonValue

from agentruns.canonical import Run, RunStep
from agentruns.crosswalk import Crosswalk, Writing, kept, required
from agentruns.derivations import (
    Derivation,
    derive_duration_ms,
    derive_harness_total,
    derive_total_tokens,
)
from agentruns.formats._base import Format, each_tripped
from agentruns.models import (
    Codebase,
    Conversation,
    PortableRunRecord,
    SkillSource,
    ToolInvocation,
)

__all__ = [
    "PORTABLE",
    "RECORD",
    "TOOL",
    "PortableFormat",
    "ToolArgs",
    "ToolResult",
]


if TYPE_CHECKING:
    from pydantic import TypeAdapter


@cache
def _conversation() -> TypeAdapter[Conversation]:
    """Built on first use, not at import (the models themselves defer building too)."""
    from pydantic import TypeAdapter

    return TypeAdapter(Conversation)


ToolArgs = dict[str, JsonValue] | str | list[JsonValue] | None
ToolResult = dict[str, JsonValue] | str | None


# -- conversions the rows name -----------------------------------------------------------


def _eval_id(value: str | MISSING, writing: Writing[Run]) -> str:
    """The eval id; without one, the run id, else ``unknown``."""
    if isinstance(value, str):
        return value
    run_id = writing.run.run_id
    if isinstance(run_id, str):
        return writing.derive(Derivation(run_id, "portable requires eval_id; the run id is used"))
    return writing.derive(Derivation("unknown", "portable requires eval_id; the source has no id"))


def _no_condition(run: Run) -> Derivation[str]:
    """``unspecified``: portable requires a condition."""
    return Derivation("unspecified", "portable requires a condition; the source has none")


def _skill_path(value: str | MISSING | None, writing: Writing[Run]) -> str | None:
    """The skill path; without one, null."""
    if value is MISSING:
        return writing.derive(Derivation(None, "no skill path in the source"))
    return value


def _no_prompt(run: Run) -> Derivation[str]:
    """``""``: portable requires the prompt."""
    return Derivation("", "portable requires the prompt; the source has no goal")


def _files(value: list[str]) -> tuple[str, ...]:
    return tuple(value)


def _write_files(value: tuple[str, ...] | MISSING, writing: Writing[Run]) -> list[str]:
    """The fixture files; without a list, none (``[]``)."""
    if isinstance(value, tuple):
        return list(value)
    return writing.derive(Derivation([], "no fixture files listed in the source"))


def _no_final_message(run: Run) -> Derivation[str]:
    """``""``: portable requires the final message."""
    return Derivation("", "portable requires the final message; the source has none")


def _read_invocations(calls: list[ToolInvocation]) -> tuple[RunStep, ...]:
    return TOOL.read_items(calls)


def _write_invocations(
    steps: tuple[RunStep, ...] | MISSING, writing: Writing[Run]
) -> list[ToolInvocation]:
    """Tool calls in order; a tool result joins the call it answers (as eval-magic does);
    other kinds of step have no portable form."""
    calls: list[ToolInvocation] = []
    for step in steps if isinstance(steps, tuple) else ():
        if step.kind == "tool_result":
            pending = next(
                (
                    c
                    for c in reversed(calls)
                    if c.result is MISSING and (step.name is MISSING or c.name == step.name)
                ),
                None,
            )
            if pending is not None and step.output is not MISSING:
                pending.result = _result(step.output)
            continue
        if step.kind != "tool_call" or not isinstance(step.name, str):
            continue
        where = f"{writing.pointer}/{len(calls)}"
        calls.append(TOOL.write(step, writing.item(step, len(calls)), where))
    return calls


def _total_tokens(value: int | MISSING | None, writing: Writing[Run]) -> int | MISSING | None:
    """The total as eval-magic counts it for the run's harness (Codex and Cline leave out
    cache reads, OpenCode both cache kinds: ``agentruns._harnesses.TOTAL_LEAVES_OUT``) where
    the run names one and records the kinds; else the run's total; without one, the sum of
    input and output tokens."""
    stated = derive_harness_total(writing.run)
    if stated is not None and stated.value != value:
        return writing.derive(stated)
    if value is not MISSING:
        return value
    total = derive_total_tokens(writing.run)
    return MISSING if total is None else writing.derive(total)


def _duration(value: int | MISSING | None, writing: Writing[Run]) -> int | MISSING | None:
    """The duration; without one, the whole milliseconds from start to end."""
    if value is not MISSING:
        return value
    duration = derive_duration_ms(writing.run)
    return MISSING if duration is None else writing.derive(duration)


def _read_conversation(value: Conversation | MISSING) -> JsonValue | MISSING:
    return MISSING if value is MISSING else _conversation().dump_python(value, mode="json")


def _write_conversation(
    value: JsonValue | MISSING, writing: Writing[Run]
) -> Conversation | MISSING:
    """The conversation as it was read."""
    return MISSING if value is MISSING else _conversation().validate_python(value)


def _as_json(model: Codebase | SkillSource | MISSING) -> JsonValue | MISSING:
    return MISSING if model is MISSING else model.model_dump(mode="json", by_alias=True)


def _write_codebase(value: JsonValue | MISSING, writing: Writing[Run]) -> Codebase | MISSING:
    """The codebase as it was read."""
    return MISSING if value is MISSING else Codebase.model_validate(value)


def _write_skill_source(value: JsonValue | MISSING, writing: Writing[Run]) -> SkillSource | MISSING:
    """The skill source as it was read."""
    return MISSING if value is MISSING else SkillSource.model_validate(value)


def _name(value: str | MISSING, writing: Writing[RunStep]) -> str:
    """The tool's name (only named tool calls are written)."""
    return value if isinstance(value, str) else ""


def _ordinal(value: int | MISSING, writing: Writing[RunStep]) -> int:
    """The step's index if it is one (>= 0), else its position among the calls."""
    return value if isinstance(value, int) and value >= 0 else writing.position


def _args(value: JsonValue | MISSING, writing: Writing[RunStep]) -> ToolArgs | MISSING:
    """Portable tool arguments are an object, a string, an array or null."""
    if value is None or isinstance(value, dict | str | list):
        return value
    return MISSING


def _result(value: JsonValue | MISSING) -> ToolResult | MISSING:
    """Portable tool results are a string, an object or null."""
    if value is None or isinstance(value, dict | str):
        return value
    return MISSING


def _write_result(value: JsonValue | MISSING, writing: Writing[RunStep]) -> ToolResult | MISSING:
    """Portable tool results are a string, an object or null."""
    return _result(value)


# -- the crosswalk -------------------------------------------------------------------------

TOOL = Crosswalk(ToolInvocation, RunStep)
"""A tool invocation is a step of kind ``tool_call``."""
TOOL.fix(kind="tool_call")
TOOL.convert(TOOL.field(lambda t: t.name), TOOL.to(lambda s: s.name), kept, _name)
TOOL.convert(TOOL.field(lambda t: t.args), TOOL.to(lambda s: s.input), kept, _args)
TOOL.convert(TOOL.field(lambda t: t.result), TOOL.to(lambda s: s.output), kept, _write_result)
TOOL.convert(TOOL.field(lambda t: t.ordinal), TOOL.to(lambda s: s.index), kept, _ordinal)

RECORD = Crosswalk(PortableRunRecord, Run)
"""An eval run's summary: the prompt, the final message, the tool invocations in order."""
P = RECORD
P.convert(P.field(lambda r: r.eval_id), P.to(lambda run: run.eval_id), kept, _eval_id)
P.convert(
    P.field(lambda r: r.condition), P.to(lambda run: run.condition), kept, required(_no_condition)
)
P.convert(P.field(lambda r: r.skill_path), P.to(lambda run: run.skill_path), kept, _skill_path)
P.convert(P.field(lambda r: r.prompt), P.to(lambda run: run.goal), kept, required(_no_prompt))
P.convert(P.field(lambda r: r.files), P.to(lambda run: run.files), _files, _write_files)
P.convert(
    P.field(lambda r: r.final_message),
    P.to(lambda run: run.final_message),
    kept,
    required(_no_final_message),
)
P.convert(
    P.field(lambda r: r.tool_invocations),
    P.to(lambda run: run.steps),
    _read_invocations,
    _write_invocations,
    table=TOOL,
)
P.convert(
    P.field(lambda r: r.total_tokens), P.to(lambda run: run.total_tokens), kept, _total_tokens
)
P.convert(P.field(lambda r: r.duration_ms), P.to(lambda run: run.duration_ms), kept, _duration)
P.same(P.field(lambda r: r.run_index), P.to(lambda run: run.run_index))
P.convert(
    P.field(lambda r: r.conversation),
    P.to(lambda run: run.conversation),
    _read_conversation,
    _write_conversation,
    whole=True,
)
P.convert(
    P.field(lambda r: r.codebase),
    P.to(lambda run: run.codebase),
    _as_json,
    _write_codebase,
    whole=True,
)
P.convert(
    P.field(lambda r: r.skill_source),
    P.to(lambda run: run.skill_source),
    _as_json,
    _write_skill_source,
    whole=True,
)
del P


class PortableFormat(Format[PortableRunRecord]):
    """No run id, status or timestamps, and no free-form place: data from other formats that
    it cannot hold is reported as lost."""

    name: ClassVar[str] = "portable"
    model = PortableRunRecord
    crosswalk = RECORD
    # the steps are written from their kind, name, input, output and index alone
    # (``_write_invocations`` and the rows of ``TOOL``)
    step_fields_unwritten: ClassVar[frozenset[str]] = frozenset(
        {"started_at", "duration_ms", "phase", "status", "activity", "message", "extra", "call_id"}
    )

    def without_steps(self, run: Run) -> Run | None:
        return replace(run, steps=())  # no row of the record derives a value from the steps

    def keeps_every_step(self, steps: tuple[RunStep, ...]) -> bool:
        # named tool calls, and nothing else, are each an invocation of their own (a result
        # would join its call, another kind of step has no portable form)
        return all(step.kind == "tool_call" and isinstance(step.name, str) for step in steps)

    def step_trips(self, run: Run) -> Iterator[RunStep] | None:
        # the invocation of each step at its own position, where each step is one
        steps = run.steps
        if not isinstance(steps, tuple) or not self.keeps_every_step(steps):
            return None
        return each_tripped(TOOL, run, steps)


PORTABLE = PortableFormat()
