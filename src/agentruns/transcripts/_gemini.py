"""Gemini CLI's own sessions: ``~/.gemini/tmp/<project-hash>/chats/session-*.json``.

Older versions write one JSON document ``{sessionId, startTime, lastUpdated, messages}``;
newer ones append JSON Lines: the same header first, then one message a line, and
``{"$set": ...}`` rows that update the header (a message written again under its ``id``
replaces the earlier one). A ``gemini`` message holds its text, ``toolCalls`` (each with its
``result`` and ``status``), ``model`` and ``tokens``. Gemini counts cached input inside
``input`` and thoughts apart from ``output``; tool-use prompt tokens apart from ``input``;
``total`` is their sum. In the one rule: input is ``input + tool``, output ``output +
thoughts``.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import MISSING

from agentruns._json_text import compact
from agentruns.transcripts._stream import JsonObject, events, rfc3339
from agentruns.transcripts._summary import Message, Summary, ToolCall
from agentruns_generated._json import JsonValue


def looks_like(value: JsonObject) -> bool:
    if isinstance(value.get("sessionId"), str) and "projectHash" in value:
        return True
    return value.get("type") == "gemini" and ("tokens" in value or "toolCalls" in value)


def read(path: str, summary: Summary) -> None:
    messages: dict[str, tuple[int, JsonObject]] = {}
    order = 0
    for line, value in events(path, summary):
        if "$set" in value:
            update = value["$set"]
            if isinstance(update, dict):
                _header(update, summary)
            continue
        listed = value.get("messages")
        if isinstance(listed, list):  # the whole session as one document
            _header(value, summary)
            for item in listed:
                if isinstance(item, dict):
                    messages[_key(item, order)] = (line, item)
                    order += 1
            continue
        if "sessionId" in value and "type" not in value:
            _header(value, summary)
            continue
        messages[_key(value, order)] = (line, value)
        order += 1
    texts: list[str] = []
    for line, message in messages.values():
        _message(message, line, summary, texts)
    summary.saved(texts)


def _key(message: JsonObject, order: int) -> str:
    ident = message.get("id")
    return ident if isinstance(ident, str) else f"#{order}"


def _header(value: JsonObject, summary: Summary) -> None:
    ident = value.get("sessionId")
    if summary.session_id is None and isinstance(ident, str):
        summary.session_id = ident
    summary.seen(rfc3339(value.get("startTime")))
    summary.seen(rfc3339(value.get("lastUpdated")))


def _text(content: JsonValue) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part["text"])
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def _message(message: JsonObject, line: int, summary: Summary, texts: list[str]) -> None:
    at = rfc3339(message.get("timestamp"))
    summary.seen(at)
    kind = message.get("type")
    if kind == "user":
        text = _text(message.get("content"))
        if summary.prompt is None and text.strip():
            summary.prompt = text
        return
    if kind != "gemini":
        summary.skipped[f"message:{kind}" if isinstance(kind, str) else "message:?"] += 1
        return
    tokens = message.get("tokens")
    model = message.get("model")
    if isinstance(tokens, dict):
        fresh, tool, cached = _int(tokens, "input"), _int(tokens, "tool"), _int(tokens, "cached")
        out, thoughts = _int(tokens, "output"), _int(tokens, "thoughts")
        summary.add_usage(
            input=fresh + tool,
            output=out + thoughts,
            cache_read=cached,
            reasoning=thoughts,
            model=model if isinstance(model, str) else None,
            at=at,
        )
    text = _text(message.get("content"))
    if text.strip():
        texts.append(text)
        summary.events.append(Message(text, line, at))
    calls = message.get("toolCalls")
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict):
            _call(call, line, at, summary)


def _call(call: JsonObject, line: int, at: datetime | None, summary: Summary) -> None:
    name = call.get("name")
    ident = call.get("id")
    when = rfc3339(call.get("timestamp")) or at
    summary.seen(when)
    result, failed = _result(call.get("result"))
    if result is None and isinstance(call.get("resultDisplay"), str):
        result = str(call["resultDisplay"])
    summary.events.append(
        ToolCall(
            name=name if isinstance(name, str) else "?",
            ordinal=summary.next_ordinal(),
            args=call.get("args", MISSING),
            result=result,
            call_id=ident if isinstance(ident, str) else None,
            is_error=failed or call.get("status") in ("error", "cancelled"),
            line=line,
            at=when,
        )
    )


def _result(result: JsonValue) -> tuple[str | None, bool]:
    """A tool call's result text (its ``functionResponse``'s ``output``, else ``error``, else
    the response as JSON) and whether it is an error."""
    if result is None:
        return None, False
    if not isinstance(result, list):
        return (result if isinstance(result, str) else compact(result)), False
    texts: list[str] = []
    failed = False
    for part in result:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict) and isinstance(body.get("output"), str):
            texts.append(str(body["output"]))
        elif isinstance(body, dict) and isinstance(body.get("error"), str):
            texts.append(str(body["error"]))
            failed = True
        else:
            texts.append(compact(part))
    return "\n".join(texts), failed


def _int(tokens: dict[str, JsonValue], key: str) -> int:
    value = tokens.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
