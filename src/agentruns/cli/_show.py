"""``agentruns show``."""

from __future__ import annotations

import os
import sys
from functools import partial
from typing import TYPE_CHECKING

import click

from agentruns._text import printable
from agentruns.batch import read_run
from agentruns.cli._app import main
from agentruns.cli._exits import EXIT_INVALID, EXIT_OK, _err
from agentruns.cli._options import _EPILOG, _format_option
from agentruns.cli._records import _unreadable
from agentruns.cli._sessions import _session_file
from agentruns.errors import InputError
from agentruns.io import Raw, read_raw
from agentruns.pipeline import Candidate, NotRead, Outcome, Stream, read_session, run, session_items

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

    position = shown = invalid = 0

    def picked(run_: Run | None) -> bool:
        nonlocal position
        position += 1
        return wanted is None or _is_run(wanted, position, run_)

    def accepted(item: Raw | Candidate | NotRead, outcome: Outcome[Run]) -> None:
        nonlocal shown, invalid
        assert outcome.value is not None
        assert outcome.format is not None
        if not picked(outcome.value):
            return
        try:
            render_run(outcome.value, outcome.format)
        except BrokenPipeError:
            raise
        except Exception as error:  # one run that cannot be shown costs only itself
            invalid += 1
            _err(printable(f"{_where(item)}: cannot show this run: {error}"))
            return
        shown += 1

    def rejected(item: Raw | Candidate | NotRead, outcome: Outcome[Run]) -> None:
        nonlocal invalid
        if not picked(None):
            return
        invalid += 1
        if isinstance(item, NotRead):
            _err(printable(f"{item.path}: /: unreadable: {item.reason}"))
            return
        for pointer, message in outcome.problems:
            said = message if isinstance(item, Raw) else f"cannot show this session: {message}"
            _err(printable(f"{_where(item)}: {pointer or '/'}: {said}"))

    harness = _session_file(file) if fmt == "auto" else None
    try:
        if harness is not None or (file != "-" and os.path.isdir(file)):
            # the session a session file is, the sessions of a folder
            items = [(file, harness)] if harness is not None else session_items(file)
            sessions = Stream(read_session, items)
            run(sessions, accepted=accepted, rejected=rejected, unreadable=rejected)
        else:  # the records of a file
            records = Stream(partial(read_run, fmt=fmt), read_raw(file))
            run(records, accepted=accepted, rejected=rejected)
    except InputError as error:
        _unreadable(str(error))
        sys.exit(EXIT_INVALID)
    if wanted is not None and not shown and not invalid:
        _err(printable(f"{file}: no run {wanted} (a run id, a session id, or a position from 1)"))
    elif not shown and not invalid:  # (exit 1 says there was nothing to show: so does this)
        _err(printable(f"{file}: no run to show (it holds no record and no session)"))
    sys.exit(EXIT_INVALID if invalid or not shown else EXIT_OK)


def _is_run(wanted: str, position: int, run: Run | None) -> bool:
    if wanted.isdigit() and int(wanted) == position:
        return True
    return run is not None and wanted in (run.run_id, run.trajectory_id)


def _where(item: Raw | Candidate | NotRead) -> str:
    if isinstance(item, Raw):
        return f"{item.source}:{item.line}"
    return item.path if isinstance(item, NotRead) else item[0]
