"""GitHub Copilot CLI's own sessions: ``~/.copilot/session-state/<id>/events.jsonl``.

Typed events ``{type, data, id, timestamp, parentId}``: ``session.start`` (id, model),
``user.message``, ``assistant.message`` (text, ``toolRequests``, ``outputTokens``),
``tool.execution_start``/``tool.execution_complete`` (paired by ``toolCallId``), and at the
end ``session.shutdown`` with the session's usage so far: a resumed session writes another,
with the totals since the session began, so each shutdown's usage is what it adds to the one
before, booked when it was written (ccusage books it so). The usage is each model's, in
``modelMetrics.<model>.usage`` (``inputTokens`` with the cache reads and writes in it,
``outputTokens``, ``cacheReadTokens``, ``cacheWriteTokens``, ``reasoningTokens``), as ccusage
reads it; a shutdown without it (jazzy's 1.0.77-shaped sample) has the session's
``tokenDetails`` (input, output, cache read and write, counted apart: in the one rule input
is their sum with the cache counts), booked under its current model. Events with
``parentToolCallId`` belong to a subagent started by that call: a run of its own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import MISSING

from agentruns._json_text import compact
from agentruns.transcripts._stream import JsonObject, events, rfc3339
from agentruns.transcripts._summary import Message, Summary, ToolCall
from agentruns_generated._json import JsonValue


def looks_like(value: JsonObject) -> bool:
    kind = value.get("type")
    return (
        isinstance(kind, str)
        and kind.startswith(("session.", "assistant.", "user.", "tool.", "subagent."))
        and isinstance(value.get("data"), dict)
    )


@dataclass
class _Reading:
    summary: Summary
    pending: dict[str, ToolCall] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    output: int = 0
    model: str | None = None


def read(path: str, summary: Summary) -> None:
    main = _Reading(summary)
    children: dict[str, _Reading] = {}
    shutdowns: list[tuple[JsonObject, datetime | None]] = []
    for line, value in events(path, summary):
        kind = value.get("type")
        data = value.get("data")
        if not isinstance(data, dict) or not isinstance(kind, str):
            summary.skipped[kind if isinstance(kind, str) else "?"] += 1
            continue
        at = rfc3339(value.get("timestamp"))
        parent = data.get("parentToolCallId")
        reading = main
        if isinstance(parent, str):
            reading = children.get(parent) or children.setdefault(parent, _child(summary, parent))
        reading.summary.seen(at)
        if kind == "session.start":
            ident = data.get("sessionId")
            if summary.session_id is None and isinstance(ident, str):
                summary.session_id = ident
            summary.says_version(data.get("copilotVersion"))
            summary.seen(rfc3339(data.get("startTime")))
            reading.model = _str(data.get("selectedModel")) or reading.model
        elif kind == "session.model_change":
            reading.model = _str(data.get("newModel")) or reading.model
        elif kind == "session.shutdown":
            shutdowns.append((data, at))
        elif kind == "user.message":
            text = _str(data.get("content"))
            if reading.summary.prompt is None and text and text.strip():
                reading.summary.prompt = text
        elif kind == "assistant.message":
            _assistant(reading, data, line, at)
        elif kind == "tool.execution_start":
            _start(reading, data, line, at)
        elif kind == "tool.execution_complete":
            _complete(reading, data, line)
        else:
            summary.skipped[kind] += 1
    for reading in (main, *children.values()):
        _close(reading, shutdowns if reading is main else [])
    summary.children.extend(reading.summary for reading in children.values())


def _child(parent: Summary, call: str) -> _Reading:
    child = Summary(parent.harness, parent.source)
    child.parent_call_id = call
    return _Reading(child)


def _str(value: JsonValue) -> str | None:
    return value if isinstance(value, str) else None


def _assistant(reading: _Reading, data: JsonObject, line: int, at: datetime | None) -> None:
    summary = reading.summary
    model = _str(data.get("model")) or reading.model
    reading.model = model
    tokens = data.get("outputTokens")
    if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0:
        reading.output += tokens
        if model:
            summary.models[model] += tokens
    elif model:
        summary.models[model] += 0
    text = _str(data.get("content"))
    if text and text.strip():
        reading.texts.append(text)
        summary.events.append(Message(text, line, at))
    requests = data.get("toolRequests")
    for request in requests if isinstance(requests, list) else []:
        if isinstance(request, dict):
            _call(reading, request.get("toolCallId"), request.get("name"), request, line, at)


def _arguments(value: JsonValue | MISSING) -> JsonValue | MISSING:
    if isinstance(value, str):
        try:
            parsed: JsonValue = json.loads(value)
        except ValueError:
            return value
        return parsed
    return value


def _call(
    reading: _Reading,
    ident: JsonValue,
    name: JsonValue,
    holder: JsonObject,
    line: int,
    at: datetime | None,
) -> None:
    if isinstance(ident, str) and ident in reading.pending:
        return  # requested, then started: one call
    args = _arguments(holder.get("arguments", MISSING))
    reading.summary.call(name, args, ident, line, at, reading.pending)


def _start(reading: _Reading, data: JsonObject, line: int, at: datetime | None) -> None:
    ident = data.get("toolCallId")
    known = reading.pending.get(ident) if isinstance(ident, str) else None
    if known is None:
        _call(reading, ident, data.get("toolName"), data, line, at)
    elif known.at is None:
        known.at = at


def _complete(reading: _Reading, data: JsonObject, line: int) -> None:
    ident = data.get("toolCallId")
    call = reading.pending.get(ident) if isinstance(ident, str) else None
    if call is None:
        reading.summary.problem(line, f"tool completion for {ident!r}, which no call made")
        return
    result = data.get("result")
    content = result.get("content") if isinstance(result, dict) else result
    if content is not None:
        call.result = content if isinstance(content, str) else compact(content)
    call.is_error = data.get("success") is False


_Counts = dict[str, int]
"""A model's usage as a shutdown states it, in the one meaning's parts: fresh input, output,
cache reads and writes, reasoning (where stated)."""


def _close(reading: _Reading, shutdowns: list[tuple[JsonObject, datetime | None]]) -> None:
    summary = reading.summary
    before: dict[str | None, _Counts] = {}  # per model (None: the session's totals)
    for data, at in shutdowns:
        for model, counts in _stated(data):
            last = before.get(model, {})
            before[model] = counts
            # what this shutdown adds to the last one (a count never goes back)
            added = {kind: max(n - last.get(kind, 0), 0) for kind, n in counts.items()}
            if not any(added.values()):
                continue
            fresh, read_, write = added["fresh"], added["read"], added["write"]
            summary.add_usage(
                input=fresh + read_ + write,
                output=added["output"],
                cache_creation=write,
                cache_read=read_,
                reasoning=added.get("reasoning"),
                model=model,
                at=at,
            )
    if not before:
        if reading.output:
            summary.output_tokens = reading.output
    elif not summary.models:  # the session's totals name no model: its current one
        current = _str(shutdowns[-1][0].get("currentModel"))
        for model, counts in before.items():
            named = model or current
            if named:
                summary.models[named] += counts["output"]
    summary.saved(reading.texts)


def _stated(shutdown: JsonObject) -> list[tuple[str | None, _Counts]]:
    """The usage a shutdown states so far: each model's (``modelMetrics``), else the
    session's totals (``tokenDetails``) under no model; empty when it states none."""
    used = _by_model(shutdown)
    if used:
        found: list[tuple[str | None, _Counts]] = []
        for model, usage in used:
            read_, write = _tokens(usage, "cacheReadTokens"), _tokens(usage, "cacheWriteTokens")
            counts = {
                # the input counts the cache in it (ccusage takes the rest as fresh input, at
                # least none)
                "fresh": max(_tokens(usage, "inputTokens") - read_ - write, 0),
                "output": _tokens(usage, "outputTokens"),
                "read": read_,
                "write": write,
            }
            if "reasoningTokens" in usage:
                counts["reasoning"] = _tokens(usage, "reasoningTokens")
            found.append((model, counts))
        return found
    details = shutdown.get("tokenDetails")
    if not isinstance(details, dict):
        return []
    counts = {
        "fresh": _count(details, "input"),
        "output": _count(details, "output"),
        "read": _count(details, "cache_read"),
        "write": _count(details, "cache_write"),
    }
    return [(None, counts)]


def _by_model(shutdown: JsonObject | None) -> list[tuple[str, JsonObject]]:
    """Each model's usage a shutdown states (``modelMetrics.<model>.usage``), in its order,
    but a model that used nothing (a model the session switched away from before calling it
    is listed with zeros: no call, not an unknown model of 0 tokens); empty when it states
    none (a shutdown with ``requests`` alone, or no ``usage`` object)."""
    metrics = shutdown.get("modelMetrics") if shutdown is not None else None
    if not isinstance(metrics, dict):
        return []
    found: list[tuple[str, JsonObject]] = []
    for model, entry in metrics.items():
        usage = entry.get("usage") if isinstance(entry, dict) else None
        if model and isinstance(usage, dict) and any(_tokens(usage, key) for key in _KINDS):
            found.append((model, usage))
    return found


_KINDS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens")


def _tokens(usage: JsonObject, key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _count(details: JsonObject, key: str) -> int:
    entry = details.get(key)
    value = entry.get("tokenCount") if isinstance(entry, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
