"""Tokens are booked on the day each model call was made, in the zone the user names, and a
run's subagents are counted with it: ``stats`` by day equals a count of the session's messages
made independently here (each API response once, on the day of its first line)."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from agentruns.canonical import Run
from agentruns.cli import main
from agentruns.stats import RunFacts, RunStats
from tests._settings import PROPERTY_SETTINGS
from tests._stats import stats_json

Json = dict[str, Any]
START = datetime(2026, 3, 28, 20, 0, tzinfo=UTC)  # a daylight-saving change in Europe follows
ZONES = ["UTC", "Asia/Kolkata", "Asia/Kathmandu", "America/Los_Angeles", "Pacific/Kiritimati"]


def _line(at: datetime, ident: str, usage: Json, uuid: str) -> Json:
    return {
        "type": "assistant",
        "sessionId": "s-1",
        "uuid": uuid,
        "timestamp": at.isoformat().replace("+00:00", "Z"),
        "message": {
            "id": ident,
            "role": "assistant",
            "model": "claude-test",
            "content": [{"type": "text", "text": "working"}],
            "usage": usage,
        },
    }


responses = st.lists(
    st.tuples(
        st.integers(0, 3 * 24 * 60),  # minutes after START
        st.integers(1, 50),  # input
        st.integers(0, 900),  # cache creation
        st.integers(0, 5000),  # cache read
        st.lists(st.integers(1, 400), min_size=1, max_size=3),  # output as it streams
    ),
    min_size=1,
    max_size=12,
)


def _session(folder: Path, drawn: list[tuple[int, int, int, int, list[int]]]) -> list[Json]:
    lines: list[Json] = [
        {
            "type": "user",
            "sessionId": "s-1",
            "uuid": "u-0",
            "timestamp": START.isoformat().replace("+00:00", "Z"),
            "message": {"role": "user", "content": "go"},
        }
    ]
    for number, (minutes, fresh, created, read, outputs) in enumerate(drawn):
        at = START + timedelta(minutes=minutes)
        for part, output in enumerate(sorted(outputs)):  # a streamed response grows
            usage = {
                "input_tokens": fresh,
                "cache_creation_input_tokens": created,
                "cache_read_input_tokens": read,
                "output_tokens": output,
            }
            later = at + timedelta(seconds=part)
            lines.append(_line(later, f"msg-{number}", usage, f"a-{number}-{part}"))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "s-1.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return lines


def _by_day(lines: list[Json], zone: str) -> dict[str, int]:
    """The independent count: each response (``message.id``) once, with the largest of each
    count its lines show, on the day (in ``zone``) of its first line."""
    first: dict[str, datetime] = {}
    largest: dict[str, Counter[str]] = {}
    for line in lines:
        message = line["message"]
        if "usage" not in message:
            continue
        at = datetime.fromisoformat(line["timestamp"].replace("Z", "+00:00"))
        first.setdefault(message["id"], at)
        seen = largest.setdefault(message["id"], Counter())
        for key, value in message["usage"].items():
            seen[key] = max(seen[key], value)
    days: Counter[str] = Counter()
    for ident, counts in largest.items():
        day = first[ident].astimezone(ZoneInfo(zone)).date().isoformat()
        days[day] += sum(counts.values())  # input, cache writes and reads, output
    return dict(days)


def _stats(*args: str) -> Json:
    return stats_json("--no-cache", *args)


@PROPERTY_SETTINGS
@given(drawn=responses, zone=st.sampled_from(ZONES))
def test_tokens_by_day_are_a_per_message_count_in_the_named_zone(
    tmp_path_factory: Any, drawn: list[tuple[int, int, int, int, list[int]]], zone: str
) -> None:
    folder = tmp_path_factory.mktemp("days")
    lines = _session(folder / "project", drawn)
    shown = _stats("--timezone", zone, str(folder))
    booked = {entry["day"]: entry["tokens"] for entry in shown["tokens_by_day"]}
    expected = _by_day(lines, zone)
    assert {day: n for day, n in booked.items() if n} == {d: n for d, n in expected.items() if n}
    assert sum(booked.values()) == sum(expected.values())  # every token booked, once
    months: Counter[str] = Counter()
    for day, tokens in expected.items():
        months[day[:7]] += tokens
    assert {e["month"]: e["tokens"] for e in shown["tokens_by_month"]} == dict(months)
    assert shown["timezone"] == zone


def test_a_session_past_midnight_books_each_call_on_its_own_day(tmp_path: Path) -> None:
    # 20:00 UTC on day one, then 27 and 30 hours later: three calls, two days apart
    lines = _session(tmp_path / "p", [(0, 10, 0, 0, [5]), (27 * 60, 20, 0, 0, [5])])
    shown = _stats("--timezone", "UTC", str(tmp_path))
    assert {e["day"]: e["tokens"] for e in shown["tokens_by_day"]} == {
        "2026-03-28": 15,
        "2026-03-29": 25,
    }
    assert _by_day(lines, "UTC") == {"2026-03-28": 15, "2026-03-29": 25}
    # the same calls half a world east: both on the next day
    shown = _stats("--timezone", "Pacific/Kiritimati", str(tmp_path))
    assert {e["day"]: e["tokens"] for e in shown["tokens_by_day"]} == {
        "2026-03-29": 15,
        "2026-03-30": 25,
    }


def test_since_books_what_happened_in_the_range_of_a_session_begun_before_it(
    tmp_path: Path,
) -> None:
    _session(tmp_path / "p", [(0, 10, 0, 0, [5]), (27 * 60, 20, 0, 0, [5])])
    shown = _stats("--timezone", "UTC", "--since", "2026-03-29", str(tmp_path))
    assert shown["runs"] == 1
    assert shown["tokens_by_day"] == [{"day": "2026-03-29", "runs": 1, "tokens": 25}]
    shown = _stats("--timezone", "UTC", "--until", "2026-03-27", str(tmp_path))
    assert shown["runs"] == 0


def test_an_unknown_zone_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["stats", "--timezone", "Mars/Olympus", "-"], input="")
    assert result.exit_code == 2
    assert "no time zone 'Mars/Olympus'" in result.output


def _with_usage(tokens: int, subagents: tuple[Run, ...] = ()) -> Run:
    return Run(
        input_tokens=tokens,
        output_tokens=0,
        subagents=subagents if subagents else Run().subagents,
    )


def test_a_runs_subagents_are_counted_with_it_and_said_apart() -> None:
    inner = _with_usage(7)
    run = _with_usage(100, (_with_usage(20, (inner,)), _with_usage(3)))
    facts = RunFacts.of(run, "atif")
    assert facts.tokens == 130
    assert facts.subagent_tokens == 30
    assert facts.kinds == {"input": 130, "output": 0}
    stats = RunStats()
    stats.add(facts)
    assert stats.as_json()["subagent_tokens"] == 30
    assert RunFacts.of(_with_usage(5), "atif").subagent_tokens is None


def test_facts_come_back_from_their_json_as_they_were() -> None:
    from dataclasses import asdict

    facts = RunFacts.of(_with_usage(5), "atif")
    facts.usage = [(2_000_000, 5)]
    facts.tools = [("Read", False)]
    assert RunFacts.from_json(json.loads(json.dumps(asdict(facts)))) == facts


@PROPERTY_SETTINGS
@given(since=st.dates(), until=st.dates())
def test_a_range_that_ends_before_it_begins_is_a_usage_error(since: Any, until: Any) -> None:
    """``--since`` after ``--until`` holds no day: said (exit 2), not answered with an empty
    report; any other range is a report."""
    result = CliRunner().invoke(
        main,
        ["stats", "--output-format", "json", "--since", str(since), "--until", str(until), "-"],
        input="",
    )
    if since > until:
        assert result.exit_code == 2
        assert "is after --until" in result.output
    else:
        assert result.exit_code == 0, result.output
