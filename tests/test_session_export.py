"""``agentruns export`` reads session files and folders as ``stats`` does: each session is a
run, and its rows are what importing the sessions and exporting the records gives."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from click.testing import CliRunner

from agentruns.cli import main
from tests.test_session_import import LOGS

_OWN = {"run_id", "format", "agent_id", "source_file", "source_line"}
"""What depends on where a run was read from (its file, line and format; an importer
derives an agent id the target format requires)."""


def _export(out: Path, *inputs: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    result = CliRunner().invoke(main, ["export", "-j", "1", "-o", str(out), *inputs])
    assert result.exit_code == 0, result.output
    runs = pq.read_table(out / "runs.parquet").to_pylist()
    steps = pq.read_table(out / "steps.parquet").to_pylist()
    return runs, steps


def _without(rows: list[dict[str, Any]], names: set[str]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k not in names} for row in rows]


def test_a_session_folder_exports_what_importing_it_then_exporting_gives(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    shutil.copytree(LOGS / "claude-session", folder)
    runs, steps = _export(tmp_path / "direct", str(folder))
    imported = tmp_path / "runs.jsonl"
    done = CliRunner().invoke(
        main, ["import", "-q", str(folder), "--to", "atif", "-o", str(imported)]
    )
    assert "4 written as atif, 0 rejected" in done.output  # (exit 1: problems in sessions)
    runs_back, steps_back = _export(tmp_path / "through", str(imported))
    assert len(runs) == len(list(folder.glob("*.jsonl")))
    assert {row["format"] for row in runs} == {"claude-code-session"}
    assert _without(runs, _OWN) == _without(runs_back, _OWN)
    assert _without(steps, {"run_id"}) == _without(steps_back, {"run_id"})


def test_session_files_export_as_their_folder_does(tmp_path: Path) -> None:
    folder = LOGS / "claude-session"
    files = sorted(str(path) for path in folder.glob("*.jsonl"))
    one_by_one, _ = _export(tmp_path / "files", *files)
    whole, _ = _export(tmp_path / "folder", str(folder))
    assert _without(one_by_one, {"source_file"}) == _without(whole, {"source_file"})


def test_a_file_that_cannot_be_read_is_named_and_the_exit_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    shutil.copytree(LOGS / "claude-session", folder)
    locked = sorted(folder.glob("*.jsonl"))[0]
    locked.unlink()
    os.mkfifo(locked)  # a FIFO named like a session: never opened (it would block)
    try:
        result = CliRunner().invoke(
            main, ["export", "-j", "1", "-o", str(tmp_path / "o"), str(folder)]
        )
    finally:
        locked.unlink()
    assert result.exit_code == 1
    assert f"{locked}: unreadable" in result.output
    assert "1 input unreadable" in result.output


def test_a_session_folder_exports_as_one_trace_per_session(tmp_path: Path) -> None:
    import json

    folder = LOGS / "claude-session"
    out = tmp_path / "traces.jsonl"
    result = CliRunner().invoke(
        main, ["export", "--to", "otlp", "-j", "1", str(folder), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    traces = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(traces) == len(list(folder.glob("*.jsonl")))
    formats = {
        attribute["value"]["stringValue"]
        for trace in traces
        for resource in trace["resourceSpans"]
        for span in resource["scopeSpans"][0]["spans"]
        for attribute in span["attributes"]
        if attribute["key"] == "agentruns.format"
    }
    assert formats == {"claude-code-session"}
    assert f"{len(traces)} records in: {len(traces)} exported as traces" in result.output
