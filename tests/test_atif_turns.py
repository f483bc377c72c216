"""ATIF's turn reader against the first one, kept as the oracle: the reader now gathers each
step's fields and makes it once, where the first one made every step and replaced it on each
change (a folded result, the turn's leftovers). On every turn of generated trajectories both
give the same steps.

The reader also says which turns are *plain* (composed back by construction, so not composed
to check): the check it skips is the oracle of that claim, on turns of every shape."""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass, replace
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import MISSING, BaseModel, JsonValue, ValidationError

from agentruns.canonical import RunStep
from agentruns.conversion import format_for, format_named, to_canonical
from agentruns.formats.atif import _compose, _outcome_of, _read_parts, _time, _turn
from agentruns.models import AtifStep, AtifTrajectory
from agentruns_generated._json import JsonDateTime
from tests._settings import EXAMPLES, PROPERTY_SETTINGS
from tests.test_conversion_properties import records


def _oracle_turn(doc: dict[str, JsonValue], index: int) -> list[RunStep]:
    """The steps of one turn (its JSON, without ``step_id``)."""
    rest = dict(doc)
    at: JsonDateTime | MISSING = MISSING
    stamp = rest.get("timestamp")
    if isinstance(stamp, str) and (parsed := _time(stamp)) is not None:
        at = parsed
        del rest["timestamp"]
    if rest.get("source") == "agent":
        del rest["source"]
    steps: list[RunStep] = []
    reasoning = rest.get("reasoning_content")
    if isinstance(reasoning, str):
        del rest["reasoning_content"]
        steps.append(RunStep(kind="thought", message=reasoning, index=index, started_at=at))
    calls = rest.get("tool_calls")
    call_steps: list[RunStep] = []
    if isinstance(calls, list):
        del rest["tool_calls"]
        for call in calls:
            assert isinstance(call, dict)
            name, call_id, args = call["function_name"], call["tool_call_id"], call["arguments"]
            assert isinstance(name, str)
            assert isinstance(call_id, str)
            extra: dict[str, JsonValue] = {}
            if "extra" in call:
                extra["tool_call_extra"] = call["extra"]
            call_steps.append(
                RunStep(
                    kind="tool_call",
                    name=name,
                    call_id=call_id,
                    input=args,
                    index=index,
                    started_at=at,
                    extra=extra or MISSING,
                )
            )
    message = rest.get("message")
    if isinstance(message, str) and (message or not (steps or call_steps)):
        del rest["message"]
        steps.append(RunStep(kind="message", message=message, index=index, started_at=at))
    elif message == "":
        del rest["message"]  # an agent turn of calls only: the writer writes "" again
    results: list[RunStep] = []
    observation = rest.get("observation")
    if isinstance(observation, dict):
        del rest["observation"]
        folded = -1
        positions = {step.call_id: i for i, step in reversed(list(enumerate(call_steps)))}
        found = observation["results"]
        assert isinstance(found, list)
        for result in found:
            assert isinstance(result, dict)
            source, content = result.get("source_call_id"), result.get("content")
            k = positions.get(source) if isinstance(source, str) else None
            outcome = _outcome_of(result)
            if (
                k is not None
                and k > folded
                and not results
                and outcome is not None
                and (isinstance(content, str | list) or ("content" not in result and outcome))
                and set(result) <= {"source_call_id", "content", "subagent_trajectory_ref", "extra"}
            ):
                folded = k
                claimed = call_steps[k]
                extra = dict(claimed.extra) if isinstance(claimed.extra, dict) else {}
                if "subagent_trajectory_ref" in result:
                    extra["subagent_trajectory_ref"] = result["subagent_trajectory_ref"]
                call_steps[k] = replace(
                    claimed,
                    output=content if isinstance(content, str | list) else MISSING,
                    extra=extra or MISSING,
                    status=outcome.get("status", MISSING),
                    message=outcome.get("message", MISSING),
                )
                continue
            kept_: dict[str, JsonValue] = {}
            if source is None and "source_call_id" in result:
                kept_["source_call_id"] = None
            if "content" in result and not isinstance(content, str | list):
                kept_["content"] = content
            if "extra" in result:
                kept_["result_extra"] = result["extra"]
            if "subagent_trajectory_ref" in result:
                kept_["subagent_trajectory_ref"] = result["subagent_trajectory_ref"]
            results.append(
                RunStep(
                    kind="tool_result",
                    call_id=source if isinstance(source, str) else MISSING,
                    output=content if isinstance(content, str | list) else MISSING,
                    index=index,
                    started_at=at,
                    extra=kept_ or MISSING,
                )
            )
    ordered = [*steps, *call_steps, *results]
    if not ordered:
        ordered = [RunStep(kind="message", index=index, started_at=at)]
    if rest:
        first = ordered[0]
        own = dict(first.extra) if isinstance(first.extra, dict) else {}
        ordered[0] = replace(first, extra={**rest, **own})
    return ordered


