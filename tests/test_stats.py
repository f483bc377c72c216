"""Run statistics: exact counts, percentiles within the sketch's 1%, parts that merge into
the whole, and a command that prints them."""

from __future__ import annotations

import json
import math
import random
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from agentruns._prices import RECORDED
from agentruns.cli import main
from agentruns.stats import EXACT, MAX_KEYS, OTHER, RunFacts, RunStats, Sketch

FIXTURES = Path(__file__).parent / "fixtures"

values = st.lists(
    st.integers(0, 10**12) | st.floats(0, 1e9, allow_nan=False), min_size=1, max_size=300
)


def _nearest_rank(data: list[float], q: float) -> float:
    ordered = sorted(data)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


@given(data=values, q=st.sampled_from([0.0, 0.25, 0.5, 0.9, 0.99, 1.0]))
@settings(max_examples=300, deadline=None)
def test_a_quantile_is_within_one_percent_of_the_exact_one(data: list[float], q: float) -> None:
    sketch = Sketch()
    for value in data:
        sketch.add(value)
    exact = _nearest_rank(data, q)
    found = sketch.quantile(q)
    assert found is not None
    slack = 0.01 * exact + (0.5 if sketch.integral else 0)  # whole numbers are rounded
    assert abs(found - exact) <= slack + 1e-9


@given(data=values, cut=st.integers(0, 300))
@settings(max_examples=100, deadline=None)
def test_sketches_of_parts_merge_into_the_sketch_of_the_whole(data: list[float], cut: int) -> None:
    whole, left, right = Sketch(), Sketch(), Sketch()
    for index, value in enumerate(data):
        whole.add(value)
        (left if index < cut else right).add(value)
    left.merge(right)
    assert left.summary() == whole.summary()


facts = st.builds(
    RunFacts,
    format=st.sampled_from(["portable", "cortex", "agentrun"]),
    status=st.none() | st.sampled_from(["completed", "failed"]),
    agent=st.none() | st.sampled_from(["a", "b", "c"]),
    duration_ms=st.none() | st.integers(0, 10**7),
    tokens=st.none() | st.integers(0, 10**6),
    tools=st.lists(st.tuples(st.sampled_from(["Bash", "Read", "Edit"]), st.booleans()), max_size=5),
    model=st.none() | st.sampled_from(["m1", "m2"]),
    run_id=st.none() | st.sampled_from(["r1", "r2", "r3"]),
)


@given(runs=st.lists(facts, max_size=60), cut=st.integers(0, 60))
@settings(max_examples=100, deadline=None)
def test_counts_are_exact_and_parts_add_up(runs: list[RunFacts], cut: int) -> None:
    whole, left, right = RunStats(), RunStats(), RunStats()
    for index, run in enumerate(runs):
        whole.add(run)
        (left if index < cut else right).add(run)
    left.merge(right)
    assert left.as_json() == whole.as_json()
    assert whole.runs == len(runs)
    calls = sum(len(r.tools) for r in runs)
    assert sum(whole.tool_calls.values()) == calls
    assert sum(whole.tool_failures.values()) == sum(f for r in runs for _, f in r.tools)
    assert sum(whole.by_format_status.values()) == len(runs)


@given(runs=st.lists(facts, max_size=60), top=st.integers(1, 12))
@settings(max_examples=100, deadline=None)
def test_the_largest_runs_are_the_runs_with_most_tokens(runs: list[RunFacts], top: int) -> None:
    stats = RunStats(keep_largest=top)
    for run in runs:
        stats.add(run)
    shown = stats.as_json(top)["largest_runs"]
    assert isinstance(shown, list)
    counted = sorted((r.tokens for r in runs if r.tokens is not None), reverse=True)
    assert [row["tokens"] for row in shown if isinstance(row, dict)] == counted[:top]


def _stream_stats(stream: Path, tmp_path: Path) -> dict[str, Any]:
    done = CliRunner().invoke(
        main,
        ["stats", "--no-cache", "--output-format", "json", str(stream)],
        env={"AGENTRUNS_CACHE_DIR": str(tmp_path)},
    )
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert isinstance(report, dict)
    return report


def _print_mode_stream() -> Path:
    # a Claude Code print-mode stream states the run's usage only in its result event
    found = sorted((FIXTURES / "upstream" / "agent-logs" / "claude-stream-json").glob("*.ndjson"))
    assert found
    return found[0]


def test_a_run_whose_tokens_no_call_accounts_for_has_no_known_cost(tmp_path: Path) -> None:
    lines = [json.loads(line) for line in _print_mode_stream().read_text().splitlines()]
    for line in lines:
        line.pop("total_cost_usd", None)  # the stream states no cost
    stream = tmp_path / "stream.ndjson"
    stream.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = _stream_stats(stream, tmp_path)
    tokens = report["tokens"]["max"]
    assert tokens > 0
    (largest,) = report["largest_runs"]
    assert largest["usd"] is None
    unpriced = report["cost_usd"]["unpriced_tokens"]
    assert sum(row["tokens"] for row in unpriced) == tokens  # never counted as free


