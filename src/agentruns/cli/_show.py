"""``agentruns show``."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

from agentruns._text import printable
from agentruns.batch import read_model
from agentruns.cli._app import main
from agentruns.cli._exits import EXIT_INVALID, EXIT_OK, _err
from agentruns.cli._options import _EPILOG, _format_option
from agentruns.cli._records import _note, _unreadable
from agentruns.cli._sessions import _session_file
from agentruns.errors import AgentrunsError, InputError
from agentruns.io import read_records

if TYPE_CHECKING:
    from agentruns.canonical import Run


@main.command("show", epilog=_EPILOG, short_help="Show a run as a person reads it.")
@click.argument("file")
@_format_option("The format to read the run as; auto: the format its shape says.")
@click.option(
    "--run",
    "wanted",
    metavar="ID",
    help="Show this run alone: its id (a record's run id, a session's id) or its position in "
    "FILE (1 is the first).",
)
def show_command(file: str, fmt: str, wanted: str | None) -> None:
    """Show a run: header (ids, status, times, tokens, cost) and a timeline, one line a step
    (every run, for JSONL or a folder of sessions; --run picks one). FILE is a file of run
    records, a session file an agent keeps, or a folder of them. Text from the record is shown
    with control characters escaped."""
    from agentruns.show import render_run

    shown = invalid = 0
    try:
        for position, (where, name, run, problems) in enumerate(_runs_to_show(file, fmt), 1):
            if wanted is not None and not _is_run(wanted, position, run):
                continue
            if run is None or name is None:
                invalid += 1
                for pointer, message in problems:
                    _err(printable(f"{where}: {pointer or '/'}: {message}"))
                continue
            try:
                render_run(run, name)
            except BrokenPipeError:
                raise
            except Exception as error:  # one run that cannot be shown costs only itself
                invalid += 1
                _err(printable(f"{where}: cannot show this run: {error}"))
                continue
            shown += 1
    except InputError as error:
        _unreadable(str(error))
        sys.exit(EXIT_INVALID)
    if wanted is not None and not shown and not invalid:
        _err(printable(f"{file}: no run {wanted} (a run id, a session id, or a position from 1)"))
    sys.exit(EXIT_INVALID if invalid or not shown else EXIT_OK)


def _is_run(wanted: str, position: int, run: Run | None) -> bool:
    if wanted.isdigit() and int(wanted) == position:
        return True
    return run is not None and wanted in (run.run_id, run.trajectory_id)


def _runs_to_show(
    file: str, fmt: str
) -> Iterator[tuple[str, str | None, Run | None, list[tuple[str, str]]]]:
    """(where, format or harness, the run or None, the problems) of each run in FILE: the
    records of a file, the session a session file is, the sessions of a folder."""
    from agentruns.conversion import to_canonical
    from agentruns.transcripts import Unreadable, candidates, open_session

    harness = _session_file(file) if fmt == "auto" else None
    if harness is not None or (file != "-" and os.path.isdir(file)):
        unreadable: list[tuple[str, str]] = []
        found = [(file, harness)] if harness is not None else candidates(file, _note(unreadable))
        for name, known in found:
            for path, reason in unreadable:
                yield path, None, None, [("", f"unreadable: {reason}")]
            unreadable.clear()
            transcript = open_session(name, known)
            if isinstance(transcript, Unreadable):
                said = transcript.reason
                yield name, None, None, [("", f"cannot show this session: {said}")]
            elif transcript is not None:
                yield name, transcript.harness, transcript.run, []
        for path, reason in unreadable:
            yield path, None, None, [("", f"unreadable: {reason}")]
        return
    for record in read_records(file):
        read_as, model, problems = read_model(record, fmt)
        if model is None or read_as is None:
            yield record.where, None, None, list(problems)
            continue
        try:
            run = to_canonical(model)
        except AgentrunsError as error:
            yield record.where, None, None, [("", f"cannot show this run: {error}")]
            continue
        yield record.where, read_as, run, []
