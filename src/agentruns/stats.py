"""What a person wants to see first about a set of runs, in bounded memory.

Counts are exact: runs by format and status, runs per agent, calls and failures per tool
(agents and tools beyond ``MAX_KEYS`` distinct names are counted together as ``(other)``, so
memory stays bounded whatever the input). Duration and token percentiles come from a
``Sketch``: a log-bucketed histogram (the DDSketch construction) whose quantiles are within
1% of the exact value (relative), in at most a few thousand buckets, and which merges
exactly, so parts computed apart (workers, Dask partitions) add up to the whole.
"""

from __future__ import annotations

import math
from base64 import urlsafe_b64encode
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, tzinfo
from hashlib import blake2b
from typing import TYPE_CHECKING

from agentruns import derivations, pipeline
from agentruns._slots import USAGE_SLOT
from agentruns.batch import read_run
from agentruns.canonical import Run
from agentruns.io import Raw
from agentruns.pipeline import Candidate, NotRead, Outcome, SessionStep, Stream, session_items
from agentruns_generated._json import JsonValue

if TYPE_CHECKING:
    from agentruns._facts_cache import FactsCache
    from agentruns.transcripts import Transcript
    from agentruns.transcripts._summary import CallUsage, Summary

__all__ = [
    "EXACT",
    "MAX_KEYS",
    "OTHER",
    "TOKEN_KINDS",
    "LargeRun",
    "RunFacts",
    "RunStats",
    "Sketch",
    "add_sessions",
    "render",
    "stats_document",
]


MAX_KEYS = 10_000
"""Distinct agent ids and tool names counted by name; the rest are ``(other)``."""
OTHER = "(other)"
_QUANTILES = (0.5, 0.9, 0.99)


EXACT = 4096
"""Up to this many values a sketch also keeps them all, and its quantiles are exact."""


class Sketch:
    """Quantiles of non-negative numbers: exact up to ``EXACT`` values, then within
    ``accuracy`` (relative), in bounded memory."""

    def __init__(self, accuracy: float = 0.01) -> None:
        self.accuracy = accuracy
        self._gamma = (1 + accuracy) / (1 - accuracy)
        self._log_gamma = math.log(self._gamma)
        self.buckets: Counter[int] = Counter()
        self.zeros = 0
        self.count = 0
        self.minimum: float | None = None
        self.maximum: float | None = None
        self.integral = True
        self.values: list[float] | None = []

    def add(self, value: float) -> None:
        if value < 0 or (isinstance(value, float) and math.isnan(value)):
            return  # durations and tokens are not negative; such a value is left out
        self.integral = self.integral and isinstance(value, int)
        self.count += 1
        if self.values is not None:
            self.values.append(value)
            if len(self.values) > EXACT:
                self.values = None
        self.minimum = value if self.minimum is None else min(self.minimum, value)
        self.maximum = value if self.maximum is None else max(self.maximum, value)
        if value == 0:
            self.zeros += 1
        else:
            self.buckets[math.ceil(math.log(value) / self._log_gamma)] += 1

    def merge(self, other: Sketch) -> None:
        self.buckets.update(other.buckets)
        self.zeros += other.zeros
        self.count += other.count
        self.integral = self.integral and other.integral
        if self.values is not None and other.values is not None:
            self.values += other.values
            if len(self.values) > EXACT:
                self.values = None
        else:
            self.values = None
        for bound in (other.minimum, other.maximum):
            if bound is not None:
                self.minimum = bound if self.minimum is None else min(self.minimum, bound)
                self.maximum = bound if self.maximum is None else max(self.maximum, bound)

    def quantile(self, q: float) -> float | None:
        """The nearest-rank ``q`` quantile (the smallest value with at least ``q`` of the
        values at or below it), within the sketch's accuracy; whole numbers when every
        value added was one."""
        if not self.count:
            return None
        target = max(1, math.ceil(q * self.count))
        if self.values is not None:
            return sorted(self.values)[target - 1]
        if target <= self.zeros:
            return 0
        seen = self.zeros
        estimate = self.maximum
        for index in sorted(self.buckets):
            seen += self.buckets[index]
            if seen >= target:
                try:
                    estimate = 2 * self._gamma**index / (self._gamma + 1)
                except OverflowError:  # past a float (an integer count of 10**400): the maximum
                    estimate = self.maximum
                break
        if estimate is None:
            return None
        low = self.minimum if self.minimum is not None else estimate
        high = self.maximum if self.maximum is not None else estimate
        estimate = min(max(estimate, low), high)
        return round(estimate) if self.integral else estimate

    def summary(self) -> dict[str, JsonValue]:
        found: dict[str, JsonValue] = {"count": self.count, "min": self.minimum}
        for q in _QUANTILES:
            found[f"p{round(q * 100)}"] = self.quantile(q)
        found["max"] = self.maximum
        return found


def _bounded(counter: Counter[str], key: str, amount: int = 1) -> None:
    if key in counter or len(counter) < MAX_KEYS:
        counter[key] += amount
    else:
        counter[OTHER] += amount


KeyedCall = tuple[str, int | None, str | None, str, int, int, int, int, int, float | None, bool]
"""A model call a harness identifies across files, as ``RunFacts`` counts it: (its identity,
its quarter hour (None: booked when the run started), its model, the model its tokens are
booked under, input, output, cache writes, cache reads, reasoning, its cost (None:
unpriced), whether a subagent made it)."""


