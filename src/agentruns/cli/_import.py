"""``agentruns import``: run records made from agent transcripts and session files."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

import click

from agentruns._output import Output
from agentruns._report import Reporter
from agentruns.cli._app import main
from agentruns.cli._exits import EXIT_INVALID, EXIT_OK, _err, _Usage
from agentruns.cli._options import _EPILOG, _MAX_ERRORS_HELP, _FormatChoice, _harness_help
from agentruns.cli._progress import _progress
from agentruns.cli._records import _commit_all, _count, _opened, _outputs, _shown, _write
from agentruns.cli._sessions import (
    _refuse_sessions_as_outputs,
    _sessions_among,
)
from agentruns.io import MAX_RECORD_SIZE
from agentruns.pipeline import (
    ImportStep,
    NotRead,
    Outcome,
    RunItem,
    Stream,
    is_folder_of_sessions,
    run,
    runs_of,
    session_size,
)
from agentruns_generated._json import JsonValue

if TYPE_CHECKING:
    from agentruns.transcripts import RunImport


def _refuse_one_id_for_many(to: str, values: dict[str, JsonValue]) -> None:
    """A --set of the run id, when many runs are made, would give them all one id."""
    from agentruns.conversion import format_named

    fmt = format_named(to)
    ids = {fmt.pointer(name) for name in ("run_id", "trajectory_id")}
    for key in values:
        if (key if key.startswith("/") else "/" + key) in ids:
            raise _Usage(
                f"--set {key}=... would give every run the one id; each session has its own "
                "(or one derived from its file's name)"
            )


def _set_value(text: str) -> tuple[str, JsonValue]:
    key, equals, value = text.partition("=")
    if not equals or not key:
        raise _Usage(f"--set takes KEY=VALUE, not {text!r}")
    try:
        parsed: JsonValue = json.loads(value)
    except ValueError:
        parsed = value
    return key, parsed


def _sidecar(path: str) -> dict[str, JsonValue]:
    try:
        with open(path, "rb") as stream:
            value = json.load(stream)
    except OSError as error:
        raise _Usage(f"--sidecar {path}: {error.strerror or error}") from None
    except ValueError as error:
        raise _Usage(f"--sidecar {path}: not JSON: {error}") from None
    if not isinstance(value, dict):
        raise _Usage(f"--sidecar {path}: not a JSON object")
    return value


@main.command("import", epilog=_EPILOG, short_help="Make run records from agent transcripts.")
@click.argument("transcripts", nargs=-1, required=True)
@click.option("--harness", default="auto", show_default=True, help=_harness_help())
@click.option(
    "--to",
    "to",
    type=_FormatChoice(),
    default="atif",
    show_default=True,
    help="Target format (ATIF, the trajectory format agents' own tools read, by default).",
)
@click.option("-o", "--output", default="-", show_default=True, help="Output file; - is stdout.")
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="A value the transcript does not hold (portable's eval_id, condition...); a value the "
    "session holds is kept unless --override. KEY is a property or a JSON pointer, VALUE is "
    "read as JSON when it parses, else as text.",
)
@click.option(
    "--override",
    is_flag=True,
    help="--set replaces values the session holds too (its own run id, say).",
)
@click.option("--sidecar", help="A JSON object of such values (--set wins over it).")
@click.option(
    "--conversation",
    help="eval-magic's conversation.json of a multi-turn run: messages and tool calls come "
    "from it, tokens and time from the rounds.",
)
@click.option(
    "--each",
    is_flag=True,
    help="Each transcript is a run of its own (JSON Lines out), as every session file an "
    "agent keeps always is; without it, what an agent printed (claude -p, codex exec, ...) "
    "given together are the rounds of one run, in order.",
)
@click.option("--rejects", help="Write runs that make no valid record here (JSONL).")
@click.option("--losses", help="Write each run's losses, derived values and problems (JSONL).")
@click.option("--quiet", "-q", is_flag=True, help="Only the summary.")
@click.option("--max-errors", default=100, type=click.IntRange(min=0), help=_MAX_ERRORS_HELP)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    help="Worker processes for the runs of a folder (or --each) [default: one per available "
    "CPU]; 1 = none. Output and messages are the same and in the same order.",
)
@click.option(
    "--max-record-size",
    type=click.IntRange(min=1),
    default=MAX_RECORD_SIZE,
    show_default=True,
    help="Largest record written, in bytes: a run whose record is larger is rejected with its "
    "size (the other commands read records up to their own --max-record-size, the same by "
    "default, so what import writes they read).",
)
def import_command(
    transcripts: tuple[str, ...],
    harness: str,
    to: str,
    output: str,
    sets: tuple[str, ...],
    sidecar: str | None,
    conversation: str | None,
    each: bool,
    rejects: str | None,
    losses: str | None,
    quiet: bool,
    max_errors: int,
    override: bool,
    jobs: int | None,
    max_record_size: int,
) -> None:
    """Make run records from agents' session files and transcripts (each harness --harness
    names, recognized by what a file holds)."""
    from agentruns import transcripts as readers

    if harness != "auto":
        try:
            readers.descriptor(harness)  # a bad --harness is the command's error, not a run's
        except readers.TranscriptError as error:
            raise _Usage(str(error)) from None
    values = _sidecar(sidecar) if sidecar else {}
    values.update(_set_value(text) for text in sets)
    folders = [name for name in transcripts if is_folder_of_sessions(name)]
    if not folders and not each and conversation is None:
        each = _sessions_among(transcripts, harness)
    if folders or (each and len(transcripts) > 1):
        _refuse_one_id_for_many(to, values)
    if folders:
        # a folder in, every session out: each session is a run of its own, found lazily
        runs: Iterable[RunItem] = runs_of(transcripts)
    else:
        runs = [[name] for name in transcripts] if each else [list(transcripts)]
    named: dict[str, str | None] = {"-o": output, "--rejects": rejects, "--losses": losses}
    extra_inputs = [p for p in (sidecar, conversation) if p]
    messages = Reporter("text", max_errors, quiet, err=True)
    troubled = 0
    with _outputs([*transcripts, *extra_inputs], named) as outputs:
        _refuse_sessions_as_outputs(folders, {k: v or "-" for k, v in named.items()})
        out = _opened(outputs, "-o")
        assert out is not None
        reject_out = _opened(outputs, "--rejects")
        loss_out = _opened(outputs, "--losses")
        step = ImportStep(to, harness, values, conversation, override, max_record_size)

        def noted(done: RunImport) -> None:
            nonlocal troubled
            if progress is not None:
                progress.add(1, sum(session_size((name, None)) for name in done.names))
            for key in done.kept:
                messages.note(
                    f"{done.where}: the session holds {key}: kept (--override replaces it)"
                )
            for note in done.notes:
                messages.note(note)
            troubled += bool(done.notes)

        def accepted(item: RunItem, outcome: Outcome[RunImport]) -> None:
            assert outcome.value is not None
            assert outcome.output is not None
            noted(outcome.value)
            _write(out, outcome.output, output)
            if loss_out is not None and outcome.report is not None:
                _write(loss_out, outcome.report, losses or "")

        def rejected(item: RunItem, outcome: Outcome[RunImport]) -> None:
            # this run only (a missing file, no harness recognized, a refused record, a
            # worker that died): the others go on
            (_, why), *problems = outcome.problems
            done = outcome.value or readers.RunImport(step.names(item), None, why, tuple(problems))
            noted(done)
            said = str(done.error)  # a reader's error names its file itself
            messages.note(said if said.startswith(f"{done.where}: ") else f"{done.where}: {said}")
            for pointer, message in done.problems:
                messages.note(f"{done.where}: {pointer or '/'}: {message}")
            if reject_out is not None:
                _write(reject_out, done.rejected, rejects or "")

        def unreadable(item: RunItem, outcome: Outcome[RunImport]) -> None:
            assert isinstance(item, NotRead)  # a file of a folder, not a run
            messages.note(f"{item.path}: unreadable: {item.reason}")

        with (
            Stream(step, runs, jobs=jobs, chunk=4) as stream,
            _shown(_progress(quiet, "imported", (), "runs")) as progress,
        ):
            tally = run(stream, accepted=accepted, rejected=rejected, unreadable=unreadable)
        if isinstance(out, Output) and not tally.accepted and out.replaces:
            out.abort()  # no run: no file (an empty file is no record)
        _commit_all(outputs)
    made, failed, unreadable_files = tally.accepted, tally.rejected, len(tally.unreadable)
    count = made + failed
    _err(
        f"{count} run{'s' if count != 1 else ''} from {len(transcripts)} "
        f"{'input' if folders else 'transcript'}"
        f"{'s' if len(transcripts) != 1 else ''}: {made} written as {to}, {failed} rejected"
        + (f"; {troubled} with problems" if troubled else "")
        + (f"; {_count(unreadable_files, 'file')} unreadable" if unreadable_files else "")
        + messages.summary("--losses FILE lists every problem; --max-errors 0 prints all")
    )
    sys.exit(EXIT_INVALID if failed or troubled or unreadable_files else EXIT_OK)
