"""pi (the coding agent): ``pi --mode json`` events, and pi's own session files.

``agent_start``/``agent_end`` bound a run (a retry starts another), ``message_end`` holds each
finished message: the user's (the goal), the assistant's (``text`` and ``toolCall`` blocks,
``model``, ``usage``) and tool results (``role: toolResult``); ``tool_execution_start`` and
``_end`` give a call's arguments and result. pi counts cache reads and writes apart from
``input``: in the one rule input is their sum. ``message_update`` events repeat a message as
it streams and are not read.

A session file (``~/.pi/agent/sessions/--<path>--/<time>_<id>.jsonl``) opens with a header
(``type: session``: the session's id, its working folder, the file format's version) and
holds the entries of a tree (``id``/``parentId``): ``message`` entries hold the same messages
(a branch left for another is still calls made and paid), the others (model and thinking
level changes, compactions, labels, extensions' state) are no part of the run. It has no
closing event: a session that ends is finished.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import MISSING

from agentruns._json_text import compact
from agentruns._prices import recorded_usd
from agentruns.transcripts._stream import JsonObject, epoch_ms, events, rfc3339
from agentruns.transcripts._summary import Message, Summary, ToolCall
from agentruns_generated._json import JsonValue

_TYPES = frozenset(
    {"agent_start", "agent_end", "turn_start", "turn_end", "message_start", "message_update"}
)


def looks_like(value: JsonObject) -> bool:
    kind = value.get("type")
    if kind in ("message_end", "message_start") and isinstance(value.get("message"), dict):
        message = value["message"]
        return isinstance(message, dict) and "role" in message and "sessionId" not in value
    return kind in ("agent_start", "tool_execution_start", "tool_execution_end")


def looks_like_session(value: JsonObject) -> bool:
    """A line only pi's session files hold: the header, or a message entry of the tree."""
    kind = value.get("type")
    if kind == "session":
        return isinstance(value.get("id"), str) and "cwd" in value
    return kind == "message" and "parentId" in value and isinstance(value.get("message"), dict)


def read_session(path: str, summary: Summary) -> None:
    pending: dict[str, ToolCall] = {}
    texts: list[str] = []
    for line, value in events(path, summary):
        kind = value.get("type")
        at = rfc3339(value.get("timestamp"))
        message = value.get("message")
        if kind == "session":
            ident = value.get("id")
            if summary.session_id is None and isinstance(ident, str):
                summary.session_id = ident
            summary.seen(at)
        elif kind == "message" and isinstance(message, dict):
            entry = value.get("id")
            # a branch copied to a session of its own keeps its entries: the call is known by
            # its entry and its times, as in any file it is copied to
            key = "\x00".join(
                str(part)
                for part in ("pi", entry, value.get("timestamp"), message.get("timestamp"))
            )
            _message(
                message, line, summary, pending, texts, at, key if isinstance(entry, str) else None
            )
        else:
            summary.skipped[kind if isinstance(kind, str) else "?"] += 1
    summary.cost_usd = summary.calls_cost()
    summary.saved(texts)
    summary.unanswered(pending)


def _int(value: JsonValue) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def read(path: str, summary: Summary) -> None:
    pending: dict[str, ToolCall] = {}
    texts: list[str] = []
    ended = False
    for line, value in events(path, summary):
        kind = value.get("type")
        if kind == "agent_start":
            ended = False
        elif kind == "agent_end":
            ended = True
        elif kind == "message_end" and isinstance(value.get("message"), dict):
            message = value["message"]
            assert isinstance(message, dict)
            _message(message, line, summary, pending, texts)
        elif kind == "tool_execution_start":
            call = pending.get(str(value.get("toolCallId")))
            args = value.get("args")
            if call is not None and args not in (None, {}) and call.args in (MISSING, {}):
                call.args = args
        elif kind == "tool_execution_end":
            call = pending.get(str(value.get("toolCallId")))
            if call is not None and call.result is None:
                call.result = _content(value.get("result"))
                call.is_error = value.get("isError") is True
        elif not isinstance(kind, str) or kind not in _TYPES:
            summary.skipped[kind if isinstance(kind, str) else "?"] += 1
    summary.final_text = texts[-1] if texts else None
    summary.cost_usd = summary.calls_cost()
    summary.timed()
    if ended:
        summary.ending = "completed"
    else:
        summary.reason = "the stream ends without pi's agent_end event"
        summary.problem(0, summary.reason)


def _content(holder: JsonValue) -> str | None:
    content = holder.get("content") if isinstance(holder, dict) else holder
    if content is None:
        return None
    if isinstance(content, list):
        return "\n".join(
            str(part["text"]) if isinstance(part, dict) and "text" in part else compact(part)
            for part in content
        )
    return content if isinstance(content, str) else compact(content)


def _message(
    message: JsonObject,
    line: int,
    summary: Summary,
    pending: dict[str, ToolCall],
    texts: list[str],
    entry_at: datetime | None = None,
    key: str | None = None,
) -> None:
    """One finished message; ``entry_at``, the time of the session entry holding it (when the
    message has none of its own), ``key``, what identifies the call in any file."""
    at: datetime | None = epoch_ms(message.get("timestamp"))
    if at is None:
        at = entry_at
    summary.seen(at)
    role = message.get("role")
    content = message.get("content")
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if role == "user":
        said = "\n".join(str(b["text"]) for b in blocks if isinstance(b.get("text"), str))
        if summary.prompt is None and said.strip():
            summary.prompt = said
    elif role == "toolResult":
        call = pending.get(str(message.get("toolCallId")))
        if call is not None and call.result is None:
            call.result = _content(message)
            call.is_error = message.get("isError") is True
    elif role == "assistant":
        usage = message.get("usage")
        model = message.get("model")
        if isinstance(usage, dict):
            read_, write = _int(usage.get("cacheRead")), _int(usage.get("cacheWrite"))
            cost = usage.get("cost")
            total = recorded_usd(cost.get("total")) if isinstance(cost, dict) else None
            summary.add_usage(
                input=_int(usage.get("input")) + read_ + write,
                output=_int(usage.get("output")),
                cache_creation=write,
                cache_read=read_,
                model=model if isinstance(model, str) else None,
                at=at,
                cost=total,
                key=key,
            )
        for block in blocks:
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                text = str(block["text"])
                if text.strip():
                    texts.append(text)
                    summary.events.append(Message(text, line, at))
            elif block.get("type") == "toolCall":
                args = block.get("arguments", MISSING)
                ident = block.get("id")
                called = f"{key}\x00{ident}" if key is not None and isinstance(ident, str) else None
                summary.call(block.get("name"), args, ident, line, at, pending, called)
