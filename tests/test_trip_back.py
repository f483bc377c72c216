"""The trip back through the source, spared the steps where the source's declarations say
what would come back (``agentruns.conversion._trip_back``): the whole trip, as ``convert``
has always proved each record, is the oracle; each declaration a format makes is a property
of its writer, tested on its own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import MISSING, BaseModel, JsonValue

from agentruns import conversion
from agentruns.canonical import FIELDS, Run, RunStep
from agentruns.conversion import convert, format_named, to_canonical
from agentruns.formats import BUILT_IN
from agentruns.formats.cortex import CARRY_EVENT
from agentruns_generated import _ecma
from agentruns_generated._json import Timestamp
from tests._settings import PROPERTY_SETTINGS
from tests.bench.records import lines
from tests.test_conversion_properties import DIRECTIONS, MODELS, records

FORMATS = sorted(MODELS)


def _whole(
    source: conversion.Format[Any], record: BaseModel, run: Run, back: Run, unheld: list[str]
) -> tuple[Run, bool]:
    return conversion._whole_trip_back(source, back), True


@dataclass(frozen=True)
class _Failed:
    error: str
    message: str


def _outcome(action: Callable[[], conversion.Conversion[Any]]) -> object:
    """A conversion's target, losses and derived values, or the error it raised."""
    try:
        done = action()
    except Exception as error:
        return _Failed(type(error).__name__, str(error))
    return (done.target, done.losses, done.derived)


def _both_ways(record: BaseModel, target: str) -> tuple[object, object]:
    spared = _outcome(lambda: convert(record, target))
    with mock.patch.object(conversion, "_trip_back", _whole):
        whole = _outcome(lambda: convert(record, target))
    return spared, whole


def _carrying(source: str) -> st.SearchStrategy[BaseModel]:
    """Records of ``source`` as written back from another format: they carry what that
    format held and ``source`` does not (the trip back must then not take the record's
    steps for the run's)."""
    others = [name for name in FORMATS if name != source]
    return st.tuples(records(source), st.sampled_from(others)).map(
        lambda pair: convert(convert(pair[0], pair[1]).target, source).target
    )


@pytest.mark.parametrize(("source", "target"), DIRECTIONS)
def test_a_conversion_reports_what_the_whole_trip_back_reports(source: str, target: str) -> None:
    @PROPERTY_SETTINGS
    @given(st.one_of(records(source), _carrying(source)))
    def check(record: BaseModel) -> None:
        spared, whole = _both_ways(record, target)
        assert spared == whole

    check()


@pytest.mark.parametrize(("source", "target"), DIRECTIONS)
def test_a_conversion_of_realistic_records_reports_what_the_whole_trip_back_reports(
    source: str, target: str
) -> None:
    # the bench's records: tens of steps, each of the kinds its format has, as agents write
    # them (the generated records above have few steps, and rarely steps the target keeps)
    for line in lines(source, 12, seed=7):
        record = MODELS[source].model_validate_json(line)
        spared, whole = _both_ways(record, target)
        assert not isinstance(whole, _Failed), whole
        assert spared == whole


# -- runs every declaration is tested on ------------------------------------------------------

_START = Timestamp.of(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), "2026-01-02T03:04:05Z")

_DERIVABLE = ("run_id", "started_at", "ended_at", "status", "kind", "goal", "agent_id")


@st.composite
def _read_runs(draw: st.DrawFn) -> Run:
    """Runs of every format, as read and as another format shows them."""
    name = draw(st.sampled_from(FORMATS))
    run = to_canonical(draw(records(name)))
    through = draw(st.sampled_from([None, *FORMATS]))
    if through is not None:
        run = format_named(through).write_and_read(run)[1]
    return run


@st.composite
def _runs(draw: st.DrawFn) -> Run:
    """Runs of every format (``_read_runs``), some without the fields a writer derives when a
    run has none (the derivations are what could read the steps), some with a subagent
    started by one of their calls (a writer may link the two through the steps)."""
    run = draw(_read_runs())
    dropped = draw(st.sets(st.sampled_from(_DERIVABLE)))
    run = replace(run, **dict.fromkeys(dropped, MISSING))
    steps = run.steps if isinstance(run.steps, tuple) else ()
    if draw(st.booleans()) and steps:
        run = replace(run, steps=draw(_with_foreign_extra(steps)))
    if not draw(st.booleans()):
        return run
    steps = run.steps if isinstance(run.steps, tuple) else ()
    started = RunStep(
        kind="tool_call", name="task", call_id="call-sub", input={}, output="done", index=0
    )
    if draw(st.booleans()):
        steps = (*steps, replace(started, index=len(steps)))
    calls = sorted({step.call_id for step in steps if isinstance(step.call_id, str)})
    parent = draw(st.sampled_from(calls) if calls else st.just("call-sub"))
    sub = replace(draw(_read_runs()), parent_call_id=parent, trajectory_id="sub-1")
    return replace(run, steps=steps, subagents=(sub,))


