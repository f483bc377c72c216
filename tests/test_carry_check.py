"""Reading a record that carries data, without the trip where the format's table says what it
would find: a value carried for a field the format never shows (``Format.fields_unshown``)
cannot contradict the record, so the record is not written and read again to prove it. The
trip (``agentruns.conversion._read_with_carry`` as it has always read a carry) is the
oracle: on records carrying from every other format, on imported sessions with subagents,
and on payloads whose values were replaced by another run's, both read alike. The
declaration itself is held on its own: no format reads a value into a field it does not
show, and writing a run with any value there succeeds as without it and shows its
subagents alike."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import MISSING, BaseModel

from agentruns import conversion
from agentruns.canonical import FIELDS, Run
from agentruns.conversion import convert, format_named, to_canonical
from agentruns.formats._base import CARRY_PROPERTY
from agentruns.transcripts import load
from agentruns.transcripts._record import to_record
from tests._settings import PROPERTY_SETTINGS
from tests.test_conversion_properties import MODELS, records
from tests.test_import_subagent_losses import TARGETS

FORMATS = sorted(MODELS)
SESSIONS = Path(__file__).parent / "fixtures/upstream/agent-logs/claude-session"


def _read_both_ways(record: BaseModel) -> tuple[object, object]:
    """What reading the record's carry gives, spared the trip and with it."""
    fmt = conversion.format_for(type(record))
    spared = conversion._read_with_carry(fmt, record)
    with mock.patch.object(conversion, "_carries_only_unshown", return_value=False):
        whole = conversion._read_with_carry(fmt, record)
    return spared, whole


def _carrying(source: str) -> st.SearchStrategy[BaseModel]:
    """Records of ``source`` as written from a record of another format (and from one of
    ``source`` through another): they carry what that format held and ``source`` does not."""
    others = [name for name in FORMATS if name != source]
    direct = st.tuples(st.sampled_from(others).flatmap(records), st.just(source))
    through = st.tuples(records(source), st.sampled_from(others))
    return st.one_of(
        direct.map(lambda pair: convert(pair[0], pair[1]).target),
        through.map(lambda pair: convert(convert(pair[0], pair[1]).target, source).target),
    )


def _payload(record: BaseModel) -> dict[str, Any] | None:
    fmt = conversion.format_for(type(record))
    return fmt.carried(record)


@pytest.mark.parametrize("name", FORMATS)
def test_a_carried_record_reads_as_the_trip_reads_it(name: str) -> None:
    @PROPERTY_SETTINGS
    @given(_carrying(name))
    def check(record: BaseModel) -> None:
        spared, whole = _read_both_ways(record)
        assert spared == whole

    check()


@pytest.mark.parametrize("to", sorted(TARGETS))
@pytest.mark.parametrize("session", sorted(path.name for path in SESSIONS.glob("*.jsonl")))
def test_an_imported_session_reads_as_the_trip_reads_it(session: str, to: str) -> None:
    run = load(SESSIONS / session, "claude-code-session").run
    record = to_record(run, to, TARGETS[to]).record
    assert _payload(record) is not None  # (a session always has values no format holds)
    spared, whole = _read_both_ways(record)
    assert spared == whole


def test_an_imported_session_with_subagents_is_read_without_the_trip() -> None:
    run = load(SESSIONS / "spotter-subagent.jsonl", "claude-code-session").run
    record = to_record(run, "atif", {}).record
    payload = _payload(record)
    assert payload is not None
    assert "subagents" in payload
    fmt = format_named("atif")
    whole = _read_both_ways(record)[1]
    with mock.patch.object(type(fmt), "write", side_effect=AssertionError("tripped")):
        assert conversion._read_with_carry(fmt, record) == whole


