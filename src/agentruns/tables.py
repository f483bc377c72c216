"""Runs as tables: one row per run, one row per step, as Arrow record batches and Parquet.

Needs pyarrow (``pip install 'agentruns[parquet]'``). Built from the canonical run, so every
format gives the same columns; the column types are exact (timestamps in UTC with time zone,
integers as integers, nulls where the data is optional) and documented in docs/tables.md.
``RUNS_SCHEMA`` and ``STEPS_SCHEMA`` are the contract (a golden test holds them).

``export_lines`` turns JSONL lines into batches with no state outside the call, so any engine
can run it per partition; ``RunIds`` then makes ``run_id`` unique across the parts, in order,
and ``ParquetExport`` writes ``runs.parquet`` and ``steps.parquet`` in row groups.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import MISSING

from agentruns._json_text import compact
from agentruns._rejects import Placed
from agentruns.batch import (
    Tally,
    collect,
    known_format,
    raws_of,
    read_run,
)
from agentruns.canonical import Run
from agentruns.derivations import derive_run_id, duration_ms, status, total_tokens
from agentruns.errors import AgentrunsError, MissingDependency
from agentruns.io import Raw
from agentruns.pipeline import Candidate, NotRead, Outcome, Stream, read_session
from agentruns.pipeline._stream import failed as failed_outcome

__all__ = [
    "BLOCK",
    "Exported",
    "MissingPyarrow",
    "ParquetExport",
    "RunIds",
    "export_blocks",
    "export_lines",
    "export_raws",
    "export_session_blocks",
    "require_pyarrow",
    "runs_schema",
    "steps_schema",
]


if TYPE_CHECKING:
    import pyarrow as pa

T = TypeVar("T")

_MISSING_PYARROW = "Parquet export needs pyarrow: pip install 'agentruns[parquet]'"

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)


class MissingPyarrow(MissingDependency):
    """pyarrow is not installed."""


def require_pyarrow() -> None:
    """Raise ``MissingPyarrow`` (saying how to install it) unless pyarrow can be imported."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise MissingPyarrow(_MISSING_PYARROW) from None


def runs_schema() -> pa.Schema:
    require_pyarrow()
    import pyarrow as pa

    stamp = pa.timestamp("us", tz="UTC")
    fields: list[pa.Field[Any]] = [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("record_id", pa.string()),
        pa.field("format", pa.string(), nullable=False),
        pa.field("agent_id", pa.string()),
        pa.field("kind", pa.string()),
        pa.field("status", pa.string()),
        pa.field("goal", pa.string()),
        pa.field("final_message", pa.string()),
        pa.field("started_at", stamp),
        pa.field("ended_at", stamp),
        pa.field("duration_ms", pa.int64()),
        pa.field("total_tokens", pa.int64()),
        pa.field("input_tokens", pa.int64()),
        pa.field("output_tokens", pa.int64()),
        pa.field("cache_creation_tokens", pa.int64()),
        pa.field("cache_read_tokens", pa.int64()),
        pa.field("reasoning_tokens", pa.int64()),
        pa.field("model", pa.string()),
        pa.field("cost_usd", pa.float64()),
        pa.field("eval_id", pa.string()),
        pa.field("condition", pa.string()),
        pa.field("step_count", pa.int32(), nullable=False),
        pa.field("tool_call_count", pa.int32(), nullable=False),
        pa.field("source_file", pa.string(), nullable=False),
        pa.field("source_line", pa.int64(), nullable=False),
        pa.field("wide_integers", pa.map_(pa.string(), pa.string())),
    ]
    return pa.schema(fields)


