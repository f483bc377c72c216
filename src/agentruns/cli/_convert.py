"""``agentruns convert``."""

from __future__ import annotations

import sys
from functools import partial

import click

from agentruns._output import Records, writes_lines
from agentruns._report import OutputFormat, Reporter
from agentruns.batch import Outcome, Tally, convert_document
from agentruns.cli._app import main
from agentruns.cli._exits import EXIT_INVALID, EXIT_OK, _err, _Usage
from agentruns.cli._options import (
    _EPILOG,
    _batch_options,
    _FormatChoice,
    _jsonl_option,
    _output_format,
    _rejects_option,
)
from agentruns.cli._progress import _progress, _tick
from agentruns.cli._records import (
    _batch,
    _commit_all,
    _count,
    _opened,
    _outputs,
    _reject,
    _say_losses,
    _shown,
    _unreadable_note,
    _write,
)
from agentruns.cli._sessions import _not_records, _split_sessions
from agentruns.errors import OutputError
from agentruns.io import Raw
from agentruns.pipeline import run
from agentruns.pipeline._outcome import Problems


@main.command("convert", epilog=_EPILOG, short_help="Convert records to another format.")
@click.argument("inputs", nargs=-1, required=True)
@click.option("--to", "to", type=_FormatChoice(), required=True, help="Target format.")
@click.option(
    "--from",
    "source",
    type=_FormatChoice(auto=True),
    default="auto",
    show_default=True,
    help="The format of the inputs; auto: the format each record's shape says.",
)
@click.option(
    "-o",
    "--output",
    default="-",
    show_default=True,
    help="Output file; - is stdout. A symlink is written through; a FIFO or device is "
    "written to directly; a regular file is replaced only when the run succeeds.",
)
@click.option("--strict", is_flag=True, help="A record that would lose data is rejected.")
@_rejects_option
@click.option("--losses", help="Write every record's losses and derived values here (JSONL).")
@_jsonl_option
@click.option("--quiet", "-q", is_flag=True, help="No progress, only the summary.")
@_output_format
@_batch_options
def convert_command(
    inputs: tuple[str, ...],
    to: str,
    source: str,
    output: str,
    strict: bool,
    rejects: str | None,
    losses: str | None,
    jsonl: bool,
    quiet: bool,
    shape: OutputFormat,
    jobs: int | None,
    max_record_size: int,
    max_errors: int,
) -> None:
    """Convert records to another format, streaming (JSON -> JSON, JSONL -> JSONL).

    Rejects (and, with --output-format json or github, each lost value) are reported on
    standard error.
    """
    messages = Reporter(shape, max_errors, quiet, err=True)
    each_loss = shape != "text"
    converted = 0
    with _outputs(inputs, {"-o": output, "--rejects": rejects, "--losses": losses}) as outputs:
        out = _opened(outputs, "-o")
        assert out is not None
        records = Records(out, lines=writes_lines(output, inputs, jsonl))
        reject_out = _opened(outputs, "--rejects")
        loss_out = _opened(outputs, "--losses")
        work = partial(
            convert_document,
            to=to,
            source=source,
            strict=strict,
            report=loss_out is not None or each_loss,
        )

        def accepted(raw: Raw, outcome: Outcome[Problems]) -> None:
            nonlocal converted
            assert outcome.output is not None
            try:
                _write(records, outcome.output, output)
            except OutputError as error:  # a second record for one JSON document
                raise _Usage(str(error)) from None
            converted += 1
            if outcome.report is not None:
                if loss_out is not None:
                    _write(loss_out, outcome.report, losses or "")
                if each_loss:
                    _say_losses(raw, outcome, messages)

        # a session file is said once, not rejected line by line as records of no format
        documents, sessions = _split_sessions(inputs) if source == "auto" else (inputs, [])
        for name, harness in sessions:
            messages.say("invalid", name, 0, _not_records(harness, to), fmt=harness)
        tally = Tally()
        if documents:
            with _shown(_progress(quiet, "converted", documents)) as progress:
                tally = run(
                    _batch(work, documents, jsonl, jobs, max_record_size),
                    accepted=accepted,
                    rejected=partial(_reject, out=reject_out, messages=messages),
                    each=partial(_tick, progress),
                )
        records.finish()
        _commit_all(outputs)
    _err(
        f"{_count(tally.records, 'record')} in: {converted} converted, {tally.rejected} rejected"
        + (
            f"; {tally.lossy} converted with losses ({tally.lost_values} values)"
            if tally.lossy
            else ""
        )
        + (
            f"; {tally.derived} with values the conversion made ({tally.derived_values})"
            if tally.derived
            else ""
        )
        + (f"; {_count(len(sessions), 'session file')}, not records" if sessions else "")
        + _unreadable_note(tally)
        + ("" if losses or not (tally.lossy or tally.derived) else "; --losses FILE lists them")
        + messages.summary("--rejects FILE keeps every one; --max-errors 0 prints all")
    )
    sys.exit(EXIT_INVALID if tally.rejected or tally.unreadable or sessions else EXIT_OK)
