"""Claude Code session files read at about the JSON parser's speed.

A history is thousands of sessions, and the first reader of them (``_claude_session``) paid
some microseconds of Python per line: each content block validated as a model, each entry
through several layers. This one reads the same lines into the same ``Summary``, by the same
rules (it shares their code where the code is not per line), with the block models asked only
about a block the plain checks refuse (for the problem's words). Whatever it is not sure to
read as the first reader would (a line that is no JSON object, an ``is_error`` the models
would coerce, a file too large to hold at once) raises ``Unusual``, and the first reader
reads the file. That reader is the oracle of a property test (``tests/test_claude_light.py``):
over generated and real sessions, both give the same transcript.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path

from pydantic import MISSING, ValidationError
from pydantic_core import from_json

from agentruns._read import up_to
from agentruns.io import MAX_RECORD_SIZE
from agentruns.transcripts._claude import _BLOCK, result_text
from agentruns.transcripts._claude_session import (
    ENTRY_TYPES,
    SYNTHETIC,
    Reading,
    Usage,
    child_reading,
    gather,
    kind_of,
    more_usd,
    note_agent,
    thread_of,
    tool_key,
)
from agentruns.transcripts._stream import PEEK, JsonObject, opens_a_document, rfc3339
from agentruns.transcripts._summary import Message, Summary
from agentruns_generated._json import JsonValue

__all__ = ["Unusual", "lines", "read"]

_BOM = b"\xef\xbb\xbf"

_HELD = 64 << 20
"""Largest file read at once (a larger one is read by the full reader, line by line)."""


class Unusual(Exception):
    """The light reader met what only the full reader reads (the caller uses it instead)."""


def head(path: str) -> bytes:
    """What ``lines`` reads of a file: all of it, up to one byte past the most it reads."""
    with open(path, "rb", buffering=0) as stream:
        return up_to(stream, _HELD)


def lines(path: str, data: bytes | None = None) -> Iterator[tuple[int, JsonObject]]:
    """Each JSON object of a JSON Lines file with its line number, as the full reader's
    ``events`` gives them when every line is an object; ``Unusual`` at anything else.
    ``data``: the file's ``head``, when it was read already."""
    if data is None:
        data = head(path)
    if len(data) > _HELD or opens_a_document(data[:PEEK]):
        raise Unusual(path)
    for number, line in enumerate(data.split(b"\n"), start=1):
        # split at newlines, a line ends in none; a carriage return is stripped where there
        # is one (``rstrip`` would copy every line, tool results of megabytes included)
        body = line.rstrip(b"\r") if line.endswith(b"\r") else line
        if number == 1 and body.startswith(_BOM):
            body = body[len(_BOM) :]
        if not body or body.isspace():
            continue
        if len(body) > MAX_RECORD_SIZE:
            raise Unusual(path)
        try:
            # keys cached (a session repeats a few dozen), values not: the same values, made
            # faster (caching every short string costs more than it saves here)
            value = from_json(body, allow_inf_nan=False, cache_strings="keys")
        except ValueError:
            raise Unusual(path) from None
        if not isinstance(value, dict):
            raise Unusual(path)
        yield number, value


def _json(value: object) -> bool:
    """Whether a parsed value is a JSON value to the models: the parser makes a number beyond
    a double infinite, which they refuse (and the full reader then skips the block)."""
    if isinstance(value, str):
        return True
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, float):
            if item in _INFINITE:
                return False
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return True


_INFINITE = (float("inf"), float("-inf"))


def _result_block(block: JsonObject) -> str | None:
    """The id a ``tool_result`` block answers, or None for a block the models refuse."""
    ident, failed = block.get("tool_use_id"), block.get("is_error")
    if failed is not None and not isinstance(failed, bool):
        raise Unusual("is_error of another type")  # (the models' lax bool decides)
    if isinstance(ident, str) and _json(block.get("content")):
        return ident
    return None


