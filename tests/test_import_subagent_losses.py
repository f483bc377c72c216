"""An import keeps what a record shows of a session's subagents, carries the rest of each
subagent's own values, and names what it can do neither with, at its own pointer.

ATIF holds a session's subagents (embedded trajectories) but not all of each: a subagent's
cache writes, its times, its status. AgentRun and cortex hold none. The loss report said
"atif has no place for the transcript's subagents", as if none were written, and named
nothing of what went, and ``stats`` of the record counted fewer tokens than ``stats`` of the
session (a fifth fewer for a session whose subagent read 110,000 of its 566,000). Now ATIF is
given what it does not show of each subagent (a version 3 payload: a patch per subagent),
the formats with a free-form place and no subagents are given each subagent without its
steps (not the transcript a second time), and what neither holds is named value by value.

Generated sessions in every layout Claude Code writes subagents in, with cache writes:
every value of every subagent comes back from the record or is named lost (never both), and
the record's token statistics are the session's, written as each format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import MISSING

from agentruns.canonical import FIELDS, Run, RunStep
from agentruns.conversion import to_canonical
from agentruns.formats._base import CARRY_PROPERTY, is_carry
from agentruns.transcripts import load
from agentruns.transcripts._record import to_record
from agentruns_generated._json import JsonValue
from tests._settings import PROPERTY_SETTINGS
from tests._stats import stats_json
from tests.test_claude_subagents import LAYOUTS, _write, shapes, usage

FIXTURE = (
    Path(__file__).parent / "fixtures/upstream/agent-logs/claude-session/spotter-subagent.jsonl"
)
COUNTED = ("tokens_by_kind", "subagent_tokens", "tokens_by_day", "tokens_by_model")


def _with_cache_writes(folder: Path, tokens: int) -> None:
    """Give every response of every subagent ``tokens`` cache writes."""
    for path in folder.rglob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        for line in lines:
            if line.get("isSidechain") and line["type"] == "assistant":
                line["message"]["usage"]["cache_creation_input_tokens"] = tokens
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _misreported(run: Run, record_run: Run, pointers: set[str]) -> list[str]:
    """The subagent values whose report is wrong: one that comes back and is named lost, or
    one that does not and is not."""
    wrong: list[str] = []
    subagents = run.subagents if isinstance(run.subagents, tuple) else ()
    kept = record_run.subagents if isinstance(record_run.subagents, tuple) else ()
    assert len(kept) == len(subagents)
    for index, (sub, back) in enumerate(zip(subagents, kept, strict=True)):
        for name in FIELDS:
            value = getattr(sub, name)
            if value is MISSING or name == "subagents":
                continue
            at = f"/subagents/{index}/{name}"
            named = any(p == at or p.startswith(f"{at}/") for p in pointers)
            if (getattr(back, name) == value) == named:
                wrong.append(at)
    return wrong


def _session(
    folder: Path, layout: str, main_usage: tuple[int, int], subs: list[list[tuple[int, int]]]
) -> Path:
    path, _ = _write(folder, layout, main_usage, subs)
    _with_cache_writes(folder, 321)
    return path


@PROPERTY_SETTINGS
@given(layout=st.sampled_from(LAYOUTS), main_usage=usage, subs=shapes)
def test_each_value_of_a_subagent_comes_back_or_is_named_lost(
    tmp_path_factory: pytest.TempPathFactory,
    layout: str,
    main_usage: tuple[int, int],
    subs: list[list[tuple[int, int]]],
) -> None:
    path = _session(tmp_path_factory.mktemp("session"), layout, main_usage, subs)
    run = load(path, "claude-code-session").run
    imported = to_record(run, "atif", {})
    pointers = {loss.pointer for loss in imported.losses}
    assert "/subagents" not in pointers
    assert _misreported(run, to_canonical(imported.record), pointers) == []


TARGETS: dict[str, dict[str, JsonValue]] = {
    "atif": {},
    "agentrun": {"agent_id": "a"},
    "cortex": {"kind": "implement"},
}
"""The formats a session's subagents are kept in (portable has no place for them), with the
values each requires that no session holds."""


@pytest.mark.parametrize("to", sorted(TARGETS))
@PROPERTY_SETTINGS
@given(layout=st.sampled_from(LAYOUTS), main_usage=usage, subs=shapes)
def test_the_token_statistics_of_an_imported_session_are_the_sessions(
    tmp_path_factory: pytest.TempPathFactory,
    to: str,
    layout: str,
    main_usage: tuple[int, int],
    subs: list[list[tuple[int, int]]],
) -> None:
    folder = tmp_path_factory.mktemp("session")
    path = _session(folder / "project", layout, main_usage, subs)
    record = to_record(load(path, "claude-code-session").run, to, TARGETS[to]).record
    records = folder / "runs.jsonl"
    records.write_text(record.model_dump_json(by_alias=True) + "\n")
    of_session = stats_json("--no-cache", "--timezone", "UTC", str(path))
    of_record = stats_json("--timezone", "UTC", str(records))
    assert {k: of_record[k] for k in COUNTED} == {k: of_session[k] for k in COUNTED}


def test_a_subagents_cache_writes_atif_does_not_show_are_carried() -> None:
    run = load(FIXTURE, "claude-code-session").run
    imported = to_record(run, "atif", {})
    extra = getattr(imported.record, "extra", None)
    assert isinstance(extra, dict)
    payload = extra[CARRY_PROPERTY]
    assert is_carry(payload)
    assert payload["version"] == 3
    patch = payload["subagents"]
    assert isinstance(patch, list)
    assert isinstance(patch[0], dict)
    fields = patch[0]["fields"]
    assert isinstance(fields, dict)
    assert fields["cache_creation_tokens"] == 14285
    back = to_canonical(imported.record)
    assert isinstance(back.subagents, tuple)
    assert back.subagents[0].cache_creation_tokens == 14285
    assert not any(loss.pointer.startswith("/subagents") for loss in imported.losses)


@pytest.mark.parametrize("to", ["agentrun", "cortex"])
def test_a_format_with_no_subagents_is_given_each_without_its_steps(to: str) -> None:
    run = load(FIXTURE, "claude-code-session").run
    imported = to_record(run, to, TARGETS[to])
    reasons = {loss.pointer: loss.reason for loss in imported.losses}
    assert reasons["/subagents/0/steps"] == (
        f"{to} has no place for a subagent's steps (its other values are carried)"
    )
    assert "/subagents" not in reasons
    (sub,) = to_canonical(imported.record).subagents  # type: ignore[misc]
    assert sub.steps is MISSING
    assert sub.cache_creation_tokens == 14285


def test_a_format_with_no_place_at_all_loses_the_subagents_whole() -> None:
    run = load(FIXTURE, "claude-code-session").run
    values: dict[str, JsonValue] = {
        "eval_id": "e",
        "condition": "c",
        "skill_path": "s",
        "prompt": "p",
        "files": [],
    }
    imported = to_record(run, "portable", values)
    reasons = {loss.pointer: loss.reason for loss in imported.losses}
    assert reasons["/subagents"] == "portable has no place for the transcript's subagents"


@pytest.mark.parametrize("depth", [1, 40, 3000])
@pytest.mark.parametrize("to", ["agentrun", "cortex"])
def test_subagents_nested_thousands_deep_are_carried_or_named_never_a_crash(
    to: str, depth: int
) -> None:
    """Each level a subagent of the one above, each with a step: carrying them without their
    steps walks every level (not by recursion), and a run too deep to carry is lost whole."""
    run = Run(run_id="leaf", input_tokens=1, steps=(RunStep(kind="message", message="x"),))
    for level in range(depth):
        step = RunStep(kind="message", message="x")
        run = Run(run_id=f"r{level}", input_tokens=1, steps=(step,), subagents=(run,))
    given: dict[str, JsonValue] = {
        **TARGETS[to],
        "status": "completed",
        "started_at": "2026-01-01T00:00:00Z",
    }
    if to == "agentrun":
        del given["started_at"]
    imported = to_record(run, to, given)
    pointers = [loss.pointer for loss in imported.losses if loss.pointer.startswith("/subagents")]
    if pointers == ["/subagents"]:
        return  # too deep to carry: lost whole, and said so
    assert pointers == [
        "/subagents/0" + "/subagents/0" * level + "/steps" for level in range(depth)
    ]
    back = to_canonical(imported.record)
    assert isinstance(back.subagents, tuple)
    assert back.subagents[0].steps is MISSING