@PROPERTY_SETTINGS
@given(records("atif"))
def test_each_turn_reads_as_the_oracle_reads_it(record: AtifTrajectory) -> None:
    for step in record.steps:
        doc = step.model_dump(mode="json")
        del doc["step_id"]
        assert _turn(dict(doc), step.step_id - 1) == _oracle_turn(dict(doc), step.step_id - 1)


def test_a_result_folds_into_its_call_with_its_outcome_and_reference() -> None:
    doc: dict[str, JsonValue] = json.loads(
        """{"source": "agent", "message": "", "timestamp": "2026-01-02T03:04:05Z",
        "tool_calls": [{"tool_call_id": "a", "function_name": "f", "arguments": {}}],
        "observation": {"results": [{"source_call_id": "a", "content": "out",
            "subagent_trajectory_ref": [{"trajectory_id": "s"}],
            "extra": {"status": "error", "message": "boom"}}]},
        "metrics": {"prompt_tokens": 3}}"""
    )
    steps = _turn(dict(doc), 0)
    assert steps == _oracle_turn(dict(doc), 0)
    assert steps[0].status == "error"
    assert steps[0].extra == {
        "metrics": {"prompt_tokens": 3},
        "subagent_trajectory_ref": [{"trajectory_id": "s"}],
    }


def _composes_back_when_plain(turns: list[AtifStep]) -> int:
    """Asserts that every turn the reader calls plain composes back to its JSON; how many
    were plain."""
    plain_turns = 0
    for turn in turns:
        doc = turn.model_dump(mode="json")
        index = doc.pop("step_id") - 1
        steps, plain = _read_parts(dict(doc), index)
        if plain:
            plain_turns += 1
            assert _compose(steps, {}) == doc, doc
    return plain_turns


@PROPERTY_SETTINGS
@given(records("atif"))
def test_a_turn_read_as_plain_composes_back_to_itself(record: AtifTrajectory) -> None:
    _composes_back_when_plain(record.steps)


@PROPERTY_SETTINGS
@given(st.sampled_from(["agentrun", "cortex", "portable"]).flatmap(records))
def test_the_turns_written_from_every_format_read_as_plain_compose_back(record: object) -> None:
    assert isinstance(record, BaseModel)
    written = format_named("atif").write(format_for(type(record)).read(record)).record
    assert isinstance(written, AtifTrajectory)
    _composes_back_when_plain(written.steps)


_ID = st.sampled_from(["a", "b", "c"])
_CALL = st.fixed_dictionaries(
    {"tool_call_id": _ID, "function_name": st.sampled_from(["f", ""]), "arguments": st.just({})},
    optional={"extra": st.just({"k": 1})},
)
_RESULT = st.fixed_dictionaries(
    {},
    optional={
        "source_call_id": st.one_of(_ID, st.none()),
        "content": st.one_of(
            st.sampled_from(["out", ""]), st.just([{"type": "text", "text": "t"}])
        ),
        "extra": st.sampled_from([{"status": "error"}, {"k": 1}]),
        "subagent_trajectory_ref": st.just([{"trajectory_id": "s"}]),
    },
)
_TURN = st.fixed_dictionaries(
    {"step_id": st.just(1), "message": st.sampled_from(["", "hi"])},
    optional={
        "source": st.sampled_from(["agent", "user", "system"]),
        "timestamp": st.sampled_from(["2026-01-02T03:04:05Z", "2026-01-02T03:04:05.5+01:00", "x"]),
        "reasoning_content": st.one_of(st.sampled_from(["", "why"]), st.none()),
        "tool_calls": st.one_of(st.lists(_CALL, max_size=3), st.none()),
        "observation": st.one_of(
            st.fixed_dictionaries({"results": st.lists(_RESULT, max_size=3)}), st.none()
        ),
        "model_name": st.sampled_from(["m", None]),
        "metrics": st.just({"prompt_tokens": 3}),
        "extra": st.just({"k": "v"}),
        "llm_call_count": st.sampled_from([0, 2]),
    },
)


