"""Cline's own task folders: ``.../globalStorage/saoudrizwan.claude-dev/tasks/<task-id>/``.

Two JSON arrays: ``api_conversation_history.json`` (the Anthropic messages sent, with
``tool_use``/``tool_result`` blocks when Cline uses native tools) and ``ui_messages.json``
(what the panel showed: ``say``/``ask`` rows with epoch-millisecond ``ts``; an
``api_req_started`` row's ``text`` is JSON with ``tokensIn``, ``tokensOut``, ``cacheWrites``,
``cacheReads`` and ``cost`` of one request; ``tool`` and ``command`` rows are the tool calls
of Cline's XML tools, ``command_output`` a command's result). The task id (the folder's
name) is the session id. Cline counts cache reads and writes apart from ``tokensIn``: in the
one rule input is their sum.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import MISSING

from agentruns._prices import recorded_usd
from agentruns.errors import InputError
from agentruns.transcripts._claude import (
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    _blocks,
    result_text,
)
from agentruns.transcripts._stream import JsonObject, epoch_ms, events
from agentruns.transcripts._summary import Message, Summary, ToolCall
from agentruns_generated._json import JsonValue

HISTORY = "api_conversation_history.json"
UI = "ui_messages.json"


def folder_of(path: str) -> Path | None:
    """The task folder a path is (or whose file it is)."""
    where = Path(path)
    folder = where if where.is_dir() else where.parent
    if (folder / UI).is_file() or (folder / HISTORY).is_file():
        return folder
    return None


def looks_like(value: JsonObject) -> bool:
    """A ``ui_messages.json`` row, or a message of ``api_conversation_history.json`` (an
    Anthropic message as the API takes it: a role and content, nothing that says another
    harness wrote it)."""
    if isinstance(value.get("ts"), int) and value.get("type") in ("say", "ask"):
        return True
    return _is_message(value)


def _is_message(value: JsonObject) -> bool:
    return (
        value.get("role") in ("user", "assistant")
        and isinstance(value.get("content"), str | list)
        and "type" not in value
        and "sessionId" not in value
    )


def read(path: str, summary: Summary) -> None:
    folder = folder_of(path)
    if folder is None:
        if not Path(path).is_file():
            raise InputError(f"{path}: not a Cline task folder (no {UI} or {HISTORY})")
        # one of a task's files saved under another name: what it holds says which
        summary.session_id = Path(path).stem
        if _holds_history(path):
            _history(path, summary)
        else:
            _ui(path, summary, calls=True)
        _close(summary)
        return
    summary.session_id = folder.name
    history = folder / HISTORY
    native = history.is_file() and _history(str(history), summary)
    ui = folder / UI
    if ui.is_file():
        _ui(str(ui), summary, calls=not native)
    _close(summary)


def _holds_history(path: str) -> bool:
    """Whether a file holds the API history (messages with a ``role``), not the panel's
    rows."""
    scratch = Summary(HARNESS, path)
    for _, value in events(path, scratch):
        return _is_message(value)
    return False


HARNESS = "cline-task"


def _close(summary: Summary) -> None:
    summary.cost_usd = summary.calls_cost()
    summary.timed()
    summary.ending = "completed"


def _history(path: str, summary: Summary) -> bool:
    """Messages and native tool calls from the API history; whether it had any tool call."""
    pending: dict[str, ToolCall] = {}
    texts: list[str] = []
    for line, value in events(path, summary):
        content = value.get("content", [])
        if not isinstance(content, str | list):
            continue
        blocks = _blocks(content, line, summary)
        if value.get("role") == "user":
            for block in blocks:
                if isinstance(block, TextBlock) and summary.prompt is None and block.text.strip():
                    summary.prompt = block.text
                elif isinstance(block, ToolResultBlock) and block.tool_use_id in pending:
                    call = pending[block.tool_use_id]
                    call.result = result_text(block.content)
                    call.is_error = bool(block.is_error)
            continue
        for block in blocks:
            if isinstance(block, TextBlock) and block.text.strip():
                texts.append(block.text)
                summary.events.append(Message(block.text, line))
            elif isinstance(block, ToolUseBlock):
                call = ToolCall(
                    block.name, summary.next_ordinal(), block.input, call_id=block.id, line=line
                )
                summary.events.append(call)
                if block.id is not None:
                    pending[block.id] = call
    summary.final_text = texts[-1] if texts else None
    return bool(pending) or summary.calls > 0


def _ui(path: str, summary: Summary, *, calls: bool) -> None:
    last_command: ToolCall | None = None
    for line, row in events(path, summary):
        at = epoch_ms(row.get("ts"))
        summary.seen(at)
        said = row.get("say") or row.get("ask")
        text = row.get("text")
        if said == "api_req_started" and isinstance(text, str):
            _request(text, summary)
        elif said == "completion_result" and isinstance(text, str) and text.strip():
            summary.final_text = text
        elif said == "task" and summary.prompt is None and isinstance(text, str):
            summary.prompt = text
        elif not calls:
            continue
        elif said == "tool" and isinstance(text, str):
            args = _json(text)
            tool = args.get("tool") if isinstance(args, dict) else None
            summary.events.append(
                ToolCall(
                    tool if isinstance(tool, str) else "tool",
                    summary.next_ordinal(),
                    args if args is not None else text,
                    line=line,
                    at=at,
                )
            )
        elif said == "command" and isinstance(text, str):
            last_command = ToolCall(
                "execute_command", summary.next_ordinal(), {"command": text}, line=line, at=at
            )
            summary.events.append(last_command)
        elif said == "command_output" and last_command is not None and isinstance(text, str):
            last_command.result = (last_command.result or "") + text


def _json(text: str) -> JsonValue | None:
    try:
        value: JsonValue = json.loads(text)
    except ValueError:
        return None
    return value


def _request(text: str, summary: Summary) -> None:
    info = _json(text)
    if not isinstance(info, dict):
        return
    counts = {
        key: _int(info.get(key)) for key in ("tokensIn", "tokensOut", "cacheWrites", "cacheReads")
    }
    cost = recorded_usd(info.get("cost"))
    if not any(counts.values()) and cost is not None:
        summary.add_usage(cost=cost)  # a cost without counts: a call of no tokens
    elif any(counts.values()):
        summary.add_usage(
            input=counts["tokensIn"] + counts["cacheWrites"] + counts["cacheReads"],
            output=counts["tokensOut"],
            cache_creation=counts["cacheWrites"],
            cache_read=counts["cacheReads"],
            cost=cost,
        )


def _int(value: JsonValue | MISSING) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
