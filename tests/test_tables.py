"""Runs as tables: Parquet files DuckDB reads, whose join gives the source's counts, with
the column schema held by a golden file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result

from agentruns.cli import main
from agentruns.conversion import to_canonical
from agentruns.detect import MODELS, detect
from agentruns.tables import export_lines, runs_schema, steps_schema

FIXTURES = Path(__file__).parent / "fixtures"
UPSTREAM = FIXTURES / "upstream"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _documents() -> list[bytes]:
    """Real records of the three formats (upstream ones included), one per line."""
    paths = [
        FIXTURES / "portable.min.json",
        FIXTURES / "cortex.min.json",
        FIXTURES / "agentrun.min.json",
        *sorted((UPSTREAM / "eval-magic").glob("*.run.json")),
        UPSTREAM / "cortex-agent" / "cortex-run-journal.sample.json",
    ]
    return [json.dumps(json.loads(p.read_text())).encode() for p in paths]


@pytest.fixture
def inputs(tmp_path: Path) -> list[Path]:
    lines = _documents()
    first = tmp_path / "a.jsonl"
    first.write_bytes(b"\n".join([*lines, b'{"not": "a run"}', lines[1]]) + b"\n")  # a duplicate id
    second = tmp_path / "b.json"
    second.write_bytes(lines[2])
    return [first, second]


def _expected_steps(inputs: list[Path]) -> tuple[int, int]:
    runs = steps = 0
    for path in inputs:
        for text in path.read_bytes().splitlines():
            value = json.loads(text)
            found = detect(value).format
            if found is None:
                continue
            run = to_canonical(MODELS[found].model_validate(value))
            runs += 1
            steps += len(run.steps) if isinstance(run.steps, tuple) else 0
    return runs, steps


def test_duckdb_reads_both_tables_and_their_join_gives_the_source_counts(
    inputs: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "tables"
    result = invoke("export", *map(str, inputs), "-o", str(out))
    assert result.exit_code == 1  # the one record that is no run
    runs, steps = _expected_steps(inputs)
    con = duckdb.connect()

    def one(query: str) -> tuple[object, ...]:
        rows = con.sql(query).fetchall()
        assert len(rows) == 1
        return tuple(rows[0])

    runs_file, steps_file = out / "runs.parquet", out / "steps.parquet"
    assert one(f"select count(*) from '{runs_file}'") == (runs,)
    assert one(f"select count(*) from '{steps_file}'") == (steps,)
    joined = one(f"select count(*) from '{runs_file}' r join '{steps_file}' s using (run_id)")
    assert joined == (steps,)
    unique = one(f"select count(distinct run_id) from '{runs_file}'")
    assert unique == (runs,)
    counted = one(f"select sum(step_count), sum(tool_call_count) from '{runs_file}'")
    tools = one(f"select count(*) from '{steps_file}' where kind = 'tool_call'")
    assert counted == (steps, tools[0])


def test_a_repeated_record_id_gets_its_file_and_line(inputs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "tables"
    invoke("export", str(inputs[0]), "-o", str(out))
    ids = [str(i) for i in pq.read_table(out / "runs.parquet").column("run_id").to_pylist()]
    assert "R-T-DOC-007" in ids
    assert any(i.startswith("R-T-DOC-007@") and i.endswith(":11") for i in ids)


def test_the_column_schema_matches_the_golden_file() -> None:
    text = f"runs\n{runs_schema()}\n\nsteps\n{steps_schema()}\n"
    golden = FIXTURES / "golden" / "tables.schema.txt"
    if os.environ.get("REGENERATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()


def test_written_files_use_zstd_and_the_declared_schema(inputs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "tables"
    invoke("export", *map(str, inputs), "-o", str(out))
    for name, schema in (("runs", runs_schema()), ("steps", steps_schema())):
        file = pq.ParquetFile(out / f"{name}.parquet")
        assert file.schema_arrow.equals(schema)
        assert file.metadata.row_group(0).column(0).compression == "ZSTD"


def test_timestamps_are_utc_instants_whatever_offset_the_record_wrote() -> None:
    record = json.loads((FIXTURES / "cortex.min.json").read_text())
    part = export_lines([json.dumps(record).encode()])
    ended = part.runs.column("ended_at")[0].as_py()
    assert ended.isoformat() == "2026-09-01T06:12:30.250000+00:00"  # 08:12:30.250+02:00


def test_without_pyarrow_export_says_how_to_install_it(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['pyarrow'] = None\n"
        "from agentruns.cli import run\n"
        f"sys.argv = ['agentruns', 'export', {str(FIXTURES / 'cortex.min.json')!r}, '-o', "
        f"{str(tmp_path / 'out')!r}]\n"
        "run()"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert "pip install 'agentruns[parquet]'" in result.stderr
    assert not (tmp_path / "out").exists()


def test_hostile_records_never_cost_a_valid_one_in_an_export_or_in_stats() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from agentruns.stats import RunStats, stats_document
    from tests.test_batch import VALID, hostile

    @settings(max_examples=40, deadline=None)
    @given(st.lists(st.tuples(st.sampled_from(sorted(VALID)), hostile), min_size=1, max_size=10))
    def check(plan: list[tuple[str, str]]) -> None:
        lines: list[bytes] = []
        for name, bad in plan:
            lines += [VALID[name].encode(), bad.encode("utf-8", errors="surrogateescape")]
        part = export_lines(lines, name="in.jsonl")
        tally = part.tally
        assert tally.records == len(lines) == tally.accepted + tally.rejected
        assert part.runs.num_rows == tally.accepted >= len(plan)
        counts = [int(n or 0) for n in part.runs.column("step_count").to_pylist()]
        assert sum(counts) == part.steps.num_rows
        assert not any(m.startswith("internal error") for *_, m in part.problems)
        stats = RunStats()
        from agentruns.batch import raws_of

        for raw in raws_of(lines, "in.jsonl"):
            outcome = stats_document(raw)
            if outcome.value is not None:
                stats.add(outcome.value)
            else:
                assert not any(m.startswith("internal error") for _, m in outcome.problems)
        assert stats.runs == tally.accepted

    check()


def test_export_with_workers_writes_the_same_tables_and_rejects_as_in_one_process(
    tmp_path: Path,
) -> None:
    """Blocks of records are turned into rows in worker processes and written in order: the
    tables, the rejects and the counts are those of -j 1, row for row."""
    from agentruns.tables import BLOCK

    lines = _documents()
    records = [lines[i % len(lines)] for i in range(2 * BLOCK + 321)]
    records[BLOCK + 7] = b'{"not": "a run"}'  # a rejected record in the middle block
    source = tmp_path / "many.jsonl"
    source.write_bytes(b"\n".join(records) + b"\n")
    said = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"j{jobs}"
        rejects = tmp_path / f"rejects{jobs}.jsonl"
        result = invoke(
            "export", str(source), "-o", str(out), "-j", jobs, "--rejects", str(rejects)
        )
        assert result.exit_code == 1, result.output  # one record rejected
        said[jobs] = (
            pq.read_table(out / "runs.parquet"),
            pq.read_table(out / "steps.parquet"),
            rejects.read_bytes(),
        )
    runs_1, steps_1, rejects_1 = said["1"]
    runs_2, steps_2, rejects_2 = said["2"]
    assert runs_1.num_rows == len(records) - 1
    assert runs_1.equals(runs_2)
    assert steps_1.equals(steps_2)
    assert rejects_1 == rejects_2
    assert rejects_1.count(b"\n") == 1


def test_record_files_in_a_row_are_one_stream_for_one_set_of_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several files of records are exported by one set of workers (not one pool a file),
    each record's row naming its own file and line, the rows those of -j 1; a file between
    them that cannot be read is named, counted, and the files after it still read."""
    import agentruns.tables as tables

    lines = _documents()
    files = []
    for number in range(3):
        path = tmp_path / f"part{number}.jsonl"
        path.write_bytes(b"\n".join(lines[number:] + lines[:number]) + b"\n")
        files.append(path)
    streams = []
    real = tables.export_blocks

    def counted(*args: object, **kwargs: object) -> object:
        streams.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tables, "export_blocks", counted)
    parts = [str(files[0]), str(tmp_path / "missing.jsonl"), str(files[1]), str(files[2])]
    said = {}
    for jobs in ("1", "2"):
        result = invoke("export", *parts, "-o", str(tmp_path / f"j{jobs}"), "-j", jobs)
        assert result.exit_code == 1, result.output  # one input unreadable
        assert "missing.jsonl" in result.output
        assert "1 input unreadable" in result.output
        said[jobs] = [
            pq.read_table(tmp_path / f"j{jobs}" / t) for t in ("runs.parquet", "steps.parquet")
        ]
    assert len(streams) == 2  # one a run
    assert all(one.equals(two) for one, two in zip(said["1"], said["2"], strict=True))
    runs = said["2"][0]
    expected = [(str(path), line) for path in files for line in range(1, len(lines) + 1)]
    assert (
        list(
            zip(
                runs.column("source_file").to_pylist(),
                runs.column("source_line").to_pylist(),
                strict=True,
            )
        )
        == expected
    )