@st.composite
def _retold(draw: st.DrawFn, name: str) -> BaseModel:
    """A carrying record of ``name`` whose carried values are replaced by another run's
    values of the same fields, and some of its other values added (what an edited or a
    stale carry holds: values the record shows otherwise among them)."""
    record = draw(_carrying(name))
    payload = _payload(record)
    if payload is None:
        return record
    other = to_canonical(draw(st.sampled_from(FORMATS).flatmap(records)))
    dumped = conversion._run_adapter().dump_python(other, mode="json")
    fields = {key: dumped.get(key, value) for key, value in payload["fields"].items()}
    # and values of fields the record shows, which it may contradict
    told = draw(st.sets(st.sampled_from(sorted(dumped)))) if dumped else set()
    fields.update((key, dumped[key]) for key in told)
    retold = {**payload, "fields": {k: v for k, v in fields.items() if k in dumped}}
    fmt = format_named(name)
    kept: BaseModel | None = fmt.carry(record, retold)
    return record if kept is None else kept  # (a place the retold values do not fit)


@pytest.mark.parametrize("name", FORMATS)
def test_a_carry_of_another_runs_values_reads_as_the_trip_reads_it(name: str) -> None:
    @PROPERTY_SETTINGS
    @given(_retold(name))
    def check(record: BaseModel) -> None:
        spared, whole = _read_both_ways(record)
        assert spared == whole

    check()


# -- the declaration, on its own ----------------------------------------------------------------


@st.composite
def _run_and_values(draw: st.DrawFn, name: str) -> tuple[Run, Run]:
    """A run read from a record of ``name`` (plain or carrying), and the same run with the
    values another format's run has for the fields ``name`` does not show, its subagents'
    too."""
    record = draw(st.one_of(records(name), _carrying(name)))
    run = conversion.format_for(type(record)).read(record)
    other = to_canonical(draw(st.sampled_from(FORMATS).flatmap(records)))
    unshown = format_named(name).fields_unshown - {"steps", "subagents"}
    values = {field: getattr(other, field) for field in unshown}
    told = replace(run, **values)
    if isinstance(run.subagents, tuple):
        told = replace(told, subagents=tuple(replace(sub, **values) for sub in run.subagents))
    return run, told


def _unshown_values(fmt: conversion.Format[Any], run: Run) -> list[dict[str, object]]:
    """The values of the fields ``fmt`` does not show, of the run and of each subagent."""
    subagents = run.subagents if isinstance(run.subagents, tuple) else ()
    names = fmt.fields_unshown - {"subagents"}
    return [{name: getattr(each, name) for name in names} for each in (run, *subagents)]


@pytest.mark.parametrize("name", FORMATS)
def test_values_a_format_does_not_show_are_not_read_and_change_no_subagent_it_shows(
    name: str,
) -> None:
    fmt = format_named(name)

    @PROPERTY_SETTINGS
    @given(_run_and_values(name))
    def check(pair: tuple[Run, Run]) -> None:
        run, told = pair
        shown = fmt.write_and_read(told)[1]  # (raises where the values do not fit)
        for each in (run, shown):
            for values in _unshown_values(fmt, each):
                assert all(value is MISSING for value in values.values()), values
        assert shown.subagents == fmt.write_and_read(run)[1].subagents

    check()


def test_every_field_a_format_does_not_show_is_a_field_of_the_run() -> None:
    for name in FORMATS:
        unshown = format_named(name).fields_unshown
        assert unshown <= set(FIELDS)
        assert "steps" not in unshown  # every format shows steps


def test_atif_shows_the_call_that_started_a_subagent() -> None:
    # its own code links a subagent to its call (no row names parent_call_id)
    assert "parent_call_id" not in format_named("atif").fields_unshown


def test_a_payload_carrying_a_value_the_format_shows_takes_the_trip() -> None:
    record = MODELS["atif"].model_validate(
        {
            "schema_version": "ATIF-v1.6",
            "session_id": "s",
            "agent": {"name": "a", "version": "1"},
            "steps": [{"step_id": 1, "source": "user", "message": "hi"}],
            "extra": {
                CARRY_PROPERTY: {
                    "version": 1,
                    "origin": "cortex",
                    "fields": {"run_id": "other", "goal": "g"},
                    "absent": [],
                }
            },
        }
    )
    run, losses = conversion._read_with_carry(format_named("atif"), record)
    assert run.run_id == "s"
    assert run.goal == "g"
    assert [loss.pointer for loss in losses] == [f"/extra/{CARRY_PROPERTY}/fields/run_id"]
