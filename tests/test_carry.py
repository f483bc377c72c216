"""Carried data and extras from records nobody here wrote: used only when it is ours and
consistent, otherwise kept as the user's data or reported, never a crash or a silent override."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from agentruns import AgentRun, CortexRunJournal, PortableRunRecord, convert, to_canonical

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((FIXTURES / f"{name}.min.json").read_text())
    return document


def dumped(record: BaseModel) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(record.model_dump_json())
    return document


def carried_agentrun() -> dict[str, Any]:
    """An AgentRun converted from portable: it carries portable's fields."""
    portable = PortableRunRecord.model_validate(fixture("portable"))
    return dumped(convert(portable, AgentRun).target)


@pytest.mark.parametrize(
    "payload",
    [
        {"version": 99, "origin": "portable", "fields": {}, "absent": []},
        {"version": 1, "origin": "portable", "fields": {"no_such_field": 1}, "absent": []},
        {"note": "my own data under the reserved name"},
        {"version": 1, "origin": "portable", "fields": {}, "absent": [], "more": True},
        {"version": 2, "origin": "cortex", "fields": {}, "absent": []},  # no steps: not 2
        {"version": 1, "origin": "cortex", "fields": {}, "absent": [], "steps": []},
        {"version": 2, "origin": "cortex", "fields": {"steps": []}, "absent": [], "steps": []},
        {"version": 2, "origin": "cortex", "fields": {}, "absent": [], "steps": [{"kind": "x"}]},
        {
            "version": 2,
            "origin": "cortex",
            "fields": {},
            "absent": [],
            "steps": [{"fields": {"no_such_field": 1}, "absent": []}],
        },
        {"version": 3, "origin": "atif", "fields": {}, "absent": []},  # no subagents: not 3
        {"version": 2, "origin": "atif", "fields": {}, "absent": [], "subagents": []},
        {
            "version": 3,
            "origin": "atif",
            "fields": {"subagents": []},
            "absent": [],
            "subagents": [],
        },
        {"version": 3, "origin": "atif", "fields": {}, "absent": [], "subagents": [{"goal": "x"}]},
        {
            "version": 3,
            "origin": "atif",
            "fields": {},
            "absent": [],
            "subagents": [{"fields": {"steps": []}, "absent": []}],  # a patch holds no steps
        },
    ],
)
def test_a_payload_this_version_did_not_write_is_the_users_own_data(
    payload: dict[str, Any],
) -> None:
    document = fixture("agentrun") | {"x-agentruns-carry": payload}
    record = AgentRun.model_validate(document)
    same = convert(record, AgentRun)
    assert dumped(same.target) == dumped(record)
    assert same.losses == ()
    to_portable = convert(record, PortableRunRecord)
    assert "/x-agentruns-carry" in {loss.pointer for loss in to_portable.losses}


def test_a_carried_value_of_the_wrong_type_is_reported_not_raised() -> None:
    document = carried_agentrun()
    document["x-agentruns-carry"]["fields"]["run_index"] = "three"
    record = AgentRun.model_validate(document)
    result = convert(record, PortableRunRecord)
    (ignored,) = [loss for loss in result.losses if loss.pointer == "/x-agentruns-carry"]
    assert "cannot be read" in ignored.reason
    assert "run_index" in ignored.reason


def test_a_carried_value_never_overrides_the_records_own_value() -> None:
    document = fixture("agentrun")
    document["x-agentruns-carry"] = {
        "version": 1,
        "origin": "cortex",
        "fields": {"run_id": "forged", "task_id": "T-1"},
        "absent": [],
    }
    record = AgentRun.model_validate(document)
    run = to_canonical(record)
    assert run.run_id == document["run_id"]
    assert run.task_id == "T-1"  # consistent carried values are still applied
    result = convert(record, CortexRunJournal)
    assert result.target.run_id == document["run_id"]
    (conflict,) = [loss for loss in result.losses if loss.pointer.endswith("/fields/run_id")]
    assert "contradicts" in conflict.reason


def test_strict_mode_rejects_a_contradicting_carry() -> None:
    document = fixture("agentrun")
    document["x-agentruns-carry"] = {
        "version": 1,
        "origin": "cortex",
        "fields": {"goal": "forged"},
        "absent": [],
    }
    from agentruns import LossError

    with pytest.raises(LossError):
        convert(AgentRun.model_validate(document), AgentRun, strict=True)


def test_a_carry_that_stands_in_for_the_shown_value_is_applied() -> None:
    cortex = fixture("cortex")
    agentrun = fixture("agentrun") | {"status": "awaiting-human"}
    there = convert(AgentRun.model_validate(agentrun), CortexRunJournal)
    assert there.target.status == "running"
    back = convert(there.target, AgentRun)
    assert back.target.status == "awaiting-human"
    assert back.losses == ()
    assert cortex  # (fixture read: the cortex writer derives what it needs)