_FOREIGN = st.fixed_dictionaries(
    {},
    optional={
        "metrics": st.one_of(st.integers(), st.text(max_size=3)),
        "model_name": st.integers(),
        "is_copied_context": st.text(max_size=3),
        "observation": st.integers(),
    },
)
"""Extra properties of a step named as another format's fields, of values it refuses (ATIF
turns: a writer leaves such a field out, the trip reports it)."""


@st.composite
def _with_foreign_extra(draw: st.DrawFn, steps: tuple[RunStep, ...]) -> tuple[RunStep, ...]:
    at = draw(st.integers(min_value=0, max_value=len(steps) - 1))
    step = steps[at]
    own = step.extra if isinstance(step.extra, dict) else {}
    changed = replace(step, extra={**own, **draw(_FOREIGN)})
    return (*steps[:at], changed, *steps[at + 1 :])


def _for_generated_runs(check: Callable[[Run], None]) -> None:
    PROPERTY_SETTINGS(given(_runs())(check))()


def _without_steps(run: Run) -> dict[str, object]:
    return {name: value for name, value in vars_of(run).items() if name != "steps"}


def vars_of(run: Run) -> dict[str, object]:
    return {name: getattr(run, name) for name in FIELDS}


@pytest.mark.parametrize("name", FORMATS)
def test_a_run_without_its_steps_reads_back_the_fields_the_run_does(name: str) -> None:
    fmt = format_named(name)

    def check(run: Run) -> None:
        bare = fmt.without_steps(run)
        if bare is None:
            return
        assert bare.steps == ()
        whole = fmt.write_and_read(run)[1]
        spared = fmt.write_and_read(bare)[1]
        assert _without_steps(spared) == _without_steps(whole)

    _for_generated_runs(check)


def _kept(fmt: conversion.Format[Any], run: Run) -> tuple[RunStep, ...] | None:
    """The steps ``fmt`` reads back of ``run``, where it says it keeps every one."""
    if not isinstance(run.steps, tuple) or not fmt.keeps_every_step(run.steps):
        return None
    back = fmt.write_and_read(run)[1].steps
    assert isinstance(back, tuple)
    return back


@pytest.mark.parametrize("name", FORMATS)
def test_a_format_that_keeps_every_step_reads_as_many_as_it_wrote(name: str) -> None:
    fmt = format_named(name)

    def check(run: Run) -> None:
        back = _kept(fmt, run)
        assert back is None or (isinstance(run.steps, tuple) and len(back) == len(run.steps))

    _for_generated_runs(check)


@pytest.mark.parametrize("name", FORMATS)
def test_steps_tripped_one_by_one_come_back_as_the_whole_run_gives_them(name: str) -> None:
    fmt = format_named(name)

    def check(run: Run) -> None:
        tripped = fmt.step_trips(run)
        if tripped is not None:
            assert tuple(tripped) == fmt.write_and_read(run)[1].steps

    _for_generated_runs(check)


def test_a_format_that_keeps_every_step_can_trip_a_step_on_its_own() -> None:
    for fmt in BUILT_IN:
        one = (RunStep(kind="message", name="m"),)
        if fmt.keeps_every_step(one):
            assert fmt.step_trips(Run(steps=one, started_at=_START)) is not None, fmt.name


_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "started_at": st.just(_START),
    "duration_ms": st.integers(min_value=0, max_value=10**6),
    "phase": st.one_of(st.none(), st.text(max_size=5)),
    "status": st.one_of(st.none(), st.sampled_from(["failed", "ok", "running"])),
    "activity": st.one_of(st.none(), st.text(max_size=5)),
    "message": st.one_of(st.none(), st.text(max_size=5)),
    "extra": st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
    "call_id": st.text(max_size=6),
    "name": st.text(max_size=6),
    "index": st.integers(min_value=-2, max_value=40),
    "input": st.one_of(
        st.none(),
        st.text(max_size=4),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    ),
    "output": st.one_of(st.none(), st.text(max_size=4), st.integers()),
}


