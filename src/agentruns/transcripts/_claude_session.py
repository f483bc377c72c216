"""Claude Code's own session files: ``~/.claude/projects/<project>/<session-id>.jsonl``.

Each line is one entry of the session (``type`` user/assistant/system/progress/summary...)
with ``uuid``, ``sessionId`` and ``timestamp``; assistant entries hold one content block of
an Anthropic message each, so one API response spans several lines that repeat its
``message.id`` and its ``usage`` (counted once: the largest of each count, as the last line
of a streamed response has the final output count). There is no closing event: a session
that ends is a finished run, and its time is its entries' span.

Subagents (the Task tool) are runs of their own, linked to the call that started them:
``progress`` entries of type ``agent_progress`` carry their messages inside the parent's
file (``parentToolUseID`` names the call), ``isSidechain`` entries of older versions sit in
the same file, and newer versions write ``<session-id>/subagents/agent-<id>.jsonl`` beside
it (the whole subagent, preferred to its progress echo).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from agentruns._prices import recorded_usd
from agentruns.transcripts._claude import (
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    _blocks,
    result_text,
)
from agentruns.transcripts._stream import JsonObject, events, rfc3339
from agentruns.transcripts._summary import Message, Summary, ToolCall
from agentruns_generated._json import JsonValue

ENTRY_TYPES = frozenset({"user", "assistant", "system", "progress", "summary"})
SYNTHETIC = "<synthetic>"
"""The model name Claude Code gives messages it wrote itself (API errors, interruptions)."""


def looks_like(value: JsonObject) -> bool:
    kind = kind_of(value)
    return isinstance(value.get("sessionId"), str) and isinstance(kind, str) and kind in ENTRY_TYPES


def kind_of(value: JsonObject) -> JsonValue:
    """The entry's ``type``; an older export writes none, and its message's ``role`` says."""
    kind = value.get("type")
    if kind is None and "type" not in value:
        message = value.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        if role in ("user", "assistant"):
            return role
    return kind


@dataclass
class Usage:
    model: str | None = None
    at: datetime | None = None
    """When the response began (its first line)."""
    input: int = 0
    output: int = 0
    cache_creation: int = 0
    cache_creation_1h: int = 0
    """The part of the cache writes kept for an hour (``cache_creation.ephemeral_1h_...``)."""
    cache_read: int = 0
    request: str | None = None
    """The API request the response answered (``requestId``): with the message id, what
    identifies it in any session file (a resumed session copies the lines it resumes from)."""
    cost: float | None = None
    """What the session recorded the response cost (``costUSD``, written by Claude Code
    before 1.0.9 or so): the cost as the agent counted it."""


@dataclass
class Reading:
    """One stream of entries (the session, or one subagent) being read into a summary."""

    summary: Summary
    pending: dict[str, ToolCall] = field(default_factory=dict)
    usage: dict[str, Usage] = field(default_factory=dict)
    """Per API response (``message.id``): its usage, counted once."""
    texts: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    agent_id: str | None = None

    def entry(self, value: JsonObject, line: int) -> None:
        uuid = value.get("uuid")
        if isinstance(uuid, str):
            if uuid in self.seen:
                return  # a resumed session repeats the entries it resumes from
            self.seen.add(uuid)
        at = rfc3339(value.get("timestamp"))
        self.summary.seen(at)
        session = value.get("sessionId")
        if self.summary.session_id is None and isinstance(session, str):
            self.summary.session_id = session
        self.summary.says_version(value.get("version"))
        agent = value.get("agentId")
        if self.agent_id is None and isinstance(agent, str):
            self.agent_id = agent
        kind = kind_of(value)
        message = value.get("message")
        if kind == "assistant" and isinstance(message, dict):
            self._assistant(message, line, at, value.get("costUSD"), value.get("requestId"))
        elif kind == "user" and isinstance(message, dict):
            self._user(message, line)

    def _assistant(
        self,
        message: JsonObject,
        line: int,
        at: datetime | None,
        cost: JsonValue = None,
        request: JsonValue = None,
    ) -> None:
        summary = self.summary
        model = message.get("model")
        ident = message.get("id")
        usage = message.get("usage")
        if isinstance(usage, dict):
            key = ident if isinstance(ident, str) else f"line {line}"
            counted = self.usage.setdefault(key, Usage(at=at))
            if isinstance(model, str) and model != SYNTHETIC:
                counted.model = model
            counted.input = max(counted.input, _count(usage, "input_tokens"))
            counted.output = max(counted.output, _count(usage, "output_tokens"))
            counted.cache_creation = max(
                counted.cache_creation, _count(usage, "cache_creation_input_tokens")
            )
            counted.cache_read = max(counted.cache_read, _count(usage, "cache_read_input_tokens"))
            ttl = usage.get("cache_creation")
            if isinstance(ttl, dict):
                hour = _count(ttl, "ephemeral_1h_input_tokens")
                counted.cache_creation_1h = max(counted.cache_creation_1h, hour)
            counted.cost = more_usd(counted.cost, cost)
            if counted.request is None and isinstance(request, str) and isinstance(ident, str):
                counted.request = request  # (no request id for a response of no message id)
        content = message.get("content", [])
        if not isinstance(content, str | list):
            return
        for block in _blocks(content, line, summary):
            if isinstance(block, TextBlock):
                if block.text.strip():  # a streamed response opens with blank text blocks
                    self.texts.append(block.text)
                    summary.events.append(Message(block.text, line, at))
            elif isinstance(block, ToolUseBlock):
                known = tool_key(ident, request, block.id)
                summary.call(block.name, block.input, block.id, line, at, self.pending, known)

    def _user(self, message: JsonObject, line: int) -> None:
        summary = self.summary
        content = message.get("content", [])
        if isinstance(content, str):
            if summary.prompt is None and content.strip():
                summary.prompt = content
            return
        if not isinstance(content, list):
            return
        for block in _blocks(content, line, summary):
            if isinstance(block, TextBlock):
                if summary.prompt is None and block.text.strip():
                    summary.prompt = block.text
                continue
            if not isinstance(block, ToolResultBlock):
                continue
            call = self.pending.get(block.tool_use_id)
            if call is None:
                summary.problem(line, f"tool result for {block.tool_use_id!r}, which no call made")
            elif call.result is not None:
                summary.problem(line, f"second tool result for {block.tool_use_id!r} ignored")
            else:
                call.result = result_text(block.content)
                call.is_error = bool(block.is_error)

    def close(self) -> None:
        summary = self.summary
        for ident, counted in self.usage.items():
            summary.add_usage(
                input=counted.input + counted.cache_creation + counted.cache_read,
                output=counted.output,
                cache_creation=counted.cache_creation,
                cache_read=counted.cache_read,
                model=counted.model,
                at=counted.at,
                cache_creation_1h=counted.cache_creation_1h,
                cost=counted.cost,
                key=call_key(ident, counted.request),
            )
        costs = summary.calls_cost()
        if costs is not None:  # every response recorded its cost: the stream's
            summary.cost_usd = costs
        summary.saved(self.texts)
        summary.unanswered(self.pending)


def call_key(ident: str, request: str | None) -> str | None:
    """A response's identity in any session file: its message id and its request id, when
    the lines give both (as ccusage dedupes; a message id alone is not said to be unique
    across sessions)."""
    if request is None:
        return None
    return f"{ident}\x00{request}"


def tool_key(message: JsonValue, request: JsonValue, call: JsonValue) -> str | None:
    """A tool call's identity in any session file: its response's (``call_key``) and its own
    id."""
    if isinstance(message, str) and isinstance(request, str) and isinstance(call, str):
        return f"{message}\x00{request}\x00{call}"
    return None


def more_usd(counted: float | None, value: JsonValue) -> float | None:
    """A response's recorded cost after one more of its lines (each repeats it: the largest,
    as for its token counts)."""
    usd = recorded_usd(value)
    if usd is None:
        return counted
    return usd if counted is None else max(counted, usd)


def _count(usage: dict[str, JsonValue], key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def read(path: str, summary: Summary) -> None:
    main = Reading(summary)
    children: dict[str, Reading] = {}
    """Subagents by the call that started them (or by agent id, or thread)."""
    agent_calls: dict[str, str] = {}
    threads: dict[str, str] = {}
    """Sidechain entry -> the first entry of its thread (1.0.x keeps several in the file)."""
    # a subagent's own file (``agent-<id>.jsonl``) read alone is the run it is: its sidechain
    # lines are its main thread
    alone = Path(path).name.startswith("agent-")
    for line, value in events(path, summary):
        kind = kind_of(value)
        data = value.get("data")
        if kind == "progress" and isinstance(data, dict) and data.get("type") == "agent_progress":
            inner = data.get("message")
            call = value.get("parentToolUseID")
            if isinstance(inner, dict) and isinstance(call, str):
                agent = data.get("agentId")
                if isinstance(agent, str):
                    agent_calls.setdefault(agent, call)
                child = children.setdefault(call, child_reading(summary, path, call))
                child.entry(inner, line)
            continue
        if value.get("isSidechain") is True and not alone:
            agent = value.get("agentId")
            key = agent if isinstance(agent, str) else f"thread:{thread_of(value, threads)}"
            children.setdefault(key, child_reading(summary, path, None)).entry(value, line)
            continue
        if not isinstance(kind, str) or kind not in ENTRY_TYPES:
            summary.skipped[kind if isinstance(kind, str) else "?"] += 1
            continue
        note_agent(value, agent_calls)
        main.entry(value, line)
    main.close()
    gather(path, summary, children, agent_calls, alone, _file_reading)


def _file_reading(file: Path, parent: Summary) -> Reading:
    scratch = Summary(parent.harness, str(file))
    reading = Reading(scratch)
    for line, value in events(str(file), scratch):
        reading.entry(value, line)
    return reading


def gather(
    path: str,
    summary: Summary,
    children: dict[str, Reading],
    agent_calls: dict[str, str],
    alone: bool,
    file_reading: Callable[[Path, Summary], Reading],
) -> None:
    """The end of a reading (both readers'): the subagents' own files read (``file_reading``),
    every subagent made a child of the session, linked to its call, with its own id, and the
    session's time made to cover theirs."""
    files = [] if alone else _subagent_files(path, summary.session_id)
    for file in files:
        reading = file_reading(file, summary)
        scratch = reading.summary
        call = agent_calls.get(reading.agent_id or file.stem.removeprefix("agent-"))
        # the file is the whole subagent: it replaces the echo of it in the parent's progress
        children.pop(call or "", None)
        children.pop(reading.agent_id or "", None)
        scratch.parent_call_id = call
        children[f"file:{file}"] = reading
        summary.problems.extend(scratch.problems)
    for key, reading in children.items():
        reading.close()
        agent = reading.agent_id
        if agent is None and key.startswith("file:"):
            agent = Path(key.removeprefix("file:")).stem.removeprefix("agent-")
        if agent is not None:
            reading.summary.session_id = agent  # its own id, not the parent's it repeats
        summary.children.append(reading.summary)
    _link_threads(summary)
    _own_ids(summary)
    _cover(summary)


def _own_ids(summary: Summary) -> None:
    """A subagent with no agent id of its own (1.0.x threads) is named by the session and the
    call that started it (else its place): never the parent's id, which its lines repeat."""
    for position, child in enumerate(summary.children, start=1):
        if child.session_id is not None and child.session_id != summary.session_id:
            continue
        base = summary.session_id or "session"
        tail = child.parent_call_id or f"subagent-{position}"
        child.session_id = f"{base}/{tail}"


def thread_of(value: JsonObject, threads: dict[str, str]) -> str:
    """The first entry of the sidechain thread ``value`` belongs to (by ``parentUuid``)."""
    uuid, parent = value.get("uuid"), value.get("parentUuid")
    root = threads.get(parent) if isinstance(parent, str) else None
    if root is None:
        root = uuid if isinstance(uuid, str) else "?"
    if isinstance(uuid, str):
        threads[uuid] = root
    return root


def _link_threads(summary: Summary) -> None:
    """A thread linked to no call (1.0.x) belongs to the call whose ``prompt`` is the thread's
    first user text: the Task call that started it (each call starts one thread)."""
    prompts: dict[str, list[str]] = {}
    for call in summary.tool_invocations:
        args = call.args
        prompt = args.get("prompt") if isinstance(args, dict) else None
        if isinstance(prompt, str) and call.call_id is not None:
            prompts.setdefault(prompt, []).append(call.call_id)
    taken = {child.parent_call_id for child in summary.children if child.parent_call_id}
    for child in summary.children:
        if child.parent_call_id is not None or child.prompt is None:
            continue
        free = [c for c in prompts.get(child.prompt, []) if c not in taken]
        if free:
            child.parent_call_id = free[0]
            taken.add(free[0])


def _cover(summary: Summary) -> None:
    """The session's time covers its subagents' (one may work after the main thread's last
    line)."""
    for child in summary.children:
        summary.seen(child.started_at)
        summary.seen(child.ended_at)
    summary.timed()


def child_reading(parent: Summary, path: str, call: str | None) -> Reading:
    child = Summary(parent.harness, path)
    child.parent_call_id = call
    return Reading(child)


def note_agent(value: JsonObject, agent_calls: dict[str, str]) -> None:
    """A Task call's result names the agent it ran (``toolUseResult.agentId``)."""
    result = value.get("toolUseResult")
    message = value.get("message")
    if not isinstance(result, dict) or not isinstance(message, dict):
        return
    agent = result.get("agentId")
    content = message.get("content")
    if not isinstance(agent, str) or not isinstance(content, list):
        return
    for block in content:
        if isinstance(block, dict) and isinstance(block.get("tool_use_id"), str):
            agent_calls.setdefault(agent, str(block["tool_use_id"]))


def _subagent_files(path: str, session: str | None) -> list[Path]:
    """A session's subagent files, in name order: ``<session>/subagents/agent-*.jsonl``
    (2.1.x), else the ``agent-*.jsonl`` beside it that name it as their session (2.0.x)."""
    own = Path(path)
    if own.suffix != ".jsonl":
        return []
    folder = own.with_suffix("") / "subagents"
    try:
        found = sorted(p for p in folder.glob("agent-*.jsonl") if p.is_file())
    except OSError:
        found = []
    if found:
        return found
    if session is None:
        return []
    return [own.parent / name for name in agents_beside(own.parent).get(session, ())]


_AGENTS_BESIDE: dict[tuple[str, int], dict[str, tuple[str, ...]]] = {}


def agents_beside(folder: Path) -> dict[str, tuple[str, ...]]:
    """The 2.0.x subagent files (``agent-*.jsonl``) directly in ``folder``, by the session
    their lines name (read once per state of the folder: a file's session never changes)."""
    try:
        key = (str(folder), folder.stat().st_mtime_ns)
        if key in _AGENTS_BESIDE:
            return _AGENTS_BESIDE[key]
        names = sorted(
            entry.name
            for entry in os.scandir(folder)
            if entry.name.startswith("agent-")
            and entry.name.endswith(".jsonl")
            and entry.is_file(follow_symlinks=False)
        )
    except OSError:
        return {}
    found: dict[str, list[str]] = {}
    for name in names:
        session = _session_of(folder / name)
        if session is not None:
            found.setdefault(session, []).append(name)
    result = {session: tuple(files) for session, files in found.items()}
    if len(_AGENTS_BESIDE) > 256:
        _AGENTS_BESIDE.clear()
    _AGENTS_BESIDE[key] = result
    return result


def belongs_to_a_session_beside(path: Path) -> bool:
    """Whether ``path`` is a 2.0.x subagent file whose session file lies beside it (it is
    read with that session, never as a run of its own)."""
    if not (path.name.startswith("agent-") and path.suffix == ".jsonl"):
        return False
    for session, names in agents_beside(path.parent).items():
        if path.name in names:
            return (path.parent / f"{session}.jsonl").is_file()
    return False


def _session_of(path: Path) -> str | None:
    """The ``sessionId`` the first lines of a subagent file name."""
    try:
        with path.open("rb") as stream:
            for _ in range(8):
                line = stream.readline(1 << 20)
                if not line:
                    return None
                try:
                    value = json.loads(line)
                except ValueError:
                    continue
                session = value.get("sessionId") if isinstance(value, dict) else None
                if isinstance(session, str):
                    return session
    except OSError:
        return None
    return None
