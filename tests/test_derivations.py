"""One rule per derived value: writers, tables, statistics and show derive the same thing."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import MISSING

from agentruns import AgentRun, CortexRunJournal, PortableRunRecord, Run, convert, from_canonical
from agentruns._harnesses import TOTAL_LEAVES_OUT
from agentruns.canonical import STEP_FAILED, RunStep
from agentruns.derivations import (
    derive_harness_total,
    derive_run_id,
    derive_status,
    duration_ms,
    run_id,
    status,
    step_failed,
    total_tokens,
)
from agentruns.stats import RunFacts
from tests._settings import PROPERTY_SETTINGS

UPSTREAM = Path(__file__).parent / "fixtures" / "upstream" / "eval-magic"


def _portable(name: str) -> PortableRunRecord:
    return PortableRunRecord.model_validate_json((UPSTREAM / f"{name}.run.json").read_text())


def _derived(conversion: Any, pointer: str) -> tuple[Any, str]:
    (found,) = [(d.value, d.reason) for d in conversion.derived if d.pointer == pointer]
    return found


@pytest.mark.parametrize(
    ("sample", "expected", "agentrun_word"),
    [
        ("stopped-multi-turn", "canceled", "cancelled"),
        ("timed-out-round-1", "failed", "failed"),
        ("minimal-valid", "completed", "completed"),
    ],
)
def test_a_portable_runs_status_is_derived_from_how_its_conversation_ended(
    sample: str, expected: str, agentrun_word: str
) -> None:
    record = _portable(sample)
    to_agentrun = convert(record, AgentRun)
    to_cortex = convert(record, CortexRunJournal)
    assert to_agentrun.target.status == agentrun_word
    assert to_cortex.target.status == expected
    value, reason = _derived(to_agentrun, "/status")
    assert value == expected
    assert reason == _derived(to_cortex, "/status")[1]


def test_a_stopped_conversation_is_not_reported_as_a_completed_run() -> None:
    record = _portable("stopped-multi-turn")
    value, reason = _derived(convert(record, CortexRunJournal), "/status")
    assert value != "completed"
    assert "agent_response_mismatch" in reason


_START = datetime(2026, 1, 1, tzinfo=UTC)


@given(st.integers(min_value=0, max_value=10**12))
def test_a_duration_is_the_same_whole_milliseconds_in_every_place(micros: int) -> None:
    run = Run(started_at=_START, ended_at=_START + timedelta(microseconds=micros))
    expected = micros // 1000
    assert duration_ms(run) == expected
    assert RunFacts.of(run, "agentrun").duration_ms == expected
    written = from_canonical(run, PortableRunRecord)
    assert written.record.duration_ms == expected


def test_a_run_of_1_7_ms_lasted_1_ms_after_conversion_and_in_statistics() -> None:
    run = Run(started_at=_START, ended_at=_START + timedelta(microseconds=1700))
    assert from_canonical(run, PortableRunRecord).record.duration_ms == 1
    assert RunFacts.of(run, "cortex").duration_ms == 1


@given(st.integers(0, 10**9), st.integers(0, 10**9))
def test_total_tokens_are_derived_by_one_rule(tokens_in: int, tokens_out: int) -> None:
    run = Run(input_tokens=tokens_in, output_tokens=tokens_out)
    assert total_tokens(run) == tokens_in + tokens_out
    assert RunFacts.of(run, "agentrun").tokens == tokens_in + tokens_out
    assert from_canonical(run, PortableRunRecord).record.total_tokens == tokens_in + tokens_out


def test_a_recorded_total_wins_over_the_parts() -> None:
    run = Run(total_tokens=7, input_tokens=1, output_tokens=1)
    assert total_tokens(run) == 7


@given(
    st.text(min_size=1, max_size=8) | st.none(),
    st.text(max_size=8) | st.none(),
    st.integers(0, 99) | st.none(),
)
def test_the_run_id_a_writer_derives_is_the_one_tables_derive(
    eval_id: str | None, condition: str | None, index: int | None
) -> None:
    from agentruns.tables import _provisional_id

    run = Run(
        eval_id=MISSING if eval_id is None else eval_id,
        condition=MISSING if condition is None else condition,
        run_index=MISSING if index is None else index,
    )
    derived = derive_run_id(run).value
    assert run_id(run) == derived
    assert from_canonical(run, CortexRunJournal).record.run_id == derived
    assert from_canonical(run, AgentRun).record.run_id == derived
    assert _provisional_id(None, run, "f.jsonl", 3) == f"{derived}@f.jsonl:3"


def test_a_recorded_status_is_never_replaced_by_a_derived_one() -> None:
    run = Run(status="running", conversation={"status": "stopped"})
    assert status(run) == "running"
    assert derive_status(run).value == "canceled"


def test_a_failed_step_has_one_status_word_everywhere() -> None:
    assert step_failed(RunStep(kind="tool_call", status=STEP_FAILED))
    assert not step_failed(RunStep(kind="tool_call", status="failed"))
    assert not step_failed(RunStep(kind="tool_call"))


def test_importers_mark_failed_tool_calls_with_the_one_word(tmp_path: Path) -> None:
    from agentruns import transcripts

    lines = [
        {"type": "system", "subtype": "init", "session_id": "s-1"},
        {
            "type": "assistant",
            "message": {"content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
        },
        {
            "type": "user",
            "message": {
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "no", "is_error": True}
                ]
            },
        },
        {"type": "result", "subtype": "error_during_execution", "is_error": True},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    run = transcripts.read(path, harness="claude-code")
    assert isinstance(run.steps, tuple)
    said = [step.status for step in run.steps if isinstance(step.status, str)]
    assert said
    assert set(said) == {STEP_FAILED}  # the failed call and the event that ended the run


@PROPERTY_SETTINGS
@given(
    st.sampled_from(sorted(TOTAL_LEAVES_OUT)),
    st.integers(0, 10**9),
    st.integers(0, 10**9),
    st.integers(0, 10**9),
    st.integers(0, 10**9),
)
def test_a_harness_total_is_input_plus_output_less_the_kinds_the_harness_leaves_out(
    harness: str, input_tokens: int, output_tokens: int, cache_read: int, cache_creation: int
) -> None:
    run = Run(
        framework=harness,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=cache_read,
        cache_creation_tokens=cache_creation,
    )
    kinds = {"cache_read_tokens": cache_read, "cache_creation_tokens": cache_creation}
    less = sum(kinds[kind] for kind in TOTAL_LEAVES_OUT[harness])
    derived = derive_harness_total(run)
    assert derived is not None
    assert derived.value == max(input_tokens + output_tokens - less, 0)


def test_no_harness_total_for_a_harness_eval_magic_does_not_document() -> None:
    run = Run(framework="aider", input_tokens=5, output_tokens=3)
    assert derive_harness_total(run) is None


def test_no_harness_total_when_a_kind_the_harness_leaves_out_is_not_recorded() -> None:
    assert derive_harness_total(Run(framework="codex", input_tokens=5, output_tokens=3)) is None