def _refused(block: JsonObject, line: int, summary: Summary) -> None:
    """The problem the first reader notes for a block its models refuse, in its words (asked
    of the models themselves: only a refused block pays for it)."""
    try:
        _BLOCK.validate_python(block)
    except ValidationError as error:
        kind = block.get("type")
        summary.problem(line, f"{kind!r} block skipped: {error.errors()[0]['msg']}")
        return
    raise Unusual("a block the models accept and this reader does not")


class _LightReading(Reading):
    """``Reading`` with its per-line work done without models (same rules, same order)."""

    refusals_at = 0
    """Where the problem of the next block of the message being read that the models refuse
    goes: the first reader validates a message's blocks before it reads any, so its
    refusals come before what reading the others finds (a call id used twice, a result no
    call made)."""

    def _refuse(self, block: JsonObject, line: int) -> None:
        problems = self.summary.problems
        _refused(block, line, self.summary)
        problems.insert(self.refusals_at, problems.pop())
        self.refusals_at += 1

    def entry(self, value: JsonObject, line: int) -> None:
        uuid = value.get("uuid")
        if uuid.__class__ is str:
            seen = self.seen
            if uuid in seen:
                return
            seen.add(uuid)
        at = rfc3339(value.get("timestamp"))
        summary = self.summary
        if at is not None:
            if summary.started_at is None or at < summary.started_at:
                summary.started_at = at
            if summary.ended_at is None or at > summary.ended_at:
                summary.ended_at = at
        if summary.session_id is None:
            session = value.get("sessionId")
            if isinstance(session, str):
                summary.session_id = session
        if summary.agent_version is None:
            summary.says_version(value.get("version"))
        if self.agent_id is None and "agentId" in value:
            agent = value["agentId"]
            if isinstance(agent, str):
                self.agent_id = agent
        kind = value.get("type")
        if kind is None:
            kind = kind_of(value)
        message = value.get("message")
        if not isinstance(message, dict):
            return
        if kind == "assistant":
            self._assistant(message, line, at, value.get("costUSD"), value.get("requestId"))
        elif kind == "user":
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
        usage = message.get("usage")
        if isinstance(usage, dict):
            ident = message.get("id")
            key = ident if isinstance(ident, str) else f"line {line}"
            counted = self.usage.get(key)
            if counted is None:
                counted = self.usage[key] = Usage(at=at)
            model = message.get("model")
            if isinstance(model, str) and model != SYNTHETIC:
                counted.model = model
            n = usage.get("input_tokens")
            if n.__class__ is int and n > counted.input:
                counted.input = n
            n = usage.get("output_tokens")
            if n.__class__ is int and n > counted.output:
                counted.output = n
            n = usage.get("cache_creation_input_tokens")
            if n.__class__ is int and n > counted.cache_creation:
                counted.cache_creation = n
            n = usage.get("cache_read_input_tokens")
            if n.__class__ is int and n > counted.cache_read:
                counted.cache_read = n
            ttl = usage.get("cache_creation")
            if isinstance(ttl, dict):
                n = ttl.get("ephemeral_1h_input_tokens")
                if n.__class__ is int and n > counted.cache_creation_1h:
                    counted.cache_creation_1h = n
            if cost is not None:
                counted.cost = more_usd(counted.cost, cost)
            if counted.request is None and request.__class__ is str and ident.__class__ is str:
                counted.request = request
        content = message.get("content", [])
        if isinstance(content, str):
            self._text(content, line, at)
            return
        if not isinstance(content, list):
            return
        self.refusals_at = len(summary.problems)
        for block in content:
            if not isinstance(block, dict):
                summary.skipped["block:?"] += 1
                continue
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if isinstance(text, str):
                    self._text(text, line, at)
                else:
                    self._refuse(block, line)
            elif kind == "tool_use":
                name, ident = block.get("name"), block.get("id")
                args = block.get("input", MISSING)
                if (
                    isinstance(name, str)
                    and (ident is None or isinstance(ident, str))
                    and (args is MISSING or _json(args))
                ):
                    known = tool_key(message.get("id"), request, ident)
                    summary.call(name, args, ident, line, at, self.pending, known)
                else:
                    self._refuse(block, line)
            elif kind == "tool_result":  # no part of what an assistant says, when valid
                if _result_block(block) is None:
                    self._refuse(block, line)
            else:
                summary.skipped[f"block:{kind}" if isinstance(kind, str) else "block:?"] += 1

    def _text(self, text: str, line: int, at: datetime | None) -> None:
        if text and not text.isspace():  # (``text.strip()`` without a copy of the text)
            self.texts.append(text)
            self.summary.events.append(Message(text, line, at))

    def _user(self, message: JsonObject, line: int) -> None:
        summary = self.summary
        content = message.get("content", [])
        if isinstance(content, str):
            if summary.prompt is None and content and not content.isspace():
                summary.prompt = content
            return
        if not isinstance(content, list):
            return
        self.refusals_at = len(summary.problems)
        for block in content:
            if not isinstance(block, dict):
                summary.skipped["block:?"] += 1
                continue
            kind = block.get("type")
            if kind == "tool_result":
                ident = _result_block(block)
                if ident is None:
                    self._refuse(block, line)
                    continue
                call = self.pending.get(ident)
                if call is None:
                    summary.problem(line, f"tool result for {ident!r}, which no call made")
                elif call.result is not None:
                    summary.problem(line, f"second tool result for {ident!r} ignored")
                else:
                    call.result = result_text(block.get("content", MISSING))
                    call.is_error = block.get("is_error") is True
            elif kind == "text":
                text = block.get("text")
                if not isinstance(text, str):
                    self._refuse(block, line)
                elif summary.prompt is None and text and not text.isspace():
                    summary.prompt = text
            elif kind == "tool_use":  # no part of what the user says, when valid
                name, called = block.get("name"), block.get("id")
                args = block.get("input", MISSING)
                if not (
                    isinstance(name, str)
                    and (called is None or isinstance(called, str))
                    and (args is MISSING or _json(args))
                ):
                    self._refuse(block, line)
            else:
                summary.skipped[f"block:{kind}" if isinstance(kind, str) else "block:?"] += 1


