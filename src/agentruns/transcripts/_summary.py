"""What a reader takes out of one event stream, before it becomes a canonical run.

The shape follows eval-magic's transcript summary (tool invocations with ordinals, ordered
events, final text, tokens, duration, permission denials), so its tests can be checked
against ours value for value, plus what eval-magic has no place for: the problems met while
reading, the event types skipped, and whether the stream ended as the harness ends a run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, TypeAlias

from pydantic import MISSING

from agentruns._slots import usage_slot
from agentruns.derivations import _elapsed_ms
from agentruns_generated._json import JsonValue

GUARD_PREFIX = "eval guard: "
"""Refusals by eval-magic's write guard start so (its hook writes the reason this way)."""


@dataclass(slots=True)
class ToolCall:
    """One tool invocation: ``args`` is ``MISSING`` when the harness showed none, ``result``
    is ``None`` when no result was paired with the call."""

    name: str
    ordinal: int
    args: JsonValue | MISSING = MISSING
    result: str | None = None
    call_id: str | None = None
    is_error: bool = False
    line: int = 0
    at: datetime | None = None
    key: str | None = None
    """What identifies the call in any file of its harness (a resumed or forked session
    copies the calls it resumes from), where the harness says: ``stats`` counts it once."""


@dataclass(slots=True)
class Message:
    """One assistant message."""

    text: str
    line: int = 0
    at: datetime | None = None


Event = ToolCall | Message


@dataclass(frozen=True, slots=True)
class Denial:
    """A tool call the harness refused: the tool, why, and the names (never the values) of
    the arguments it was called with."""

    tool: str
    reason: str | None
    input_keys: tuple[str, ...]

    @property
    def by_guard(self) -> bool:
        return self.reason is not None and self.reason.startswith(GUARD_PREFIX)

    def as_json(self) -> dict[str, JsonValue]:
        value: dict[str, JsonValue] = {"tool": self.tool}
        if self.reason is not None:
            value["reason"] = self.reason
        value["input_keys"] = list(self.input_keys)
        return value


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong in a stream: where (``line`` 0 for the stream as a whole) and what."""

    source: str
    line: int
    message: str

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: {self.message}"


Ending = Literal["completed", "failed", "cut"]
"""How a stream ended: as the harness ends a successful run, with an error, or without the
harness's closing event (the capture was cut short)."""


CallUsage: TypeAlias = tuple[
    int | None, str | None, int, int, int, int, int, float | None, str | None, int
]
"""One model call's usage: (quarter hour, model, input, output, cache writes, cache reads,
the part of the cache writes kept an hour, what the harness recorded the call cost in USD or
None, the call's identity across files or None, reasoning)."""


