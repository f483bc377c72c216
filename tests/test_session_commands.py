"""Sessions of every harness, generated, through every command that reads runs: a folder of
them gives in ``stats`` what importing it (into each format that holds every session) then
``stats`` gives; ``show`` draws each of its runs; ``export`` writes a row per run; ``detect``
names each file's harness. The family of the bundled-sample tests, on sessions nobody wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from agentruns._harnesses import ROUNDS
from agentruns.cli import main
from tests._settings import PROPERTY_SETTINGS
from tests.test_stats_sessions import IN_OWN_TERMS
from tests.test_transcript_properties import (
    FOLDERS,
    NO_CALLS,
    RENDER,
    Action,
    _materialize,
    actions,
)

Json = Any

SESSIONS = sorted((set(RENDER) | set(FOLDERS)) - set(ROUNDS) - set(NO_CALLS))
"""Harnesses whose files are whole sessions (each file a run), with tool calls."""


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _stats(*args: str) -> Json:
    result = _invoke("stats", "--output-format", "json", "-j", "1", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _folder(root: Path, plans: list[tuple[str, list[Action]]]) -> Path:
    folder = root / "sessions"
    for number, (harness, plan) in enumerate(plans):
        place = folder / f"{number}-{harness}"
        place.mkdir(parents=True)
        written = _materialize(harness, plan, place)
        if harness in ("codex-rollout", "pi-session"):
            _own_session(written, number)
    return folder


def _own_session(path: Path, number: int) -> None:
    """A session file of a session of its own (each drawn one is ``s-1``, its entries and
    times the same): Codex identifies a call by its session and the usage after it, pi by
    its entry and times, so two such files of one session hold the same calls, which a
    folder counts once."""
    lines = [json.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]
    for line in lines:
        if line.get("type") == "session_meta":
            line["payload"]["id"] = f"s-{number}"
        elif line.get("type") in ("session", "message"):
            line["id"] = f"{number}-{line['id']}"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


plans = st.lists(st.tuples(st.sampled_from(SESSIONS), actions), min_size=1, max_size=3)


@pytest.mark.parametrize("to", ["agentrun", "cortex", "atif"])
@PROPERTY_SETTINGS
@given(drawn=plans)
def test_a_folder_of_sessions_counts_as_its_imported_runs_count(
    to: str, drawn: list[tuple[str, list[Action]]], tmp_path_factory: Any
) -> None:
    root = tmp_path_factory.mktemp("sessions")
    folder = _folder(root, drawn)
    direct = _stats("--no-cache", str(folder))
    assert direct["runs"] == len(drawn)
    assert direct["rejected"] == 0
    out = root / f"runs.{to}.jsonl"
    imported = _invoke("import", "-q", str(folder), "--to", to, "-o", str(out))
    assert imported.exit_code in (0, 1), imported.output  # 1: a stream with problems
    through = _stats(str(out))
    assert {k: v for k, v in direct.items() if k not in IN_OWN_TERMS} == {
        k: v for k, v in through.items() if k not in IN_OWN_TERMS
    }


@PROPERTY_SETTINGS
@given(drawn=plans)
def test_show_and_export_take_a_folder_of_sessions_run_by_run(
    drawn: list[tuple[str, list[Action]]], tmp_path_factory: Any
) -> None:
    root = tmp_path_factory.mktemp("sessions")
    folder = _folder(root, drawn)
    shown = _invoke("show", str(folder))
    assert shown.exit_code == 0, shown.output
    headers = [line for line in shown.stdout.splitlines() if line.startswith("format ")]
    assert len(headers) == len(drawn)  # each run drawn, headed by its format
    tables = root / "tables"
    exported = _invoke("export", "-q", str(folder), "-o", str(tables))
    assert exported.exit_code == 0, exported.output
    import pyarrow.parquet as pq

    assert pq.read_table(tables / "runs.parquet").num_rows == len(drawn)
