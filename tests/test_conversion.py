"""Conversion between the formats: typed results, loss reports, derived values, strict mode."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import MISSING, BaseModel

from agentruns import (
    AgentRun,
    AtifTrajectory,
    Conversion,
    CortexRunJournal,
    LossError,
    PortableRunRecord,
    Run,
    RunStep,
    convert,
    from_canonical,
    to_canonical,
)
from agentruns.conversion import format_for
from agentruns.formats._shared import CortexStatus
from agentruns.formats.cortex import CortexKind
from agentruns.models import AgentRunStatus, StepType
from agentruns.models import Step as AgentStep
from tests.fidelity.oracles import subjects

FIXTURES = Path(__file__).parent / "fixtures"

UPSTREAM = Path(__file__).parent / "fixtures" / "upstream"


def load(name: str) -> Any:
    return json.loads((FIXTURES / f"{name}.min.json").read_text())


def portable() -> PortableRunRecord:
    return PortableRunRecord.model_validate(load("portable"))


def cortex() -> CortexRunJournal:
    return CortexRunJournal.model_validate_json(json.dumps(load("cortex")))


def agentrun() -> AgentRun:
    return AgentRun.model_validate_json(json.dumps(load("agentrun")))


def test_the_target_type_follows_from_the_call() -> None:
    result: Conversion[AgentRun] = convert(portable(), AgentRun)  # checked by mypy
    assert isinstance(result.target, AgentRun)


def test_portable_to_agentrun_maps_prompt_final_message_and_tool_calls() -> None:
    run = convert(portable(), AgentRun).target
    assert run.goal == "Rename the helper and update its callers."
    assert run.result is not MISSING
    assert run.result.summary == "Renamed `helper` to `load_config` in 3 places."
    assert isinstance(run.steps, list)
    assert [(s.type, s.name, s.index) for s in run.steps] == [
        ("tool_call", "Read", 0),
        ("tool_call", "Bash", 1),
    ]


def test_what_agentrun_cannot_hold_natively_is_carried_and_comes_back() -> None:
    result = convert(portable(), AgentRun)
    assert result.losses == ()
    assert "x-agentruns-carry" in (result.target.model_extra or {})
    assert convert(result.target, PortableRunRecord).target == portable()


def test_cortex_carries_foreign_data_in_one_reserved_event() -> None:
    journal = convert(agentrun(), CortexRunJournal).target
    assert isinstance(journal.events, list)
    assert [e.type for e in journal.events][-1] == "x-agentruns-carry"
    assert convert(journal, AgentRun).target == agentrun()


def test_losses_name_the_source_pointer_and_why() -> None:
    result = convert(agentrun(), PortableRunRecord)
    by_pointer = {loss.pointer: loss.reason for loss in result.losses}
    assert by_pointer["/metrics/cost_usd"] == "portable has no place for cost_usd"
    assert by_pointer["/trace_url"] == "portable has no place for trace_url"
    assert "/goal" not in by_pointer  # the goal is the portable prompt


def test_strict_mode_raises_with_every_loss_listed() -> None:
    with pytest.raises(LossError) as caught:
        convert(agentrun(), PortableRunRecord, strict=True)
    assert "/metrics/cost_usd" in str(caught.value)
    assert len(caught.value.losses) == len(convert(agentrun(), PortableRunRecord).losses)


def test_strict_mode_passes_when_nothing_is_lost() -> None:
    assert convert(portable(), CortexRunJournal, strict=True).lossless


def test_required_values_are_derived_from_the_source_and_reported() -> None:
    result = convert(portable(), CortexRunJournal)
    derived = {d.pointer: d.value for d in result.derived}
    assert derived["/run_id"] == "R-refactor-01-with_skill-1"
    # reported as the target writes it
    assert derived["/started_at"] == "1970-01-01T00:00:00Z"
    assert json.loads(result.target.model_dump_json())["started_at"] == derived["/started_at"]
    assert derived["/kind"] == "conversation"
    assert result.target.run_id == "R-refactor-01-with_skill-1"


def test_derived_values_are_deterministic() -> None:
    first = convert(portable(), CortexRunJournal)
    second = convert(portable(), CortexRunJournal)
    assert first == second


def test_tool_results_join_the_call_they_answer_in_portable() -> None:
    run = AgentRun.model_validate(
        {
            "run_id": "r",
            "agent_id": "a",
            "goal": "g",
            "status": "completed",
            "steps": [
                {"index": 1, "type": "tool_call", "name": "lookup", "input": {"q": 1}},
                {"index": 2, "type": "tool_result", "name": "lookup", "output": {"hit": True}},
            ],
        }
    )
    record = convert(run, PortableRunRecord).target
    (call,) = record.tool_invocations
    assert (call.name, call.args, call.result) == ("lookup", {"q": 1}, {"hit": True})


def test_status_vocabularies_are_translated() -> None:
    data = load("cortex")
    data["status"] = "canceled"
    run = convert(CortexRunJournal.model_validate_json(json.dumps(data)), AgentRun).target
    assert run.status == "cancelled"


def test_a_status_cortex_has_no_word_for_is_carried_not_guessed() -> None:
    data = load("agentrun")
    data["status"] = "awaiting-human"
    source = AgentRun.model_validate_json(json.dumps(data))
    journal = convert(source, CortexRunJournal).target
    assert journal.status == "running"
    assert convert(journal, AgentRun).target.status == "awaiting-human"


def test_canonical_run_round_trips_through_each_format() -> None:
    for record in (portable(), cortex(), agentrun()):
        assert from_canonical(to_canonical(record), type(record)).record == record


def test_an_adapter_built_run_can_be_written_in_any_format() -> None:
    run = Run(run_id="r-9", goal="Ship it", status="completed")
    written = from_canonical(run, AgentRun)
    assert written.record.run_id == "r-9"
    assert {d.pointer for d in written.derived} == {"/agent_id"}


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"run_id": "r-9"}, "run is a dict, not an agentruns.Run"),
        (Run(steps=[RunStep(kind="message")]), "run.steps is a list, not a tuple"),  # type: ignore[arg-type]
        (Run(steps=({"kind": "message"},)), "run.steps[0] is a dict, not a RunStep"),  # type: ignore[arg-type]
        (
            Run(subagents=(Run(), Run(steps=("x",)))),  # type: ignore[arg-type]
            "run.subagents[1].steps[0] is a str, not a RunStep",
        ),
    ],
)
@pytest.mark.parametrize("target", [PortableRunRecord, CortexRunJournal, AgentRun, AtifTrajectory])
def test_what_is_no_run_is_a_type_error_naming_where(
    given: object, said: str, target: type[BaseModel]
) -> None:
    with pytest.raises(TypeError, match=re.escape(said)):
        from_canonical(given, target)  # type: ignore[arg-type]


@pytest.mark.parametrize("target", [PortableRunRecord, AgentRun])
def test_the_real_cortex_sample_converts_and_validates(target: type[Any]) -> None:
    journal = CortexRunJournal.model_validate_json(
        (UPSTREAM / "cortex-agent" / "cortex-run-journal.sample.json").read_bytes()
    )
    result = convert(journal, target)
    name = "portable" if target is PortableRunRecord else "agentrun"
    document = json.loads(result.target.model_dump_json())
    assert subjects()[name].oracles[next(iter(subjects()[name].oracles))](document)
    if target is PortableRunRecord:
        lost = {loss.pointer for loss in result.losses}
        cortex = format_for(CortexRunJournal)  # where the journal keeps these canonical fields
        names = ("worktree_path", "branch", "steps", "started_at")
        assert {cortex.pointer(name) for name in names} <= lost
    else:
        assert result.losses == ()


@pytest.mark.parametrize("target", [PortableRunRecord, CortexRunJournal])
def test_a_record_modelled_on_the_agentrun_example_converts_and_validates(
    target: type[Any],
) -> None:
    run = AgentRun.model_validate_json((UPSTREAM / "agentrun.modelled.json").read_bytes())
    result = convert(run, target)
    name = "portable" if target is PortableRunRecord else "cortex"
    document = json.loads(result.target.model_dump_json())
    assert subjects()[name].oracles["jsonschema"](document)
    if target is PortableRunRecord:
        record = result.target
        assert isinstance(record, PortableRunRecord)
        # two tool calls; the tool_result joins find_order; thought and message are lost
        assert [c.name for c in record.tool_invocations] == ["find_order", "dedupe_notices"]
        assert record.tool_invocations[0].result == {"status": "shipped", "notices": 2}
        assert "/steps" in {loss.pointer for loss in result.losses}
    else:
        assert result.losses == ()


@pytest.mark.parametrize(
    ("vocabulary", "model", "field"),
    [
        (CortexKind, CortexRunJournal, "kind"),
        (CortexStatus, CortexRunJournal, "status"),
        (AgentRunStatus, AgentRun, "status"),
        (StepType, AgentStep, "type"),
    ],
    ids=["cortex kind", "cortex status", "agentrun status", "agentrun step type"],
)
def test_the_mappers_know_exactly_the_words_the_generated_models_allow(
    vocabulary: object, model: type[BaseModel], field: str
) -> None:
    # a word added to a schema, regenerated, must not be mapped as unknown without notice
    assert get_args(vocabulary) == get_args(model.model_fields[field].annotation)
