"""Claude Code: ``claude -p --output-format stream-json --verbose``.

Tool calls are ``tool_use`` blocks of ``assistant`` events, answered by ``tool_result``
blocks of later ``user`` events with the same id; the closing ``result`` event gives the
final text, tokens, duration and permission denials. The stream has no per-line times.
"""

from __future__ import annotations

from typing import Literal

from pydantic import MISSING, ConfigDict, Field, TypeAdapter, ValidationError

from agentruns._json_text import compact
from agentruns.transcripts._stream import EventModel, JsonObject, events, typed
from agentruns.transcripts._summary import Denial, Message, Summary, ToolCall
from agentruns_generated._json import JsonValue


class TextBlock(EventModel):
    type: Literal["text"]
    text: str


class ToolUseBlock(EventModel):
    type: Literal["tool_use"]
    id: str | None = None
    name: str
    input: JsonValue | MISSING = MISSING


class ToolResultBlock(EventModel):
    type: Literal["tool_result"]
    tool_use_id: str
    content: JsonValue | MISSING = MISSING
    is_error: bool | None = None


Block = TextBlock | ToolUseBlock | ToolResultBlock
_BLOCK: TypeAdapter[Block] = TypeAdapter(Block, config=ConfigDict(defer_build=True))


class MessageBody(EventModel):
    content: str | list[JsonValue] = Field(default_factory=list)
    model: str | None = None


class SystemEvent(EventModel):
    type: Literal["system"]
    subtype: str | None = None
    session_id: JsonValue = None
    model: JsonValue = None
    claude_code_version: JsonValue = None


class AssistantEvent(EventModel):
    type: Literal["assistant"]
    message: MessageBody


class UserEvent(EventModel):
    type: Literal["user"]
    message: MessageBody


class Usage(EventModel):
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None


class DenialEntry(EventModel):
    tool_name: str
    tool_use_id: str | None = None
    tool_input: JsonValue = None


class ResultEvent(EventModel):
    type: Literal["result"]
    subtype: str | None = None
    is_error: bool = False
    result: str | None = None
    duration_ms: int | None = None
    usage: Usage | None = None
    total_cost_usd: float | None = None
    permission_denials: list[DenialEntry] = Field(default_factory=list)


_MODELS: dict[str, type[EventModel]] = {
    "system": SystemEvent,
    "assistant": AssistantEvent,
    "user": UserEvent,
    "result": ResultEvent,
}
_IGNORED = frozenset({"rate_limit_event", "stream_event"})
"""Types that hold nothing for a run record (rate limits, partial-message deltas)."""


def result_text(content: JsonValue | MISSING) -> str | None:
    """A ``tool_result`` content as text: a string as is; an array's elements joined by
    newlines (strings, an object's ``text``, else JSON); anything else as JSON."""
    if content is MISSING:
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for item in content:
            if isinstance(item, str):
                parts.append(item)
            elif isinstance(item, dict) and isinstance(item.get("text"), str):
                parts.append(str(item["text"]))
            else:
                parts.append(compact(item))
        return "\n".join(parts)
    return compact(content)


def read(path: str, summary: Summary) -> None:
    pending: dict[str, ToolCall] = {}
    reasons: dict[str, str | None] = {}
    last_texts: list[str] = []
    result: ResultEvent | None = None
    for line, value in events(path, summary):
        found = value.get("type")
        kind = found if isinstance(found, str) else "?"
        model = _MODELS.get(kind)
        if model is None:
            if kind not in _IGNORED:
                summary.skipped[kind] += 1
            continue
        event = typed(model, value, line, summary)
        if isinstance(event, SystemEvent):
            if summary.session_id is None and isinstance(event.session_id, str):
                summary.session_id = event.session_id
            summary.says_version(event.claude_code_version)
            if isinstance(event.model, str) and not summary.models:
                summary.models[event.model] += 0
        elif isinstance(event, AssistantEvent):
            if event.message.model and event.message.model != "<synthetic>":
                summary.models[event.message.model] += 1
            texts = _assistant(event, line, summary, pending)
            if texts:
                last_texts = texts
        elif isinstance(event, UserEvent):
            _user(event, line, summary, pending, reasons)
        elif isinstance(event, ResultEvent):
            result = event
    _close(summary, result, last_texts, reasons)
    summary.unanswered(pending)


