"""The agents' own files, as public projects keep them in their tests
(``tests/fixtures/upstream/agent-logs``, provenance in its README): each imports with the tool
calls, tokens by kind, start, model and session id the file holds.

What a file holds is counted here by a second, deliberately plain reading of the raw JSON
(whole-file aggregates, no pairing, no event models), so the readers are checked against
something that does not share their code.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import MISSING

from agentruns.transcripts import load

LOGS = Path(__file__).parent / "fixtures" / "upstream" / "agent-logs"
FILES = sorted(p for p in LOGS.glob("*/*") if p.name != "README.md")
TEXT = {"aider"}
"""Folders of files that are not JSON."""

Facts = dict[str, Any]


def _lines(path: Path) -> list[dict[str, Any]]:
    text = path.read_text("utf-8")
    try:
        whole = json.loads(text)  # one document: an array of events, or one object
    except ValueError:
        whole = None
    if isinstance(whole, list | dict):
        return [v for v in (whole if isinstance(whole, list) else [whole]) if isinstance(v, dict)]
    found = []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def _earliest(stamps: list[Any]) -> str | None:
    times = []
    for stamp in stamps:
        try:
            times.append(datetime.fromisoformat(stamp))
        except (TypeError, ValueError):
            continue
    return min(times).isoformat() if times else None


def _claude_session(lines: list[dict[str, Any]]) -> Facts:
    main = [v for v in lines if v.get("isSidechain") is False and v.get("type") == "assistant"]
    unique = {v["uuid"]: v for v in main}.values()
    calls = sum(
        1
        for v in unique
        for block in v["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    )
    best: dict[str, dict[str, int]] = {}
    model_of: dict[str, str] = {}
    for v in unique:
        message = v["message"]
        usage = message.get("usage") or {}
        kept = best.setdefault(message["id"], Counter())
        for key in ("input_tokens", "output_tokens", "cache_creation_input_tokens"):
            kept[key] = max(kept[key], usage.get(key) or 0)
        kept["cache_read_input_tokens"] = max(
            kept["cache_read_input_tokens"], usage.get("cache_read_input_tokens") or 0
        )
        if message.get("model") != "<synthetic>":
            model_of[message["id"]] = message.get("model")
    created = sum(u["cache_creation_input_tokens"] for u in best.values())
    cached = sum(u["cache_read_input_tokens"] for u in best.values())
    output = sum(u["output_tokens"] for u in best.values())
    by_model: Counter[str] = Counter()
    for ident, model in model_of.items():
        by_model[model] += best[ident]["output_tokens"]
    subagents = {
        v.get("parentToolUseID")
        for v in lines
        if v.get("type") == "progress" and (v.get("data") or {}).get("type") == "agent_progress"
    }
    return {
        "calls": calls,
        "input": sum(u["input_tokens"] for u in best.values()) + created + cached,
        "output": output,
        "cache_creation": created,
        "cache_read": cached,
        "model": by_model.most_common(1)[0][0] if by_model else None,
        "session": next(v["sessionId"] for v in lines if "sessionId" in v),
        "start": _earliest([v.get("timestamp") for v in lines]),
        "subagents": len(subagents),
    }


def _codex_rollout(lines: list[dict[str, Any]]) -> Facts:
    totals = [
        v["payload"]["info"]["total_token_usage"]
        for v in lines
        if v["type"] == "event_msg"
        and v["payload"].get("type") == "token_count"
        and v["payload"].get("info")
    ]
    last = totals[-1]
    kinds = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call")
    models = [v["payload"]["model"] for v in lines if "model" in v.get("payload", {})]
    models += [
        v["payload"]["info"]["model"]
        for v in lines
        if isinstance(v["payload"].get("info"), dict) and "model" in v["payload"]["info"]
    ]
    meta = [v["payload"]["id"] for v in lines if v["type"] == "session_meta"]
    return {
        "calls": sum(1 for v in lines if v["payload"].get("type") in kinds),
        "input": last["input_tokens"],
        "output": last["output_tokens"],
        "cache_read": last["cached_input_tokens"],
        "reasoning": last["reasoning_output_tokens"],
        "model": models[-1] if models else None,
        "session": meta[0] if meta else None,
        "start": _earliest(
            [v.get("timestamp") for v in lines]
            + [v["payload"].get("timestamp") for v in lines if v["type"] == "session_meta"]
        ),
    }


def _gemini(lines: list[dict[str, Any]]) -> Facts:
    header = lines[0]
    messages = header.get("messages") or [v for v in lines[1:] if "type" in v]
    replies = [m for m in {m["id"]: m for m in messages}.values() if m["type"] == "gemini"]
    tokens = [m["tokens"] for m in replies if "tokens" in m]
    return {
        "calls": sum(len(m.get("toolCalls", [])) for m in replies),
        "input": sum(t["input"] + t["tool"] for t in tokens),
        "output": sum(t["output"] + t["thoughts"] for t in tokens),
        "cache_read": sum(t["cached"] for t in tokens),
        "reasoning": sum(t["thoughts"] for t in tokens),
        "total": sum(t["total"] for t in tokens),
        "model": Counter(m["model"] for m in replies if "model" in m).most_common(1)[0][0],
        "session": header["sessionId"],
        "start": _earliest([header.get("startTime")] + [m.get("timestamp") for m in messages]),
    }


def _copilot(lines: list[dict[str, Any]]) -> Facts:
    main = [v for v in lines if "parentToolCallId" not in v["data"]]
    requested = {
        r["toolCallId"]
        for v in main
        if v["type"] == "assistant.message"
        for r in v["data"].get("toolRequests", [])
    }
    started = {v["data"]["toolCallId"] for v in main if v["type"] == "tool.execution_start"}
    shutdown = [v["data"] for v in lines if v["type"] == "session.shutdown"][-1]
    used = [m["usage"] for m in shutdown.get("modelMetrics", {}).values() if "usage" in m]
    if used:  # each model's, the input with its cache in it
        details = {
            key: sum(u.get(name, 0) for u in used)
            for key, name in (
                ("input", "inputTokens"),
                ("output", "outputTokens"),
                ("cache_read", "cacheReadTokens"),
                ("cache_write", "cacheWriteTokens"),
            )
        }
        details["input"] -= details["cache_read"] + details["cache_write"]
    else:  # the session's totals, the input without its cache
        details = {k: d["tokenCount"] for k, d in shutdown["tokenDetails"].items()}
    return {
        "calls": len(requested | started),
        "input": details["input"] + details["cache_read"] + details["cache_write"],
        "output": details["output"],
        "cache_read": details["cache_read"],
        "cache_creation": details["cache_write"],
        "session": lines[0]["data"]["sessionId"],
        "start": _earliest([lines[0]["data"]["startTime"]]),
        "subagents": len({v["data"].get("parentToolCallId") for v in lines} - {None}),
    }


def _stream(lines: list[dict[str, Any]]) -> Facts:
    """Scripted streams: tool calls only (their tokens are checked by eval-magic's asserts)."""
    calls = 0
    for v in lines:
        message = v.get("message")
        if v.get("type") == "assistant" and isinstance(message, dict):
            calls += sum(1 for b in message.get("content", []) if b.get("type") == "tool_use")
        item = v.get("item")
        if v.get("type") == "item.completed" and isinstance(item, dict):
            calls += item.get("type") not in ("agent_message", "reasoning", "todo_list", "error")
        if v.get("type") == "tool_use":
            calls += 1
    return {"calls": calls}


def _opencode_part(lines: list[dict[str, Any]]) -> Facts:
    return {"calls": sum(1 for v in lines if v.get("type") == "tool"), "session": "s_stage0_small"}


def _pi(lines: list[dict[str, Any]]) -> Facts:
    ends = [v["message"] for v in lines if v.get("type") == "message_end"]
    replies = [m for m in ends if m.get("role") == "assistant"]
    usage = [m["usage"] for m in replies if "usage" in m]
    cached = sum(u["cacheRead"] + u["cacheWrite"] for u in usage)
    return {
        "calls": sum(1 for m in replies for b in m["content"] if b["type"] == "toolCall"),
        "input": sum(u["input"] for u in usage) + cached,
        "output": sum(u["output"] for u in usage),
        "total": sum(u["totalTokens"] for u in usage),
        "model": replies[-1]["model"],
    }


def _aider(path: Path) -> Facts:
    models = [
        line.split("Main model: ", 1)[1].split(" with ")[0]
        for line in path.read_text("utf-8").splitlines()
        if line.startswith("> Main model: ")
    ]
    return {"calls": 0, "model": models[-1], "session": None, "start": None}


COUNT = {
    "other": _pi,
    "claude-session": _claude_session,
    "codex-rollout": _codex_rollout,
    "gemini": _gemini,
    "copilot": _copilot,
    "claude-stream-json": _stream,
    "codex-exec-json": _stream,
    "opencode-json": _stream,
    "opencode-storage": _opencode_part,
}


def _iso(value: object) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else None


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_sample_imports_with_what_it_holds(path: Path) -> None:
    expected = _aider(path) if path.parent.name in TEXT else COUNT[path.parent.name](_lines(path))
    transcript = load(path)
    run = transcript.run
    steps = run.steps if run.steps is not MISSING else ()
    got: Facts = {"calls": sum(1 for s in steps if s.kind == "tool_call")}
    for kind in ("input", "output", "cache_creation", "cache_read", "reasoning", "total"):
        value = getattr(run, f"{kind}_tokens")
        got[kind] = None if value is MISSING else value
    got["model"] = None if run.model is MISSING else run.model
    got["session"] = None if run.run_id is MISSING else run.run_id
    got["start"] = _iso(run.started_at)
    got["subagents"] = 0 if run.subagents is MISSING else len(run.subagents)
    assert {key: got[key] for key in expected} == expected
    if isinstance(run.input_tokens, int) and isinstance(run.output_tokens, int):
        assert run.total_tokens == run.input_tokens + run.output_tokens  # the one rule
    if path.parent.name in SESSIONS:
        assert run.status == "completed"  # a session that ends has ended


SESSIONS = {"claude-session", "codex-rollout", "gemini", "copilot", "opencode-storage", "other"}


def test_every_sample_has_a_counter() -> None:
    assert {p.parent.name for p in FILES} == set(COUNT) | TEXT


def test_a_subagent_is_a_run_of_its_own_linked_to_the_call_that_started_it() -> None:
    run = load(LOGS / "claude-session" / "spotter-subagent.jsonl").run
    assert run.subagents is not MISSING
    assert run.steps is not MISSING
    (child,) = run.subagents
    (task,) = [s for s in run.steps if s.name == "Task"]
    assert child.parent_call_id == task.call_id
    assert child.model == "claude-haiku-4-5-20251001"
    assert child.steps is not MISSING
    assert child.steps
    # the subagent's calls are its own, not the parent's
    assert all(s.call_id != c.call_id for s in run.steps for c in child.steps if s.call_id)


def test_a_session_file_has_no_closing_event_and_is_a_finished_run_with_its_time_span() -> None:
    run = load(LOGS / "claude-session" / "spotter-short.jsonl").run
    assert run.status == "completed"
    assert run.duration_ms == 259_943
    assert isinstance(run.final_message, str)
    assert run.final_message.strip()


def test_codex_exec_plans_and_errors_are_not_calls_and_failures_are_marked() -> None:
    run = load(LOGS / "codex-exec-json" / "takopi-codex_exec_json_all_formats.jsonl").run
    assert run.steps is not MISSING
    calls = [s for s in run.steps if s.kind == "tool_call"]
    assert "todo_list" not in [s.name for s in calls]
    assert "error" not in [s.name for s in calls]
    failed = [(s.name, s.output) for s in calls if s.status == "error"]
    assert failed == [
        ("command_execution", "....F\n"),
        ("file_change", MISSING),
        ("mcp_tool_call", '{"message":"tool timeout"}'),  # the error, not the null result
    ]
    assert run.status == "failed"
