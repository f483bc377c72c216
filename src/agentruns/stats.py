"""What a person wants to see first about a set of runs, in bounded memory.

Counts are exact: runs by format and status, runs per agent, calls and failures per tool
(agents and tools beyond ``MAX_KEYS`` distinct names are counted together as ``(other)``, so
memory stays bounded whatever the input). Duration and token percentiles come from a
``Sketch``: a log-bucketed histogram (the DDSketch construction) whose quantiles are within
1% of the exact value (relative), in at most a few thousand buckets, and which merges
exactly, so parts computed apart (workers, Dask partitions) add up to the whole.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from agentruns import derivations
from agentruns.batch import Outcome, read_model
from agentruns.canonical import Run
from agentruns.conversion import to_canonical
from agentruns.io import Raw, parse
from agentruns_generated._json import JsonValue

if TYPE_CHECKING:
    from agentruns._facts_cache import FactsCache

__all__ = [
    "EXACT",
    "MAX_KEYS",
    "OTHER",
    "QUANTILES",
    "TOKEN_KINDS",
    "RunFacts",
    "RunStats",
    "Sketch",
    "add_sessions",
    "facts_from",
    "render",
    "stats_document",
]


MAX_KEYS = 10_000
"""Distinct agent ids and tool names counted by name; the rest are ``(other)``."""
OTHER = "(other)"
QUANTILES = (0.5, 0.9, 0.99)


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
        for q in QUANTILES:
            found[f"p{round(q * 100)}"] = self.quantile(q)
        found["max"] = self.maximum
        return found


def _bounded(counter: Counter[str], key: str, amount: int = 1) -> None:
    if key in counter or len(counter) < MAX_KEYS:
        counter[key] += amount
    else:
        counter[OTHER] += amount


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

    @classmethod
    def of(cls, run: Run, fmt: str) -> RunFacts:
        steps = run.steps if isinstance(run.steps, tuple) else ()
        tools = [
            (
                step.name if isinstance(step.name, str) else "(unnamed)",
                derivations.step_failed(step),
            )
            for step in steps
            if step.kind == "tool_call"
        ]
        return cls(
            format=fmt,
            status=derivations.status(run),
            agent=run.agent_id if isinstance(run.agent_id, str) else None,
            duration_ms=derivations.duration_ms(run),
            tokens=derivations.total_tokens(run),
            tools=tools,
            model=run.model if isinstance(run.model, str) else None,
            day=_day(run),
            kinds={
                kind: value
                for kind in TOKEN_KINDS
                if isinstance(value := getattr(run, f"{kind}_tokens"), int) and value >= 0
            },
        )


TOKEN_KINDS = ("input", "output", "cache_creation", "cache_read", "reasoning")
"""The kinds of tokens the canonical run keeps apart (``<kind>_tokens``)."""


def _day(run: Run) -> str | None:
    from datetime import UTC, datetime

    start = run.started_at
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


@dataclass
class RunStats:
    """Statistics over runs, added one by one or merged part by part."""

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

    def add(self, facts: RunFacts) -> None:
        self.runs += 1
        self.tokens_by_kind.update(facts.kinds)
        model, day, total = facts.model or "(none)", facts.day or "(none)", facts.tokens or 0
        _bounded(self.runs_by_model, model)
        _bounded(self.tokens_by_model, model, total)
        _bounded(self.runs_by_day, day)
        _bounded(self.tokens_by_day, day, total)
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

    def merge(self, other: RunStats) -> None:
        self.runs += other.runs
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
            "tokens_by_day": [
                {"day": day, "runs": self.runs_by_day[day], "tokens": self.tokens_by_day[day]}
                for day in sorted(self.runs_by_day)
            ],
            "quantile_accuracy": self.duration_ms.accuracy,
        }


def _ranked(tokens: Counter[str], runs: Counter[str], top: int) -> list[tuple[str, int]]:
    return sorted(((k, tokens[k]) for k in runs), key=lambda item: (-item[1], item[0]))[:top]


def _top(counter: Counter[str], top: int) -> list[JsonValue]:
    ranked = sorted(counter.items(), key=lambda item: (-item[1], item[0]))[:top]
    return [{"name": name, "count": number} for name, number in ranked]


def stats_document(raw: Raw, fmt: str = "auto") -> Outcome:
    """The facts of one document's run, as a line of JSON (the unit a worker sends back)."""
    name, model, problems = read_model(parse(raw), fmt)
    if model is None or name is None:
        return Outcome(name, problems)
    facts = RunFacts.of(to_canonical(model), name)
    return Outcome(name, output=json.dumps(asdict(facts)).encode())


