"""Codex's own session files: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``.

Each line is ``{timestamp, type, payload}``: ``session_meta`` (the session id), ``turn_context``
(the model), ``response_item`` (messages, ``function_call``/``function_call_output`` pairs,
custom and local shell tool calls, reasoning) and ``event_msg`` (``user_message``,
``token_count`` ...). Tokens: ``token_count`` gives the session's cumulative
``total_token_usage``; each increase is one model call's usage, attributed to the model then
in use (summing ``last_token_usage`` counts retries twice). Codex counts cached input inside
input and reasoning inside output, as the one rule does.

A forked rollout (``codex fork``: its ``session_meta`` names ``forked_from_id``) replays its
parent's history first, the parent's ``session_meta`` and ``token_count`` events included,
re-stamped at the fork. Each call is therefore identified by the session whose
``session_meta`` it follows and the cumulative usage after it (``Summary.add_usage``'s
``key``): a replayed call is the parent's call, and ``stats`` over a folder holding both counts
it once (in the parent, met first); a fork whose parent is not there keeps its replay.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import datetime

from pydantic import MISSING

from agentruns._json_text import compact
from agentruns.transcripts._stream import JsonObject, events, rfc3339
from agentruns.transcripts._summary import Message, Summary, ToolCall
from agentruns_generated._json import JsonValue

_KINDS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens")
_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})


def looks_like(value: JsonObject) -> bool:
    payload = value.get("payload")
    return (
        value.get("type") in ("session_meta", "response_item", "event_msg", "turn_context")
        and isinstance(payload, dict)
        and "timestamp" in value
    )


def read(path: str, summary: Summary) -> None:
    pending: dict[str, ToolCall] = {}
    texts: list[str] = []
    model: str | None = None
    before = dict.fromkeys(_KINDS, 0)
    place = _Place()
    for line, value in events(path, summary):
        at = rfc3339(value.get("timestamp"))
        summary.seen(at)
        kind = value.get("type")
        payload = value.get("payload")
        if not isinstance(payload, dict):
            summary.skipped[kind if isinstance(kind, str) else "?"] += 1
            continue
        inner = payload.get("type")
        if kind == "session_meta":
            ident = payload.get("id")
            if summary.session_id is None and isinstance(ident, str):
                summary.session_id = ident
            if isinstance(ident, str) and ident != place.session:
                place.session, place.restarts = ident, 0  # (a fork's replay of its parent)
            summary.says_version(payload.get("cli_version"))
            if ident == summary.session_id:  # (a parent's, replayed, says when it began)
                summary.seen(rfc3339(payload.get("timestamp")))
        elif kind == "turn_context":
            if isinstance(payload.get("model"), str):
                model = str(payload["model"])
        elif kind == "response_item":
            _item(payload, line, at, summary, pending, texts, place.session)
        elif kind == "event_msg":
            if inner == "user_message":
                said = payload.get("message")
                if summary.prompt is None and isinstance(said, str) and said.strip():
                    summary.prompt = said
            elif inner == "token_count":
                info = payload.get("info")
                if isinstance(info, dict):
                    if isinstance(info.get("model"), str):
                        model = str(info["model"])
                    total = info.get("total_token_usage")
                    if isinstance(total, dict):
                        before = _counted(total, before, model, summary, at, place)
        else:
            summary.skipped[kind if isinstance(kind, str) else "?"] += 1
    summary.saved(texts)
    summary.unanswered(pending)


@dataclass
class _Place:
    """Whose events a rollout's lines are: the session whose ``session_meta`` they follow (in
    a fork, its parent's while the parent's history is replayed), and how often that
    session's usage counter restarted so far."""

    session: str | None = None
    restarts: int = 0


def _counted(
    total: dict[str, JsonValue],
    before: dict[str, int],
    model: str | None,
    summary: Summary,
    at: datetime | None,
    place: _Place,
) -> dict[str, int]:
    now = {key: _int(total.get(key)) for key in _KINDS}
    if now["input_tokens"] < before["input_tokens"]:
        before = dict.fromkeys(_KINDS, 0)  # the counter restarted (a new process)
        place.restarts += 1
    delta = {key: max(now[key] - before[key], 0) for key in _KINDS}
    if any(delta.values()):
        key = None
        if place.session is not None:  # the call: its session, and that session's usage after it
            counts = (str(now[kind]) for kind in _KINDS)
            key = "\x00".join(["codex", place.session, str(place.restarts), *counts])
            _copied(summary, place.session, key)
        summary.add_usage(
            input=delta["input_tokens"],
            output=delta["output_tokens"],
            cache_read=delta["cached_input_tokens"],
            reasoning=delta["reasoning_output_tokens"],
            model=model,
            at=at,
            key=key,
        )
    return now