def read(
    path: str, summary: Summary, entries: Iterable[tuple[int, JsonObject]] | None = None
) -> None:
    """``_claude_session.read``, light; ``Unusual`` when the full reader must read it.
    ``entries``: the file's ``lines`` when they were begun already (to recognize the file)."""
    main = _LightReading(summary)
    children: dict[str, Reading] = {}
    agent_calls: dict[str, str] = {}
    threads: dict[str, str] = {}
    alone = Path(path).name.startswith("agent-")
    for line, value in lines(path) if entries is None else entries:
        kind = value.get("type")
        if kind is None:
            kind = kind_of(value)
        data = value.get("data") if kind == "progress" else None
        if data.__class__ is dict and data.get("type") == "agent_progress":
            assert isinstance(data, dict)
            inner = data.get("message")
            call = value.get("parentToolUseID")
            if isinstance(inner, dict) and isinstance(call, str):
                agent = data.get("agentId")
                if isinstance(agent, str):
                    agent_calls.setdefault(agent, call)
                child = children.get(call)
                if child is None:
                    child = children[call] = _light_child(summary, path, call)
                child.entry(inner, line)
            continue
        if "isSidechain" in value and value["isSidechain"] is True and not alone:
            agent = value.get("agentId")
            key = agent if isinstance(agent, str) else f"thread:{thread_of(value, threads)}"
            child = children.get(key)
            if child is None:
                child = children[key] = _light_child(summary, path, None)
            child.entry(value, line)
            continue
        if not isinstance(kind, str) or kind not in ENTRY_TYPES:
            summary.skipped[kind if isinstance(kind, str) else "?"] += 1
            continue
        if "toolUseResult" in value:
            note_agent(value, agent_calls)
        main.entry(value, line)
    main.close()
    gather(path, summary, children, agent_calls, alone, _file_reading)


def _file_reading(file: Path, parent: Summary) -> Reading:
    reading = _LightReading(Summary(parent.harness, str(file)))
    for line, value in lines(str(file)):
        reading.entry(value, line)
    return reading


def _light_child(parent: Summary, path: str, call: str | None) -> _LightReading:
    reading = child_reading(parent, path, call)
    return _LightReading(reading.summary)
