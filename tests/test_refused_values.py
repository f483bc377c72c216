"""A value a target's schema refuses in an optional field (a token count past AgentRun's
32-bit range, from an ATIF trajectory whose counts have no bound) costs that value, never the
run: ``convert`` carries it or reports it lost at its own pointer, the rest is written;
``from_canonical``, which reports no losses, refuses the run naming the value and why."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from typing import Any, get_args, get_type_hints

import pytest

from agentruns import convert, from_canonical, to_canonical
from agentruns.canonical import Run
from agentruns.conversion import models_by_name, resolve
from agentruns.errors import ConversionError

MODELS = dict(models_by_name())
INTEGERS = sorted(name for name, hint in get_type_hints(Run).items() if int in get_args(hint))
"""The canonical fields holding integers (token counts, duration, counts of steps)."""
EDGES = [2**31, -(2**31) - 1, 2**53 + 1, 2**63, -(2**63) - 1, 10**30]
BASE = Run(
    run_id="r-1",
    agent_id="a",
    goal="g",
    status="completed",
    started_at=datetime(2026, 3, 1, 10, tzinfo=UTC),
    ended_at=datetime(2026, 3, 1, 11, tzinfo=UTC),
    steps=(),
)


def _held() -> list[tuple[str, str, int]]:
    """Every (format, field, edge value) a record of the format holds as it is."""
    found = []
    for name in sorted(MODELS):
        for field in INTEGERS:
            for value in EDGES:
                changes: dict[str, Any] = {field: value}
                try:
                    written = from_canonical(dataclasses.replace(BASE, **changes), MODELS[name])
                except ConversionError:
                    continue  # the format refuses it: no record holds it to convert
                if getattr(to_canonical(written.record), field) == value:
                    found.append((name, field, value))
    return found


HELD = _held()


def test_some_formats_hold_integers_others_refuse() -> None:
    held = {(name, field) for name, field, _ in HELD}
    assert ("atif", "output_tokens") in held  # ATIF's counts have no bound
    assert not any(name == "agentrun" for name, _, _ in HELD)  # 32 bits at most


@pytest.mark.parametrize("target", sorted(MODELS))
@pytest.mark.parametrize(("source", "field", "value"), HELD)
def test_an_integer_a_target_refuses_is_carried_or_reported_lost(
    source: str, field: str, value: int, target: str
) -> None:
    changes: dict[str, Any] = {field: value}
    record = from_canonical(dataclasses.replace(BASE, **changes), MODELS[source]).record
    converted = convert(record, MODELS[target])  # never a ConversionError for it
    MODELS[target].model_validate_json(converted.target.model_dump_json(by_alias=True))
    back = to_canonical(convert(converted.target, MODELS[source]).target)
    lost = {loss.pointer for loss in converted.losses}
    assert getattr(back, field) == value or resolve(source).pointer(field) in lost


def test_the_atif_trajectory_hypothesis_found_converts_to_agentrun() -> None:
    """A count past 32 bits in ATIF's final metrics: carried in AgentRun, the run kept."""
    trajectory: dict[str, Any] = {
        "agent": {"name": "", "version": "", "extra": None},
        "schema_version": "",
        "steps": [],
        "final_metrics": {"total_completion_tokens": -7402562002},
    }
    record = MODELS["atif"].model_validate_json(json.dumps(trajectory))
    converted = convert(record, MODELS["agentrun"])
    assert converted.losses == ()  # carried
    back = convert(converted.target, MODELS["atif"]).target
    assert back == record


def test_from_canonical_refuses_the_run_naming_the_value_and_why() -> None:
    run = dataclasses.replace(BASE, output_tokens=2**40)
    with pytest.raises(ConversionError, match=r"/metrics/output_tokens: its schema refuses"):
        from_canonical(run, MODELS["agentrun"])
    assert from_canonical(dataclasses.replace(BASE, output_tokens=5), MODELS["agentrun"])