@st.composite
def _changed_steps(draw: st.DrawFn, fields: frozenset[str]) -> tuple[Run, Run]:
    """A run, and the same run with some of its steps changed in ``fields`` only."""
    run = draw(_runs())
    steps = run.steps if isinstance(run.steps, tuple) else ()
    changed: list[RunStep] = []
    for step in steps:
        names = draw(st.sets(st.sampled_from(sorted(fields)))) if fields else set()
        update: dict[str, Any] = {
            name: draw(st.one_of(st.just(MISSING), _VALUES[name])) for name in sorted(names)
        }
        changed.append(replace(step, **update))
    return run, replace(run, steps=tuple(changed))


def _json(record: BaseModel) -> JsonValue:
    dumped: JsonValue = record.model_dump(mode="json", by_alias=True)
    return dumped


@pytest.mark.parametrize("name", [fmt.name for fmt in BUILT_IN if fmt.step_fields_unwritten])
def test_steps_that_differ_only_in_fields_a_format_writes_nothing_from_are_written_alike(
    name: str,
) -> None:
    fmt = format_named(name)

    @PROPERTY_SETTINGS
    @given(_changed_steps(fmt.step_fields_unwritten))
    def check(runs: tuple[Run, Run]) -> None:
        run, changed = runs
        written, other = fmt.write(run), fmt.write(changed)
        assert _json(other.record) == _json(written.record)
        assert other.derived == written.derived

    check()


@pytest.mark.parametrize("name", [fmt.name for fmt in BUILT_IN if fmt.step_fields_unwritten])
def test_a_format_with_unwritten_step_fields_writes_its_steps_from_the_steps_alone(
    name: str,
) -> None:
    fmt = format_named(name)
    steps_at = fmt.pointer("steps").removeprefix("/")

    @PROPERTY_SETTINGS
    @given(_runs(), _runs())
    def check(run: Run, other: Run) -> None:
        # the run's other fields (which the trip back takes from the target) change nothing
        # of the steps written
        mine = _json(fmt.write(run).record)
        theirs = _json(fmt.write(replace(other, steps=run.steps)).record)
        assert isinstance(mine, dict)
        assert isinstance(theirs, dict)
        assert theirs.get(steps_at) == mine.get(steps_at)

    check()


def test_the_unwritten_fields_of_a_format_are_none_it_reads() -> None:
    for fmt in BUILT_IN:
        read = set(fmt.step_pointers or {}) | _step_fields_read(fmt)
        assert not (fmt.step_fields_unwritten & read), fmt.name


def _step_fields_read(fmt: conversion.Format[Any]) -> set[str]:
    table = fmt.crosswalk
    if table is None:
        return set()
    items = next((row.table for row in table.rows if row.target == "steps"), None)
    if items is None:
        return set()
    return {target for target, _ in items.pointers()} | set(items.fixed)


# -- when the whole run makes the trip --------------------------------------------------------


def _trips(record: BaseModel, target: str) -> list[Run]:
    """The runs that made the whole trip back while ``record`` was converted."""
    return _whole_trips_during(lambda: convert(record, target))


def _whole_trips_during(action: Callable[[], object]) -> list[Run]:
    seen: list[Run] = []
    whole = conversion._whole_trip_back

    def counted(source: conversion.Format[Any], back: Run) -> Run:
        seen.append(back)
        return whole(source, back)

    with mock.patch.object(conversion, "_whole_trip_back", counted):
        action()
    return seen


def _agentrun(steps: list[dict[str, JsonValue]], **fields: JsonValue) -> BaseModel:
    doc: dict[str, JsonValue] = {
        "run_id": "r",
        "agent_id": "a",
        "goal": "g",
        "status": "completed",
        "started_at": "2026-01-01T00:00:00Z",
        "steps": steps,  # type: ignore[dict-item]
        **fields,
    }
    return MODELS["agentrun"].model_validate(doc)


def test_steps_the_target_gives_back_unchanged_do_not_make_the_trip() -> None:
    step: dict[str, JsonValue] = {"index": 0, "type": "message", "name": "hello"}
    record = _agentrun([{**step, "started_at": "2026-01-01T00:00:02Z"}])
    agentrun = type(format_named("agentrun"))
    with mock.patch.object(agentrun, "step_trips", autospec=True) as one:
        assert _trips(record, "cortex") == []
    assert one.call_count == 0