_NAMED = re.compile(
    r"rollout-(?:.*-)?([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"
    r"\.jsonl(?:\.[a-z]+)?"
)


def session_in_name(path: str) -> str | None:
    """The session a rollout's file name says it holds (``rollout-<time>-<id>.jsonl``), if
    it is named so."""
    found = _NAMED.fullmatch(os.path.basename(path))
    return found.group(1) if found is not None else None


def _copied(summary: Summary, session: str, key: str) -> None:
    """Note a call of a session other than the file's own (the first ``session_meta``'s):
    in a fork, its parent's call, replayed."""
    if summary.session_id is not None and session != summary.session_id:
        summary.copied_from[key] = session


def _int(value: JsonValue) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _item(
    payload: JsonObject,
    line: int,
    at: datetime | None,
    summary: Summary,
    pending: dict[str, ToolCall],
    texts: list[str],
    session: str | None = None,
) -> None:
    """One response item; ``session``, whose events these are (a fork's replay is its
    parent's), which with its call id identifies a tool call in any rollout."""
    found = payload.get("type")
    kind = found if isinstance(found, str) else None
    if kind == "message":
        if payload.get("role") != "assistant":
            return
        content = payload.get("content")
        parts = [
            str(part["text"])
            for part in (content if isinstance(content, list) else [])
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        ]
        text = "\n".join(parts)
        if text.strip():
            texts.append(text)
            summary.events.append(Message(text, line, at))
    elif kind in _CALLS:
        ident = payload.get("call_id")
        key = None
        if session is not None and isinstance(ident, str):
            key = f"codex-tool\x00{session}\x00{ident}"
            _copied(summary, session, key)
        call = summary.call(_name(payload), _args(payload), ident, line, at, pending, key)
        if kind == "web_search_call":
            call.result = compact(payload.get("action")) if "action" in payload else None
    elif kind in _OUTPUTS or kind == "local_shell_call_output":
        ident = payload.get("call_id")
        answered = pending.get(ident) if isinstance(ident, str) else None
        if answered is None:
            summary.problem(line, f"tool output for {ident!r}, which no call made")
            return
        answered.result, answered.is_error = _output(payload.get("output"))
    elif kind != "reasoning":
        summary.skipped[f"response_item:{kind}" if kind is not None else "?"] += 1


def _name(payload: JsonObject) -> str:
    kind = payload.get("type")
    if kind == "local_shell_call":
        return "local_shell"
    if kind == "web_search_call":
        return "web_search"
    name = payload.get("name")
    return name if isinstance(name, str) else "?"


def _args(payload: JsonObject) -> JsonValue | MISSING:
    """A call's arguments: a function call's JSON text parsed (kept as text when it is not
    JSON), a custom tool's input, a shell call's action."""
    if payload.get("type") == "function_call":
        text = payload.get("arguments")
        if not isinstance(text, str):
            return MISSING if text is None else text
        try:
            parsed: JsonValue = json.loads(text)
        except ValueError:
            return text
        return parsed
    for key in ("input", "action"):
        if key in payload:
            return payload[key]
    return MISSING


def _output(output: JsonValue) -> tuple[str | None, bool]:
    """A tool's output text, and whether it failed: Codex wraps a shell command's output as
    JSON text ``{"output": ..., "metadata": {"exit_code": ...}}``."""
    if output is None:
        return None, False
    if not isinstance(output, str):
        return compact(output), False
    try:
        wrapped = json.loads(output)
    except ValueError:
        return output, False
    if isinstance(wrapped, dict) and isinstance(wrapped.get("output"), str):
        metadata = wrapped.get("metadata")
        code = metadata.get("exit_code") if isinstance(metadata, dict) else None
        failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
        return str(wrapped["output"]), failed
    return output, False