def _blocks(content: str | list[JsonValue], line: int, summary: Summary) -> list[Block]:
    if isinstance(content, str):
        return [TextBlock(type="text", text=content)]
    blocks: list[Block] = []
    for item in content:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind not in ("text", "tool_use", "tool_result"):
            summary.skipped[f"block:{kind}" if isinstance(kind, str) else "block:?"] += 1
            continue
        try:
            blocks.append(_BLOCK.validate_python(item))
        except ValidationError as error:
            summary.problem(line, f"{kind!r} block skipped: {error.errors()[0]['msg']}")
    return blocks


def _assistant(
    event: AssistantEvent, line: int, summary: Summary, pending: dict[str, ToolCall]
) -> list[str]:
    texts: list[str] = []
    for block in _blocks(event.message.content, line, summary):
        if isinstance(block, TextBlock):
            texts.append(block.text)
            summary.events.append(Message(block.text, line))
        elif isinstance(block, ToolUseBlock):
            summary.call(block.name, block.input, block.id, line, pending=pending)
    return texts


def _user(
    event: UserEvent,
    line: int,
    summary: Summary,
    pending: dict[str, ToolCall],
    reasons: dict[str, str | None],
) -> None:
    for block in _blocks(event.message.content, line, summary):
        if not isinstance(block, ToolResultBlock):
            continue
        text = result_text(block.content)
        reasons[block.tool_use_id] = text
        call = pending.get(block.tool_use_id)
        if call is None:
            summary.problem(line, f"tool result for {block.tool_use_id!r}, which no call made")
            continue
        if call.result is not None:
            summary.problem(line, f"second tool result for {block.tool_use_id!r} ignored")
            continue
        call.result = text
        call.is_error = bool(block.is_error)


def _close(
    summary: Summary,
    result: ResultEvent | None,
    last_texts: list[str],
    reasons: dict[str, str | None],
) -> None:
    fallback = "\n".join(last_texts) if last_texts else None
    if result is None:
        summary.final_text = fallback
        summary.ending = "cut"
        summary.reason = "the stream ends without Claude Code's closing result event"
        summary.problem(0, summary.reason)
        return
    summary.duration_ms = result.duration_ms
    usage = result.usage
    if usage is not None:
        inputs = [
            usage.input_tokens,
            usage.cache_creation_input_tokens,
            usage.cache_read_input_tokens,
        ]
        summary.input_tokens = sum(n or 0 for n in inputs)
        summary.output_tokens = usage.output_tokens or 0
        summary.cache_creation_tokens = usage.cache_creation_input_tokens
        summary.cache_read_tokens = usage.cache_read_input_tokens
        summary.total_tokens = summary.input_tokens + summary.output_tokens
    summary.cost_usd = result.total_cost_usd
    if result.is_error:
        summary.final_text = fallback
        summary.ending = "failed"
        summary.reason = result.result or result.subtype or "Claude Code reported an error"
    else:
        summary.final_text = result.result if result.result is not None else fallback
        summary.ending = "completed"
    text = summary.final_text
    last = summary.events[-1] if summary.events else None
    if text is not None and not (isinstance(last, Message) and last.text == text):
        summary.events.append(Message(text))
    for entry in result.permission_denials:
        keys = sorted(entry.tool_input) if isinstance(entry.tool_input, dict) else []
        reason = reasons.get(entry.tool_use_id) if entry.tool_use_id is not None else None
        summary.denials.append(Denial(entry.tool_name, reason, tuple(keys)))


def looks_like(value: JsonObject) -> bool:
    kind = value.get("type")
    if kind in ("assistant", "user"):
        return isinstance(value.get("message"), dict)
    if kind == "system":
        return "subtype" in value
    return kind == "result" and ("usage" in value or "is_error" in value)
