"""Real files from the upstream projects, copied into tests/fixtures/upstream (see
PROVENANCE.md there), so the suite runs the same on a fresh clone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import MISSING, BaseModel, ValidationError

from agentruns import AgentRun, CortexRunJournal, PortableRunRecord, convert
from agentruns.models import TimedOutConversation

UPSTREAM = Path(__file__).parent / "fixtures" / "upstream"


def test_the_real_agentrun_example_loads() -> None:
    run = AgentRun.model_validate_json((UPSTREAM / "agentrun.modelled.json").read_bytes())
    assert run.status == "completed"
    steps = run.steps
    assert isinstance(steps, list)
    assert [step.type for step in steps].count("tool_call") == 2


def test_the_real_cortex_sample_loads_with_its_non_ascii_text() -> None:
    journal = CortexRunJournal.model_validate_json(
        (UPSTREAM / "cortex-agent" / "cortex-run-journal.sample.json").read_bytes()
    )
    assert journal.events is not MISSING
    assert "准备就绪" in str(journal.events[0].activity)


def test_the_real_nonconforming_cortex_dispatch_is_rejected_readably() -> None:
    raw = (
        UPSTREAM / "cortex-agent" / "cortex-run-journal.nonconforming-dispatch.json"
    ).read_bytes()
    with pytest.raises(ValidationError) as caught:
        CortexRunJournal.model_validate_json(raw)
    found = {(".".join(map(str, e["loc"])), e["type"]) for e in caught.value.errors()}
    assert {
        ("schema_version", "missing"),
        ("kind", "missing"),
        ("started_at", "missing"),
        ("status", "literal_error"),
        ("dispatched_at", "extra_forbidden"),
    } <= found


EVAL_MAGIC = sorted((UPSTREAM / "eval-magic").glob("*.run.json"))


@pytest.mark.parametrize("path", EVAL_MAGIC, ids=lambda p: p.name)
def test_records_eval_magic_writes_today_validate(path: Path) -> None:
    record = PortableRunRecord.model_validate_json(path.read_bytes())
    assert json.loads(record.model_dump_json(by_alias=True)) == json.loads(path.read_bytes())


@pytest.mark.parametrize("target", [CortexRunJournal, AgentRun], ids=lambda m: m.__name__)
@pytest.mark.parametrize("path", EVAL_MAGIC, ids=lambda p: p.name)
def test_records_eval_magic_writes_today_round_trip_exactly_through_every_format(
    path: Path, target: type[BaseModel]
) -> None:
    record = PortableRunRecord.model_validate_json(path.read_bytes())
    there = convert(record, target)
    assert there.losses == ()  # both can carry what they cannot hold
    back = convert(there.target, PortableRunRecord)
    assert back.target == record
    assert back.losses == ()


def test_the_newest_fields_survive_a_round_trip() -> None:
    record = PortableRunRecord.model_validate_json(
        (UPSTREAM / "eval-magic" / "timed-out-round-1.run.json").read_bytes()
    )
    assert isinstance(record.conversation, TimedOutConversation)
    back = convert(convert(record, AgentRun).target, PortableRunRecord).target
    assert back.conversation == record.conversation


def test_every_record_valid_under_the_previous_portable_schema_stays_valid() -> None:
    """Backward compatibility of the upgrade dd024ac -> newest, on generated records."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis_jsonschema import from_schema

    previous = json.loads((UPSTREAM / "eval-magic" / "run-record.dd024ac.schema.json").read_text())

    @settings(
        max_examples=40,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(from_schema(previous))
    def check(document: dict[str, object]) -> None:
        PortableRunRecord.model_validate_json(json.dumps(document))

    check()
