"""validate, convert and export on a Dask cluster of two worker processes give what the
command gives on one machine, record for record, every record accounted for."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from distributed import Client, LocalCluster

from agentruns.cli import main
from agentruns.distributed import convert_files, export_files, parts_of, validate_files

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    # distributed's constructors are not annotated
    cluster = LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with cluster, Client(cluster) as connected:  # type: ignore[no-untyped-call]
        yield connected


@pytest.fixture
def inputs(tmp_path: Path) -> list[str]:
    records = [
        json.dumps(json.loads((FIXTURES / name).read_text()))
        for name in ("portable.min.json", "cortex.min.json", "agentrun.min.json")
    ]
    lines: list[str] = []
    for number in range(400):
        lines.append(records[number % 3].replace('"R-T-DOC-007"', f'"R-{number}"'))
        if number % 37 == 0:
            lines.append('{"run_id": "cut')  # not JSON
        if number % 53 == 0:
            lines.append("")  # a blank line: numbered, skipped
    first = tmp_path / "a.jsonl"
    first.write_text("\n".join(lines) + "\n")
    second = tmp_path / "b.jsonl.gz"
    second.write_bytes(gzip.compress(("\n".join(reversed(lines)) + "\n").encode()))
    third = tmp_path / "c.json"
    third.write_text(records[1])
    return [str(first), str(second), str(third)]


def test_files_are_cut_at_line_boundaries(inputs: list[str]) -> None:
    parts = parts_of(inputs, 4096)
    assert len(parts) > 10
    data = Path(inputs[0]).read_bytes()
    for part in parts:
        if part.path == inputs[0] and part.end is not None:
            assert part.start == 0 or data[part.start - 1 : part.start] == b"\n"


def test_convert_on_the_cluster_writes_what_the_command_writes(
    client: Client, inputs: list[str], tmp_path: Path
) -> None:
    names = ("out.jsonl", "rejects.jsonl", "losses.jsonl")
    local = [tmp_path / f"local-{n}" for n in names]
    CliRunner().invoke(
        main,
        [
            "convert",
            "-q",
            "--to",
            "portable",
            *inputs,
            "-o",
            str(local[0]),
            "--rejects",
            str(local[1]),
            "--losses",
            str(local[2]),
        ],
    )
    remote = [tmp_path / f"dask-{n}" for n in names]
    tally = convert_files(
        client,
        inputs,
        "portable",
        str(remote[0]),
        rejects=str(remote[1]),
        losses=str(remote[2]),
        part_bytes=4096,
    )
    for mine, theirs in zip(local, remote, strict=True):
        assert mine.read_bytes() == theirs.read_bytes(), mine.name
    assert tally.records == tally.accepted + tally.rejected
    assert tally.accepted == len(local[0].read_bytes().splitlines())
    assert tally.rejected == len(local[1].read_bytes().splitlines()) > 0


def test_validate_on_the_cluster_finds_the_problems_the_command_finds(
    client: Client, inputs: list[str]
) -> None:
    result = CliRunner().invoke(main, ["validate", "--output-format", "json", *inputs])
    local = [
        (e["file"], e["line"], e["pointer"], e["message"])
        for e in map(json.loads, result.stdout.splitlines())
    ]
    found = validate_files(client, inputs, part_bytes=4096)
    assert found.problems == local
    assert found.tally.records == found.tally.accepted + found.tally.rejected


def test_export_on_the_cluster_gives_the_tables_the_command_gives(
    client: Client, inputs: list[str], tmp_path: Path
) -> None:
    CliRunner().invoke(main, ["export", *inputs, "-o", str(tmp_path / "local")])
    tally = export_files(client, inputs, str(tmp_path / "dask"), part_bytes=4096)
    for name in ("runs", "steps"):
        mine = pq.read_table(tmp_path / "local" / f"{name}.parquet")
        theirs = pq.read_table(tmp_path / "dask" / f"{name}.parquet")
        assert mine.equals(theirs), name
    assert tally.accepted == pq.read_table(tmp_path / "dask" / "runs.parquet").num_rows


def test_overlong_lines_and_a_bom_read_as_the_command_reads_them(
    client: Client, tmp_path: Path
) -> None:
    record = json.dumps(json.loads((FIXTURES / "cortex.min.json").read_text()))
    lines = [record, "x" * 5000, record, '{"long": "' + "y" * 3000 + '"}', record, "z" * 9000]
    path = tmp_path / "long.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode())  # no newline at the end
    local = [tmp_path / f"local-{n}" for n in ("o.jsonl", "r.jsonl")]
    CliRunner().invoke(
        main,
        [
            "convert",
            "-q",
            "--to",
            "agentrun",
            "--max-record-size",
            "2000",
            str(path),
            "-o",
            str(local[0]),
            "--rejects",
            str(local[1]),
        ],
    )
    for part_bytes in (100, 1000, 4096, 100_000):
        remote = [tmp_path / f"dask-{part_bytes}-{n}" for n in ("o.jsonl", "r.jsonl")]
        tally = convert_files(
            client,
            [str(path)],
            "agentrun",
            str(remote[0]),
            rejects=str(remote[1]),
            part_bytes=part_bytes,
            max_record_size=2000,
        )
        assert (tally.accepted, tally.rejected) == (3, 3)
        for mine, theirs in zip(local, remote, strict=True):
            assert mine.read_bytes() == theirs.read_bytes(), (part_bytes, mine.name)


def test_an_output_that_is_an_input_is_refused_before_anything_runs(
    client: Client, inputs: list[str]
) -> None:
    from agentruns.errors import OutputError

    before = Path(inputs[0]).read_bytes()
    with pytest.raises(OutputError):
        convert_files(client, inputs, "portable", inputs[0])
    assert Path(inputs[0]).read_bytes() == before


def test_the_cluster_refuses_several_records_in_one_json_output_as_the_command_does(
    client: Client, inputs: list[str], tmp_path: Path
) -> None:
    from agentruns.errors import OutputError

    command = CliRunner().invoke(
        main, ["convert", "-q", "--to", "portable", *inputs, "-o", str(tmp_path / "one.json")]
    )
    assert command.exit_code == 2
    assert "several records cannot be one JSON document" in command.output
    with pytest.raises(OutputError, match="several records cannot be one JSON document"):
        convert_files(client, inputs, "portable", str(tmp_path / "dask.json"), part_bytes=4096)
    assert not (tmp_path / "one.json").exists()
    assert not (tmp_path / "dask.json").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


def test_a_json_output_that_gets_no_record_is_not_written_on_the_cluster_either(
    client: Client, tmp_path: Path
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    local, remote = tmp_path / "local.json", tmp_path / "dask.json"
    CliRunner().invoke(main, ["convert", "-q", "--to", "portable", str(empty), "-o", str(local)])
    tally = convert_files(client, [str(empty)], "portable", str(remote))
    assert tally.records == 0
    assert not local.exists()
    assert not remote.exists()


def test_a_cluster_left_without_workers_is_an_error_not_a_wait_without_end(
    inputs: list[str],
) -> None:
    """Dask waits for ever for a worker to join: when every worker has died or left, the
    call gives up after ``no_worker_timeout`` with a ClusterError saying so."""
    import time

    from agentruns.errors import ClusterError

    cluster = LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with cluster, Client(cluster) as alone:  # type: ignore[no-untyped-call]
        cluster.scale(0)  # type: ignore[no-untyped-call]
        deadline = time.monotonic() + 60
        while alone.scheduler_info().get("workers") and time.monotonic() < deadline:
            time.sleep(0.2)
        started = time.monotonic()
        with pytest.raises(ClusterError, match="no worker for 2 s"):
            validate_files(alone, inputs, no_worker_timeout=2)
        assert time.monotonic() - started < 30
