"""``agentruns detect``."""

from __future__ import annotations

import sys
from functools import partial

import click

from agentruns._report import OutputFormat, Reporter
from agentruns.batch import Outcome, detect_document
from agentruns.cli._app import main
from agentruns.cli._exits import EXIT_INVALID, EXIT_OK
from agentruns.cli._options import _EPILOG, _output_format
from agentruns.cli._records import _batch
from agentruns.cli._sessions import _split_sessions
from agentruns.io import MAX_RECORD_SIZE, Raw, bytes_of
from agentruns.pipeline import run


@main.command(epilog=_EPILOG, short_help="Say which format each record is.")
@click.argument("files", nargs=-1)
@click.option("--jsonl", "jsonl", is_flag=True, help="Read every input as JSON Lines.")
@_output_format
def detect_command(files: tuple[str, ...], jsonl: bool, shape: OutputFormat) -> None:
    """Say which format each document (or JSONL line) is.

    With no FILE, or FILE -, standard input is read.
    """
    report = Reporter(shape)
    inputs, sessions = _split_sessions(files or ("-",))
    for name, harness in sessions:
        report.say("detected", name, 0, None, fmt=harness)

    def detected(raw: Raw, outcome: Outcome) -> None:
        report.say("detected", raw.source, raw.line, None, fmt=outcome.format)

    def unknown(raw: Raw, outcome: Outcome) -> None:
        for _, message in outcome.problems:
            report.say(
                "invalid",
                raw.source,
                raw.line,
                message,
                raw=partial(bytes_of, raw),
                fmt=outcome.format,
            )

    if not inputs:
        sys.exit(EXIT_OK)
    tally = run(
        _batch(detect_document, inputs, jsonl, None, MAX_RECORD_SIZE),
        accepted=detected,
        rejected=unknown,
    )
    sys.exit(EXIT_INVALID if tally.rejected or tally.unreadable else EXIT_OK)


detect_command.name = "detect"
