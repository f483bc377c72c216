"""``agentruns stats``."""

from __future__ import annotations

import json
import sys
from datetime import datetime, tzinfo
from functools import partial

import click

from agentruns._report import Reporter
from agentruns.batch import Outcome, Tally
from agentruns.cli._app import main
from agentruns.cli._exits import EXIT_INVALID, EXIT_OK, _err
from agentruns.cli._options import _EPILOG, _batch_options, _format_option, _jsonl_option
from agentruns.cli._records import _batch, _say_problems
from agentruns.cli._sessions import _as_sessions
from agentruns.io import Raw
from agentruns.pipeline import run


@main.command("stats", epilog=_EPILOG, short_help="Summarize a set of runs.")
@click.argument("files", nargs=-1)
@_format_option("The format to read the records as; auto: the format each record's shape says.")
@_jsonl_option
@click.option(
    "--top",
    default=10,
    show_default=True,
    type=click.IntRange(min=1),
    help="Names listed per ranking.",
)
@click.option(
    "--output-format",
    "shape",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="For people (text) or programs (json: one object).",
)
@click.option(
    "--since",
    type=click.DateTime(["%Y-%m-%d"]),
    help="Only what happened on this day or later (in --timezone): tokens by the day each "
    "model call was made where session files say, else by the run's start (session files "
    "last modified a day before it are not opened).",
)
@click.option(
    "--until",
    type=click.DateTime(["%Y-%m-%d"]),
    help="Only what happened by this day (in --timezone).",
)
@click.option(
    "--timezone",
    "zone",
    default="local",
    show_default=True,
    help="The zone days are counted in: an IANA name (Europe/Paris, UTC) or local.",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Session folders: read every file, and remember nothing (the cache keeps what each "
    "unchanged session file said, under ~/.cache/agentruns or $AGENTRUNS_CACHE_DIR).",
)
@_batch_options
def stats_command(
    files: tuple[str, ...],
    fmt: str,
    jsonl: bool,
    top: int,
    shape: str,
    since: datetime | None,
    until: datetime | None,
    zone: str,
    no_cache: bool,
    jobs: int | None,
    max_record_size: int,
    max_errors: int,
) -> None:
    """Runs by format and status, duration and token percentiles, the most used and most
    failing tools, runs per agent; read as a stream, in bounded memory.

    FILE is a file of run records, a session file an agent keeps, or a folder of them (Claude
    Code's ~/.claude/projects, Codex's ~/.codex/sessions, ...): each session is a run, read in
    worker processes, and remembered so that a second look at an unchanged folder reads
    nothing.
    With no FILE, or FILE -, standard input is read.
    """
    from agentruns.stats import RunFacts, RunStats, add_sessions, render, stats_document

    if since is not None and until is not None and since > until:
        # an empty range is no question anyone asks: said, not answered with nothing
        raise click.BadParameter(
            f"--since {since.date()} is after --until {until.date()}: no day is in that range",
            param_hint="--since/--until",
        )
    report = Reporter("text", max_errors, err=True)
    stats = RunStats(
        timezone=_zone(zone),
        since=since.date().isoformat() if since else None,
        until=until.date().isoformat() if until else None,
        keep_largest=top,
    )

    def rejected(raw: Raw, outcome: Outcome[RunFacts]) -> None:
        stats.rejected += 1
        _say_problems(report, "invalid", raw, outcome)

    def accepted(raw: Raw, outcome: Outcome[RunFacts]) -> None:
        assert outcome.value is not None
        stats.add(outcome.value)

    inputs = files or ("-",)
    records, folders = _as_sessions(inputs)
    tally = Tally()
    if records or not folders:
        tally = run(
            _batch(partial(stats_document, fmt=fmt), records, jsonl, jobs, max_record_size),
            accepted=accepted,
            rejected=rejected,
        )
    for folder in folders:
        add_sessions(
            stats,
            folder,
            jobs=jobs,
            cache=not no_cache,
            problem=lambda path, why: report.say(
                "unreadable", path, 0, f"{path}: unreadable: {why}"
            ),
        )
    if shape == "json":
        click.echo(json.dumps(stats.as_json(top)))
    else:
        click.echo(render(stats, top))
    if report.held_back:
        _err(report.summary("--max-errors 0 prints all").lstrip("; "))
    sys.exit(EXIT_INVALID if stats.rejected or tally.unreadable else EXIT_OK)


def _zone(name: str) -> tzinfo | None:
    """The zone called ``name`` (None: this machine's); a usage error when there is none."""
    if name == "local":
        return None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise click.BadParameter(
            f"no time zone {name!r} (an IANA name such as Europe/Paris or UTC, or local)",
            param_hint="--timezone",
        ) from None
