"""ATIF: the vendored schema is what its recorded command derives, the generated model agrees
with the ``atif`` package, and trajectories convert to every format and back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import atif
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from pydantic import MISSING, ValidationError

from agentruns import Run, RunStep, convert, from_canonical
from agentruns.formats.atif import ATIF, RAW_STEP
from agentruns.models import AtifTrajectory
from codegen.derive_atif import derive
from tests._settings import PROPERTY_SETTINGS as _SETTINGS
from tests.fidelity.atif import as_atif_checks, generation_schema, written_form

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "atif.min.json"
SCHEMA: dict[str, Any] = json.loads((ROOT / "schemas" / "atif-trajectory.schema.json").read_text())


def _trajectory(document: dict[str, Any]) -> AtifTrajectory:
    return AtifTrajectory.model_validate_json(json.dumps(document))


def _minimal(**steps: Any) -> dict[str, Any]:
    return {
        "schema_version": "ATIF-v1.8",
        "agent": {"name": "a", "version": "1"},
        "steps": [{"step_id": 1, "source": "agent", "message": "hi", **steps}],
    }


# -- the schema --------------------------------------------------------------------------------


def test_the_vendored_schema_is_what_the_recorded_command_derives() -> None:
    derived = derive(atif.Trajectory.model_json_schema())
    text = json.dumps(derived, indent=2, ensure_ascii=False) + "\n"
    assert text == (ROOT / "schemas" / "atif-trajectory.schema.json").read_text(encoding="utf-8")


def _atif_accepts(document: Any) -> bool:
    try:
        atif.Trajectory.model_validate_json(json.dumps(document))
    except ValidationError:
        return False
    return True


def _model_accepts(document: Any) -> bool:
    try:
        _trajectory(document)
    except ValidationError:
        return False
    return True


TRAJECTORIES = from_schema(generation_schema(SCHEMA)).map(as_atif_checks)


def test_the_model_accepts_what_the_atif_package_accepts() -> None:
    # documents valid by the schema, made to satisfy what no schema can say: both accept
    @_SETTINGS
    @given(TRAJECTORIES)
    def check(document: dict[str, Any]) -> None:
        assert _model_accepts(document) == _atif_accepts(document), json.dumps(document)[:500]

    check()


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"source": "user", "model_name": "m"}, "agent-only field on a user step"),
        ({"source": "system", "tool_calls": []}, "tool calls on a system step"),
        ({"llm_call_count": 0, "metrics": {}}, "metrics without an LLM call"),
        ({"llm_call_count": 0, "reasoning_content": "r"}, "reasoning without an LLM call"),
        ({"message": [{"type": "text"}]}, "a text part without text"),
        (
            {"message": [{"type": "image", "source": {"media_type": "audio/wav", "path": "p"}}]},
            "an image part with an audio source",
        ),
        ({"message": [{"type": "text", "text": "t", "source": None}]}, None),
        (
            {"observation": {"results": [{"subagent_trajectory_ref": [{"session_id": "s"}]}]}},
            "a subagent reference that names neither an id nor a path",
        ),
        ({"llm_call_count": -1}, "a negative call count"),
    ],
)
def test_the_model_refuses_what_the_atif_validators_refuse(
    change: dict[str, Any], why: str | None
) -> None:
    document = _minimal(**change)
    assert _atif_accepts(document) is (why is None)
    assert _model_accepts(document) is (why is None), why


def test_an_embedded_trajectory_without_an_id_is_refused_by_both() -> None:
    document = _minimal()
    document["subagent_trajectories"] = [_minimal()]
    assert not _atif_accepts(document)
    assert not _model_accepts(document)
    document["subagent_trajectories"][0]["trajectory_id"] = "s"
    assert _atif_accepts(document)
    assert _model_accepts(document)


# -- reading and writing -------------------------------------------------------------------------


def test_a_turn_is_its_reasoning_message_calls_and_results_as_steps() -> None:
    run = ATIF.read(_trajectory(json.loads(FIXTURE.read_text())))
    assert isinstance(run.steps, tuple)
    turn = [step for step in run.steps if step.index == 2]
    assert [step.kind for step in turn] == ["thought", "message", "tool_call", "tool_call"]
    assert turn[2].call_id == "call_1"
    assert turn[2].input == {"command": "ls /tmp | wc -l"}
    assert turn[2].output == "12"
    assert turn[0].extra is not MISSING
    assert turn[0].extra["model_name"] == "claude-sonnet-4-6"


def test_a_user_or_system_turn_keeps_its_source_in_the_steps_extra() -> None:
    run = ATIF.read(_trajectory(json.loads(FIXTURE.read_text())))
    assert isinstance(run.steps, tuple)
    assert run.steps[0].extra == {"source": "system"}
    assert run.steps[1].extra == {"source": "user"}


def test_a_subagent_is_linked_to_the_call_whose_result_refers_to_it() -> None:
    run = ATIF.read(_trajectory(json.loads(FIXTURE.read_text())))
    assert isinstance(run.subagents, tuple)
    assert run.subagents[0].trajectory_id == "sub-1"
    assert run.subagents[0].parent_call_id == "call_2"


def test_a_subagent_from_a_session_becomes_an_embedded_trajectory_referred_to_by_its_call() -> None:
    child = Run(run_id="child-session", parent_call_id="toolu_1", goal="look around")
    run = Run(
        run_id="s",
        agent_id="claude-code",
        steps=(RunStep(kind="tool_call", name="Task", call_id="toolu_1", input={}, output="done"),),
        subagents=(child,),
    )
    written = from_canonical(run, AtifTrajectory)
    document = json.loads(written.record.model_dump_json())
    assert document["subagent_trajectories"][0]["trajectory_id"] == "child-session"
    result = document["steps"][0]["observation"]["results"][0]
    assert result["subagent_trajectory_ref"] == [{"trajectory_id": "child-session"}]
    assert _atif_accepts(document)


def test_a_turn_whose_parts_would_not_come_back_is_kept_whole() -> None:
    # an empty list of calls has no step to be: the turn is kept as it was
    document = _minimal(tool_calls=[], observation={"results": []})
    record = _trajectory(document)
    run = ATIF.read(record)
    assert isinstance(run.steps, tuple)
    assert len(run.steps) == 1
    assert run.steps[0].extra is not MISSING
    assert RAW_STEP in run.steps[0].extra
    assert convert(record, AtifTrajectory, strict=True).target == record


def test_results_in_another_order_than_their_calls_come_back_in_their_order() -> None:
    results = [
        {"source_call_id": "b", "content": "2"},
        {"source_call_id": "a", "content": "1"},
    ]
    calls = [
        {"tool_call_id": "a", "function_name": "f", "arguments": {}},
        {"tool_call_id": "b", "function_name": "g", "arguments": {}},
    ]
    record = _trajectory(_minimal(tool_calls=calls, observation={"results": results}))
    assert from_canonical(ATIF.read(record), AtifTrajectory).record == record


def test_a_null_in_a_field_another_format_shares_reads_as_absent() -> None:
    document = _minimal()
    document["session_id"] = None
    run = ATIF.read(_trajectory(document))
    assert run.run_id is MISSING
    del document["session_id"]
    assert json.loads(from_canonical(run, AtifTrajectory).record.model_dump_json()) == document


def test_a_null_elsewhere_is_kept() -> None:
    document = _minimal(metrics=None, extra=None)
    document["notes"] = None
    record = _trajectory(document)
    assert json.loads(
        from_canonical(ATIF.read(record), AtifTrajectory).record.model_dump_json()
    ) == (document)


@pytest.mark.parametrize("to", ["agentrun", "cortex", "portable"])
def test_a_harbor_trajectory_converts_and_comes_back_with_every_value_back_or_reported(
    to: str,
) -> None:
    from tests.test_conversion_properties import covered, differences, without_carry

    original = json.loads(FIXTURE.read_text())
    record = _trajectory(original)
    there = convert(record, to)
    back = convert(there.target, AtifTrajectory)
    returned = without_carry(json.loads(back.target.model_dump_json()), original)
    if not there.losses:
        assert returned == original
        return
    assert to == "portable"  # the one format with no free-form place
    lost = {loss.pointer for loss in there.losses}
    rederived = {d.pointer for d in back.derived}
    for pointer in differences(original, returned):
        assert covered(pointer, lost | rederived), f"unreported loss at {pointer}"
    assert {"/agent/name", "/steps", "/subagent_trajectories"} <= lost


def _fixtures() -> list[Path]:
    found = sorted((ROOT / "tests" / "fixtures").glob("*.min.json"))
    found += sorted((ROOT / "tests" / "fixtures" / "upstream").rglob("*.json"))
    from agentruns.detect import detect

    return [
        p
        for p in found
        if "schema" not in p.name and detect(json.loads(p.read_text())).format is not None
    ]


@pytest.mark.parametrize("path", _fixtures(), ids=lambda p: p.name)
def test_atif_written_from_any_record_is_accepted_by_the_atif_package(path: Path) -> None:
    from agentruns.detect import MODELS, detect

    found = detect(json.loads(path.read_text())).format
    assert found is not None
    record = MODELS[found].model_validate_json(path.read_bytes())
    written = convert(record, AtifTrajectory).target.model_dump_json()
    atif.Trajectory.model_validate_json(written)


def test_steps_from_other_formats_group_into_turns() -> None:
    steps = (
        RunStep(kind="thought", message="plan"),
        RunStep(kind="message", message="doing it"),
        RunStep(kind="tool_call", name="ls", call_id="c1", input={}, output="x"),
        RunStep(kind="tool_call", name="cat", call_id="c2", input={"p": 1}),
        RunStep(kind="message", message="done"),
    )
    document = json.loads(from_canonical(Run(steps=steps), AtifTrajectory).record.model_dump_json())
    turns = document["steps"]
    assert [t["step_id"] for t in turns] == [1, 2]
    assert turns[0]["reasoning_content"] == "plan"
    assert [c["tool_call_id"] for c in turns[0]["tool_calls"]] == ["c1", "c2"]
    assert turns[0]["observation"] == {"results": [{"source_call_id": "c1", "content": "x"}]}
    assert turns[1]["message"] == "done"
    assert _atif_accepts(document)


@given(st.data())
@_SETTINGS
def test_any_trajectory_atif_accepts_reads_and_writes_back_as_it_was(data: st.DataObject) -> None:
    document = data.draw(TRAJECTORIES)
    written_form(document)
    record = _trajectory(document)
    assert from_canonical(ATIF.read(record), AtifTrajectory).record == record


@pytest.mark.parametrize("source", ["agentrun", "cortex", "portable", "atif"])
def test_atif_written_from_any_generated_record_is_accepted_by_the_atif_package(
    source: str,
) -> None:
    from tests.test_conversion_properties import records

    @_SETTINGS
    @given(records(source))
    def check(record: Any) -> None:
        written = convert(record, AtifTrajectory).target.model_dump_json()
        assert _atif_accepts(json.loads(written)), written[:500]

    check()


def test_subagents_with_one_id_get_distinct_ids() -> None:
    subagents = (Run(run_id="same"), Run(run_id="same"), Run(trajectory_id="same-2"))
    written = from_canonical(Run(subagents=subagents), AtifTrajectory)
    document = json.loads(written.record.model_dump_json())
    ids = [sub["trajectory_id"] for sub in document["subagent_trajectories"]]
    assert len(set(ids)) == 3
    assert ids[2] == "same-2"
    assert _atif_accepts(document)


def test_a_claude_session_with_a_subagent_imports_as_a_trajectory_atif_accepts(
    tmp_path: Path,
) -> None:
    from click.testing import CliRunner

    from agentruns.cli import main

    session = ROOT / "tests/fixtures/upstream/agent-logs/claude-session/spotter-subagent.jsonl"
    out = tmp_path / "trajectory.json"
    result = CliRunner().invoke(main, ["import", "--to", "atif", "-o", str(out), str(session)])
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_bytes())
    assert _atif_accepts(document)
    [sub] = document["subagent_trajectories"]
    refs = [
        ref
        for step in document["steps"]
        for result_ in (step.get("observation") or {}).get("results", [])
        for ref in result_.get("subagent_trajectory_ref") or []
    ]
    assert refs == [{"trajectory_id": sub["trajectory_id"]}]


def test_turns_cut_reordered_and_nulled_read_and_write_back_as_they_were() -> None:
    from tests.test_batch import odd_atif_turns

    @_SETTINGS
    @given(odd_atif_turns())
    def check(text: str) -> None:
        record = AtifTrajectory.model_validate_json(text)
        assert from_canonical(ATIF.read(record), AtifTrajectory).record == record
        assert convert(record, AtifTrajectory, strict=True).target is record

    check()


def _nullable_pointers() -> list[str]:
    """Every field of the trajectory, its agent and its final metrics that the schema lets be
    null."""
    found = []
    objects = [
        ("", SCHEMA),
        ("/agent", SCHEMA["definitions"]["AtifAgent"]),
        ("/final_metrics", SCHEMA["definitions"]["AtifFinalMetrics"]),
    ]
    for at, schema in objects:
        for name, sub in schema["properties"].items():
            if {"type": "null"} in sub.get("anyOf", []):
                found.append(f"{at}/{name}")
    return found


@pytest.mark.parametrize("pointer", _nullable_pointers())
def test_a_null_is_written_back_exactly_where_the_declaration_does_not_say_absent(
    pointer: str,
) -> None:
    from agentruns.formats.atif import NULL_AS_ABSENT

    document = _minimal()
    *path, key = pointer[1:].split("/")
    owner = document
    for part in path:
        owner = owner.setdefault(part, {})
    owner[key] = None
    written = json.loads(
        from_canonical(ATIF.read(_trajectory(document)), AtifTrajectory).record.model_dump_json()
    )
    target = written
    for part in path:
        target = target.get(part, {})
    assert (key in target) == (pointer not in NULL_AS_ABSENT)


@_SETTINGS
@given(ids=st.lists(st.integers(1, 6), min_size=4, max_size=4))
def test_step_ids_atif_refuses_come_back_numbered_and_the_renumbering_is_said(
    ids: list[int],
) -> None:
    """ATIF's step ids count 1, 2, 3... (the atif package refuses any other; JSON Schema cannot
    say it, so the model accepts them): through a format that keeps the indexes and back, the
    trajectory is numbered 1..n, and the writer says so whenever a number changed."""
    from agentruns.models import AgentRun

    document = json.loads((Path(__file__).parent / "fixtures" / "atif.min.json").read_text())
    for step, step_id in zip(document["steps"], ids, strict=True):
        step["step_id"] = step_id
    record = AtifTrajectory.model_validate(document)
    back = convert(convert(record, AgentRun).target, AtifTrajectory)
    assert [step.step_id for step in back.target.steps] == [1, 2, 3, 4]
    said = [d for d in back.derived if d.pointer == "/steps" and "numbers its steps" in d.reason]
    assert bool(said) == (ids != [1, 2, 3, 4])
    assert not back.losses  # the run's own indexes are carried, not lost
    again, first = convert(back.target, AgentRun).target, convert(record, AgentRun).target
    assert isinstance(again.steps, list)
    assert isinstance(first.steps, list)
    assert [step.index for step in again.steps] == [step.index for step in first.steps]