def test_a_cortex_event_of_the_reserved_type_that_is_not_a_carry_is_an_ordinary_event() -> None:
    document = fixture("cortex")
    document["events"].append(
        {"type": "x-agentruns-carry", "at": "2026-09-01T08:13:00Z", "carry": "mine"}
    )
    record = CortexRunJournal.model_validate(document)
    same = convert(record, CortexRunJournal)
    assert dumped(same.target) == dumped(record)
    assert len(to_canonical(record).steps) == len(document["events"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "key", ["name", "input", "output", "index", "started_at", "duration_ms", "type", "at"]
)
def test_event_extras_named_like_declared_fields_are_carried_not_crashed_on(key: str) -> None:
    document = fixture("cortex")
    document["events"][0][key] = {"held": key} if key not in ("type", "at") else None
    if key in ("type", "at"):
        document["events"][0].pop(key)
        document["events"][0][key] = "2026-09-01T08:00:01Z" if key == "at" else "lock"
    record = CortexRunJournal.model_validate(document)
    there = convert(record, AgentRun)
    back = convert(there.target, CortexRunJournal)
    assert dumped(back.target) == dumped(record)


def test_agentrun_extras_named_like_declared_fields_cannot_replace_them() -> None:
    document = fixture("agentrun")
    document["x-agentruns-carry"] = {
        "version": 1,
        "origin": "cortex",
        "fields": {"extra": {"run_id": "forged", "mine": 1}},
        "absent": [],
    }
    record = AgentRun.model_validate(document)
    result = convert(record, AgentRun)
    assert result.target.run_id == document["run_id"]


def test_a_reserved_name_holding_user_data_is_never_overwritten_by_a_carry() -> None:
    document = carried_agentrun()
    document["x-agentruns-carry"] = {"mine": True}  # the user's own, replacing ours
    record = AgentRun.model_validate(document)
    to_cortex = convert(record, CortexRunJournal)
    back = convert(to_cortex.target, AgentRun)
    assert dumped(back.target)["x-agentruns-carry"] == {"mine": True}


def carried_journal_agentrun() -> tuple[CortexRunJournal, dict[str, Any]]:
    """A journal of several events, and the AgentRun converted from it (AgentRun shows each
    event as a step, but not that it was an event: that much of each step is carried)."""
    events = [
        {"type": "lock_acquired", "at": "2026-09-01T08:00:01Z", "worker_pid": 4242},
        {"type": "note", "message": "half way", "at": "2026-09-01T08:05:00Z"},
        {
            "type": "done",
            "status": "completed",
            "message": "Docs updated.",
            "at": "2026-09-01T08:12:30Z",
        },
    ]
    journal = CortexRunJournal.model_validate(fixture("cortex") | {"events": events})
    return journal, dumped(convert(journal, AgentRun).target)


def test_steps_the_target_shows_in_part_are_carried_as_what_it_does_not_show() -> None:
    journal, document = carried_journal_agentrun()
    payload = document["x-agentruns-carry"]
    assert payload["version"] == 2
    assert "steps" not in payload["fields"]
    assert len(payload["steps"]) == len(document["steps"])
    for patch in payload["steps"]:
        assert patch is None or "input" not in patch["fields"]  # what the step shows stays out
    back = convert(AgentRun.model_validate(document), CortexRunJournal)
    assert back.losses == ()
    assert dumped(back.target) == dumped(journal)


def test_a_payload_of_the_first_version_carrying_whole_steps_is_still_read() -> None:
    from agentruns.conversion import _carry_payload

    journal, document = carried_journal_agentrun()
    first = document["x-agentruns-carry"]
    names = [*first["fields"], *first["absent"], "steps"]
    document["x-agentruns-carry"] = _carry_payload("cortex", to_canonical(journal), names)
    assert document["x-agentruns-carry"]["version"] == 1
    assert "steps" in document["x-agentruns-carry"]["fields"]
    back = convert(AgentRun.model_validate(document), CortexRunJournal)
    assert back.losses == ()
    assert dumped(back.target) == dumped(journal)


def test_carried_steps_that_no_longer_pair_with_the_records_are_reported_not_applied() -> None:
    _, document = carried_journal_agentrun()
    del document["steps"][0]  # edited after the carry was written
    record = AgentRun.model_validate(document)
    result = convert(record, CortexRunJournal)
    (ignored,) = [loss for loss in result.losses if loss.pointer == "/x-agentruns-carry"]
    assert "cannot be read" in ignored.reason
    assert "steps: 3 carried for the record's 2" in ignored.reason


def test_a_carried_step_value_of_the_wrong_type_is_reported_not_raised() -> None:
    _, document = carried_journal_agentrun()
    patched = next(p for p in document["x-agentruns-carry"]["steps"] if p is not None)
    patched["fields"]["index"] = "first"
    result = convert(AgentRun.model_validate(document), CortexRunJournal)
    (ignored,) = [loss for loss in result.losses if loss.pointer == "/x-agentruns-carry"]
    assert "/fields/index" in ignored.reason
