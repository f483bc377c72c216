"""Portable Run Record <-> canonical run.

A portable record is an eval transcript summary: the prompt, the final message, and the tool
invocations in order. It has no run id, status or timestamps, and no free-form place, so data
from other formats that it cannot hold is reported as lost.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, ClassVar

from pydantic import MISSING, JsonValue

from agentruns.canonical import Run, Step
from agentruns.conversion import WHOLE, Coverage, Derived, Format, Use, Written, fields
from agentruns.derivations import derive_duration_ms, derive_total_tokens
from agentruns.formats._shared import reported, text_or_derived
from agentruns.models import (
    AssistantMessage,
    Codebase,
    CompletedConversation,
    Conversation,
    ConversationTool,
    Origin,
    PortableRunRecord,
    PortableRunRecordField,
    ResponderOutcome,
    SkillSource,
    StoppedConversation,
    TimedOutConversation,
    ToolInvocation,
    ToolInvocationField,
    UserMessage,
)

if TYPE_CHECKING:
    from pydantic import TypeAdapter


@cache
def _conversation() -> TypeAdapter[Conversation]:
    """Built on first use, not at import (the models themselves defer building too)."""
    from pydantic import TypeAdapter

    return TypeAdapter(Conversation)


_POINTERS = {
    "goal": "/prompt",
    "steps": "/tool_invocations",
    "eval_id": "/eval_id",
    "condition": "/condition",
    "skill_path": "/skill_path",
    "files": "/files",
    "final_message": "/final_message",
    "total_tokens": "/total_tokens",
    "duration_ms": "/duration_ms",
    "run_index": "/run_index",
    "conversation": "/conversation",
    "codebase": "/codebase",
    "skill_source": "/skill_source",
}


def _as_json(model: Codebase | SkillSource | MISSING) -> JsonValue | MISSING:
    return MISSING if model is MISSING else model.model_dump(mode="json", by_alias=True)


ToolArgs = dict[str, JsonValue] | str | list[JsonValue] | None
ToolResult = dict[str, JsonValue] | str | None


def _args(value: JsonValue) -> ToolArgs | MISSING:
    """Portable tool arguments are an object, a string, an array or null."""
    if value is None or isinstance(value, dict | str | list):
        return value
    return MISSING


def _result(value: JsonValue) -> ToolResult | MISSING:
    """Portable tool results are a string, an object or null."""
    if value is None or isinstance(value, dict | str):
        return value
    return MISSING


_RECORD: dict[PortableRunRecordField, Use] = {
    "eval_id": "read",
    "condition": "read",
    "skill_path": "read",
    "prompt": "read",
    "files": "read",
    "final_message": "read",
    "tool_invocations": "read",
    "total_tokens": "read",
    "duration_ms": "read",
    "run_index": "read",
    "conversation": "read",
    "codebase": "read",
    "skill_source": "read",
}
_TOOL_INVOCATION: dict[ToolInvocationField, Use] = {
    "name": "read",
    "args": "read",
    "result": "read",
    "ordinal": "read",
}
_COVERAGE: Coverage = {
    PortableRunRecord.__name__: fields(_RECORD),
    ToolInvocation.__name__: fields(_TOOL_INVOCATION),
    # read whole, as JSON: Run.conversation, Run.codebase, Run.skill_source
    CompletedConversation.__name__: WHOLE,
    StoppedConversation.__name__: WHOLE,
    TimedOutConversation.__name__: WHOLE,
    UserMessage.__name__: WHOLE,
    AssistantMessage.__name__: WHOLE,
    ConversationTool.__name__: WHOLE,
    ResponderOutcome.__name__: WHOLE,
    Origin.__name__: WHOLE,
    Codebase.__name__: WHOLE,
    SkillSource.__name__: WHOLE,
}


class PortableFormat(Format[PortableRunRecord]):
    name: ClassVar[str] = "portable"
    pointers: ClassVar[dict[str, str]] = _POINTERS
    coverage: ClassVar[Coverage] = _COVERAGE
    model = PortableRunRecord

    def read(self, record: PortableRunRecord) -> Run:
        conversation = record.conversation
        return Run(
            eval_id=record.eval_id,
            condition=record.condition,
            skill_path=record.skill_path,
            goal=record.prompt,
            files=tuple(record.files),
            final_message=record.final_message,
            steps=tuple(
                Step(
                    kind="tool_call",
                    name=call.name,
                    index=call.ordinal,
                    input=call.args,
                    output=call.result,
                )
                for call in record.tool_invocations
            ),
            total_tokens=record.total_tokens,
            duration_ms=record.duration_ms,
            run_index=record.run_index,
            conversation=MISSING
            if conversation is MISSING
            else _conversation().dump_python(conversation, mode="json"),
            codebase=_as_json(record.codebase),
            skill_source=_as_json(record.skill_source),
        )

    def write(self, run: Run) -> Written[PortableRunRecord]:
        derived: list[Derived] = []
        eval_id = run.eval_id if isinstance(run.eval_id, str) else self._eval_id(run, derived)
        record = PortableRunRecord(
            eval_id=eval_id,
            condition=text_or_derived(
                run.condition,
                derived,
                "/condition",
                "unspecified",
                "portable requires a condition; the source has none",
            ),
            skill_path=self._skill_path(run, derived),
            prompt=text_or_derived(
                run.goal,
                derived,
                "/prompt",
                "",
                "portable requires the prompt; the source has no goal",
            ),
            files=list(run.files) if isinstance(run.files, tuple) else self._no_files(derived),
            final_message=text_or_derived(
                run.final_message,
                derived,
                "/final_message",
                "",
                "portable requires the final message; the source has none",
            ),
            tool_invocations=self._invocations(run),
            total_tokens=self._total_tokens(run, derived),
            duration_ms=self._duration(run, derived),
            run_index=run.run_index,
            conversation=MISSING
            if run.conversation is MISSING
            else _conversation().validate_python(run.conversation),
            codebase=MISSING if run.codebase is MISSING else Codebase.model_validate(run.codebase),
            skill_source=MISSING
            if run.skill_source is MISSING
            else SkillSource.model_validate(run.skill_source),
        )
        return Written(record, tuple(derived))

    @staticmethod
    def _eval_id(run: Run, derived: list[Derived]) -> str:
        if isinstance(run.run_id, str):
            value, reason = run.run_id, "portable requires eval_id; the run id is used"
        else:
            value, reason = "unknown", "portable requires eval_id; the source has no id"
        derived.append(Derived("/eval_id", value, reason))
        return value

    @staticmethod
    def _skill_path(run: Run, derived: list[Derived]) -> str | None:
        if run.skill_path is MISSING:
            derived.append(Derived("/skill_path", None, "no skill path in the source"))
            return None
        return run.skill_path

    @staticmethod
    def _no_files(derived: list[Derived]) -> list[str]:
        derived.append(Derived("/files", [], "no fixture files listed in the source"))
        return []

    @staticmethod
    def _invocations(run: Run) -> list[ToolInvocation]:
        """Tool calls in order; a tool result joins the call it answers (as eval-magic does)."""
        calls: list[ToolInvocation] = []
        for step in run.steps if isinstance(run.steps, tuple) else ():
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
            ordinal = step.index if isinstance(step.index, int) and step.index >= 0 else len(calls)
            calls.append(
                ToolInvocation(
                    name=step.name,
                    ordinal=ordinal,
                    args=MISSING if step.input is MISSING else _args(step.input),
                    result=MISSING if step.output is MISSING else _result(step.output),
                )
            )
        return calls

    @staticmethod
    def _total_tokens(run: Run, derived: list[Derived]) -> int | MISSING | None:
        if run.total_tokens is not MISSING:
            return run.total_tokens
        total = derive_total_tokens(run)
        if total is None:
            return MISSING
        value: int = reported(total, derived, "/total_tokens")
        return value

    @staticmethod
    def _duration(run: Run, derived: list[Derived]) -> int | MISSING | None:
        if run.duration_ms is not MISSING:
            return run.duration_ms
        duration = derive_duration_ms(run)
        if duration is None:
            return MISSING
        millis: int = reported(duration, derived, "/duration_ms")
        return millis


PORTABLE = PortableFormat()
