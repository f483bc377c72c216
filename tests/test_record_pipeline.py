"""``agentruns.pipeline``: the one loop every command, the batch functions and the Dask
parts run. Items in, each through its step inside the boundary, outcomes back in input
order whatever the number of workers, the tally adding up."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentruns.io import Raw
from agentruns.pipeline import Outcome, Stream, Tally, run
from agentruns.pipeline._stream import failed


@dataclass(frozen=True)
class Facts:
    """A typed value a step gives (as the statistics' facts are)."""

    number: int
    square: int


def _step(item: int, *, bad: frozenset[int] = frozenset()) -> Outcome[Facts]:
    if item in bad:
        raise ValueError(f"item {item} is bad")
    if item % 7 == 3:
        return Outcome("even" if item % 2 == 0 else "odd", (("/n", f"{item} is refused"),))
    return Outcome("even" if item % 2 == 0 else "odd", value=Facts(item, item * item))


def test_outcomes_come_back_in_input_order() -> None:
    with Stream(_step, range(100), jobs=2, chunk=4) as stream:
        assert [item for item, _ in stream] == list(range(100))


def test_a_step_value_crosses_the_worker_processes_typed() -> None:
    with Stream(_step, range(200), jobs=2, chunk=8) as stream:
        values = [outcome.value for _, outcome in stream if outcome.accepted]
    assert all(isinstance(value, Facts) for value in values)
    assert Facts(11, 121) in values


def test_an_item_whose_step_raises_is_that_items_rejection() -> None:
    step = partial(_step, bad=frozenset({5}))
    outcomes = dict(Stream(step, range(10)))
    assert outcomes[5].problems == (
        ("", "internal error while handling this record (ValueError: item 5 is bad)"),
    )
    assert outcomes[4].accepted
    assert outcomes[6].accepted


@settings(max_examples=25, deadline=None)
@given(
    items=st.lists(st.integers(0, 1_000), max_size=80),
    bad=st.frozensets(st.integers(0, 1_000), max_size=20),
    jobs=st.sampled_from([1, 2]),
)
def test_the_tally_adds_up_and_the_jobs_change_nothing(
    items: list[int], bad: frozenset[int], jobs: int
) -> None:
    step = partial(_step, bad=bad)
    alone = list(Stream(step, items, jobs=1))
    with Stream(step, items, jobs=jobs, chunk=3) as stream:
        together = list(stream)
    assert together == alone
    tally = stream.tally
    assert tally.records == len(items) == tally.accepted + tally.rejected
    assert tally.rejected == sum(1 for _, outcome in alone if outcome.problems)


def test_run_sends_each_outcome_to_its_handler_and_every_item_to_each() -> None:
    accepted: list[int] = []
    rejected: list[int] = []
    seen: list[int] = []
    tally = run(
        Stream(_step, range(20)),
        accepted=lambda item, _: accepted.append(item),
        rejected=lambda item, _: rejected.append(item),
        each=seen.append,
    )
    assert seen == list(range(20))
    assert rejected == [3, 10, 17]
    assert sorted(accepted + rejected) == seen
    assert (tally.records, tally.accepted, tally.rejected) == (20, 17, 3)
    assert tally.by_format == {"even": 9, "odd": 8}


def test_a_stream_counts_into_a_tally_it_is_given() -> None:
    tally = Tally(unreadable=["a.jsonl: no such file"])
    run(Stream(_step, range(5), tally=tally))
    assert tally.records == 5
    assert tally.unreadable == ["a.jsonl: no such file"]


def test_a_closed_stream_says_so() -> None:
    stream = Stream(_step, range(100), jobs=2, chunk=4)
    iterator = iter(stream)
    next(iterator)
    stream.close()
    with pytest.raises(ValueError, match="this Stream is closed"):
        next(iterator)


def test_a_worker_that_died_rejects_only_its_items() -> None:
    outcome = failed(
        7, __import__("concurrent.futures.process").futures.process.BrokenProcessPool()
    )
    assert not outcome.accepted
    assert "ended unexpectedly" in outcome.problems[0][1]


def test_handle_lines_still_works_and_says_it_is_deprecated() -> None:
    from agentruns.batch import handle_lines, raws_of

    with pytest.warns(DeprecationWarning, match="pipeline.Stream"):
        old = list(handle_lines(_raw_step, [b"1", b"", b"x"], "in.jsonl"))
    new = list(Stream(_raw_step, raws_of([b"1", b"", b"x"], "in.jsonl")))
    assert old == new
    assert [raw.line for raw, _ in old] == [1, 3]


def _raw_step(raw: Raw) -> Outcome:
    return Outcome("digits") if raw.raw.isdigit() else Outcome(None, (("", "not digits"),))