@dataclass
class RunFacts:
    """The few facts of one run the statistics need (small: sent from worker processes)."""

    format: str
    status: str | None
    agent: str | None
    duration_ms: int | None
    tokens: int | None
    tools: list[tuple[str, bool]]
    """(name, failed) of each tool call."""
    model: str | None = None
    day: str | None = None
    """The UTC date the run started (``YYYY-MM-DD``)."""
    kinds: dict[str, int] = field(default_factory=dict)
    """Tokens by kind (input, output, cache_creation, cache_read, reasoning), where known."""
    started: float | None = None
    """When the run started (seconds since the epoch): its day in any time zone."""
    usage: list[tuple[int, int]] = field(default_factory=list)
    """(quarter hour, tokens) of the model calls, where the source says when each was made
    (``agentruns._slots``): each call's tokens are booked on its own day."""
    subagent_tokens: int | None = None
    """Of ``tokens``, what the run's subagents spent (None: the run started none)."""
    cost: list[tuple[int | None, str, float]] = field(default_factory=list)
    """USD by (quarter hour, model) of the run's model calls, where they were priced."""
    unpriced: dict[str, int] = field(default_factory=dict)
    """Tokens of calls the price table has no price for, by model."""
    prices: str | None = None
    """Where the prices came from (``genai-prices 0.2.3``); None: the run was not priced."""
    models: dict[str, int] = field(default_factory=dict)
    """Tokens by model of a run whose subagents ran on models of their own (each run's tokens
    under its model, as every format keeps it: a session folder and its imported runs count
    alike); empty: all of ``tokens`` is ``model``'s."""
    run_id: str | None = None
    """The run's id (a session file's session id), for the view of the largest runs."""
    calls: list[KeyedCall] = field(default_factory=list)
    """The model calls a session's harness identifies in any of its files (a resumed Claude
    Code session copies the lines of the calls it resumes from), with what each counts for
    in the facts above: ``RunStats`` counts each such call once, in the first run it meets
    it in."""
    tool_calls: list[tuple[str, str, bool]] = field(default_factory=list)
    """The tool calls of ``tools`` a harness identifies across files: (identity, name,
    failed), counted once as the model calls are."""
    copied: dict[str, list[str]] = field(default_factory=dict)
    """The identities of ``calls`` and ``tool_calls`` the file holds as copies of another
    session's (a Codex fork replays its parent's history, re-stamped at the fork), by that
    session's id: made when that session's own file says, not when the copy says."""

    @classmethod
    def of(cls, run: Run, fmt: str) -> RunFacts:
        """A run's facts; its subagents' tools and tokens counted with its own (each
        subagent is a run of its own, with its own usage: the sum is what the run spent)."""
        runs = [run, *_subagents(run)]
        tools = [
            (
                step.name if isinstance(step.name, str) else "(unnamed)",
                derivations.step_failed(step),
            )
            for one in runs
            for step in (one.steps if isinstance(one.steps, tuple) else ())
            if step.kind == "tool_call"
        ]
        model = run.model if isinstance(run.model, str) else None
        facts = cls.of_streams(
            fmt,
            runs,
            tools,
            [derivations.total_tokens(one) for one in runs],
            [one.model if isinstance(one.model, str) else model for one in runs],
            status=derivations.status(run),
            agent=_agent(run),
            duration_ms=derivations.duration_ms(run),
            started_at=run.started_at,
            run_id=run.run_id if isinstance(run.run_id, str) else None,
        )
        facts._recorded_cost(run)
        return facts

    @classmethod
    def of_streams(
        cls,
        fmt: str,
        streams: Sequence[object],
        tools: list[tuple[str, bool]],
        totals: list[int | None],
        models: list[str | None],
        *,
        status: str | None,
        agent: str | None,
        duration_ms: int | None,
        started_at: object,
        run_id: str | None,
    ) -> RunFacts:
        """The facts of a run and the runs it started (``streams``, the run first, each with
        its ``<kind>_tokens``), given their tool calls, each one's total tokens and model
        (the run's where it names none), and the run's own values. ``of`` gives it a run;
        ``stats`` gives it a session's streams read in one pass (``_round_facts``)."""
        kinds: Counter[str] = Counter()
        for one in streams:
            for kind in TOKEN_KINDS:
                value = getattr(one, f"{kind}_tokens")
                if isinstance(value, int) and value >= 0:
                    kinds[kind] += value
        by_model: Counter[str] = Counter()
        if len(streams) > 1:
            for named, spent_here in zip(models, totals, strict=True):
                by_model[named if named is not None else "(none)"] += spent_here or 0
        spent = [n for n in totals if n is not None]
        return cls(
            format=fmt,
            status=status,
            agent=agent,
            duration_ms=duration_ms,
            tokens=sum(spent) if spent else None,
            tools=tools,
            model=models[0],
            day=_day_of(started_at),
            kinds=dict(kinds),
            started=_epoch(started_at),
            subagent_tokens=sum(n or 0 for n in totals[1:]) if len(streams) > 1 else None,
            models=dict(by_model),
            run_id=run_id,
        )

    def _recorded_cost(self, run: Run) -> None:
        """The cost the run states (``cost_usd``), and each subagent that states its own,
        booked when each started, under its model: the cost as the agent counted it. A
        subagent that states none is covered by the nearest run above it that does (a
        session's total is the session's, its subagents' calls included); the tokens of a
        run neither states nor covers are unpriced (unknown, never free). Nothing when no
        run states a cost."""
        from agentruns._prices import RECORDED, recorded_usd

        cost: dict[tuple[int | None, str], float] = {}
        unpriced: dict[str, int] = {}
        pending: list[tuple[Run, bool]] = [(run, False)]
        while pending:
            one, covered = pending.pop()
            named = one.model if isinstance(one.model, str) else run.model
            model = named if isinstance(named, str) else "(none)"
            usd = recorded_usd(one.cost_usd)
            if usd is not None:
                started = _epoch(one.started_at)
                started = self.started if started is None else started
                key = (None if started is None else int(started // USAGE_SLOT), model)
                cost[key] = cost.get(key, 0.0) + usd
            elif not covered and (spent := derivations.total_tokens(one)):
                unpriced[model] = unpriced.get(model, 0) + spent
            if isinstance(one.subagents, tuple):
                pending.extend((child, covered or usd is not None) for child in one.subagents)
        if cost:
            self.prices, self.unpriced = RECORDED, unpriced
            ordered = sorted(cost.items(), key=lambda item: (item[0][0] or 0, item[0][1]))
            self.cost = [(slot, model, usd) for (slot, model), usd in ordered]

    def as_json(self) -> dict[str, object]:
        """The facts as a JSON object (tuples as lists, when dumped): a shallow view, not the
        deep copy ``dataclasses.asdict`` makes of every list and tuple (a cache of a thousand
        sessions spent a third of a second in it)."""
        return {name: getattr(self, name) for name in _FACT_NAMES}

    @classmethod
    def from_json(cls, value: dict[str, object]) -> RunFacts:
        """The facts from their JSON (``as_json`` dumped): tuples come back as lists."""
        tools = value.get("tools")
        usage = value.get("usage", [])
        if not isinstance(tools, list) or not isinstance(usage, list):
            raise TypeError("tools and usage are lists")
        value["tools"] = [(str(name), bool(failed)) for name, failed in tools]
        value["usage"] = [(int(slot), int(tokens)) for slot, tokens in usage]
        cost = value.get("cost", [])
        if not isinstance(cost, list):
            raise TypeError("cost is a list")
        value["cost"] = [
            (None if slot is None else int(slot), str(model), float(usd))
            for slot, model, usd in cost
        ]
        calls = value.get("calls", [])
        if not isinstance(calls, list):
            raise TypeError("calls is a list")
        value["calls"] = [
            (
                str(key),
                None if slot is None else int(slot),
                None if model is None else str(model),
                str(named),
                int(read),
                int(written),
                int(created),
                int(cached),
                int(thought),
                None if usd is None else float(usd),
                bool(subagent),
            )
            for (
                key,
                slot,
                model,
                named,
                read,
                written,
                created,
                cached,
                thought,
                usd,
                subagent,
            ) in calls
        ]
        tool_calls = value.get("tool_calls", [])
        if not isinstance(tool_calls, list):
            raise TypeError("tool_calls is a list")
        value["tool_calls"] = [
            (str(key), str(name), bool(failed)) for key, name, failed in tool_calls
        ]
        copied = value.get("copied", {})
        if not isinstance(copied, dict):
            raise TypeError("copied is an object")
        value["copied"] = {
            str(session): [str(one) for one in ids] for session, ids in copied.items()
        }
        return cls(**value)  # type: ignore[arg-type]


_FACT_NAMES = tuple(f.name for f in fields(RunFacts))


def _without(
    facts: RunFacts, calls: list[KeyedCall], tool_calls: list[tuple[str, str, bool]]
) -> RunFacts:
    """The facts less what ``calls`` and ``tool_calls`` (counted already, in another run)
    count for in them."""
    tools = list(facts.tools)
    for _, name, failed in tool_calls:
        if (name, failed) in tools:
            tools.remove((name, failed))
    start = int(facts.started // USAGE_SLOT) if facts.started is not None else None
    kinds = dict(facts.kinds)
    usage = dict(facts.usage)
    models = dict(facts.models)
    cost = {(slot, model): usd for slot, model, usd in facts.cost}
    unpriced = dict(facts.unpriced)
    tokens = subagents = 0
    for _, slot, model, named, read, written, created, cached, thought, usd, subagent in calls:
        spent = read + written
        tokens += spent
        subagents += spent if subagent else 0
        for kind, amount in (
            ("input", read),
            ("output", written),
            ("cache_creation", created),
            ("cache_read", cached),
            ("reasoning", thought),
        ):
            if amount and kind in kinds:
                kinds[kind] -= amount
        at = start if slot is None else slot
        if spent and at in usage:
            usage[at] -= spent
            if usage[at] <= 0:
                del usage[at]
        if spent and named in models:
            models[named] -= spent
            if models[named] <= 0:
                del models[named]
        place = (at, model or "(none)")
        if usd is not None and place in cost:
            cost[place] -= usd
        elif usd is None and spent and place[1] in unpriced:
            unpriced[place[1]] -= spent
            if unpriced[place[1]] <= 0:
                del unpriced[place[1]]
    return replace(
        facts,
        tokens=None if facts.tokens is None else max(facts.tokens - tokens, 0),
        kinds=kinds,
        usage=sorted(usage.items()),
        models=models,
        cost=[(slot, model, usd) for (slot, model), usd in cost.items()],
        unpriced=unpriced,
        subagent_tokens=(
            None if facts.subagent_tokens is None else max(facts.subagent_tokens - subagents, 0)
        ),
        calls=[],
        tools=tools,
        tool_calls=[],
    )


def _agent(run: Run) -> str | None:
    """The agent a run is counted under: its id, else its framework (a session is its
    harness's; a journal, whose agent is optional, carries the framework it was imported
    from), so that a session folder and its runs imported into any format count alike."""
    if isinstance(run.agent_id, str):
        return run.agent_id
    return run.framework if isinstance(run.framework, str) else None


def _subagents(run: Run) -> list[Run]:
    """Every run the run started, and theirs, depth first."""
    found: list[Run] = []
    pending = list(run.subagents) if isinstance(run.subagents, tuple) else []
    pending.reverse()
    while pending:
        sub = pending.pop()
        found.append(sub)
        if isinstance(sub.subagents, tuple):
            pending.extend(reversed(sub.subagents))
    return found


def _epoch(at: object) -> float | None:
    from datetime import datetime

    if not isinstance(at, datetime) or at.utcoffset() is None:
        return None
    try:
        return at.timestamp()
    except (OverflowError, OSError, ValueError):
        return None


TOKEN_KINDS = ("input", "output", "cache_creation", "cache_read", "reasoning")
"""The kinds of tokens the canonical run keeps apart (``<kind>_tokens``)."""


def _day(run: Run) -> str | None:
    return _day_of(run.started_at)


def _day_of(start: object) -> str | None:
    """The UTC date of a run that started at ``start`` (None: no time)."""
    from datetime import UTC, datetime

    if not isinstance(start, datetime) or start.tzinfo is None:
        return None
    try:
        return start.astimezone(UTC).date().isoformat()
    except OverflowError:
        # a valid time whose UTC day lies outside what Python's date holds: 0001-01-01 with
        # a positive offset is still 0000-12-31 in UTC, 9999-12-31 with a negative one
        # already 10000-01-01
        offset = start.utcoffset()
        return "0000-12-31" if offset is not None and offset.total_seconds() > 0 else "10000-01-01"


def _name(value: object) -> str:
    return value if isinstance(value, str) else "(unnamed)"


@dataclass(frozen=True, slots=True)
class LargeRun:
    """One run of the view of the largest runs (its tokens and cost in the report's range)."""

    tokens: int
    run_id: str
    day: str
    """The day it started, in the report's zone."""
    agent: str
    model: str
    usd: float | None
    """What its model calls cost; None when any of its tokens has no price (or the price
    table is not installed)."""

    def as_json(self) -> dict[str, JsonValue]:
        return {
            "run_id": self.run_id,
            "day": self.day,
            "agent": self.agent,
            "model": self.model,
            "tokens": self.tokens,
            "usd": None if self.usd is None else round(self.usd, 6),
        }


def _largest_first(run: LargeRun) -> tuple[int, str, str, str, str, float]:
    """Most tokens first; ties in a total order, so parts merged in any order agree."""
    return (
        -run.tokens,
        run.run_id,
        run.day,
        run.agent,
        run.model,
        -1.0 if run.usd is None else run.usd,
    )


@dataclass
class RunStats:
    """Statistics over runs, added one by one or merged part by part.

    Days are days in ``timezone`` (None: this machine's zone). A run's tokens are booked on
    the day each model call was made where its source says (session files), else on the day
    it started. With ``since``/``until`` (``YYYY-MM-DD`` in that zone, inclusive) only what
    happened in the range is booked by day, and a run with nothing in the range is left out.
    """

    timezone: tzinfo | None = None
    since: str | None = None
    until: str | None = None
    runs: int = 0
    rejected: int = 0
    by_format_status: Counter[tuple[str, str]] = field(default_factory=Counter)
    agents: Counter[str] = field(default_factory=Counter)
    tool_calls: Counter[str] = field(default_factory=Counter)
    tool_failures: Counter[str] = field(default_factory=Counter)
    duration_ms: Sketch = field(default_factory=Sketch)
    tokens: Sketch = field(default_factory=Sketch)
    tokens_by_kind: Counter[str] = field(default_factory=Counter)
    tokens_by_model: Counter[str] = field(default_factory=Counter)
    runs_by_model: Counter[str] = field(default_factory=Counter)
    tokens_by_day: Counter[str] = field(default_factory=Counter)
    runs_by_day: Counter[str] = field(default_factory=Counter)
    """Runs with tokens booked on the day (or, without any, started on it)."""
    subagent_tokens: int = 0
    cost_by_model: dict[str, float] = field(default_factory=dict)
    """USD by model, of the runs priced."""
    cost_by_day: dict[str, float] = field(default_factory=dict)
    unpriced: Counter[str] = field(default_factory=Counter)
    """Tokens no price was found for, by model."""
    priced_runs: int = 0
    unpriced_runs: int = 0
    """Runs of session files read without a price table (the ``cost`` extra missing)."""
    prices: set[str] = field(default_factory=set)
    counted_calls: set[str] = field(default_factory=set)
    """The identities of the model and tool calls counted (``RunFacts.calls``,
    ``tool_calls``): a call met again in another session's file (copied by a resume, replayed
    by a fork) is not counted again. Grows with the calls of such sessions, as every reader
    that dedupes them (ccusage) does. ``merge`` takes the other part's, but cannot take back
    a call both parts counted: parts merged are parts of a history that share no call."""
    unopened_sessions: set[str] = field(default_factory=set)
    """The sessions whose own files were left unopened as last modified before the range
    (``--since``): a call another file holds a copy of (``RunFacts.copied``) was made in
    such a session before the range, and is not counted in it."""
    keep_largest: int = 10
    """How many of the largest runs (by tokens) are kept for their view: memory stays bounded
    however many runs are added."""
    largest: list[LargeRun] = field(default_factory=list)
    """The largest runs so far, largest first (at most ``keep_largest``)."""

    def _before_range(self, facts: RunFacts) -> set[str]:
        """The calls of ``facts`` copied from a session whose own file was left unopened
        as last modified before the range: made then, not when the copy says."""
        unopened = self.unopened_sessions
        if not facts.copied or not unopened:
            return set()
        return {one for session, ids in facts.copied.items() if session in unopened for one in ids}

    def add(self, facts: RunFacts) -> None:
        if facts.calls or facts.tool_calls:
            counted = self.counted_calls
            before = self._before_range(facts)
            again = [call for call in facts.calls if call[0] in counted or call[0] in before]
            tools_again = [
                tool for tool in facts.tool_calls if tool[0] in counted or tool[0] in before
            ]
            counted.update(call[0] for call in facts.calls)
            counted.update(tool[0] for tool in facts.tool_calls)
            if again or tools_again:
                facts = _without(facts, again, tools_again)
        started = self._day(facts.started) if facts.started is not None else None
        start = started or facts.day or "(none)"
        booked: Counter[str] = Counter()
        if facts.usage:
            for slot, tokens in facts.usage:
                booked[self._day(slot * USAGE_SLOT) or start] += tokens
        else:
            booked[start] += facts.tokens or 0
        if self.since is not None or self.until is not None:
            booked = Counter({day: n for day, n in booked.items() if self._within(day)})
            if not booked and not self._within(start):
                return  # nothing of the run happened in the range
        self.runs += 1
        self.tokens_by_kind.update(facts.kinds)
        for model, tokens in (facts.models or {facts.model or "(none)": facts.tokens or 0}).items():
            _bounded(self.runs_by_model, model)
            _bounded(self.tokens_by_model, model, tokens)
        self.subagent_tokens += facts.subagent_tokens or 0
        for day in booked or (start,):
            _bounded(self.runs_by_day, day)
            _bounded(self.tokens_by_day, day, booked.get(day, 0))
        self.by_format_status[facts.format, facts.status or "(none)"] += 1
        _bounded(self.agents, facts.agent or "(none)")
        for name, failed in facts.tools:
            _bounded(self.tool_calls, name)
            if failed:
                _bounded(self.tool_failures, name)
        if facts.duration_ms is not None:
            self.duration_ms.add(facts.duration_ms)
        if facts.tokens is not None:
            self.tokens.add(facts.tokens)
        usd = self._add_cost(facts, start)
        if facts.tokens is not None:
            ranged = self.since is not None or self.until is not None
            tokens = sum(booked.values()) if ranged else facts.tokens
            model = facts.model or "(none)"
            cost = None if facts.unpriced else usd  # part unpriced: the cost is not known
            run = LargeRun(
                tokens, facts.run_id or "(no id)", start, facts.agent or "(none)", model, cost
            )
            self._keep(run)

    def _keep(self, *runs: LargeRun) -> None:
        self.largest.extend(runs)
        self.largest.sort(key=_largest_first)
        del self.largest[self.keep_largest :]

    def _add_cost(self, facts: RunFacts, start: str) -> float | None:
        """Adds the run's cost; gives it (in the range), None when the run was not priced."""
        if facts.prices is None:
            self.unpriced_runs += bool(facts.usage)
            return None
        self.priced_runs += 1
        self.prices.update(facts.prices.split(", "))
        ranged = self.since is not None or self.until is not None
        spent = 0.0
        for slot, model, usd in facts.cost:
            day = (self._day(slot * USAGE_SLOT) if slot is not None else None) or start
            if ranged and not self._within(day):
                continue
            _add(self.cost_by_model, model, usd)
            _add(self.cost_by_day, day, usd)
            spent += usd
        self.unpriced.update(facts.unpriced)
        return spent

    def _day(self, seconds: float) -> str | None:
        """The day (``YYYY-MM-DD``) an instant lies in, in this report's zone."""
        try:
            return datetime.fromtimestamp(seconds, self.timezone).date().isoformat()
        except (OverflowError, OSError, ValueError):
            return None

    def _within(self, day: str) -> bool:
        if day.startswith("("):
            return False  # no day known: not in any range
        return (self.since is None or day >= self.since) and (
            self.until is None or day <= self.until
        )

    def merge(self, other: RunStats) -> None:
        self.counted_calls |= other.counted_calls
        self.unopened_sessions |= other.unopened_sessions
        self.runs += other.runs
        self.subagent_tokens += other.subagent_tokens
        for costs, more in (
            (self.cost_by_model, other.cost_by_model),
            (self.cost_by_day, other.cost_by_day),
        ):
            for key, usd in more.items():
                _add(costs, key, usd)
        self.unpriced.update(other.unpriced)
        self.priced_runs += other.priced_runs
        self.unpriced_runs += other.unpriced_runs
        self.prices |= other.prices
        self.rejected += other.rejected
        self.by_format_status.update(other.by_format_status)
        self.tokens_by_kind.update(other.tokens_by_kind)
        for mine, theirs in (
            (self.agents, other.agents),
            (self.tool_calls, other.tool_calls),
            (self.tool_failures, other.tool_failures),
            (self.runs_by_model, other.runs_by_model),
            (self.tokens_by_model, other.tokens_by_model),
            (self.runs_by_day, other.runs_by_day),
            (self.tokens_by_day, other.tokens_by_day),
        ):
            for key, amount in theirs.items():
                _bounded(mine, key, amount)
        self.duration_ms.merge(other.duration_ms)
        self.tokens.merge(other.tokens)
        self._keep(*other.largest)

    def as_json(self, top: int = 10) -> dict[str, JsonValue]:
        formats: dict[str, JsonValue] = {}
        for (fmt, status), number in sorted(self.by_format_status.items()):
            inner = formats.setdefault(fmt, {})
            assert isinstance(inner, dict)
            inner[status] = number
        return {
            "runs": self.runs,
            "rejected": self.rejected,
            "by_format_and_status": formats,
            "duration_ms": self.duration_ms.summary(),
            "tokens": self.tokens.summary(),
            "most_used_tools": _top(self.tool_calls, top),
            "most_failing_tools": _top(self.tool_failures, top),
            "runs_per_agent": _top(self.agents, top),
            "tokens_by_kind": {kind: self.tokens_by_kind[kind] for kind in TOKEN_KINDS},
            "tokens_by_model": [
                {"name": name, "runs": self.runs_by_model[name], "tokens": tokens}
                for name, tokens in _ranked(self.tokens_by_model, self.runs_by_model, top)
            ],
            "subagent_tokens": self.subagent_tokens,
            "tokens_by_day": [
                {"day": day, "runs": self.runs_by_day[day], "tokens": self.tokens_by_day[day]}
                for day in sorted(self.runs_by_day)
            ],
            "tokens_by_month": [
                {"month": month, "tokens": tokens} for month, tokens in self.tokens_by_month()
            ],
            "timezone": self.zone_name(),
            "cost_usd": self._cost_json(),
            "largest_runs": [run.as_json() for run in self.largest[:top]],
            "quantile_accuracy": self.duration_ms.accuracy,
        }

    def _cost_json(self) -> JsonValue:
        """The cost of the priced runs (None when none was priced)."""
        if not self.priced_runs:
            return None
        return {
            "prices": ", ".join(sorted(self.prices)),
            "runs": self.priced_runs,
            "total": round(sum(self.cost_by_model.values()), 6),
            "by_model": [
                {"model": model, "usd": round(usd, 6)}
                for model, usd in sorted(self.cost_by_model.items(), key=lambda i: (-i[1], i[0]))
            ],
            "by_day": [
                {"day": day, "usd": round(usd, 6)} for day, usd in sorted(self.cost_by_day.items())
            ],
            "unpriced_tokens": [
                {"model": model, "tokens": tokens}
                for model, tokens in sorted(self.unpriced.items(), key=lambda i: (-i[1], i[0]))
            ],
        }

    def tokens_by_month(self) -> list[tuple[str, int]]:
        """Tokens by month (``YYYY-MM``), from the days."""
        months: Counter[str] = Counter()
        for day, tokens in self.tokens_by_day.items():
            months[day if day.startswith("(") else day[:7]] += tokens
        return sorted(months.items())

    def zone_name(self) -> str:
        """The zone days are counted in, by name."""
        if self.timezone is None:
            return "local"
        return str(getattr(self.timezone, "key", None) or self.timezone)


def _ranked(tokens: Counter[str], runs: Counter[str], top: int) -> list[tuple[str, int]]:
    return sorted(((k, tokens[k]) for k in runs), key=lambda item: (-item[1], item[0]))[:top]


def _top(counter: Counter[str], top: int) -> list[JsonValue]:
    ranked = sorted(counter.items(), key=lambda item: (-item[1], item[0]))[:top]
    return [{"name": name, "count": number} for name, number in ranked]


def stats_document(raw: Raw, fmt: str = "auto") -> Outcome[RunFacts]:
    """The facts of one document's run (``value``: the unit a worker sends back)."""
    read = read_run(raw, fmt)
    if read.value is None or read.format is None:
        return Outcome(read.format, read.problems)
    return Outcome(read.format, value=RunFacts.of(read.value, read.format))


def render(stats: RunStats, top: int = 10) -> str:
    """The statistics as text for a terminal."""
    data = stats.as_json(top)
    lines = [
        f"runs      {stats.runs}" + (f" ({stats.rejected} rejected)" if stats.rejected else "")
    ]
    lines.append("")
    lines.append("by format and status")
    width = max([10, *(len(fmt) for fmt, _ in stats.by_format_status)])  # harness names too
    for (fmt, status), number in sorted(stats.by_format_status.items()):
        lines.append(f"  {fmt:<{width}} {status:<16} {number:>10}")
    for label, sketch in (("duration ms", stats.duration_ms), ("tokens", stats.tokens)):
        lines.append("")
        if not sketch.count:
            lines.append(f"{label}: none recorded")
            continue
        cells = [
            f"{key} {_number(value)}" for key, value in sketch.summary().items() if key != "count"
        ]
        lines.append(f"{label} ({_runs(sketch.count)}): " + ", ".join(cells))
        if label == "tokens" and stats.subagent_tokens:
            lines.append(f"  of all tokens, subagents spent {stats.subagent_tokens:,}")
    for label, key in (
        ("most used tools", "most_used_tools"),
        ("most failing tools", "most_failing_tools"),
        ("runs per agent", "runs_per_agent"),
    ):
        lines.append("")
        entries = data[key]
        assert isinstance(entries, list)
        lines.append(label + ("" if entries else ": none"))
        for entry in entries:
            assert isinstance(entry, dict)
            lines.append(f"  {entry['name']!s:<40} {entry['count']:>10}")
    if any(stats.tokens_by_kind.values()):
        lines.append("")
        kinds = ", ".join(f"{k} {stats.tokens_by_kind[k]:,}" for k in TOKEN_KINDS)
        lines.append(f"tokens by kind: {kinds} (cache counts are parts of input)")
    if set(stats.runs_by_model) - {"(none)"}:
        lines.append("")
        lines.append("tokens by model")
        for name, tokens in _ranked(stats.tokens_by_model, stats.runs_by_model, top):
            lines.append(f"  {name:<40} {_runs(stats.runs_by_model[name], 6)} {tokens:>14,}")
    if set(stats.runs_by_day) - {"(none)"}:
        lines.append("")
        lines.append(f"tokens by day ({stats.zone_name()} time)")
        for day in sorted(stats.runs_by_day)[-top:]:
            runs, tokens = stats.runs_by_day[day], stats.tokens_by_day[day]
            lines.append(f"  {day:<12} {_runs(runs, 6)} {tokens:>14,}")
        months = stats.tokens_by_month()
        if len(months) > 1:
            lines.append("")
            lines.append("tokens by month")
            for month, tokens in months[-top:]:
                lines.append(f"  {month:<12} {tokens:>25,}")
    lines.extend(_cost_lines(stats, top))
    lines.extend(_largest_lines(stats, top))
    lines.append("")
    if stats.duration_ms.values is not None and stats.tokens.values is not None:
        lines.append(f"percentiles exact (up to {EXACT:,} runs; within 1% beyond)")
    else:
        lines.append(f"percentiles within {stats.duration_ms.accuracy:.0%} (a mergeable sketch)")
    return "\n".join(lines)


def _add(held: dict[str, float], key: str, usd: float) -> None:
    held[key] = held.get(key, 0.0) + usd


def _cost_lines(stats: RunStats, top: int) -> list[str]:
    if not stats.priced_runs:
        if stats.unpriced_runs:
            return ["", "cost: not computed (the price table: pip install 'agentruns[cost]')"]
        return []
    total = sum(stats.cost_by_model.values())
    sources = ", ".join(sorted(stats.prices))
    lines = ["", f"cost (USD, {_runs(stats.priced_runs)}, prices from {sources}): ${total:,.2f}"]
    ranked = sorted(stats.cost_by_model.items(), key=lambda item: (-item[1], item[0]))
    for model, usd in ranked[:top]:
        lines.append(f"  {model:<40} {'$' + format(usd, ',.2f'):>14}")
    for model, tokens in sorted(stats.unpriced.items(), key=lambda i: (-i[1], i[0]))[:top]:
        lines.append(f"  {model:<40} {'unknown':>14} ({tokens:,} tokens, no price)")
    days = sorted(stats.cost_by_day.items())
    if len(days) > 1:
        lines.append("")
        lines.append(f"cost by day ({stats.zone_name()} time)")
        for day, usd in days[-top:]:
            lines.append(f"  {day:<12} {'$' + format(usd, ',.2f'):>14}")
    return lines


def _largest_lines(stats: RunStats, top: int) -> list[str]:
    shown = stats.largest[:top]
    if not shown:
        return []
    width = max(len(run.run_id) for run in shown)
    lines = ["", f"largest runs (by tokens; days in {stats.zone_name()} time)"]
    for run in shown:
        usd = "unknown" if run.usd is None else "$" + format(run.usd, ",.2f")
        lines.append(
            f"  {run.run_id:<{width}}  {run.day:<10} {run.tokens:>14,} {usd:>10}  {run.model}"
        )
    return lines


def _runs(count: int, width: int = 0) -> str:
    """``1 run``, ``2 runs`` (the count right-aligned in ``width``; the word padded so that
    columns after it stay aligned)."""
    return f"{count:>{width}} run" + ("s" if count != 1 else " " if width else "")


def _number(value: JsonValue) -> str:
    if isinstance(value, float):
        return f"{value:,.0f}"
    return f"{value:,}" if isinstance(value, int) else "-"


# -- session folders -------------------------------------------------------------------------


def _transcript_facts(name: str, transcript: Transcript) -> Outcome[RunFacts]:
    return Outcome(transcript.harness, value=_facts_of(transcript))


def _light_facts(name: str, summary: Summary) -> Outcome[RunFacts]:
    from agentruns.transcripts import LIGHT

    return Outcome(LIGHT, value=_calls_of(_round_facts(summary, LIGHT), (summary,)))


_session_facts = SessionStep(_transcript_facts, _light_facts)
"""The facts of one session (in a worker process), or why it cannot be read; nothing for a
file no harness recognizes (sniffed in the worker, not in the walk). A Claude Code session
read in one pass has its facts from its summary: its run is never built."""


def _facts_of(transcript: Transcript) -> RunFacts:
    """The facts of a session read (``agentruns.transcripts.open_session``): its run's, with
    its model calls booked each in its quarter hour and priced."""
    return _calls_of(RunFacts.of(transcript.run, transcript.harness), transcript.rounds)


def _round_facts(summary: Summary, fmt: str) -> RunFacts:
    """``RunFacts.of`` the run ``agentruns.transcripts.load`` makes of a session of one round
    (each stream a run: the session's, and its subagents' below it), from the round itself.
    Building the run (a step per message and call) cost a thousand sessions a quarter of
    their reading; ``_facts_of`` of the transcript is this function's oracle
    (``tests/test_claude_light.py``)."""
    from agentruns.transcripts import round_status, stream_total
    from agentruns.transcripts._summary import ToolCall, top_model

    streams = [summary, *_descendants(summary)]
    model = top_model(summary.models)
    started, ended = summary.started_at, summary.ended_at
    duration = summary.duration_ms
    if duration is None and started is not None and ended is not None:
        duration = derivations._elapsed_ms(started, ended)  # (what the run derives)
    return RunFacts.of_streams(
        fmt,
        streams,
        [
            (event.name if isinstance(event.name, str) else "(unnamed)", bool(event.is_error))
            for stream in streams
            for event in stream.events
            if isinstance(event, ToolCall)
        ],
        [stream_total(stream) for stream in streams],
        [model, *(_or(top_model(stream.models), model) for stream in streams[1:])],
        status=round_status(summary),
        agent=summary.harness,
        duration_ms=duration,
        started_at=started,
        run_id=summary.session_id,
    )


def _or(value: str | None, default: str | None) -> str | None:
    return value if value is not None else default


def _descendants(summary: Summary) -> list[Summary]:
    """The streams a stream started, and theirs, depth first (``_subagents``' order)."""
    found: list[Summary] = []
    pending = list(reversed(summary.children))
    while pending:
        child = pending.pop()
        found.append(child)
        pending.extend(reversed(child.children))
    return found


def _calls_of(facts: RunFacts, rounds: Sequence[Summary]) -> RunFacts:
    """The facts with the session's model calls booked each in its quarter hour, priced, and
    the calls and tool calls it identifies across files kept (``RunFacts.calls``)."""
    from agentruns.transcripts._summary import ToolCall

    for summary in _streams(rounds):
        for event in summary.events:
            if isinstance(event, ToolCall) and event.key is not None:
                known = _identity(event.key)
                facts.tool_calls.append((known, event.name, event.is_error))
                _note_copy(facts, summary, event.key, known)
    facts.usage = _usage(rounds, facts.started)
    facts.models = _by_model(facts, rounds)
    _price(facts, rounds)
    return facts


def _note_copy(facts: RunFacts, summary: Summary, key: str, identity: str) -> None:
    """Keep in ``facts.copied`` a call the stream holds as a copy of another session's."""
    session = summary.copied_from.get(key)
    if session is not None:
        facts.copied.setdefault(session, []).append(identity)


def _identity(key: str) -> str:
    """A call's identity as the facts keep it: a 128-bit digest of what the reader said
    (message and request ids run to 90 characters; a history's cache held each twice).
    Called for every call of every session read: the imports are the module's (inside, they
    were two thirds of its 2 us)."""
    digest = blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    return urlsafe_b64encode(digest).decode("ascii")


def _streams(rounds: Sequence[Summary]) -> Iterator[Summary]:
    """The rounds and their subagents' streams, at any depth."""
    pending = list(rounds)
    while pending:
        summary = pending.pop()
        pending.extend(summary.children)
        yield summary


def _by_model(facts: RunFacts, rounds: Sequence[Summary]) -> dict[str, int]:
    """Tokens by the model each call was made with, where the session says (a session that
    switched from one model to another books each call under its own, as it is priced); a
    call that names none under its run's model, and tokens no call accounts for under the
    session's. Empty when one model made them all (``facts.model`` holds them)."""
    models: Counter[str] = Counter()
    for run_model, (_, model, read, written, *_) in _calls(facts, rounds):
        models[_made_with(model, run_model) or "(none)"] += read + written
    unaccounted = (facts.tokens or 0) - sum(models.values())
    if unaccounted > 0:
        models[facts.model or "(none)"] += unaccounted
    if not models or (len(models) == 1 and facts.model in models) or unaccounted < 0:
        # one model; or calls that add up to more than the run states (no reader makes
        # such a run, but a total is what the other views count): the run's own facts
        return facts.models
    return dict(models)


def _made_with(called: str | None, stream: str | None) -> str | None:
    """The model a call was made with: the one it names, else its stream's (Copilot's
    shutdown totals name none). Its tokens are booked and priced under it alike."""
    return called or stream


def _calls(facts: RunFacts, rounds: Sequence[Summary]) -> Iterator[tuple[str | None, CallUsage]]:
    """Every model call of the rounds and their subagents, with the model of the run it is
    part of (a subagent's own, else the session's, as ``RunFacts.of`` counts them)."""
    pending = [(summary, facts.model) for summary in rounds]
    while pending:
        summary, model = pending.pop()
        pending.extend((child, child.main_model or facts.model) for child in summary.children)
        for call in summary.calls_usage:
            yield model, call


def _price(facts: RunFacts, rounds: Sequence[Summary]) -> None:
    """The run's cost, call by call: what the harness recorded a call cost where it did (the
    agent's own count, as ccusage's default mode takes it), else the price table's price,
    where it is installed and knows the model; a call with no time of its own is priced and
    booked when the run started."""
    from agentruns import _prices
    from agentruns._prices import recorded_usd

    facts.prices, facts.cost, facts.unpriced = None, [], {}  # the calls', not the run's total
    start = int(facts.started // USAGE_SLOT) if facts.started is not None else None
    calls: list[_prices.Call] = []
    recorded: dict[tuple[int | None, str], float] = {}  # what the harness said calls cost
    called = 0  # tokens the calls account for
    # the calls identified across files, each with its cost or its place among ``calls``
    keyed: list[tuple[KeyedCall, int | None]] = []
    pending = [(summary, facts.model, False, False) for summary in rounds]
    stated_all = True  # whether every stream states its total cost (or is covered by one)
    while pending:
        summary, model, covered, subagent = pending.pop()
        own = summary.calls_usage
        # a stream that states its total and no call's cost: the total is its calls' cost
        # (its subagents' too: Claude Code's total_cost_usd is the session's)
        stated = (
            None if any(call[7] is not None for call in own) else recorded_usd(summary.cost_usd)
        )
        if stated is None and not covered:
            stated_all = False
        if stated is not None:
            placed = [call[0] for call in own if call[0] is not None]
            place = (min(placed) if placed else start, summary.main_model or model or "(none)")
            recorded[place] = recorded.get(place, 0.0) + stated
        for call in own:
            slot, called_model, read, written, cache_written, cache_read, hour, usd, key, _ = call
            at = start if slot is None else slot
            called += read + written
            index = None
            made_with = _made_with(called_model, model)
            if usd is not None:
                place = (at, made_with or "(none)")
                recorded[place] = recorded.get(place, 0.0) + usd
            elif stated is None and not covered:
                index = len(calls)
                calls.append((at, made_with, read, written, cache_written, cache_read, hour))
            else:
                usd = 0.0  # its part of a stated total, which no call's part is taken from
            if key is not None:
                named = made_with or "(none)"
                counts = (read, written, cache_written, cache_read, call[9])
                known = (_identity(key), slot, called_model, named, *counts, usd, subagent)
                keyed.append((known, index))
                _note_copy(facts, summary, key, known[0])
        pending.extend(
            (child, child.main_model or facts.model, covered or stated is not None, True)
            for child in summary.children
        )
    priced = _prices.price(calls)
    each = priced.each if priced is not None else [None] * len(calls)
    facts.calls = [call if at is None else (*call[:9], each[at], call[10]) for call, at in keyed]
    # the table is a source when it priced a call (or when nothing else is: no call at all)
    sources = [_prices.source()] if priced is not None and (calls or not recorded) else []
    if recorded:
        sources.append(_prices.RECORDED)
    if not sources:
        return
    if priced is None:  # no table: the calls the harness put no cost on are unknown
        priced = _prices.Priced()
        for _, model, read, written, *_ in calls:
            key = model or "(none)"
            priced.unpriced[key] = priced.unpriced.get(key, 0) + read + written
    for place, usd in recorded.items():
        priced.cost[place] = priced.cost.get(place, 0.0) + usd
    facts.prices = ", ".join(sorted(name for name in sources if name is not None))
    facts.cost = [
        (slot, model, usd)
        for (slot, model), usd in sorted(
            priced.cost.items(), key=lambda item: (item[0][0] or 0, item[0][1])
        )
    ]
    facts.unpriced = priced.unpriced
    # tokens no call accounts for (a stream that states only the run's total) have no price
    # (unknown, never counted as free) unless every stream states what it cost
    unaccounted = (facts.tokens or 0) - called
    if unaccounted > 0 and not (recorded and stated_all):
        key = facts.model or "(none)"
        facts.unpriced[key] = facts.unpriced.get(key, 0) + unaccounted


def _usage(rounds: Sequence[Summary], started: float | None) -> list[tuple[int, int]]:
    """(quarter hour, tokens) of every model call of the rounds and their subagents; calls
    with no time of their own are booked when the run started. Empty when no call has a
    time (the run's tokens are then booked on its start day)."""
    placed: Counter[int] = Counter()
    unplaced = 0
    pending = list(rounds)
    while pending:
        summary = pending.pop()
        placed.update(summary.usage_at)
        unplaced += summary.usage_unplaced
        pending.extend(summary.children)
    if not placed:
        return []
    if unplaced:
        if started is None:
            return []  # part of the tokens has no day: the whole run is booked as one
        placed[int(started // USAGE_SLOT)] += unplaced
    return sorted(placed.items())


def add_sessions(
    stats: RunStats,
    folder: str,
    *,
    jobs: int | None = None,
    cache: bool = False,
    since: str | None = None,
    until: str | None = None,
    problem: Callable[[str, str], None] | None = None,
) -> None:
    """Add every session under ``folder`` (the files the agents keep), or the session file
    ``folder`` is, to ``stats``.

    Sessions are read in ``jobs`` worker processes (one per available CPU by default). With
    ``cache``, a file whose identity has not changed since it was last read is not opened: its
    facts come from the cache (``~/.cache/agentruns``, or ``$AGENTRUNS_CACHE_DIR``).
    ``since``/``until`` (``YYYY-MM-DD``, days in the zone of ``stats``, inclusive) set the
    range of ``stats`` (see ``RunStats``); a file last modified a day before ``since`` cannot
    hold anything in it and is not opened. What cannot be read is given to ``problem`` (path,
    reason) and counted as rejected.
    """
    from agentruns._facts_cache import FactsCache

    if since is not None:
        stats.since = since
    if until is not None:
        stats.until = until
    remembered = FactsCache(RunFacts.from_json, RunFacts.as_json) if cache else None
    try:
        _add_sessions(stats, folder, jobs, remembered, stats.since, problem)
    finally:
        if remembered is not None:
            remembered.close()


def _add_sessions(
    stats: RunStats,
    folder: str,
    jobs: int | None,
    cache: FactsCache[RunFacts] | None,
    since: str | None,
    problem: Callable[[str, str], None] | None,
) -> None:
    import os
    from datetime import UTC, datetime

    from agentruns._facts_cache import identity
    from agentruns.transcripts._codex_rollout import session_in_name

    # a day's margin: ``since`` is a day in the report's zone, which may begin up to 14 hours
    # before the UTC day of that date
    floor = (
        datetime.fromisoformat(since).replace(tzinfo=UTC).timestamp() - 86_400
        if since is not None
        else None
    )
    pending: dict[str, str] = {}  # file -> identity, for files read now (cached at the end)
    keep = stats.add  # the range, if any, is the report's
    by_file: dict[str, list[RunFacts]] = {}
    spoiled: set[str] = set()  # files not (wholly) read: never cached

    def passed(path: str, status: os.stat_result) -> bool:
        if floor is not None and status.st_mtime < floor:
            # modified before the range began: nothing in it is in the range, nor any copy of
            # its calls that another file holds (a Codex fork's replay, re-stamped in it)
            session = session_in_name(path)
            if session is not None:
                stats.unopened_sessions.add(session)
            return True
        if cache is None:
            return False
        ident = identity(path, status)
        known = cache.get(path, ident)
        if known is None:
            pending[path] = ident
            return False
        for facts in known:
            keep(facts)
        return True

    def accepted(item: Candidate | NotRead, outcome: Outcome[RunFacts]) -> None:
        assert outcome.value is not None
        assert not isinstance(item, NotRead)
        keep(outcome.value)
        file = item[0].partition("#")[0]
        if file in pending:
            by_file.setdefault(file, []).append(outcome.value)

    def rejected(item: Candidate | NotRead, outcome: Outcome[RunFacts]) -> None:
        path = item.path if isinstance(item, NotRead) else item[0]
        stats.rejected += 1
        spoiled.add(path.partition("#")[0])
        if problem is not None:
            why = outcome.unreadable or "; ".join(message for _, message in outcome.problems)
            problem(path, why.removeprefix(f"{path}: "))

    from agentruns import _prices

    found = session_items(folder, passed=passed)
    pipeline.run(
        Stream(_session_facts, found, jobs=jobs, chunk=4, preload=_prices.load),
        accepted=accepted,
        rejected=rejected,
        unreadable=rejected,
    )
    if cache is not None:
        # a file the walk looked at and found no session in holds none: remembered as such
        for file, ident in pending.items():
            if file not in spoiled:
                cache.put(file, ident, by_file.get(file, []))
