"""A worker process that dies reading one session costs only the sessions it held, in every
command that reads a folder of sessions: the others are counted and written, the dead ones
named, the exit says so. The commands run in this process (click's runner), so the workers
they fork inherit a reader that ends its own process at one chosen file."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentruns.canonical import Run
from agentruns.cli import main
from agentruns.io import Raw
from agentruns.pipeline import Outcome
from agentruns.transcripts import _claude_light
from agentruns.transcripts._stream import JsonObject
from tests.test_session_import import LOGS

SAMPLE = LOGS / "claude-session" / "spotter-short.jsonl"
SESSIONS = 40  # more than two blocks of an export's sessions (16)


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "projects" / "-work"
    folder.mkdir(parents=True)
    text = SAMPLE.read_text()
    for number in range(SESSIONS):
        session = f"00000000-0000-4000-8000-{number:012d}"
        (folder / f"{session}.jsonl").write_text(text.replace("spotter", f"s{number}"))
    return folder.parent


def _dying_at(name: str) -> object:
    real = _claude_light.lines

    def lines(path: str, data: bytes | None = None) -> Iterator[tuple[int, JsonObject]]:
        if path.endswith(name) and os.getpid() != PARENT:
            os._exit(9)  # the worker reading this file dies (killed, out of memory)
        return real(path, data)

    return lines


PARENT = os.getpid()

COMMANDS = {
    "stats": lambda folder, out: ["stats", "--no-cache", "--output-format", "json", folder],
    "import": lambda folder, out: ["import", folder, "-o", out],
    "export parquet": lambda folder, out: ["export", "-q", folder, "-o", out],
    "export otlp": lambda folder, out: ["export", "-q", "--to", "otlp", folder, "-o", out],
}


@pytest.mark.parametrize("dying", [0, 17, SESSIONS - 1])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_dead_worker_costs_only_its_sessions(
    command: str, dying: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _folder(tmp_path)
    name = f"{dying:012d}.jsonl"
    monkeypatch.setattr(_claude_light, "lines", _dying_at(name))
    out = tmp_path / ("out" if command == "export parquet" else "out.jsonl")
    result = CliRunner().invoke(main, [*COMMANDS[command](str(folder), str(out)), "-j", "2"])
    assert result.exit_code == 1, result.output
    said = result.output
    assert "ended unexpectedly" in said
    assert name in said  # the dead worker's session is named
    if command == "stats":
        shown = json.loads(said[said.index("{") : said.rindex("}") + 1])
        runs, rejected = shown["runs"], shown["rejected"]
    elif command == "export parquet":
        import pyarrow.parquet as pq

        runs = pq.read_table(out / "runs.parquet").num_rows
        rejected = SESSIONS - runs
    else:
        runs = len(out.read_text().splitlines())
        rejected = SESSIONS - runs
    assert rejected == 1  # the sessions in flight beside it ran again, each alone
    assert runs + rejected == SESSIONS
    assert f"{rejected} rejected" in said or command == "stats"
    shutil.rmtree(folder)


def test_a_dead_worker_costs_only_its_record_in_a_block_of_an_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows are built by blocks of 2,000 records: the block whose worker died is run again a
    record at a time, so one record that kills its worker costs no other."""
    from agentruns import tables
    from tests.test_batch import VALID

    path = tmp_path / "runs.jsonl"
    path.write_text((VALID["cortex"] + "\n") * 4500)
    real = tables.read_run  # type: ignore[attr-defined]  # the name the tables call

    def read_run(raw: Raw, fmt: str = "auto") -> Outcome[Run]:
        if raw.line == 2345 and os.getpid() != PARENT:
            os._exit(9)
        return real(raw, fmt)

    monkeypatch.setattr(tables, "read_run", read_run)
    out = tmp_path / "tables"
    result = CliRunner().invoke(main, ["export", "-q", str(path), "-o", str(out), "-j", "2"])
    assert result.exit_code == 1, result.output
    assert f"{path}:2345:" in result.output
    assert "4500 records in: 4499 exported" in result.output
    import pyarrow.parquet as pq

    assert pq.read_table(out / "runs.parquet").num_rows == 4499


def _die_on(lines: frozenset[int], raw: Raw) -> Outcome:
    if raw.line in lines and os.getpid() != PARENT:
        os._exit(9)
    from agentruns.batch import validate_document

    return validate_document(raw)


@pytest.mark.parametrize("dying", [{50}, {50, 51}, {3, 150, 299}, {1, 2, 3, 4, 5}])
def test_each_record_that_kills_its_worker_costs_itself_alone(
    dying: set[int], tmp_path: Path
) -> None:
    """After a death new workers take the rest: a second deadly record, however near, is
    isolated as the first was; nothing else is lost, and nothing runs in this process."""
    from functools import partial

    from agentruns.batch import Batch
    from tests.test_batch import VALID

    path = tmp_path / "runs.jsonl"
    path.write_text((VALID["agentrun"] + "\n") * 300)
    with Batch(partial(_die_on, frozenset(dying)), [str(path)], jobs=2) as batch:
        outcomes = list(batch)
    assert [raw.line for raw, _ in outcomes] == list(range(1, 301))
    rejected = {raw.line for raw, outcome in outcomes if not outcome.accepted}
    assert rejected == dying
    assert batch.tally.accepted == 300 - len(dying)


class _NoFork:
    """A pool none of whose workers can be forked (the machine is out of processes)."""

    def submit(self, *args: object, **kwargs: object) -> object:
        raise OSError(11, "Resource temporarily unavailable")

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        return None


def test_when_no_worker_can_be_forked_the_items_are_done_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentruns import _workers

    monkeypatch.setattr(_workers, "_start_pool", lambda jobs: _NoFork())
    with _workers.OrderedMap(lambda n: n * 2, range(100), 2, chunk=4) as doubled:
        assert list(doubled) == [(n, n * 2) for n in range(100)]