def test_a_stream_that_states_its_cost_costs_what_it_states(tmp_path: Path) -> None:
    """The agent's own count (the result's ``total_cost_usd``) before any price table's: its
    tokens are then priced, though no call accounts for them."""
    lines = [json.loads(line) for line in _print_mode_stream().read_text().splitlines()]
    (stated,) = [line["total_cost_usd"] for line in lines if "total_cost_usd" in line]
    report = _stream_stats(_print_mode_stream(), tmp_path)
    (largest,) = report["largest_runs"]
    assert largest["usd"] == pytest.approx(stated, abs=1e-6)
    assert report["cost_usd"]["prices"] == RECORDED
    assert report["cost_usd"]["unpriced_tokens"] == []


@given(run=facts)
@settings(max_examples=100, deadline=None)
def test_facts_as_json_are_what_asdict_makes_of_them_and_come_back(run: RunFacts) -> None:
    dumped = json.dumps(run.as_json())
    assert dumped == json.dumps(asdict(run))  # the deep copy it replaces, as the oracle
    assert RunFacts.from_json(json.loads(dumped)) == run


def test_names_beyond_the_bound_are_counted_as_other() -> None:
    stats = RunStats()
    for number in range(MAX_KEYS + 5):
        stats.add(RunFacts("cortex", "completed", f"agent-{number}", None, None, []))
    assert len(stats.agents) == MAX_KEYS + 1
    assert stats.agents[OTHER] == 5
    assert sum(stats.agents.values()) == MAX_KEYS + 5


def test_the_command_prints_the_summary_and_json_for_programs(tmp_path: Path) -> None:
    lines = [
        json.dumps(json.loads((FIXTURES / name).read_text()))
        for name in ("portable.min.json", "cortex.min.json", "agentrun.min.json")
    ]
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join([*lines, "{oops"]) + "\n")
    text = CliRunner().invoke(main, ["stats", str(path)])
    assert text.exit_code == 1  # one line is no record
    assert "runs      3 (1 rejected)" in text.stdout
    assert "most used tools" in text.stdout
    data = json.loads(
        CliRunner().invoke(main, ["stats", "--output-format", "json", str(path)]).stdout
    )
    assert data["runs"] == 3
    assert data["by_format_and_status"] == {
        "agentrun": {"completed": 1},
        "cortex": {"completed": 1},
        "portable": {"canceled": 1},  # derived: its scripted conversation was stopped
    }
    assert data["duration_ms"]["count"] == 2


@pytest.mark.parametrize("seed", range(5))
def test_past_the_exact_limit_quantiles_stay_within_one_percent(seed: int) -> None:
    draw = random.Random(seed)
    data: list[float] = [int(draw.lognormvariate(8, 2)) for _ in range(EXACT * 2)]
    data += [0] * draw.randrange(100)
    sketch = Sketch()
    for value in data:
        sketch.add(value)
    assert sketch.values is None  # the sketch is in use
    for q in (0.01, 0.5, 0.9, 0.99, 1.0):
        exact = _nearest_rank(data, q)
        found = sketch.quantile(q)
        assert found is not None
        assert abs(found - exact) <= 0.01 * exact + 0.5


big_integers = st.integers(0, 10**400) | st.sampled_from([10**400, 2**63, 2**64 + 1])
extreme_times = st.sampled_from(
    [
        "0001-01-01T00:00:00+23:59",
        "0001-01-01T00:00:00-23:59",
        "9999-12-31T23:59:59-23:59",
        "9999-12-31T23:59:59+23:59",
        "2026-01-01T00:00:00Z",
    ]
)


def _stats_of(tmp: Path, lines: list[str]) -> dict[str, object]:
    path = tmp / "runs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(main, ["stats", str(path)])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["stats", "--output-format", "json", str(path)])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert isinstance(shown, dict)
    return shown


@given(counts=st.lists(big_integers, min_size=1, max_size=5))
@settings(max_examples=40, deadline=None)
def test_stats_take_any_integer_a_schema_allows(
    tmp_path_factory: pytest.TempPathFactory, counts: list[int]
) -> None:
    record = json.loads((FIXTURES / "portable.min.json").read_text())
    lines = []
    for count in counts:
        record["total_tokens"] = record["duration_ms"] = count
        lines.append(json.dumps(record))
    shown = _stats_of(tmp_path_factory.mktemp("stats"), lines)
    assert shown["tokens"] == shown["duration_ms"]
    assert shown["tokens"]["max"] == max(counts)  # type: ignore[index]


@pytest.mark.parametrize("start", ["0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59"])
def test_stats_take_any_time_a_schema_allows(tmp_path: Path, start: str) -> None:
    record = json.loads((FIXTURES / "agentrun.min.json").read_text())
    record["started_at"] = start
    record.pop("ended_at")
    shown = _stats_of(tmp_path, [json.dumps(record)])
    days = [entry["day"] for entry in shown["tokens_by_day"]]  # type: ignore[attr-defined]
    assert days == ["0000-12-31" if start.startswith("0001") else "10000-01-01"]


def test_a_sketch_past_its_exact_limit_holds_integers_beyond_a_float() -> None:
    sketch = Sketch()
    for value in [*range(EXACT + 10), 10**400]:
        sketch.add(value)
    assert sketch.quantile(1.0) == 10**400
    assert sketch.summary()["max"] == 10**400


def test_the_text_says_runs_in_the_singular_for_one_and_exact_percentiles_when_exact() -> None:
    from agentruns.stats import render

    stats = RunStats()
    stats.add(RunFacts("agentrun", "completed", "a", 10, 5, [], model="m", day="2026-01-01"))
    shown = render(stats)
    assert "(1 run)" in shown
    assert " 1 runs" not in shown
    assert "percentiles exact" in shown
