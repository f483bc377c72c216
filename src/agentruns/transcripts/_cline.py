"""Cline: ``cline --json``.

Only ``agent_event`` lines and the closing ``run_result`` hold the run: a tool call is a
``content_start`` of content type ``tool``, answered by the ``content_end`` with the same
``toolCallId``; assistant text is whole only in ``content_end`` (``content_start`` text is a
streaming chunk). Final text, tokens and duration come from ``run_result`` alone. Cline has
no resumable session, so no session id.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import MISSING

from agentruns._json_text import compact
from agentruns.transcripts._stream import EventModel, JsonObject, events, rfc3339, typed
from agentruns.transcripts._summary import GUARD_PREFIX, Denial, Message, Summary, ToolCall
from agentruns_generated._json import JsonValue


class Content(EventModel):
    type: Literal["content_start", "content_end"]
    contentType: str | None = None
    text: str | None = None
    toolCallId: str | None = None
    toolName: str | None = None
    input: JsonValue | MISSING = MISSING
    output: JsonValue | MISSING = MISSING


class AgentEvent(EventModel):
    type: Literal["agent_event"]
    ts: str | None = None
    event: JsonObject


class Usage(EventModel):
    inputTokens: int | None = None
    outputTokens: int | None = None
    cacheReadTokens: int | None = None
    totalCost: float | None = None


class RunResult(EventModel):
    type: Literal["run_result"]
    ts: str | None = None
    finishReason: str | None = None
    usage: Usage | None = None
    durationMs: int | None = None
    text: str | None = None


_REFUSAL_ENDS = ("is disabled by policy", "was not approved", "was blocked by a runtime hook")


def args_of(name: str, raw: JsonValue | MISSING) -> JsonValue | MISSING:
    """Arguments as eval-magic flattens them: ``run_commands``' command list becomes one
    ``command`` string, so a shell call reads the same as other harnesses'."""
    if name != "run_commands" or not isinstance(raw, dict):
        return raw
    commands = raw.get("commands")
    if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
        return raw
    flat: JsonObject = {}
    for key, value in raw.items():
        if key == "commands":
            flat["command"] = "\n".join(str(c) for c in commands)
        else:
            flat[key] = value
    return flat


def output_text(output: JsonValue | MISSING) -> str | None:
    if isinstance(output, str):
        return output
    if isinstance(output, dict):
        for key in ("result", "error"):
            if key in output:
                found = output[key]
                return found if isinstance(found, str) else compact(found)
        return None
    if isinstance(output, list):
        parts = [item.get("result") for item in output if isinstance(item, dict)]
        return "\n".join(p if isinstance(p, str) else compact(p) for p in parts if p is not None)
    return None


def _refusal(output: JsonValue | MISSING) -> str | None:
    error = output.get("error") if isinstance(output, dict) else None
    if not isinstance(error, str):
        return None
    if error.startswith(GUARD_PREFIX):
        return error
    if error.startswith("Tool ") and error.endswith(_REFUSAL_ENDS):
        return error
    return None


def read(path: str, summary: Summary) -> None:
    pending: dict[str, tuple[ToolCall, JsonValue | MISSING]] = {}
    result: RunResult | None = None
    for line, value in events(path, summary):
        kind = value.get("type")
        if kind == "run_result":
            result = typed(RunResult, value, line, summary) or result
            continue
        if kind != "agent_event":
            summary.skipped[kind if isinstance(kind, str) else "?"] += 1
            continue
        wrapper = typed(AgentEvent, value, line, summary)
        if wrapper is None:
            continue
        at = rfc3339(wrapper.ts)
        summary.seen(at)
        inner = wrapper.event.get("type")
        if inner not in ("content_start", "content_end"):
            summary.skipped[
                f"agent_event:{inner}" if isinstance(inner, str) else "agent_event:?"
            ] += 1
            continue
        content = typed(Content, wrapper.event, line, summary)
        if content is None:
            continue
        if content.contentType == "tool":
            _tool(content, line, at, summary, pending)
        elif content.contentType == "text":
            if content.type == "content_end" and content.text is not None:
                summary.events.append(Message(content.text, line, at))
        else:
            summary.skipped[f"content:{content.contentType}"] += 1
    for call, _ in pending.values():
        if call.result is None:
            summary.problem(call.line, f"tool call {call.call_id!r} ({call.name}) has no result")
    if result is None:
        summary.ending = "cut"
        summary.reason = "the stream ends without Cline's run_result event"
        summary.problem(0, summary.reason)
        return
    summary.seen(rfc3339(result.ts))
    summary.final_text = result.text
    summary.duration_ms = result.durationMs
    usage = result.usage
    if usage is not None and (usage.inputTokens is not None or usage.outputTokens is not None):
        summary.input_tokens = usage.inputTokens or 0
        summary.output_tokens = usage.outputTokens or 0
        summary.cache_read_tokens = usage.cacheReadTokens  # a part of inputTokens
        total = summary.input_tokens + summary.output_tokens - (usage.cacheReadTokens or 0)
        summary.total_tokens = max(total, 0)
        summary.cost_usd = usage.totalCost
    if result.finishReason in (None, "completed"):
        summary.ending = "completed"
    else:
        summary.ending = "failed"
        summary.reason = f"Cline finished with reason {result.finishReason!r}"


def _tool(
    content: Content,
    line: int,
    at: datetime | None,
    summary: Summary,
    pending: dict[str, tuple[ToolCall, JsonValue | MISSING]],
) -> None:
    key = content.toolCallId
    if content.type == "content_start":
        if not isinstance(content.toolName, str):
            summary.problem(line, "tool content_start without a toolName skipped")
            return
        call = ToolCall(
            name=content.toolName,
            ordinal=summary.next_ordinal(),
            args=args_of(content.toolName, content.input),
            call_id=key,
            line=line,
            at=at,
        )
        summary.events.append(call)
        if key is not None:
            if key in pending:
                summary.problem(line, f"tool call id {key!r} used twice")
            pending[key] = (call, content.input)
        return
    found = pending.get(key) if key is not None else None
    if found is None:
        summary.problem(line, f"tool result for {key!r}, which no call made")
        return
    call, raw_input = found
    if call.result is not None:
        summary.problem(line, f"second tool result for {key!r} ignored")
        return
    call.result = output_text(content.output)
    error = content.output.get("error") if isinstance(content.output, dict) else None
    call.is_error = error is not None
    reason = _refusal(content.output)
    if reason is not None:
        keys = sorted(raw_input) if isinstance(raw_input, dict) else []
        summary.denials.append(Denial(call.name, reason, tuple(keys)))


def looks_like(value: JsonObject) -> bool:
    return value.get("type") in ("agent_event", "run_result") or (
        value.get("type") == "hook_event" and "hookEventName" in value
    )
