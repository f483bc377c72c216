"""An import names each value of a subagent the record does not keep, at its own pointer.

ATIF holds a session's subagents (embedded trajectories) but not all of each: a subagent's
cache writes, its times, its status. The loss report said "atif has no place for the
transcript's subagents", as if none were written, and named nothing of what went (``stats``
of the record then counted fewer cache-write tokens than ``stats`` of the session, with
nothing said why). Generated sessions in every layout Claude Code writes subagents in, with
cache writes: every value of every subagent either comes back from the record or is named
by a loss at its pointer, and every loss under ``/subagents`` names a value that did not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import MISSING

from agentruns.canonical import FIELDS, Run
from agentruns.conversion import to_canonical
from agentruns.transcripts import load
from agentruns.transcripts._record import to_record
from tests._settings import PROPERTY_SETTINGS
from tests.test_claude_subagents import LAYOUTS, _write, shapes, usage

FIXTURE = (
    Path(__file__).parent / "fixtures/upstream/agent-logs/claude-session/spotter-subagent.jsonl"
)


def _with_cache_writes(folder: Path, tokens: int) -> None:
    """Give every response of every subagent ``tokens`` cache writes."""
    for path in folder.rglob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        for line in lines:
            if line.get("isSidechain") and line["type"] == "assistant":
                line["message"]["usage"]["cache_creation_input_tokens"] = tokens
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _pointers(run: Run, record_run: Run, pointers: set[str]) -> list[str]:
    """The subagent values whose report is wrong: one that comes back and is named lost, or
    one that does not and is not."""
    wrong: list[str] = []
    subagents = run.subagents if isinstance(run.subagents, tuple) else ()
    kept = record_run.subagents if isinstance(record_run.subagents, tuple) else ()
    assert len(kept) == len(subagents)
    for index, (sub, back) in enumerate(zip(subagents, kept, strict=True)):
        for name in FIELDS:
            value = getattr(sub, name)
            if value is MISSING or name in ("steps", "subagents"):
                continue
            at = f"/subagents/{index}/{name}"
            named = any(p == at or p.startswith(f"{at}/") for p in pointers)
            if (getattr(back, name) == value) == named:
                wrong.append(at)
    return wrong


@PROPERTY_SETTINGS
@given(
    layout=st.sampled_from(LAYOUTS),
    main_usage=usage,
    subs=shapes,
    cache=st.integers(1, 5_000),
)
def test_each_value_of_a_subagent_comes_back_or_is_named_lost(
    tmp_path_factory: pytest.TempPathFactory,
    layout: str,
    main_usage: tuple[int, int],
    subs: list[list[tuple[int, int]]],
    cache: int,
) -> None:
    folder = tmp_path_factory.mktemp("session")
    path, _ = _write(folder, layout, main_usage, subs)
    _with_cache_writes(folder, cache)
    run = load(path, "claude-code-session").run
    imported = to_record(run, "atif", {})
    pointers = {loss.pointer for loss in imported.losses}
    assert "/subagents" not in pointers
    assert _pointers(run, to_canonical(imported.record), pointers) == []


def test_a_subagents_cache_writes_lost_to_atif_are_named_at_their_pointer() -> None:
    run = load(FIXTURE, "claude-code-session").run
    imported = to_record(run, "atif", {})
    losses = {loss.pointer: loss.reason for loss in imported.losses}
    assert losses["/subagents/0/cache_creation_tokens"] == (
        "atif has no place for a subagent's cache_creation_tokens"
    )
    assert "/subagents" not in losses


def test_a_target_with_no_subagents_still_loses_them_whole() -> None:
    run = load(FIXTURE, "claude-code-session").run
    imported = to_record(run, "cortex", {"kind": "implement"})
    reasons = {loss.pointer: loss.reason for loss in imported.losses}
    assert reasons["/subagents"] == "cortex has no place for the transcript's subagents"