def steps_schema() -> pa.Schema:
    require_pyarrow()
    import pyarrow as pa

    fields: list[pa.Field[Any]] = [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("index", pa.int32(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("name", pa.string()),
        pa.field("started_at", pa.timestamp("us", tz="UTC")),
        pa.field("duration_ms", pa.int64()),
        pa.field("status", pa.string()),
        pa.field("message", pa.string()),
        pa.field("input", pa.string()),
        pa.field("output", pa.string()),
        pa.field("wide_integers", pa.map_(pa.string(), pa.string())),
    ]
    return pa.schema(fields)


def _micros(value: object) -> int | None:
    if not isinstance(value, datetime):
        return None
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return (aware - _EPOCH) // _MICRO


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _json(value: object) -> str | None:
    if value is MISSING:
        return None
    return compact(value)


@dataclass
class _Columns:
    runs: dict[str, list[object]] = field(default_factory=dict)
    steps: dict[str, list[object]] = field(default_factory=dict)

    def run(self, **values: object) -> None:
        for key, value in values.items():
            self.runs.setdefault(key, []).append(value)

    def step(self, **values: object) -> None:
        for key, value in values.items():
            self.steps.setdefault(key, []).append(value)


def _add_run(columns: _Columns, run: Run, fmt: str, source: str, line: int) -> None:
    """Append the run's row and its steps' rows (all computed first: a run is added whole or
    not at all)."""
    row = len(columns.runs.get("format", []))
    steps = run.steps if isinstance(run.steps, tuple) else ()
    record_id = _text(run.run_id) or None
    step_rows: list[dict[str, object]] = [
        {
            "run_row": row,
            "index": index,
            "kind": step.kind,
            "name": _text(step.name),
            "started_at": _micros(step.started_at),
            "duration_ms": _int(step.duration_ms),
            "status": _text(step.status),
            "message": _text(step.message),
            "input": _json(step.input),
            "output": _json(step.output),
        }
        for index, step in enumerate(steps)
    ]
    source = _file_name(source)
    values: dict[str, object] = dict(
        run_id=_provisional_id(record_id, run, source, line),
        record_id=record_id,
        format=fmt,
        agent_id=_text(run.agent_id),
        kind=_text(run.kind),
        status=status(run),
        goal=_text(run.goal),
        final_message=_text(run.final_message),
        started_at=_micros(run.started_at),
        ended_at=_micros(run.ended_at),
        duration_ms=duration_ms(run),
        total_tokens=total_tokens(run),
        input_tokens=_int(run.input_tokens),
        output_tokens=_int(run.output_tokens),
        cache_creation_tokens=_int(run.cache_creation_tokens),
        cache_read_tokens=_int(run.cache_read_tokens),
        reasoning_tokens=_int(run.reasoning_tokens),
        model=_text(run.model),
        cost_usd=run.cost_usd if isinstance(run.cost_usd, float | int) else None,
        eval_id=_text(run.eval_id),
        condition=_text(run.condition),
        step_count=len(steps),
        tool_call_count=sum(step.kind == "tool_call" for step in steps),
        source_file=source,
        source_line=line,
    )
    values["wide_integers"] = _widened(values, _RUN_INTS)
    for step_values in step_rows:
        step_values["wide_integers"] = _widened(step_values, _STEP_INTS)
    columns.run(**values)
    for step_values in step_rows:
        columns.step(**step_values)


_INT64 = range(-(2**63), 2**63)
_INT32 = range(-(2**31), 2**31)
_RUN_INTS = {
    "duration_ms": _INT64,
    "total_tokens": _INT64,
    "input_tokens": _INT64,
    "output_tokens": _INT64,
    "cache_creation_tokens": _INT64,
    "cache_read_tokens": _INT64,
    "reasoning_tokens": _INT64,
    "step_count": _INT32,
    "tool_call_count": _INT32,
    "source_line": _INT64,
}
_STEP_INTS = {"index": _INT32, "duration_ms": _INT64}


def _widened(values: dict[str, object], ranges: dict[str, range]) -> list[tuple[str, str]] | None:
    """The row's ``wide_integers``: each integer its column cannot hold, as exact decimal text
    (the column then null); None when all fit. A schema's integers have no bound, and no
    valid record is left out of an analysis table for one (it was rejected)."""
    wide: list[tuple[str, str]] = []
    for name, allowed in ranges.items():
        value = values.get(name)
        if isinstance(value, int) and value not in allowed:
            wide.append((name, _decimal(value)))
            values[name] = None
    return wide or None


def _decimal(value: int) -> str:
    """Any integer's decimal text (``str`` refuses one past 4,300 digits by default: it is
    written in pieces of a thousand digits, which it does not)."""
    try:
        return str(value)
    except ValueError:
        sign, rest = ("-", -value) if value < 0 else ("", value)
        pieces: list[str] = []
        while rest:
            rest, piece = divmod(rest, 10**1000)
            pieces.append(str(piece).rjust(1000, "0") if rest else str(piece))
        return sign + "".join(reversed(pieces))


def _file_name(name: str) -> str:
    """A file name as text a table can hold: bytes that are not UTF-8 (kept by the OS as
    surrogate escapes) are written as ``\\xNN``."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return name


def _provisional_id(record_id: str | None, run: Run, source: str, line: int) -> str:
    if record_id is not None:
        return record_id
    return f"{derive_run_id(run).value}@{source}:{line}"


@dataclass
class Exported:
    """One part's tables: ``runs`` (``run_id`` provisional: the record's own id, else one
    derived from it and its file and line) and ``steps`` (with ``run_row``, the row of its run
    in ``runs``); ``RunIds.apply`` makes them final."""

    runs: pa.RecordBatch
    steps: pa.RecordBatch
    rejects: list[bytes]
    problems: list[Placed]
    tally: Tally


class _Work:
    def __init__(self, fmt: str, columns: _Columns) -> None:
        self.fmt = fmt
        self.columns = columns

    def __call__(self, raw: Raw) -> Outcome:
        read = read_run(raw, self.fmt)
        if read.value is None or read.format is None:
            return Outcome(read.format, read.problems)
        _add_run(self.columns, read.value, read.format, raw.source, raw.line)
        return Outcome(read.format)


def export_lines(
    lines: Iterable[bytes], *, fmt: str = "auto", name: str = "-", first_line: int = 1
) -> Exported:
    """The run and step rows of JSONL lines, as Arrow record batches (no state outside the
    call: run it per partition of any engine)."""
    return export_raws(raws_of(lines, name, first_line), fmt=fmt)


def export_raws(raws: Iterable[Raw], *, fmt: str = "auto") -> Exported:
    """``export_lines`` for documents already read (``agentruns.io.read_raw``)."""
    known_format(fmt)
    require_pyarrow()
    columns = _Columns()
    lines = collect(_Work(fmt, columns), raws)
    return _exported(columns, lines.rejects, lines.problems, lines.tally)


def _exported(
    columns: _Columns,
    rejects: list[bytes],
    problems: list[Placed],
    tally: Tally,
) -> Exported:
    import pyarrow as pa

    runs_fields = runs_schema()
    runs = pa.record_batch(
        [pa.array(columns.runs.get(f.name, []), type=f.type) for f in runs_fields],
        schema=runs_fields,
    )
    step_fields = steps_schema()
    step_arrays = [pa.array(columns.steps.get("run_row", []), type=pa.int32())]
    step_arrays += [pa.array(columns.steps.get(f.name, []), type=f.type) for f in step_fields][1:]
    steps = pa.record_batch(
        step_arrays,
        schema=pa.schema([pa.field("run_row", pa.int32(), nullable=False), *list(step_fields)[1:]]),
    )
    return Exported(runs, steps, rejects, problems, tally)


def _export_sessions(items: Iterable[Candidate | NotRead]) -> Exported:
    """The run and step rows of sessions (the items of ``agentruns.pipeline.session_items``),
    each a run whose format is its harness; a file no harness wrote is left out, one that
    cannot be read is rejected with the reason (or, a file that could not be read at all,
    counted among the unreadable inputs)."""
    require_pyarrow()
    columns = _Columns()
    problems: list[Placed] = []
    tally = Tally()
    for item in items:
        if isinstance(item, NotRead):
            tally.unreadable.append(f"{item.path}: unreadable: {item.reason}")
            continue
        name = item[0]
        read = read_session(item)
        if read.value is not None and read.format is not None:
            try:
                _add_run(columns, read.value, read.format, name, 0)
            except (AgentrunsError, ValueError) as error:
                read = Outcome(read.format, (("", str(error)),))
        tally.count(read)
        problems += [(name, 0, pointer, message) for pointer, message in read.problems]
    return _exported(columns, [], problems, tally)


SESSIONS_BLOCK = 16
"""Sessions per block of an export (a session is a run of hundreds of steps)."""


def export_session_blocks(
    items: Iterable[Candidate | NotRead], *, jobs: int | None = 1
) -> Iterator[tuple[list[Candidate | NotRead], Exported]]:
    """``(block, its rows)`` for consecutive blocks of sessions (see ``_export_sessions``),
    in order, read in ``jobs`` processes (``None``: one per available CPU)."""
    return _in_blocks(_session_rows, _blocks(items, SESSIONS_BLOCK), jobs, _failed_sessions)


def _session_rows(block: list[Candidate | NotRead]) -> Outcome[Exported]:
    return Outcome(value=_export_sessions(block))


def _failed_sessions(block: list[Candidate | NotRead], why: str) -> Exported:
    """A block whose worker died: each of its sessions rejected with the reason, no rows."""
    empty = _export_sessions([])
    names = [item.path if isinstance(item, NotRead) else item[0] for item in block]
    problems = [(name, 0, "", why) for name in names]
    tally = Tally(records=len(block), rejected=len(block))
    return Exported(empty.runs, empty.steps, [], problems, tally)


BLOCK = 2_000
"""Records per block of an export: rows are built block by block (in worker processes when
there are several), and the tables written in the blocks' order."""


def export_blocks(
    raws: Iterable[Raw], *, fmt: str = "auto", jobs: int | None = 1, block: int = BLOCK
) -> Iterator[tuple[list[Raw], Exported]]:
    """``(block, its rows)`` for consecutive blocks of ``raws``, in order; the rows are
    built in ``jobs`` processes (``None``: one per available CPU). The same rows in the
    same order whatever the number of jobs."""
    step = _RawRows(fmt)
    return _in_blocks(step, _blocks(raws, block), jobs, _failed_block)


class _RawRows:
    def __init__(self, fmt: str) -> None:
        self.fmt = fmt

    def __call__(self, block: list[Raw]) -> Outcome[Exported]:
        return Outcome(value=export_raws(block, fmt=self.fmt))


def _in_blocks(
    step: Callable[[list[T]], Outcome[Exported]],
    blocks: Iterator[list[T]],
    jobs: int | None,
    failed: Callable[[list[T], str], Exported],
) -> Iterator[tuple[list[T], Exported]]:
    """Each block's rows, from the pipeline's stream over the blocks (its tally counts
    blocks: each block's own counts its records). A block whose worker died is run again an
    item at a time, each alone in a worker of its own, so that only the item that kills its
    worker is rejected, never the thousands beside it."""
    from agentruns._workers import jobs_for, one_by_one

    workers = jobs_for(jobs) > 1
    with Stream(step, blocks, jobs=jobs, chunk=1) as stream:
        for block, outcome in stream:
            if outcome.value is not None:
                yield block, outcome.value
            elif not workers or len(block) == 1:
                yield block, failed(block, _why(outcome))
            else:
                singles = [[item] for item in block]
                for single, alone in zip(singles, one_by_one(step, singles, _died), strict=True):
                    rows = alone.value
                    yield single, rows if rows is not None else failed(single, _why(alone))


def _died(block: list[T], error: BaseException) -> Outcome[Exported]:
    return failed_outcome(block, error)


def _why(outcome: Outcome[Exported]) -> str:
    return "; ".join(why for _, why in outcome.problems)


def _blocks(raws: Iterable[T], size: int) -> Iterator[list[T]]:
    block: list[T] = []
    for raw in raws:
        block.append(raw)
        if len(block) == size:
            yield block
            block = []
    if block:
        yield block


def _failed_block(block: list[Raw], why: str) -> Exported:
    """A block whose worker died: each of its records rejected with the reason, no rows."""
    from agentruns.batch import Lines

    empty = export_raws([])
    lines = Lines()
    for raw in block:
        lines.add(raw, Outcome(problems=(("", why),)))
    return Exported(empty.runs, empty.steps, lines.rejects, lines.problems, lines.tally)


class RunIds:
    """Makes ``run_id`` unique across an export, parts taken in order: a record's own id the
    first time it is seen, else ``<id>@<file>:<line>`` (file and line make it unique).

    Keeps an 8-byte digest per id seen, not the ids: a digest collision can only add a
    suffix to an id, never make two ids equal.
    """

    def __init__(self) -> None:
        self._seen: set[bytes] = set()

    def apply(self, part: Exported) -> tuple[pa.RecordBatch, pa.RecordBatch]:
        require_pyarrow()
        import pyarrow as pa

        runs = part.runs
        provisional = [str(v) for v in runs.column("run_id").to_pylist()]
        records = [v if isinstance(v, str) else None for v in runs.column("record_id").to_pylist()]
        files = [str(v) for v in runs.column("source_file").to_pylist()]
        lines = [v if isinstance(v, int) else 0 for v in runs.column("source_line").to_pylist()]
        final: list[str] = []
        for run_id, record_id, source, line in zip(provisional, records, files, lines, strict=True):
            if record_id is None:
                final.append(run_id)
                continue
            digest = hashlib.blake2b(record_id.encode(), digest_size=8).digest()
            if digest in self._seen:
                final.append(f"{record_id}@{source}:{line}")
            else:
                self._seen.add(digest)
                final.append(run_id)
        ids = pa.array(final, type=pa.string())
        runs = runs.set_column(0, runs.schema.field("run_id"), ids)
        steps = part.steps
        step_ids = ids.take(steps.column("run_row"))
        schema = steps_schema()
        steps = pa.record_batch([step_ids, *steps.columns[1:]], schema=schema)
        return runs, steps


class ParquetExport:
    """``runs.parquet`` and ``steps.parquet`` in ``folder``, written part by part in row
    groups (zstd), each file through a temporary name renamed at ``commit``."""

    ROW_GROUP = 64 * 1024

    def __init__(self, folder: str | Path) -> None:
        require_pyarrow()

        import pyarrow.parquet as pq

        self.folder = Path(folder)
        # the folders made here (the folder and any missing parents) go again on abort
        self._made = [p for p in (self.folder, *self.folder.parents) if not p.exists()]
        self.folder.mkdir(parents=True, exist_ok=True)
        self._ids = RunIds()
        self._paths = {name: self.folder / f"{name}.parquet" for name in ("runs", "steps")}
        self._temporary = {
            name: path.with_name(f".{path.name}.partial") for name, path in self._paths.items()
        }
        self._writers: dict[str, pq.ParquetWriter] = {}
        try:
            for name, schema in (("runs", runs_schema()), ("steps", steps_schema())):
                writer = pq.ParquetWriter(self._temporary[name], schema, compression="zstd")
                self._writers[name] = writer
        except BaseException:
            self.abort()
            raise
        self._pending: dict[str, list[pa.RecordBatch]] = {"runs": [], "steps": []}
        self._rows = {"runs": 0, "steps": 0}

    def write(self, part: Exported) -> None:
        runs, steps = self._ids.apply(part)
        for name, batch in (("runs", runs), ("steps", steps)):
            if batch.num_rows:
                self._pending[name].append(batch)
                self._rows[name] += batch.num_rows
                if self._rows[name] >= self.ROW_GROUP:
                    self._flush(name)

    def _flush(self, name: str) -> None:
        import pyarrow as pa

        if self._pending[name]:
            table = pa.Table.from_batches(self._pending[name])
            self._writers[name].write_table(table, row_group_size=self.ROW_GROUP)
        self._pending[name] = []
        self._rows[name] = 0

    def commit(self) -> None:
        """Both tables final (renamed into place); ``abort`` after a failure here."""
        for name, writer in self._writers.items():
            self._flush(name)
            writer.close()
        for name, temporary in self._temporary.items():
            temporary.replace(self._paths[name])

    def abort(self) -> None:
        for writer in self._writers.values():
            with contextlib.suppress(Exception):  # cleanup must not hide the first error
                writer.close()
        for temporary in self._temporary.values():
            temporary.unlink(missing_ok=True)
        for made in self._made:  # deepest first
            try:
                made.rmdir()
            except OSError:  # not empty: something else was put there
                break