@settings(PROPERTY_SETTINGS, max_examples=EXAMPLES * 20)  # small turns: cheap to try many
@given(st.lists(_TURN, min_size=1, max_size=6))
def test_turns_of_every_shape_read_as_plain_compose_back(docs: list[dict[str, JsonValue]]) -> None:
    turns = []
    for doc in docs:
        try:
            turns.append(AtifStep.model_validate(doc))
        except ValidationError:
            continue  # a turn ATIF refuses (its rules) is no turn to read
    assume(turns)
    _composes_back_when_plain(turns)


def test_a_turn_of_calls_and_their_results_is_plain_and_one_with_a_result_of_no_call_is_not() -> (
    None
):
    doc: dict[str, JsonValue] = {
        "step_id": 1,
        "source": "agent",
        "message": "",
        "timestamp": "2026-01-02T03:04:05Z",
        "tool_calls": [{"tool_call_id": "a", "function_name": "f", "arguments": {}}],
        "observation": {"results": [{"source_call_id": "a", "content": "out"}]},
        "metrics": {"prompt_tokens": 3},
    }
    assert _composes_back_when_plain([AtifStep.model_validate(doc)]) == 1
    doc["observation"] = {"results": [{"source_call_id": "b", "content": "out"}]}
    assert _composes_back_when_plain([AtifStep.model_validate(doc)]) == 0


def _typed(value: object) -> object:
    """A value with the type of each of its parts (``5 == 5.0``, ``True == 1``), its
    dictionaries in no order (nothing reads the order of a step's extra properties: the
    conversion compares them, a writer writes the run's own)."""
    if is_dataclass(value) and not isinstance(value, type):
        return (
            type(value).__name__,
            [(f.name, _typed(getattr(value, f.name))) for f in fields(value)],
        )
    if isinstance(value, dict):
        return ("dict", sorted((key, repr(_typed(item))) for key, item in value.items()))
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_typed(item) for item in value])
    return (type(value).__name__, repr(value))


@PROPERTY_SETTINGS
@given(st.sampled_from(["agentrun", "atif", "cortex", "portable"]).flatmap(records))
def test_a_run_written_as_atif_reads_back_from_the_turns_composed_as_from_the_record(
    record: object,
) -> None:
    assert isinstance(record, BaseModel)
    atif = format_named("atif")
    for run in (format_for(type(record)).read(record), to_canonical(record)):
        written, shown = atif.write_and_read(run)
        read = atif.read(atif.write(run).record)
        assert shown == read
        assert _typed(shown) == _typed(read)  # the same values, of the same types
        assert written.record == atif.write(run).record


def test_a_record_written_to_read_back_is_read_as_it_is_when_read_later() -> None:
    doc: dict[str, JsonValue] = {
        "schema_version": "ATIF-v1.8",
        "agent": {"name": "a", "version": "1"},
        "steps": [{"step_id": 1, "source": "agent", "message": "before"}],
    }
    atif = format_named("atif")
    run = atif.read(AtifTrajectory.model_validate(doc))
    written, shown = atif.write_and_read(run)
    assert isinstance(shown.steps, tuple)
    assert shown.steps[0].message == "before"
    written.record.steps[0].message = "after"  # the composed turn is no longer the record's
    steps = atif.read(written.record).steps
    assert isinstance(steps, tuple)
    assert steps[0].message == "after"


class _WithDefault(BaseModel):
    kept: int = 0


class _Turn(BaseModel):
    inner: list[_WithDefault]


def test_turns_are_read_from_their_json_only_while_their_models_add_no_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentruns.formats import atif

    assert atif._adds_nothing(AtifStep)  # ATIF's models as generated today
    assert not atif._adds_nothing(_Turn)  # a default one model down
    adapter, dumps = atif._turns_adapter(), []

    class Counted:
        """The turns' adapter, counting the dumps it makes."""

        def validate_python(self, value: Any) -> Any:
            return adapter.validate_python(value)

        def dump_python(self, value: Any, **options: Any) -> Any:
            dumps.append(len(value))
            return adapter.dump_python(value, **options)

    monkeypatch.setattr(atif, "_turns_adapter", Counted)
    doc: dict[str, JsonValue] = {
        "schema_version": "ATIF-v1.8",
        "agent": {"name": "a", "version": "1"},
        "steps": [{"step_id": 1, "source": "agent", "message": "m"}],
    }
    run = format_named("atif").read(AtifTrajectory.model_validate(doc))
    dumps.clear()
    assert format_named("atif").write_and_read(run)[1] == run
    assert dumps == []  # read from the JSON composed
    monkeypatch.setattr(atif, "_adds_nothing", lambda: False)
    assert format_named("atif").write_and_read(run)[1] == run
    assert dumps == [1]  # a model that would add a field: the turn is dumped to be read
