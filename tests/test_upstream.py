"""The real files from the upstream projects (../shared/upstream, beside the clone)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import MISSING, ValidationError

from agentruns import AgentRun, CortexRunJournal


def test_the_real_agentrun_example_loads(upstream: Path) -> None:
    run = AgentRun.model_validate_json((upstream / "agent-run.example.json").read_bytes())
    assert run.status == "completed"
    steps = run.steps
    assert isinstance(steps, list)
    assert [step.type for step in steps].count("tool_call") == 2


def test_the_real_cortex_sample_loads_with_its_non_ascii_text(upstream: Path) -> None:
    journal = CortexRunJournal.model_validate_json(
        (upstream / "cortex-run-journal.sample.json").read_bytes()
    )
    assert journal.events is not MISSING
    assert "准备就绪" in str(journal.events[0].activity)


def test_the_real_nonconforming_cortex_dispatch_is_rejected_readably(upstream: Path) -> None:
    raw = (upstream / "cortex-run-journal.nonconforming-dispatch.json").read_bytes()
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