@dataclass(slots=True)
class Summary:
    """One stream read: everything later steps need, in harness-neutral terms."""

    harness: str
    source: str
    session_id: str | None = None
    agent_version: str | None = None
    """The version of the agent that wrote the stream, as the stream says it (Claude Code's
    ``version``, Codex's ``cli_version``...): ATIF's ``agent.version``."""
    prompt: str | None = None
    """The first thing the user asked (session files keep it; a scripted stream does not)."""
    events: list[Event] = field(default_factory=list)
    final_text: str | None = None
    total_tokens: int | None = None
    """The total as the harness's own tools count it (what eval-magic reports); the run's
    total is derived from the kinds below when the stream gives them."""
    input_tokens: int | None = None
    """Every token read, cache included (see ``agentruns.derivations.derive_total_tokens``)."""
    output_tokens: int | None = None
    """Every token written, reasoning included."""
    cache_creation_tokens: int | None = None
    cache_read_tokens: int | None = None
    reasoning_tokens: int | None = None
    models: Counter[str] = field(default_factory=Counter)
    """Output tokens (or, without them, messages) by model."""
    usage_at: Counter[int] = field(default_factory=Counter)
    """Tokens (input plus output) of the model calls made in each quarter hour (UTC, as
    ``agentruns._slots.usage_slot`` counts): where the day of a call lies in any time zone
    (every zone's offset is a multiple of 15 minutes), so a session that runs past midnight
    books each call on its own day."""
    usage_unplaced: int = 0
    """Tokens of model calls the stream gives no time for."""
    calls_usage: list[CallUsage] = field(default_factory=list)
    """Each model call: (quarter hour, model, input, output, cache writes, cache reads, the
    part of the cache writes kept an hour), for pricing call by call (``agentruns._prices``:
    an hour's cache write costs more than five minutes')."""
    copied_from: dict[str, str] = field(default_factory=dict)
    """The calls (model and tool calls, by ``key``) the file holds as copies of another
    session's, with that session's id: a Codex fork replays its parent's history, re-stamped
    at the fork. The call happened when the other session's own file says."""
    cost_usd: float | None = None
    duration_ms: int | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    denials: list[Denial] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    """Events of a type the reader does not consume, by type (``"?"``: no type at all)."""
    ending: Ending = "cut"
    reason: str | None = None
    """Why the run did not end as completed (the harness's error, or the cut)."""

    calls: int = 0
    """Tool calls so far (the next call's ordinal)."""

    children: list[Summary] = field(default_factory=list)
    """Subagents' streams, each a run of its own (``parent_call_id`` links it)."""
    parent_call_id: str | None = None

    @property
    def main_model(self) -> str | None:
        """The model most of the stream's output came from (its run's model)."""
        return top_model(self.models)

    def add_usage(
        self,
        *,
        input: int | None = None,
        output: int | None = None,
        cache_creation: int | None = None,
        cache_read: int | None = None,
        reasoning: int | None = None,
        model: str | None = None,
        at: datetime | None = None,
        cache_creation_1h: int = 0,
        cost: float | None = None,
        key: str | None = None,
    ) -> None:
        """Count one model call's usage, in the one meaning: ``input`` every token read
        (cache included), ``output`` every token written (reasoning included); ``at``, when
        the call was made (where the stream says); ``cache_creation_1h``, the part of the
        cache writes kept for an hour (Anthropic's, priced higher), where the stream says;
        ``cost``, what the harness recorded the call cost (USD), where it says: the cost as
        the agent counts it, which ``stats`` takes before any price table's; ``key``, what
        identifies the call in any file of the harness (a Claude Code response's message and
        request ids: a resumed session copies the lines of the calls it resumes from), so
        that ``stats`` over a folder counts each call once."""
        tokens = (input or 0) + (output or 0)
        slot = usage_slot(at)
        if slot is None:
            self.usage_unplaced += tokens
        else:
            self.usage_at[slot] += tokens
        self.calls_usage.append(
            (
                slot,
                model,
                input or 0,
                output or 0,
                cache_creation or 0,
                cache_read or 0,
                min(cache_creation_1h, cache_creation or 0),
                cost,
                key,
                reasoning or 0,
            )
        )
        for name, value in (
            ("input_tokens", input),
            ("output_tokens", output),
            ("cache_creation_tokens", cache_creation),
            ("cache_read_tokens", cache_read),
            ("reasoning_tokens", reasoning),
        ):
            if value is not None:
                setattr(self, name, (getattr(self, name) or 0) + value)
        if model:
            self.models[model] += output or 0

    def calls_cost(self) -> float | None:
        """The stream's cost as its calls recorded it: their sum where every call that spent
        tokens recorded its cost; None where one did not (a sum of some calls' costs is no
        run's cost: ``stats`` prices the others from the table, call by call, and a record
        of the run states none), or no call was made. The one rule of every reader that sums
        recorded costs (Claude Code, OpenCode, pi, Cline)."""
        total: float | None = None
        for _, _, read, written, _, _, _, cost, _, _ in self.calls_usage:
            if cost is not None:
                total = (total or 0.0) + cost
            elif read or written:
                return None
        return total

    @property
    def model(self) -> str | None:
        """The model that wrote the most (the first seen, on a tie)."""
        if not self.models:
            return None
        return max(self.models.items(), key=lambda item: item[1])[0]

    def next_ordinal(self) -> int:
        self.calls += 1
        return self.calls - 1

    def call(
        self,
        name: JsonValue,
        args: JsonValue | MISSING,
        call_id: JsonValue,
        line: int,
        at: datetime | None = None,
        pending: dict[str, ToolCall] | None = None,
        key: str | None = None,
    ) -> ToolCall:
        """A tool call, next in order (a name or id that is not text is ``?``/none), kept in
        ``pending`` by its id for its result to find (an id used twice is a problem)."""
        call = ToolCall(
            name=name if isinstance(name, str) else "?",
            ordinal=self.next_ordinal(),
            args=args,
            call_id=call_id if isinstance(call_id, str) else None,
            line=line,
            at=at,
            key=key,
        )
        self.events.append(call)
        if pending is not None and call.call_id is not None:
            if call.call_id in pending:
                self.problem(line, f"tool call id {call.call_id!r} used twice")
            pending[call.call_id] = call
        return call

    @property
    def tool_invocations(self) -> list[ToolCall]:
        return [event for event in self.events if isinstance(event, ToolCall)]

    def problem(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.source, line, message))

    def says_version(self, version: object) -> None:
        """The agent's version, from the first value that is one (a non-empty text)."""
        if self.agent_version is None and isinstance(version, str) and version:
            self.agent_version = version

    def timed(self) -> None:
        """The run's duration: the time its events span, where they have times."""
        if self.started_at is not None and self.ended_at is not None:
            self.duration_ms = _elapsed_ms(self.started_at, self.ended_at)

    def saved(self, texts: list[str]) -> None:
        """A session file read to its end: it has no closing event (an agent saves one as it
        goes), so its end is its last event. The run completed, its answer is the last text
        the agent said, its time is what its events span (a call still waiting for its result
        is ``unanswered``'s)."""
        self.final_text = texts[-1] if texts else None
        self.timed()
        self.ending = "completed"

    def unanswered(self, pending: dict[str, ToolCall]) -> None:
        """A problem for each call of ``pending`` that no result answered."""
        for call in pending.values():
            if call.result is None:
                self.problem(call.line, f"tool call {call.call_id!r} ({call.name}) has no result")

    def seen(self, at: datetime | None) -> None:
        """Widen the run's time span to include ``at`` (streams are not always in order)."""
        if at is None:
            return
        if self.started_at is None or at < self.started_at:
            self.started_at = at
        if self.ended_at is None or at > self.ended_at:
            self.ended_at = at


def top_model(models: Counter[str]) -> str | None:
    """The model most output came from (the first such, on a tie): a run's model."""
    if not models:
        return None
    return max(models.items(), key=lambda item: item[1])[0]
