"""``agentruns export``: Parquet tables and OpenTelemetry traces."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from functools import partial
from itertools import groupby
from typing import TYPE_CHECKING

import click

from agentruns._output import writes_lines
from agentruns._report import Reporter
from agentruns._text import printable
from agentruns.batch import Outcome, Tally, read_inputs
from agentruns.cli._app import main
from agentruns.cli._exits import EXIT_INVALID, EXIT_OK, _err, _Usage, _WriteFailed
from agentruns.cli._options import (
    _EPILOG,
    _JOBS_HELP,
    _MAX_ERRORS_HELP,
    _format_option,
    _jsonl_option,
    _rejects_option,
)
from agentruns.cli._progress import _progress
from agentruns.cli._records import (
    _batch,
    _commit_all,
    _count,
    _opened,
    _outputs,
    _reject,
    _shown,
    _unreadable,
    _unreadable_note,
    _write,
)
from agentruns.cli._sessions import _as_sessions, _refuse_folder
from agentruns.errors import OutputError
from agentruns.io import MAX_RECORD_SIZE, Layout, Raw, bytes_of
from agentruns.pipeline import Candidate, NotRead, Stream, run, session_items, session_size

if TYPE_CHECKING:
    from agentruns.otlp import Collector, TracesFile
    from agentruns.tables import Exported


@main.command(
    "export", epilog=_EPILOG, short_help="Write runs as Parquet tables or OpenTelemetry traces."
)
@click.argument("inputs", nargs=-1, required=True)
@click.option(
    "--to",
    "to",
    type=click.Choice(["parquet", "otlp"]),
    default="parquet",
    show_default=True,
    help="parquet: runs.parquet and steps.parquet in a folder; otlp: OTLP/JSON traces (GenAI "
    "conventions) in a file (.jsonl: one TracesData per line).",
)
@click.option(
    "-o",
    "--output",
    "folder",
    help="The folder (parquet) or file (otlp; - is stdout) to write. Required but for --endpoint.",
)
@click.option(
    "--endpoint",
    help="otlp: also post the traces to this OTLP/HTTP collector URL "
    "(http://localhost:4318/v1/traces).",
)
@_format_option("The format to read the records as; auto: the format each record's shape says.")
@_jsonl_option
@_rejects_option
@click.option("--max-errors", default=100, type=click.IntRange(min=0), help=_MAX_ERRORS_HELP)
@click.option(
    "--max-record-size",
    type=click.IntRange(min=1),
    default=MAX_RECORD_SIZE,
    show_default=True,
    help="Largest record (a JSONL line or a JSON file) read, in bytes.",
)
@click.option("--jobs", "-j", type=click.IntRange(min=1), help=_JOBS_HELP)
@click.option("--quiet", "-q", is_flag=True, help="No progress, only the summary.")
def export_command(
    inputs: tuple[str, ...],
    to: str,
    folder: str | None,
    endpoint: str | None,
    fmt: str,
    jsonl: bool,
    rejects: str | None,
    max_errors: int,
    max_record_size: int,
    jobs: int | None,
    quiet: bool,
) -> None:
    """Write runs.parquet (one row per run) and steps.parquet (one row per step, keyed by
    run_id and index) from records of any format, or from the session files agents keep (a
    file or a folder of them: each session a run), in row groups (constant memory); or, with
    --to otlp, every run as an OpenTelemetry trace (an invoke_agent span, execute_tool and
    chat children, ids derived from the run so a re-export is the same)."""
    if to == "otlp":
        _export_otlp(
            inputs, folder, endpoint, fmt, jsonl, rejects, max_errors, max_record_size, jobs
        )
        return
    if endpoint is not None:
        raise _Usage("--endpoint posts traces: use it with --to otlp")
    if folder is None:
        raise _Usage("-o FOLDER is required (where runs.parquet and steps.parquet go)")
    from agentruns.tables import MissingPyarrow, require_pyarrow

    try:
        require_pyarrow()
    except MissingPyarrow as error:
        raise _Usage(str(error)) from None
    from agentruns.tables import ParquetExport, export_blocks, export_session_blocks

    report = Reporter("text", max_errors, err=True)
    tally = Tally()
    layout: Layout | None = "jsonl" if jsonl else None
    sessions = set(_as_sessions(inputs)[1])
    with _outputs(inputs, {"-o": folder, "--rejects": rejects}) as outputs:
        _refuse_folder(folder)
        export = outputs.hold("-o", ParquetExport(folder))
        reject_out = _opened(outputs, "--rejects")
        with _shown(_progress(quiet, "exported", () if sessions else inputs)) as progress:

            def written(block: Sequence[Raw | Candidate | NotRead], part: Exported) -> None:
                """One block's rows: counted, its problems said, its rejects kept."""
                if progress is not None:
                    progress.add(part.tally.records, sum(map(_item_size, block)))
                for said in part.tally.unreadable:  # files of a folder of sessions
                    _unreadable(said)
                tally.merge(part.tally)
                records = {(r.source, r.line): r for r in block if isinstance(r, Raw)}
                for source, line, pointer, message in part.problems:
                    record = records.get((source, line))
                    raw = b"" if record is None else partial(bytes_of, record)
                    said = message if line else f"{source}: {message}"
                    report.say("rejected", source, line, said, raw=raw, pointer=pointer)
                if reject_out is not None:
                    for text in part.rejects:
                        _write(reject_out, text, rejects or "")
                export.write(part)

            for of_sessions, group in groupby(inputs, key=lambda path: path in sessions):
                if of_sessions:  # each session of each folder a run
                    for path in group:
                        for items, part in export_session_blocks(session_items(path), jobs=jobs):
                            written(items, part)
                    continue
                # the record files in a row: one stream of records, one set of workers
                raws = read_inputs(
                    list(group),
                    layout,
                    max_record_size,
                    tally,
                    on_unreadable=_unreadable,
                    placed=True,  # a block sent to a worker is its records' places
                )
                for block, part in export_blocks(raws, fmt=fmt, jobs=jobs):
                    written(block, part)
        _commit_all(outputs)
    _err(
        f"{_count(tally.records, 'record')} in: {tally.accepted} exported to {folder}, "
        f"{tally.rejected} rejected"
        + _unreadable_note(tally)
        + report.summary("--rejects FILE keeps every one; --max-errors 0 prints all")
    )
    sys.exit(EXIT_INVALID if tally.rejected or tally.unreadable else EXIT_OK)