def facts_from(output: bytes) -> RunFacts:
    value = json.loads(output)
    value["tools"] = [(str(name), bool(failed)) for name, failed in value["tools"]]
    return RunFacts(**value)  # kinds come back as the dict they were sent as


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
        lines.append("tokens by day")
        for day in sorted(stats.runs_by_day)[-top:]:
            runs, tokens = stats.runs_by_day[day], stats.tokens_by_day[day]
            lines.append(f"  {day:<12} {_runs(runs, 6)} {tokens:>14,}")
    lines.append("")
    if stats.duration_ms.values is not None and stats.tokens.values is not None:
        lines.append(f"percentiles exact (up to {EXACT:,} runs; within 1% beyond)")
    else:
        lines.append(f"percentiles within {stats.duration_ms.accuracy:.0%} (a mergeable sketch)")
    return "\n".join(lines)


def _runs(count: int, width: int = 0) -> str:
    """``1 run``, ``2 runs`` (the count right-aligned in ``width``; the word padded so that
    columns after it stay aligned)."""
    return f"{count:>{width}} run" + ("s" if count != 1 else " " if width else "")


def _number(value: JsonValue) -> str:
    if isinstance(value, float):
        return f"{value:,.0f}"
    return f"{value:,}" if isinstance(value, int) else "-"


# -- session folders -------------------------------------------------------------------------


def _session_facts(item: tuple[str, str]) -> RunFacts | str:
    """The facts of one session (in a worker process), or why it cannot be read."""
    from agentruns.errors import AgentrunsError
    from agentruns.transcripts import load

    name, harness = item
    try:
        transcript = load(name, harness)
    except (AgentrunsError, OSError, ValueError) as error:
        return str(error)
    return RunFacts.of(transcript.run, transcript.harness)


def _failed(item: tuple[str, str], error: BaseException) -> RunFacts | str:
    return f"{item[0]}: the worker reading it ended ({type(error).__name__}: {error})"


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
    """Add every session under ``folder`` (the files the agents keep) to ``stats``.

    Sessions are read in ``jobs`` worker processes (one per available CPU by default). With
    ``cache``, a file whose identity has not changed since it was last read is not opened: its
    facts come from the cache (``~/.cache/agentruns``, or ``$AGENTRUNS_CACHE_DIR``).
    ``since``/``until`` (``YYYY-MM-DD``, UTC days, inclusive) keep the runs that started in the
    range; a file last modified before ``since`` cannot hold one and is not opened. What cannot
    be read is given to ``problem`` (path, reason) and counted as rejected.
    """
    from agentruns._facts_cache import FactsCache

    remembered = FactsCache() if cache else None
    try:
        _add_sessions(stats, folder, jobs, remembered, since, until, problem)
    finally:
        if remembered is not None:
            remembered.close()


def _add_sessions(
    stats: RunStats,
    folder: str,
    jobs: int | None,
    cache: FactsCache | None,
    since: str | None,
    until: str | None,
    problem: Callable[[str, str], None] | None,
) -> None:
    import os
    from datetime import UTC, datetime

    from agentruns._facts_cache import identity
    from agentruns._workers import OrderedMap, jobs_for
    from agentruns.transcripts import sessions

    floor = (
        datetime.fromisoformat(since).replace(tzinfo=UTC).timestamp() if since is not None else None
    )
    pending: dict[str, str] = {}  # file -> identity, for files read now (cached at the end)

    def keep(facts: RunFacts) -> None:
        if since is None and until is None:
            stats.add(facts)
            return
        day = facts.day
        if day is not None and (since is None or day >= since) and (until is None or day <= until):
            stats.add(facts)

    def unreadable(path: str, reason: str) -> None:
        stats.rejected += 1
        spoiled.add(path.partition("#")[0])
        if problem is not None:
            problem(path, reason)

    def passed(path: str, status: os.stat_result) -> bool:
        if floor is not None and status.st_mtime < floor:
            return True  # modified before the range began: nothing in it is in the range
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

    found = sessions(folder, unreadable, passed=passed)
    by_file: dict[str, list[RunFacts]] = {}
    spoiled: set[str] = set()  # files not (wholly) read: never cached
    with OrderedMap(_session_facts, found, jobs_for(jobs), on_failure=_failed, chunk=4) as work:
        for (name, _), result in work:
            file = name.partition("#")[0]
            if isinstance(result, str):
                unreadable(name, result.removeprefix(f"{name}: "))
                continue
            keep(result)
            if file in pending:
                by_file.setdefault(file, []).append(result)
    if cache is not None:
        # a file the walk looked at and found no session in holds none: remembered as such
        for file, ident in pending.items():
            if file not in spoiled:
                cache.put(file, ident, by_file.get(file, []))
