"""``agentruns validate``."""

from __future__ import annotations

import sys
from functools import partial

import click

from agentruns._report import OutputFormat, Reporter
from agentruns.batch import Tally, validate_document
from agentruns.cli._app import main
from agentruns.cli._exits import EXIT_INVALID, EXIT_OK, _err
from agentruns.cli._options import (
    _EPILOG,
    _batch_options,
    _format_option,
    _jsonl_option,
    _output_format,
)
from agentruns.cli._progress import _progress, _tick
from agentruns.cli._records import _batch, _count, _say_problems, _shown, _unreadable_note
from agentruns.cli._sessions import _not_records, _split_sessions
from agentruns.pipeline import run


@main.command("validate", epilog=_EPILOG, short_help="Validate records against their format.")
@click.argument("files", nargs=-1)
@_format_option("The format to validate against; auto: the format each record's shape says.")
@_jsonl_option
@click.option("--quiet", "-q", is_flag=True, help="Only the summary.")
@_output_format
@_batch_options
def validate_command(
    files: tuple[str, ...],
    fmt: str,
    jsonl: bool,
    quiet: bool,
    shape: OutputFormat,
    jobs: int | None,
    max_record_size: int,
    max_errors: int,
) -> None:
    """Validate records: every problem as file:line:column: /json/pointer: message.

    With no FILE, or FILE -, standard input is read.
    """
    report = Reporter(shape, max_errors, quiet)
    inputs, sessions = _split_sessions(files or ("-",)) if fmt == "auto" else (files or ("-",), [])
    for name, harness in sessions:  # one message for the file, not one per line
        report.say("invalid", name, 0, _not_records(harness), fmt=harness)
    tally = Tally()
    if inputs:
        with _shown(_progress(quiet, "validated", inputs)) as progress:
            tally = run(
                _batch(partial(validate_document, fmt=fmt), inputs, jsonl, jobs, max_record_size),
                rejected=partial(_say_problems, report, "invalid"),
                each=partial(_tick, progress),
            )
    formats = ", ".join(f"{n} {c}" for n, c in sorted(tally.by_format.items()))
    _err(
        f"{_count(tally.records, 'record')}: {tally.accepted} valid, {tally.rejected} invalid"
        + (f" ({formats})" if formats else "")
        + (f"; {_count(len(sessions), 'session file')}, not records" if sessions else "")
        + _unreadable_note(tally)
        + report.summary("--max-errors 0 prints all")
    )
    failed = tally.rejected or tally.unreadable or sessions
    sys.exit(EXIT_INVALID if failed else EXIT_OK)