def test_steps_the_target_keeps_fewer_of_are_counted_without_the_trip() -> None:
    record = _agentrun(
        [
            {"index": 0, "type": "thought", "name": "t"},
            {"index": 1, "type": "tool_call", "name": "x"},
        ]
    )
    assert _trips(record, "portable") == []


def test_a_cortex_run_without_a_start_is_dated_by_its_steps_without_them() -> None:
    step = RunStep(kind="event", name="started", started_at=_START)
    run = Run(steps=(step,), kind="implement", status="running", run_id="r")
    cortex = format_named("cortex")
    bare = cortex.without_steps(run)
    assert bare is not None
    assert bare.started_at == _START  # the earliest step's, as the whole run is dated
    assert cortex.write_and_read(run)[1].started_at == _START


_JOURNAL: dict[str, JsonValue] = {
    "schema_version": 1,
    "run_id": "r",
    "kind": "implement",
    "status": "running",
    "started_at": "2026-01-01T00:00:00Z",
    "events": [
        {"type": "read", "at": "2026-01-01T00:00:01Z", "kind": "tool_call", "input": {}},
        {"type": "edit", "at": "2026-01-01T00:00:02Z", "kind": "tool_call", "input": {}},
    ],
}


def _taking(steps: Iterator[RunStep], taken: list[RunStep]) -> Iterator[RunStep]:
    for step in steps:
        taken.append(step)
        yield step


def _steps_tripped(record: BaseModel, source: str, target: str) -> tuple[int, int]:
    """How many whole trips back converting ``record`` took, and how many steps the source
    made one by one."""
    fmt = type(format_named(source))
    taken: list[RunStep] = []
    original = fmt.step_trips

    def counted(self: conversion.Format[Any], run: Run) -> Iterator[RunStep] | None:
        tripped = original(self, run)
        return None if tripped is None else _taking(tripped, taken)

    with mock.patch.object(fmt, "step_trips", counted):
        whole = len(_trips(record, target))
    return whole, len(taken)


def test_steps_a_target_carries_are_tripped_one_by_one_up_to_the_first_that_differs() -> None:
    record = MODELS["cortex"].model_validate(_JOURNAL)
    # AgentRun carries the steps: knowing that they differ is enough (no whole trip); the
    # first event comes back as a step of another index
    assert _steps_tripped(record, "cortex", "agentrun") == (0, 1)


def test_steps_a_target_cannot_carry_are_reported_as_the_whole_trip_gives_them() -> None:
    record = MODELS["cortex"].model_validate(_JOURNAL)
    whole = len(_trips(record, "portable"))
    assert whole == 1  # portable has no place: each step's losses, from the whole trip
    spared, oracle = _both_ways(record, "portable")
    assert not isinstance(oracle, _Failed), oracle
    assert spared == oracle


def test_a_last_step_named_as_the_carry_event_is_not_counted_as_kept() -> None:
    cortex = format_named("cortex")
    named = (RunStep(kind="event", name=CARRY_EVENT),)
    kind = (RunStep(kind=CARRY_EVENT),)
    assert not cortex.keeps_every_step(named)
    assert not cortex.keeps_every_step(kind)
    assert cortex.keeps_every_step((*named, RunStep(kind="event", name="later")))


_PORTABLE: dict[str, JsonValue] = {
    "eval_id": "e",
    "condition": "c",
    "skill_path": None,
    "prompt": "p",
    "files": [],
    "final_message": "m",
    "tool_invocations": [{"name": "x", "args": {}, "result": "ok", "ordinal": 0}],
    "total_tokens": None,
    "duration_ms": None,
    "run_index": 1,
}


def test_steps_that_differ_only_in_what_the_source_does_not_write_do_not_make_the_trip() -> None:
    record = MODELS["portable"].model_validate(_PORTABLE)
    portable = type(format_named("portable"))
    with mock.patch.object(portable, "step_trips", autospec=True) as one:
        assert _trips(record, "cortex") == []  # cortex dates each call; portable writes no time
    assert one.call_count == 0  # the record's own steps: they come back as written


