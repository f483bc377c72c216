"""Commands over session folders: worker processes change nothing but the time (the same
output, in the same order, as one process), and a terminal sees progress."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from agentruns.cli import main
from tests.test_cli import _run_with_stderr
from tests.test_session_import import LOGS


def _import(tmp_path: Path, jobs: str) -> tuple[str, bytes, bytes]:
    out, losses = tmp_path / f"runs-{jobs}.jsonl", tmp_path / f"losses-{jobs}.jsonl"
    result = CliRunner().invoke(
        main,
        ["import", "-j", jobs, str(LOGS), "--to", "atif", "-o", str(out), "--losses", str(losses)],
    )
    return result.stderr, out.read_bytes(), losses.read_bytes()


def test_importing_a_folder_in_workers_writes_what_one_process_writes(tmp_path: Path) -> None:
    one = _import(tmp_path, "1")
    two = _import(tmp_path, "2")
    assert one == two
    assert "19 runs from 1 input: 19 written as atif" in one[0]


def test_import_and_export_of_a_folder_show_progress_on_a_terminal(tmp_path: Path) -> None:
    out = str(tmp_path / "runs.jsonl")
    shown = _run_with_stderr(tmp_path, "import", str(LOGS), "-o", out, terminal=True)
    assert "imported 19 runs" in shown
    quiet = _run_with_stderr(tmp_path, "import", "-q", str(LOGS), "-o", out, terminal=True)
    assert "imported 19 runs" not in quiet
    tables = str(tmp_path / "tables")
    exported = _run_with_stderr(tmp_path, "export", str(LOGS), "-o", tables, terminal=True)
    assert "exported 19 records" in exported
    piped = _run_with_stderr(tmp_path, "export", str(LOGS), "-o", tables, terminal=False)
    assert "exported 19 records" not in piped
    assert "19 records in: 19 exported" in piped
