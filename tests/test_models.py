"""The generated models accept and reject what their schemas accept and reject."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import MISSING, BaseModel, ValidationError

from agentruns import AgentRun, CortexRunJournal, PortableRunRecord
from agentruns.models import CompletedConversation, StoppedConversation

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.min.json").read_text())
    return data


def errors(model: type[BaseModel], data: object) -> list[tuple[str, str]]:
    """(dotted location, error type) for each error, [] when valid: the same whether the model
    validates JSON text or the value ``json.loads`` gives (which the command line validates)."""
    from_text = _errors_of(lambda: model.model_validate_json(json.dumps(data)))
    from_value = _errors_of(lambda: model.model_validate(data))
    assert from_text == from_value, f"JSON text: {from_text}; parsed value: {from_value}"
    return from_text


def _errors_of(validation: Callable[[], object]) -> list[tuple[str, str]]:
    try:
        validation()
    except ValidationError as error:
        return [(".".join(map(str, e["loc"])), e["type"]) for e in error.errors()]
    return []


# -- portable ------------------------------------------------------------------------


def test_portable_fixture_is_valid_and_round_trips() -> None:
    data = fixture("portable")
    record = PortableRunRecord.model_validate_json(json.dumps(data))
    assert json.loads(record.model_dump_json()) == data


def test_stopped_conversation_is_typed_with_its_reason() -> None:
    record = PortableRunRecord.model_validate_json(json.dumps(fixture("portable")))
    assert isinstance(record.conversation, StoppedConversation)
    assert record.conversation.stop_reason == "agent_did_not_ask"


def test_stopped_conversation_requires_stop_reason_and_stopped_before_followup() -> None:
    data = fixture("portable")
    del data["conversation"]["stop_reason"]
    assert errors(PortableRunRecord, data) == [("conversation.stopped.stop_reason", "missing")]


def test_completed_conversation_forbids_the_stop_fields() -> None:
    data = fixture("portable")
    data["conversation"]["status"] = "completed"
    found = errors(PortableRunRecord, data)
    assert ("conversation.completed.stop_reason", "extra_forbidden") in found
    assert ("conversation.completed.stopped_before_followup", "extra_forbidden") in found


def test_completed_conversation_without_stop_fields_is_valid() -> None:
    data = fixture("portable")
    conversation = data["conversation"]
    conversation["status"] = "completed"
    del conversation["stop_reason"], conversation["stopped_before_followup"]
    record = PortableRunRecord.model_validate_json(json.dumps(data))
    assert isinstance(record.conversation, CompletedConversation)


def test_conversation_needs_at_least_two_events() -> None:
    data = fixture("portable")
    data["conversation"]["events"] = data["conversation"]["events"][:1]
    assert errors(PortableRunRecord, data) == [("conversation.stopped.events", "too_short")]


def test_a_bad_event_gives_one_error_naming_its_type() -> None:
    data = fixture("portable")
    data["conversation"]["events"][0]["round"] = 0
    assert errors(PortableRunRecord, data) == [
        ("conversation.stopped.events.0.user_message.round", "greater_than_equal")
    ]


def test_an_unknown_event_type_is_rejected_by_the_discriminator() -> None:
    data = fixture("portable")
    data["conversation"]["events"][0]["type"] = "system_message"
    assert errors(PortableRunRecord, data) == [
        ("conversation.stopped.events.0", "union_tag_invalid")
    ]


def test_null_is_rejected_in_an_optional_non_nullable_field() -> None:
    data = fixture("portable")
    data["run_index"] = None
    assert errors(PortableRunRecord, data) == [("run_index", "int_type")]


def test_null_is_accepted_where_the_schema_allows_it() -> None:
    data = fixture("portable")
    data["total_tokens"] = None
    assert errors(PortableRunRecord, data) == []


def test_absent_optional_fields_stay_absent_when_dumped() -> None:
    data = fixture("portable")
    del data["run_index"], data["conversation"]
    record = PortableRunRecord.model_validate_json(json.dumps(data))
    dumped = json.loads(record.model_dump_json())
    assert "run_index" not in dumped
    assert "conversation" not in dumped


def test_extra_properties_are_rejected_where_the_schema_forbids_them() -> None:
    data = fixture("portable")
    data["tool_invocations"][0]["duration"] = 3
    assert errors(PortableRunRecord, data) == [("tool_invocations.0.duration", "extra_forbidden")]


@pytest.mark.parametrize("value", ["5", True, 1.5])
def test_integers_reject_strings_booleans_and_fractions(value: object) -> None:
    data = fixture("portable")
    data["total_tokens"] = value
    assert errors(PortableRunRecord, data)


def test_an_integral_float_is_an_integer_as_in_json_schema() -> None:
    data = fixture("portable")
    data["total_tokens"] = 5120.0
    record = PortableRunRecord.model_validate_json(json.dumps(data))
    assert record.total_tokens == 5120
    assert isinstance(record.total_tokens, int)


def test_required_fields_are_required() -> None:
    data = fixture("portable")
    del data["skill_path"]
    assert errors(PortableRunRecord, data) == [("skill_path", "missing")]


def test_tool_arguments_take_any_json_object_string_or_array() -> None:
    data = fixture("portable")
    data["tool_invocations"][0]["args"] = ["a", {"b": [1, None]}]
    assert errors(PortableRunRecord, data) == []
    data["tool_invocations"][0]["args"] = 3
    assert errors(PortableRunRecord, data)


# -- cortex --------------------------------------------------------------------------


def test_cortex_fixture_is_valid_and_round_trips_with_event_extras() -> None:
    data = fixture("cortex")
    journal = CortexRunJournal.model_validate_json(json.dumps(data))
    assert journal.events is not MISSING
    assert journal.events[0].model_extra == {"worker_pid": 4242}
    dumped = json.loads(journal.model_dump_json())
    assert dumped["events"][0]["worker_pid"] == 4242


def test_cortex_schema_version_is_the_constant_one() -> None:
    data = fixture("cortex")
    data["schema_version"] = 2
    assert errors(CortexRunJournal, data) == [("schema_version", "literal_error")]


def test_cortex_rejects_a_naive_datetime() -> None:
    data = fixture("cortex")
    data["started_at"] = "2026-09-01T08:00:00"
    assert errors(CortexRunJournal, data) == [("started_at", "rfc3339_datetime")]


@pytest.mark.parametrize(
    "value",
    [1767225600, "2026-01-01 00:00:00Z", "2026-01-01", "2026-01-01T00:00Z", "yesterday"],
)
def test_cortex_datetimes_must_be_rfc3339_strings(value: object) -> None:
    data = fixture("cortex")
    data["started_at"] = value
    assert errors(CortexRunJournal, data) == [("started_at", "rfc3339_datetime")]


@pytest.mark.parametrize("value", ["2026-01-01t00:00:00z", "2026-01-01T00:00:00.123456789-05:30"])
def test_cortex_accepts_every_rfc3339_spelling(value: str) -> None:
    data = fixture("cortex")
    data["started_at"] = value
    assert errors(CortexRunJournal, data) == []


def test_a_datetime_object_is_accepted_when_constructing_in_python() -> None:
    journal = CortexRunJournal.model_validate_json(json.dumps(fixture("cortex")))
    later = journal.started_at + timedelta(hours=1)  # a datetime made in Python, no text
    moved = journal.model_copy(update={"started_at": later})
    assert CortexRunJournal.model_validate(moved.model_dump()) == moved


def test_cortex_schema_version_rejects_true_although_python_says_true_equals_1() -> None:
    data = fixture("cortex")
    data["schema_version"] = True
    assert errors(CortexRunJournal, data) == [("schema_version", "json_boolean")]


def test_cortex_schema_version_accepts_1_0_as_json_schema_does() -> None:
    data = fixture("cortex")
    data["schema_version"] = 1.0
    assert errors(CortexRunJournal, data) == []


def test_cortex_rejects_an_unknown_status() -> None:
    data = fixture("cortex")
    data["status"] = "cancelled"  # the cortex vocabulary spells it "canceled"
    assert errors(CortexRunJournal, data) == [("status", "literal_error")]


def test_cortex_transcript_sha256_must_be_64_lowercase_hex() -> None:
    data = fixture("cortex")
    data["transcript_refs"][0]["sha256"] = "ABC"
    assert errors(CortexRunJournal, data) == [
        ("transcript_refs.0.sha256", "string_pattern_mismatch")
    ]


def test_cortex_root_forbids_extras_but_events_allow_them() -> None:
    data = fixture("cortex")
    data["commands"] = []
    assert errors(CortexRunJournal, data) == [("commands", "extra_forbidden")]


def test_cortex_event_type_must_not_be_empty() -> None:
    data = fixture("cortex")
    data["events"][0]["type"] = ""
    assert errors(CortexRunJournal, data) == [("events.0.type", "string_too_short")]


# -- agentrun ------------------------------------------------------------------------


def test_agentrun_fixture_is_valid_and_round_trips_with_extras() -> None:
    data = fixture("agentrun")
    run = AgentRun.model_validate_json(json.dumps(data))
    assert run.model_extra == {"x_team": "docs"}
    assert json.loads(run.model_dump_json()) == data  # times too, as they were written


def test_agentrun_integers_are_int32() -> None:
    data = fixture("agentrun")
    data["steps"][0]["index"] = 2**31
    assert errors(AgentRun, data) == [("steps.0.index", "less_than_equal")]


def test_agentrun_free_form_step_input_must_still_be_an_object() -> None:
    data = fixture("agentrun")
    data["steps"][0]["input"] = "path=CHANGELOG.md"
    assert errors(AgentRun, data) == [("steps.0.input", "dict_type")]


def test_agentrun_status_vocabulary_is_enforced() -> None:
    data = fixture("agentrun")
    data["status"] = "done"
    assert errors(AgentRun, data) == [("status", "literal_error")]


def test_agentrun_requires_goal() -> None:
    data = fixture("agentrun")
    del data["goal"]
    assert errors(AgentRun, data) == [("goal", "missing")]


def test_infinity_is_rejected_because_json_cannot_hold_it() -> None:
    data = fixture("agentrun")
    run = AgentRun.model_validate_json(json.dumps(data))
    with pytest.raises(ValidationError, match="finite number"):
        AgentRun.model_validate({**run.model_dump(), "metrics": {"cost_usd": float("inf")}})


@pytest.mark.parametrize(
    "value",
    [{1, 2}, (1, 2), float("nan"), {1: "key is not a string"}, b"bytes"],
    ids=["set", "tuple", "nan", "int-key", "bytes"],
)
def test_free_form_values_built_in_python_must_be_json(value: object) -> None:
    data = fixture("agentrun")
    data["steps"][0]["input"] = {"nested": [{"value": value}]}
    with pytest.raises(ValidationError) as caught:
        AgentRun.model_validate(data)
    assert [e["type"] for e in caught.value.errors()] == ["invalid-json-value"]


def test_free_form_values_keep_their_json_kinds() -> None:
    data = fixture("agentrun")
    value = {"s": "x", "i": 5, "f": 1.5, "b": True, "n": None, "l": [1, "a"], "d": {"k": []}}
    data["steps"][0]["input"] = value
    expected = json.dumps(value)  # as text: true == 1 and 1.0 == 1 in Python, not in JSON
    for run in (AgentRun.model_validate(data), AgentRun.model_validate_json(json.dumps(data))):
        assert run.steps is not MISSING
        assert json.dumps(run.steps[0].input) == expected


def test_a_schema_description_is_the_fields_description() -> None:
    """What a service developer reads: ``model_fields``, ``model_json_schema()``, IDEs."""
    described = CortexRunJournal.model_fields["run_id"].description
    assert described is not None
    assert described.startswith("Stable run id.")
    published = CortexRunJournal.model_json_schema()["properties"]["run_id"]
    assert published["description"] == described


def test_a_models_rules_are_checked_once_when_its_parent_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import agentruns_generated._json as runtime
    import agentruns_generated.atif as atif_models

    checked: list[str] = []
    check = runtime.check_rules

    def counting(model: Any, refs: Any = runtime._NO_REFS) -> None:
        checked.append(type(model).__name__)
        check(model, refs)

    monkeypatch.setattr(atif_models, "check_rules", counting)
    step = atif_models.AtifStep.model_validate({"step_id": 1, "source": "agent", "message": "x"})
    agent = atif_models.AtifAgent(name="a", version="1")
    atif_models.AtifTrajectory(schema_version="ATIF-v1.8", agent=agent, steps=[step, step])
    assert checked == ["AtifStep", "AtifTrajectory"]
    with pytest.raises(ValidationError):  # data is still checked, at every level
        atif_models.AtifTrajectory.model_validate(
            {
                "schema_version": "ATIF-v1.8",
                "agent": {"name": "a", "version": "1"},
                "steps": [{"step_id": 1, "source": "user", "message": "x", "model_name": "m"}],
            }
        )
