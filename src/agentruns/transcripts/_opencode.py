"""OpenCode: ``opencode run --format json``.

Every tool event is self-contained (``tool_use`` with the call's final state); assistant text
comes as ``text`` events, tokens per step in ``step_finish``. Records carry epoch-millisecond
timestamps. There is no closing event: a run ended when its last step finished with reason
``stop`` (a step that finished for ``tool-calls`` is followed by another).
"""

from __future__ import annotations

from typing import Literal

from pydantic import MISSING, Field

from agentruns._json_text import compact
from agentruns._prices import billed_usd
from agentruns.transcripts._stream import EventModel, JsonObject, epoch_ms, events, typed
from agentruns.transcripts._summary import GUARD_PREFIX, Denial, Message, Summary, ToolCall
from agentruns_generated._json import JsonValue


class ToolState(EventModel):
    status: str | None = None
    input: JsonValue | MISSING = MISSING
    output: JsonValue | MISSING = MISSING
    error: JsonValue | MISSING = MISSING


class ToolPart(EventModel):
    tool: str
    callID: str | None = None
    state: ToolState = Field(default_factory=ToolState)  # (not made, nor built, at import)


class TextPart(EventModel):
    text: str


class Cache(EventModel):
    read: int | None = None
    write: int | None = None


class Tokens(EventModel):
    input: int | None = None
    output: int | None = None
    reasoning: int | None = None
    cache: Cache | None = None


class FinishPart(EventModel):
    reason: str | None = None
    cost: float | None = None
    tokens: Tokens | None = None


class ToolUse(EventModel):
    type: Literal["tool_use"]
    part: ToolPart


class Text(EventModel):
    type: Literal["text"]
    part: TextPart


class StepFinish(EventModel):
    type: Literal["step_finish"]
    part: FinishPart


class ErrorEvent(EventModel):
    type: Literal["error"]
    error: JsonValue = None


_MODELS: dict[str, type[EventModel]] = {
    "tool_use": ToolUse,
    "text": Text,
    "step_finish": StepFinish,
    "error": ErrorEvent,
}
_IGNORED = frozenset({"step_start", "reasoning"})

_RULE = "The user has specified a rule which prevents you from using this specific tool call."
_REJECTED = "The user rejected permission to use this specific tool call"


def refusal(error: str) -> str | None:
    """The denial reason an error text shows, without what it must not copy (the operator's
    ruleset, the user's feedback), or ``None`` for an ordinary tool error."""
    if error.startswith(GUARD_PREFIX):
        return error
    if error.startswith(_RULE):
        return _RULE
    if error.startswith(_REJECTED):
        return _REJECTED + "."
    return None


def _error_reason(error: JsonValue) -> str:
    if isinstance(error, dict):
        data = error.get("data")
        if isinstance(data, dict) and isinstance(data.get("message"), str):
            return str(data["message"])
        if isinstance(error.get("name"), str):
            return str(error["name"])
    return compact(error)


def read(path: str, summary: Summary) -> None:
    tokens: int | None = None
    first_ms: float | None = None
    last_ms: float | None = None
    stamps = 0
    last_finish: str | None = None
    failure: str | None = None
    for line, value in events(path, summary):
        stamp = value.get("timestamp")
        at = epoch_ms(stamp)
        if at is not None and isinstance(stamp, int | float):
            first_ms = stamp if first_ms is None else first_ms
            last_ms = stamp
            stamps += 1
            summary.seen(at)
        session = value.get("sessionID")
        if summary.session_id is None and isinstance(session, str):
            summary.session_id = session
        found = value.get("type")
        kind = found if isinstance(found, str) else "?"
        model = _MODELS.get(kind)
        if model is None:
            if kind not in _IGNORED:
                summary.skipped[kind] += 1
            continue
        event = typed(model, value, line, summary)
        if isinstance(event, ToolUse):
            _tool(event.part, line, summary).at = at
        elif isinstance(event, Text):
            summary.events.append(Message(event.part.text, line, at))
            summary.final_text = event.part.text
        elif isinstance(event, StepFinish):
            last_finish = event.part.reason
            counts = event.part.tokens
            stated = billed_usd(event.part.cost)
            if counts is None and stated is not None:
                summary.add_usage(at=at, cost=stated)  # a cost without counts: no tokens
            if counts is not None:
                used = (counts.input or 0) + (counts.output or 0) + (counts.reasoning or 0)
                tokens = used + (tokens or 0)
                cached = counts.cache or Cache()
                summary.add_usage(  # the one rule: cache inside input, reasoning inside output
                    input=(counts.input or 0) + (cached.read or 0) + (cached.write or 0),
                    output=(counts.output or 0) + (counts.reasoning or 0),
                    cache_creation=cached.write,
                    cache_read=cached.read,
                    reasoning=counts.reasoning,
                    at=at,
                    cost=stated,
                )
        elif isinstance(event, ErrorEvent):
            failure = _error_reason(event.error)
            summary.problem(line, f"OpenCode reported an error: {failure}")
    summary.total_tokens = tokens
    summary.cost_usd = summary.calls_cost()
    if first_ms is not None and last_ms is not None and stamps >= 2:
        spread = round(last_ms - first_ms)
        if spread >= 0:
            summary.duration_ms = spread
        else:
            summary.problem(0, "the last timestamp is before the first: no duration")
    if failure is not None:
        summary.ending, summary.reason = "failed", failure
    elif last_finish == "stop":
        summary.ending = "completed"
    else:
        summary.ending = "cut"
        summary.reason = (
            "the stream ends before a step finished with reason 'stop'"
            if last_finish is None
            else f"the stream ends after a step finished with reason {last_finish!r}"
        )
        summary.problem(0, summary.reason)


def _tool(part: ToolPart, line: int, summary: Summary) -> ToolCall:
    state = part.state
    if state.output is not MISSING:
        result = state.output
    elif state.error is not MISSING:
        result = state.error
    else:
        result = None
    text = None if result is None else result if isinstance(result, str) else compact(result)
    call = ToolCall(
        name=part.tool,
        ordinal=summary.next_ordinal(),
        args=state.input if isinstance(state.input, dict) else None,
        result=text,
        call_id=part.callID,
        is_error=state.status == "error",
        line=line,
    )
    summary.events.append(call)
    if state.status == "error" and isinstance(state.error, str):
        reason = refusal(state.error)
        if reason is not None:
            keys = sorted(state.input) if isinstance(state.input, dict) else []
            summary.denials.append(Denial(part.tool, reason, tuple(keys)))
    elif state.status not in ("completed", "error"):
        summary.problem(line, f"tool call {part.tool} has no result (status {state.status!r})")
    return call


def looks_like(value: JsonObject) -> bool:
    return ("sessionID" in value and isinstance(value.get("part"), dict)) or (
        value.get("type") in ("step_start", "step_finish", "tool_use") and "part" in value
    )
