"""validate, convert and export on a Dask cluster, for archives that outgrow one machine.

Needs ``distributed`` (``pip install 'agentruns[dask]'``). Files are cut into parts of about
``part_bytes`` at line boundaries (a compressed file, or a JSON document, is one part); the
workers count each part's lines, then handle its records with the same functions the
command uses (``agentruns.batch.convert_lines`` and friends), so every record gets the same
bytes, the same line number and the same rejection as with ``agentruns convert``. The parts
come back to the client in input order, which writes the outputs as the command does
(temporary file, renamed at the end). Every record is accounted for in the returned tally.

    from dask.distributed import Client
    from agentruns.distributed import convert_files

    with Client("tcp://scheduler:8786") as client:
        tally = convert_files(client, ["runs-1.jsonl", "runs-2.jsonl"], "agentrun", "out.jsonl")

The files must be readable by the workers at the same paths (a shared file system).
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from agentruns._compression import compression_of
from agentruns._output import Records, writes_lines
from agentruns.batch import (
    Lines,
    Outcome,
    Tally,
    collect,
    convert_document,
    validate_document,
)
from agentruns.errors import ClusterError, InputError
from agentruns.io import (
    MAX_RECORD_SIZE,
    Raw,
    count_lines,
    layout_of,
    line_end_after,
    read_range,
    read_raw,
)
from agentruns.pipeline import Outputs

__all__ = [
    "NO_WORKER_TIMEOUT",
    "PART_BYTES",
    "Part",
    "convert_files",
    "export_files",
    "parts_of",
    "validate_files",
]


if TYPE_CHECKING:
    from distributed import Client, Future

    from agentruns.tables import Exported

T = TypeVar("T")

PART_BYTES = 64 << 20
"""Default part size: big enough that scheduling costs nothing next to the work."""

NO_WORKER_TIMEOUT = 60.0
"""Seconds a cluster may have no worker before the work is given up (``ClusterError``):
Dask waits for ever for a worker to join, so a cluster whose workers all died hung the call.
Long enough for an adaptive cluster to start one."""

_POLL = 1.0
"""Seconds between looks at the cluster while a result is awaited."""


@dataclass(frozen=True, slots=True)
class Part:
    """Bytes ``start`` to ``end`` of a JSONL file (``end`` None: the whole file, read as the
    command reads it: decompressed, or as one JSON document)."""

    path: str
    start: int = 0
    end: int | None = None


def parts_of(paths: Sequence[str], part_bytes: int = PART_BYTES) -> list[Part]:
    """Cut the files at line boundaries into parts of about ``part_bytes`` (a line longer
    than that is one part; finding its end reads it in bounded pieces)."""
    parts: list[Part] = []
    for path in paths:
        if compression_of(path) is not None or layout_of(path) != "jsonl":
            parts.append(Part(path))
            continue
        try:
            size = os.path.getsize(path)
        except OSError:
            parts.append(Part(path))  # the worker reports it unreadable
            continue
        if size == 0:
            parts.append(Part(path, 0, 0))
        start = 0
        while start < size:
            end = min(start + part_bytes, size)
            if end < size:
                end = line_end_after(path, end - 1)
            parts.append(Part(path, start, end))
            start = end
    return parts


def _part_lines(part: Part) -> int:
    """Lines in a part (the next part's first line number follows from it)."""
    return 0 if part.end is None else count_lines(part.path, part.start, part.end)


def _raws(part: Part, first_line: int, max_size: int, unreadable: list[str]) -> Iterator[Raw]:
    try:
        if part.end is None:
            yield from read_raw(part.path, None, max_size)
        else:
            yield from read_range(part.path, part.start, part.end, first_line, max_size)
    except (InputError, OSError) as error:
        unreadable.append(str(error) if isinstance(error, InputError) else f"{part.path}: {error}")


def _handle(
    work: Callable[[Raw], Outcome[object]], part: Part, first_line: int, max_size: int
) -> Lines:
    unreadable: list[str] = []
    result = collect(work, _raws(part, first_line, max_size, unreadable))
    result.tally.unreadable += unreadable
    return result


def _convert_part(
    part: Part, first_line: int, max_size: int, to: str, source: str, strict: bool
) -> Lines:
    work = partial(convert_document, to=to, source=source, strict=strict, report=True)
    return _handle(work, part, first_line, max_size)


def _validate_part(part: Part, first_line: int, max_size: int, fmt: str) -> Lines:
    return _handle(partial(validate_document, fmt=fmt), part, first_line, max_size)


def _export_part(part: Part, first_line: int, max_size: int, fmt: str) -> Exported:
    from agentruns.tables import export_raws

    unreadable: list[str] = []
    exported = export_raws(_raws(part, first_line, max_size, unreadable), fmt=fmt)
    exported.tally.unreadable += unreadable
    return exported


def _result(client: Client, future: Future[T], no_worker_timeout: float) -> T:
    """The future's result, looking at the cluster while it waits: no worker for longer
    than ``no_worker_timeout``, or a part whose workers kept dying (Dask's ``KilledWorker``),
    is a ``ClusterError`` that says so, not a wait without end."""
    from distributed.scheduler import KilledWorker

    alone_since: float | None = None
    while True:
        try:
            return future.result(timeout=_POLL)
        except TimeoutError:
            pass
        except KilledWorker as error:
            raise ClusterError(
                f"the workers handling a part kept dying, and the cluster gave it up ({error})"
            ) from None
        if client.scheduler_info().get("workers"):
            alone_since = None
        elif alone_since is None:
            alone_since = time.monotonic()
        elif time.monotonic() - alone_since > no_worker_timeout:
            raise ClusterError(
                f"the cluster has had no worker for {no_worker_timeout:g} s (all died or "
                "left); nothing was written"
            )


def _run_parts(
    client: Client,
    function: Callable[..., T],
    parts: list[Part],
    *args: object,
    no_worker_timeout: float = NO_WORKER_TIMEOUT,
) -> Iterator[T]:
    """``function(part, first_line, *args)`` on the cluster; results in part order, each
    gathered as soon as it and every part before it are done (bounded client memory)."""
    counting = client.map(_part_lines, parts, pure=False)
    try:
        counts = [_result(client, future, no_worker_timeout) for future in counting]
    except BaseException:
        client.cancel(counting)  # type: ignore[no-untyped-call]
        raise
    firsts: list[int] = []
    line = 1
    previous: str | None = None
    for part, count in zip(parts, counts, strict=True):
        if part.path != previous:
            line = 1
            previous = part.path
        firsts.append(line)
        line += count
    pending = deque(
        client.map(function, parts, firsts, *[[a] * len(parts) for a in args], pure=False)
    )
    try:
        while pending:
            # dropped as soon as handed out: workers free it
            yield _result(client, pending.popleft(), no_worker_timeout)
    finally:
        if pending:
            client.cancel(list(pending))  # type: ignore[no-untyped-call]


def validate_files(
    client: Client,
    paths: Sequence[str],
    fmt: str = "auto",
    *,
    part_bytes: int = PART_BYTES,
    max_record_size: int = MAX_RECORD_SIZE,
    no_worker_timeout: float = NO_WORKER_TIMEOUT,
) -> Lines:
    """Every problem, in input order, and the tally: what ``agentruns validate`` reports."""
    total = Lines()
    parts = parts_of(paths, part_bytes)
    run = _run_parts(
        client, _validate_part, parts, max_record_size, fmt, no_worker_timeout=no_worker_timeout
    )
    for lines in run:
        total.problems += lines.problems
        total.tally.merge(lines.tally)
    return total


def convert_files(
    client: Client,
    paths: Sequence[str],
    to: str,
    output: str,
    *,
    source: str = "auto",
    strict: bool = False,
    rejects: str | None = None,
    losses: str | None = None,
    part_bytes: int = PART_BYTES,
    max_record_size: int = MAX_RECORD_SIZE,
    no_worker_timeout: float = NO_WORKER_TIMEOUT,
) -> Tally:
    """``agentruns convert --to TO PATHS -o OUTPUT [--rejects R] [--losses L]`` on the
    cluster: the same files, byte for byte. An output that is an input, or another output,
    is refused (``OutputError``) before anything is read."""
    tally = Tally()
    with Outputs(paths, {"output": output, "rejects": rejects, "losses": losses}) as outputs:
        sink = outputs.open("output")
        assert sink is not None
        records = Records(sink, lines=writes_lines(output, paths, False))
        written = {name: outputs.open(name) for name in ("rejects", "losses")}
        parts = parts_of(paths, part_bytes)
        work = (max_record_size, to, source, strict)
        run = _run_parts(client, _convert_part, parts, *work, no_worker_timeout=no_worker_timeout)
        for lines in run:
            tally.merge(lines.tally)
            for piece in lines.output:
                records.write(piece)
            for out, data in (
                (written["rejects"], lines.rejects),
                (written["losses"], lines.losses),
            ):
                if out is not None:
                    for piece in data:
                        out.write(piece)
        records.finish()
        outputs.commit()
    return tally


def export_files(
    client: Client,
    paths: Sequence[str],
    folder: str,
    *,
    fmt: str = "auto",
    part_bytes: int = PART_BYTES,
    max_record_size: int = MAX_RECORD_SIZE,
    no_worker_timeout: float = NO_WORKER_TIMEOUT,
) -> Tally:
    """``agentruns export PATHS -o FOLDER`` on the cluster: the same tables, row for row."""
    from agentruns.tables import ParquetExport

    tally = Tally()
    with Outputs(paths, {"-o": folder}) as outputs:
        export = outputs.hold("-o", ParquetExport(folder))
        parts = parts_of(paths, part_bytes)
        run = _run_parts(
            client, _export_part, parts, max_record_size, fmt, no_worker_timeout=no_worker_timeout
        )
        for part in run:
            tally.merge(part.tally)
            export.write(part)
        outputs.commit()
    return tally