def test_a_record_carrying_data_has_its_steps_tripped_not_taken_as_its_own() -> None:
    record = MODELS["portable"].model_validate(_PORTABLE)
    portable = type(format_named("portable"))
    payload: dict[str, JsonValue] = {"version": 1, "origin": "x", "fields": {}, "absent": []}
    with (
        mock.patch.object(portable, "carried", return_value=payload),
        mock.patch.object(
            portable, "step_trips", autospec=True, side_effect=portable.step_trips
        ) as one,
    ):
        # its steps may be another format's, carried: they are not the record's to take
        spared, oracle = _both_ways(record, "cortex")
    assert one.call_count >= 1
    assert not isinstance(oracle, _Failed), oracle
    assert spared == oracle


def test_the_steps_of_a_long_run_are_tripped_in_one_pass() -> None:
    # every call but the last comes back from AgentRun: each step is tripped once, and
    # whether the run keeps every step is asked once, not once a step (which was quadratic)
    calls: list[JsonValue] = [
        {"name": "t", "args": {"i": i}, "result": {"r": "ok"}, "ordinal": i} for i in range(300)
    ]
    calls[-1] = {"name": "t", "args": "a string", "result": {"r": "ok"}, "ordinal": 299}
    record = MODELS["portable"].model_validate({**_PORTABLE, "tool_invocations": calls})
    portable = type(format_named("portable"))
    with (
        mock.patch.object(
            portable, "keeps_every_step", autospec=True, side_effect=portable.keeps_every_step
        ) as asked,
        mock.patch.object(
            portable, "step_trips", autospec=True, side_effect=portable.step_trips
        ) as tripped,
    ):
        spared, oracle = _both_ways(record, "agentrun")
    assert tripped.call_count == 1
    assert asked.call_count <= 2  # the spared conversion's, and the oracle's own none
    assert not isinstance(oracle, _Failed), oracle
    assert spared == oracle


_TRAJECTORY: dict[str, JsonValue] = {
    "schema_version": "ATIF-v1.8",
    "session_id": "s",
    "agent": {"name": "a", "version": "1"},
    "steps": [
        {"step_id": 1, "source": "user", "message": "hi"},
        {
            "step_id": 2,
            "source": "agent",
            "message": "",
            "tool_calls": [{"tool_call_id": "c", "function_name": "f", "arguments": {}}],
            "observation": {"results": [{"source_call_id": "c", "content": "done"}]},
        },
        {"step_id": 3, "source": "agent", "message": "bye", "model_name": "m"},
    ],
}


def test_atif_turns_a_target_carries_are_tripped_up_to_the_first_that_differs() -> None:
    record = MODELS["atif"].model_validate(_TRAJECTORY)
    # the second step, a call, comes back from AgentRun without its result
    assert _steps_tripped(record, "atif", "agentrun") == (0, 2)


def test_a_trip_turn_by_turn_keeps_its_pattern_budget_to_itself() -> None:
    run = to_canonical(MODELS["atif"].model_validate(_TRAJECTORY))
    tripped = format_named("atif").step_trips(run)
    assert tripped is not None
    next(tripped)  # (the pass's budget is open in its own context)
    budget = _ecma.open_budget()
    assert budget is not None  # none is open here
    _ecma.close_budget(budget)


class _Tripping(conversion.Format[Any]):
    def __init__(self, back: tuple[RunStep, ...]) -> None:
        self.back = back

    def step_trips(self, run: Run) -> Iterator[RunStep] | None:
        return iter(self.back)


@pytest.mark.parametrize("more", [-1, 1])
def test_steps_that_come_back_fewer_or_more_are_unlike(more: int) -> None:
    steps = (RunStep(kind="message", name="a"), RunStep(kind="message", name="b"))
    back = (*steps, steps[0])[: len(steps) + more]
    assert conversion._first_unlike(_Tripping(back), Run(steps=steps), steps) is True
    assert conversion._first_unlike(_Tripping(steps), Run(steps=steps), steps) is False


def test_atif_subagents_a_target_does_not_keep_leave_the_turns_to_be_tripped_one_by_one() -> None:
    call = RunStep(kind="tool_call", name="task", call_id="c", input={}, output="done", index=0)
    sub = Run(trajectory_id="sub", parent_call_id="c", steps=(RunStep(kind="message", index=0),))
    run = Run(run_id="r", steps=(call,), subagents=(sub,))
    record = format_named("atif").write(run).record
    # AgentRun keeps no subagents: the run it gives back has none to link through the steps
    assert _steps_tripped(record, "atif", "agentrun") == (0, 1)