def _item_size(item: Raw | Candidate | NotRead) -> int:
    return item.size + 1 if isinstance(item, Raw) else session_size(item)


def _export_otlp(
    inputs: tuple[str, ...],
    output: str | None,
    endpoint: str | None,
    fmt: str,
    jsonl: bool,
    rejects: str | None,
    max_errors: int,
    max_record_size: int,
    jobs: int | None,
) -> None:
    from agentruns.otlp import Collector, MissingOtel, TracesFile, otlp_document, require_otel

    try:
        require_otel()
    except MissingOtel as error:
        raise _Usage(str(error)) from None
    if output is None and endpoint is None:
        raise _Usage("-o FILE or --endpoint URL is required (where the traces go)")
    try:
        collector = Collector(endpoint) if endpoint is not None else None
    except OutputError as error:
        raise _Usage(str(error)) from None
    report = Reporter("text", max_errors, err=True)
    exported = 0
    with _outputs(inputs, {"-o": output, "--rejects": rejects}) as outputs:
        out = _opened(outputs, "-o")
        traces = (
            None if out is None else TracesFile(out, lines=writes_lines(output or "-", (), False))
        )
        reject_out = _opened(outputs, "--rejects")

        send = partial(_spans, traces, collector, output)

        def accepted(raw: Raw, outcome: Outcome) -> None:
            nonlocal exported
            assert outcome.output is not None
            send(outcome.output)
            exported += 1

        records, sources = _as_sessions(inputs)
        tally = Tally()
        if records or not sources:
            tally = run(
                _batch(partial(otlp_document, fmt=fmt), records, jsonl, jobs, max_record_size),
                accepted=accepted,
                rejected=partial(_reject, out=reject_out, messages=report),
            )
        for source in (name for name in inputs if name in sources):
            exported += _sessions_as_traces(source, tally, report, jobs, send)
        if traces is not None:
            _write_end(traces, output or "")
        if collector is not None:
            _post(collector.flush, None)
        _commit_all(outputs)
    where = " and ".join(
        shown for shown in (output and printable(output), endpoint and printable(endpoint)) if shown
    )
    _err(
        f"{_count(tally.records, 'record')} in: {exported} exported as traces to {where}, "
        f"{tally.rejected} rejected"
        + _unreadable_note(tally)
        + report.summary("--rejects FILE keeps every one; --max-errors 0 prints all")
    )
    sys.exit(EXIT_INVALID if tally.rejected or tally.unreadable else EXIT_OK)


def _spans(
    traces: TracesFile | None, collector: Collector | None, output: str | None, line: bytes
) -> None:
    """One run's spans to the file and the collector."""
    if traces is not None:
        _write(traces, line, output or "")
    if collector is not None:
        _post(collector.write, line)


def _sessions_as_traces(
    source: str, tally: Tally, report: Reporter, jobs: int | None, send: Callable[[bytes], None]
) -> int:
    """The sessions of a folder (or the session file ``source`` is), each a trace; a file
    that cannot be read is named and counted as an unreadable input. Returns how many."""
    from agentruns.otlp import session_spans

    def accepted(item: Candidate | NotRead, outcome: Outcome) -> None:
        assert outcome.output is not None
        send(outcome.output)

    def rejected(item: Candidate | NotRead, outcome: Outcome) -> None:
        name = item.path if isinstance(item, NotRead) else item[0]
        for _, why in outcome.problems:
            report.say("rejected", name, 0, f"{name}: {why}")

    def unreadable(item: Candidate | NotRead, outcome: Outcome) -> None:
        assert isinstance(item, NotRead)
        _unreadable(f"{item.path}: unreadable: {item.reason}")

    done = run(
        Stream(session_spans, session_items(source), jobs=jobs, chunk=4),
        accepted=accepted,
        rejected=rejected,
        unreadable=unreadable,
    )
    tally.merge(done)
    return done.accepted


def _write_end(traces: TracesFile, name: str) -> None:
    try:
        traces.finish()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise _WriteFailed(f"cannot write {name or 'stdout'}: {error.strerror or error}") from None


def _post(send: Callable[..., None], spans: bytes | None) -> None:
    """Send to the collector; a collector that cannot be reached fails the export (74)."""
    try:
        send() if spans is None else send(spans)
    except OutputError as error:
        raise _WriteFailed(str(error)) from None
