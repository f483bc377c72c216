"""The ``agentruns`` command: detect, validate, convert, import, show, schema.

Presentation only: the batch engine (``agentruns.batch``) reads, handles and accounts for the
records; safe output is ``agentruns._output``. Kept out of ``import agentruns``: services that
only want the models do not pay for click and rich. Exit codes are ``EXIT_*`` below and in
README.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from functools import partial
from pathlib import Path
from types import FrameType
from typing import IO, TYPE_CHECKING, Any, NoReturn

import click

from agentruns._compression import compression_of
from agentruns._depth import make_room
from agentruns._output import Output, Records, writes_lines
from agentruns._report import OUTPUT_FORMATS, Kind, OutputFormat, Reporter, emit, showing
from agentruns._serialize import json_chunks
from agentruns._text import printable
from agentruns._workers import OrderedMap, jobs_for
from agentruns.batch import (
    Batch,
    Outcome,
    Tally,
    convert_document,
    detect_document,
    read_model,
    reject_line,
    validate_document,
)
from agentruns.detect import MODELS
from agentruns.engine import Outputs, drive
from agentruns.errors import AgentrunsError, InputError, OutputError
from agentruns.io import (
    MAX_RECORD_SIZE,
    Layout,
    Raw,
    read_raw,
    read_records,
)
from agentruns.schemas import schema_text
from agentruns_generated._json import JsonValue

if TYPE_CHECKING:
    from agentruns.canonical import Run
    from agentruns.otlp import Collector, TracesFile
    from agentruns.tables import ParquetExport
    from agentruns.transcripts import RunImport

__all__ = [
    "EXIT_INVALID",
    "EXIT_IO",
    "EXIT_OK",
    "EXIT_SOFTWARE",
    "EXIT_USAGE",
    "main",
    "run",
]


def _load_plugin_formats() -> None:
    """Register the formats other packages offer (entry point group ``agentruns.formats``:
    a ``Format`` instance each), so an adapter reaches every command by its name."""
    from importlib.metadata import entry_points

    from agentruns.conversion import Format, register

    for point in entry_points(group="agentruns.formats"):
        try:
            offered = point.load()
        except Exception as error:  # a broken plugin must not break the command
            click.echo(
                printable(f"warning: format plugin {point.name!r} did not load: {error}"), err=True
            )
            continue
        if isinstance(offered, Format):
            register(offered)
        else:
            click.echo(
                printable(f"warning: format plugin {point.name!r} is not a Format instance"),
                err=True,
            )


_PLUGINS: list[bool] = []


def _with_plugins() -> None:
    """The plugins registered, once per process, when a command first needs the formats."""
    if not _PLUGINS:
        _PLUGINS.append(True)
        _load_plugin_formats()


def _format_names() -> list[str]:
    """Every registered format's name, plugins included (loading the formats: a command
    that reads only session files never calls it)."""
    _with_plugins()
    return sorted(MODELS)


class _FormatChoice(click.Choice[str]):
    """A registered format's name (or ``auto``), the formats read when first needed: naming
    the choices when the command is built would load every format's models at start-up."""

    def __init__(self, *, auto: bool = False) -> None:
        super().__init__((), case_sensitive=True)
        self._auto = auto

    @property
    def choices(self) -> tuple[str, ...]:
        names = tuple(_format_names())
        return ("auto", *names) if self._auto else names

    @choices.setter
    def choices(self, value: tuple[str, ...]) -> None:
        pass  # the registry is the one list

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if self._auto and value == "auto":
            return "auto"  # the default of every reading command: no format loaded for it
        return super().convert(value, param, ctx)


EXIT_OK = 0
EXIT_INVALID = 1
"""Some input was invalid or unreadable (every valid record was still handled)."""
EXIT_USAGE = 2
"""Bad options, or an output refused before any input was read."""
EXIT_IO = 74
"""An output could not be written to the end (a full disk, an I/O error); sysexits' EX_IOERR.
Nothing is left behind: no temporary file, the previous output as it was."""
EXIT_SOFTWARE = 70
"""A bug of agentruns' own (sysexits' EX_SOFTWARE): said in one line, never a traceback
(``AGENTRUNS_TRACEBACK=1`` shows it, for a report)."""
EXIT_HANGUP, EXIT_INTERRUPTED, EXIT_TERMINATED = 129, 130, 143
"""128 + the signal's number, as shells report a death by signal (SIGHUP, SIGINT, SIGTERM)."""

_EPILOG = (
    "Exit codes: 0 ok; 1 invalid or unreadable input; 2 usage error (bad options, a refused "
    "output); 70 a bug of ours; 74 an output could not be written (disk full); 129/130/143 "
    "stopped by SIGHUP/Ctrl-C/SIGTERM (no output file written); 141 the reader of stdout left."
)
_COMPLETION = (
    'Shell completion: eval "$(_AGENTRUNS_COMPLETE=bash_source agentruns)" in ~/.bashrc '
    "(zsh_source, fish_source for zsh and fish)."
)

_MAX_ERRORS_HELP = "Print at most N problem lines (then a count); 0 = all. [default: 100]"


class _Usage(click.UsageError):
    exit_code = EXIT_USAGE


class _Stopped(BaseException):
    """SIGTERM or SIGHUP, raised where the main thread is, so cleanup runs as for Ctrl-C."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


class _WriteFailed(Exception):
    """Writing an output failed (full disk, I/O error)."""


def _err(message: str) -> None:
    emit(message, err=True)


_JOBS_HELP = (
    "Worker processes for JSONL input [default: one per available CPU; at most that]; 1 = "
    "none, all in this process. Output and messages are the same and in the same order."
)


def _batch_options(function: Callable[..., None]) -> Callable[..., None]:
    for option in (
        click.option(
            "--max-errors", type=click.IntRange(min=0), default=100, help=_MAX_ERRORS_HELP
        ),
        click.option(
            "--max-record-size",
            type=click.IntRange(min=1),
            default=MAX_RECORD_SIZE,
            show_default=True,
            help="Largest record (a JSONL line or a JSON file) read, in bytes; a larger one "
            "is rejected unread and reading goes on.",
        ),
        click.option("--jobs", "-j", type=click.IntRange(min=1), help=_JOBS_HELP),
    ):
        function = option(function)
    return function


class _Progress:
    """The progress display: records done, bytes of input read out of the total (when the
    inputs are plain files, whose size is known), rate and time left; messages above it."""

    def __init__(self, label: str, total: int | None, noun: str = "records") -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        self.display = Progress(
            SpinnerColumn(),
            TextColumn(f"{label} {{task.fields[records]}} {noun}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self.task = self.display.add_task(label, total=total, records=0)
        self.records = 0
        self.display.start()
        showing(self.display.console)

    def tick(self, raw: Raw) -> None:
        self.add(1, len(raw.raw) + 1)

    def add(self, records: int, size: int) -> None:
        """``records`` more done, of ``size`` bytes of input."""
        self.records += records
        self.display.update(self.task, advance=size, records=self.records)

    def stop(self) -> None:
        showing(None)
        self.display.stop()


def _progress(
    quiet: bool, label: str, inputs: Sequence[str] = (), noun: str = "records"
) -> _Progress | None:
    """A progress display on stderr when it is a terminal, else nothing."""
    if quiet or not sys.stderr.isatty():
        return None
    return _Progress(label, _input_bytes(inputs), noun)


def _input_bytes(inputs: Sequence[str]) -> int | None:
    """The bytes the inputs hold, when every one is a plain file (not stdin, not compressed:
    the bytes read are the decompressed ones)."""
    total = 0
    for name in inputs:
        if name == "-" or compression_of(name) is not None:
            return None
        try:
            info = os.stat(name)
        except OSError:
            continue  # reported as unreadable when it is read
        if not stat.S_ISREG(info.st_mode):
            return None
        total += info.st_size
    return total


def _tick(progress: _Progress | None, raw: Raw) -> None:
    if progress is not None:
        progress.tick(raw)


def _unreadable(message: str) -> None:
    _err(printable(message))


def _unreadable_note(tally: Tally) -> str:
    return f"; {_count(len(tally.unreadable), 'input')} unreadable" if tally.unreadable else ""


class _PipeClosed(BaseException):
    """Standard output's reader went away (``| head``). Not an OSError: click turns an
    EPIPE OSError into exit 1, the code for invalid input."""


class _Commands(click.Group):
    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # the formats registered when the help is shown (plugins too), not at import
        from agentruns.conversion import models_by_name

        names = ", ".join(sorted(models_by_name()))
        self.help = f"Typed AI agent run records: {names}; and the session files agents keep."
        super().format_help_text(ctx, formatter)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as error:
            raise _PipeClosed from error


@click.group(
    cls=_Commands,
    epilog=f"{_EPILOG}\n\n{_COMPLETION}",
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(package_name="agentruns")
def main() -> None:
    """The command line: one subcommand per job (its --help says how)."""
    make_room()  # what the models validate, every command follows (agentruns._depth)
    _with_plugins()


def _output_format(function: Callable[..., None]) -> Callable[..., None]:
    return click.option(
        "--output-format",
        "shape",
        type=click.Choice(OUTPUT_FORMATS),
        default="text",
        show_default=True,
        help="Messages for people (text), programs (json: one object per line) or GitHub "
        "Actions (github: annotations).",
    )(function)


_jsonl_option = click.option(
    "--jsonl", is_flag=True, help="Read every input as JSON Lines (default: by extension)."
)
_rejects_option = click.option(
    "--rejects", help="Write rejected records here (JSONL: the original text and the error)."
)


def _format_option(what: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--format auto|portable|...``, one definition for every command that reads records."""
    return click.option(
        "--format",
        "fmt",
        type=_FormatChoice(auto=True),
        default="auto",
        show_default=True,
        help=what,
    )


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
            report.say("invalid", raw.source, raw.line, message, raw=raw.raw, fmt=outcome.format)

    if not inputs:
        sys.exit(EXIT_OK)
    tally = drive(
        _batch(detect_document, inputs, jsonl, None, MAX_RECORD_SIZE),
        accepted=detected,
        rejected=unknown,
    )
    sys.exit(EXIT_INVALID if tally.rejected or tally.unreadable else EXIT_OK)


detect_command.name = "detect"


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
        report.say("invalid", name, 0, _NOT_RECORDS.format(harness=harness), fmt=harness)
    tally = Tally()
    if inputs:
        with _shown(_progress(quiet, "validated", inputs)) as progress:
            tally = drive(
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


def _say_problems(report: Reporter, kind: Kind, raw: Raw, outcome: Outcome) -> None:
    """Each problem of a record, at its value's line and column."""
    for pointer, message in outcome.problems:
        report.say(
            kind,
            raw.source,
            raw.line,
            message,
            raw=raw.raw,
            pointer=pointer,
            fmt=outcome.format,
        )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


class _shown:
    """Stop the progress display however the block ends."""

    def __init__(self, progress: _Progress | None) -> None:
        self.progress = progress

    def __enter__(self) -> _Progress | None:
        return self.progress

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()


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

        def accepted(raw: Raw, outcome: Outcome) -> None:
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

        with _shown(_progress(quiet, "converted", inputs)) as progress:
            tally = drive(
                _batch(work, inputs, jsonl, jobs, max_record_size),
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
        + _unreadable_note(tally)
        + ("" if losses or not (tally.lossy or tally.derived) else "; --losses FILE lists them")
        + messages.summary("--rejects FILE keeps every one; --max-errors 0 prints all")
    )
    sys.exit(EXIT_INVALID if tally.rejected or tally.unreadable else EXIT_OK)


def _say_losses(raw: Raw, outcome: Outcome, messages: Reporter) -> None:
    if outcome.report is None:
        return
    entry = json.loads(outcome.report)
    for loss in entry.get("losses", []):
        messages.say(
            "loss",
            raw.source,
            raw.line,
            str(loss["reason"]),
            raw=raw.raw,
            pointer=str(loss["pointer"]),
            fmt=outcome.format,
        )


def _reject(
    raw: Raw, outcome: Outcome, *, out: IO[bytes] | Output | None, messages: Reporter
) -> None:
    _say_problems(messages, "rejected", raw, outcome)
    if out is not None:
        _write(out, reject_line(raw, outcome.problems), "--rejects")


def _write(out: IO[bytes] | Output | Records | TracesFile, data: bytes, name: str) -> None:
    try:
        out.write(data)
    except BrokenPipeError:
        raise
    except OSError as error:
        raise _WriteFailed(f"cannot write {name or 'stdout'}: {error.strerror or error}") from None


def _batch(
    work: Callable[[Raw], Outcome],
    inputs: Sequence[str],
    jsonl: bool,
    jobs: int | None,
    max_record_size: int,
) -> Batch:
    return Batch(
        work,
        inputs,
        layout="jsonl" if jsonl else None,
        jobs=jobs,
        max_record_size=max_record_size,
        on_unreadable=_unreadable,
    )


def _outputs(inputs: Sequence[str], named: dict[str, str | None]) -> Outputs:
    """The run's outputs, refused (a usage error) before anything is read when one is an
    input or two are one file."""
    try:
        return Outputs(inputs, named)
    except OutputError as error:
        raise _Usage(str(error)) from None


def _opened(outputs: Outputs, flag: str) -> IO[bytes] | Output | None:
    try:
        return outputs.open(flag)
    except OutputError as error:
        raise _Usage(str(error)) from None


def _commit_all(outputs: Outputs) -> None:
    """Commit every output, after the last point a stop is obeyed at."""
    try:
        outputs.commit(before=_stop_point)
    except OutputError as error:
        raise _WriteFailed(str(error)) from None


def _harness_help() -> str:
    """Every built-in harness, from the one list of them (``agentruns.transcripts``)."""
    from typing import get_args

    from agentruns._harnesses import HarnessName  # no reader is imported: names only

    names = ", ".join(get_args(HarnessName))
    return (
        f"The harness that wrote the transcripts: {names}; auto (recognized from what the "
        "file holds), or an eval-magic harness descriptor (FILE.toml)."
    )


def _is_folder_of_sessions(name: str) -> bool:
    """A folder that is not itself one session (a Cline task, an OpenCode storage tree)."""
    from agentruns import transcripts as readers

    if not os.path.isdir(name):
        return False
    try:
        readers.detect(name)
    except readers.TranscriptError:
        return True
    return False


def _refuse_sessions_as_outputs(folders: list[str], named: dict[str, str]) -> None:
    """An output that is a session inside a folder being imported would replace an input."""
    from agentruns import transcripts as readers

    for option, path in named.items():
        if path == "-" or not os.path.isfile(path):
            continue
        target = Path(path).resolve()
        for folder in folders:
            if Path(folder).resolve() in target.parents:
                try:
                    readers.detect(path)
                except readers.TranscriptError:
                    continue
                raise _Usage(f"{option} {path} is a session in {folder}, an input: not replaced")


@dataclass(frozen=True)
class _Unreadable:
    """A file in a folder of sessions that could not be read (named, never passed over)."""

    path: str
    reason: str


def _imported(
    names: list[str] | _Unreadable,
    *,
    to: str,
    harness: str,
    values: dict[str, JsonValue],
    conversation: str | None,
    override: bool,
    max_size: int = MAX_RECORD_SIZE,
) -> tuple[RunImport | _Unreadable, bytes | None]:
    """One run imported (in a worker process): what became of it, and its record as JSON
    (None when it made none, or one larger than ``max_size``, which no other command would
    read: the run is then refused with its size); the record itself stays in the worker."""
    if isinstance(names, _Unreadable):
        return names, None
    from dataclasses import replace

    from agentruns.transcripts import import_run

    done = import_run(
        names, to, harness=harness, values=values, conversation=conversation, override=override
    )
    if done.record is None:
        return done, None
    body = b"".join(json_chunks(done.record))
    if len(body) > max_size:
        why = (
            f"the {to} record is {len(body):,} bytes, larger than the maximum record size "
            f"({max_size:,} bytes; --max-record-size): the other commands would refuse it"
        )
        return replace(done, record=None, error=why), None
    return replace(done, record=None), body


def _import_failed(
    names: list[str] | _Unreadable, error: BaseException
) -> tuple[RunImport | _Unreadable, bytes | None]:
    if isinstance(names, _Unreadable):
        return names, None
    from agentruns.transcripts import RunImport

    why = f"the worker reading it ended ({type(error).__name__}: {error})"
    return RunImport(tuple(names), None, why), None


def _size_of(names: Sequence[str]) -> int:
    total = 0
    for name in names:
        with contextlib.suppress(OSError):
            total += os.stat(name.partition("#")[0]).st_size
    return total


def _each_session(inputs: Sequence[str]) -> Iterator[list[str] | _Unreadable]:
    from agentruns import transcripts as readers

    for name in inputs:
        if _is_folder_of_sessions(name):
            found = 0
            skipped: list[_Unreadable] = []

            def note(path: str, why: str, into: list[_Unreadable] = skipped) -> None:
                into.append(_Unreadable(path, why))

            for session, _ in readers.sessions(name, note):
                yield from skipped
                skipped.clear()
                found += 1
                yield [session]
            yield from skipped
            if not found and not skipped:
                yield [name]  # rejected as what it is: a folder without a session
        else:
            yield [name]


def _session_file(name: str) -> str | None:
    """The harness of a file that holds what an agent kept or printed (a session, a
    transcript), not run records: its first document is no valid record and a harness
    recognizes it (a harness's event may share a key with a format: Claude Code's
    ``session_id`` is ATIF's too). Only regular files are looked at (a pipe is read once,
    by the command)."""
    import stat

    if name == "-":
        return None
    try:
        if not stat.S_ISREG(os.stat(name).st_mode):
            return None
        records = read_records(name)
        try:
            first = next(records, None)
        finally:
            records.close()  # the file closed now, not whenever the reader is collected
    except (AgentrunsError, OSError):
        return None
    if first is None:
        return None  # nothing to tell by
    if first.error is None:
        _, model, _ = read_model(first, "auto")
        if model is not None:
            return None  # run records
    # else no JSON document read by its name (JSON Lines named .txt or .data, say): what it
    # holds says whether a harness wrote it; if none did, the command's reading says why
    from agentruns.transcripts import detect

    try:
        return detect(name)
    except Exception:  # no harness reads it (however it fails): records, for the command
        return None


def _split_sessions(inputs: tuple[str, ...]) -> tuple[tuple[str, ...], list[tuple[str, str]]]:
    """The inputs of run records, and the session files among them with their harness."""
    records: list[str] = []
    sessions: list[tuple[str, str]] = []
    for name in inputs:
        harness = _session_file(name)
        if harness is None:
            records.append(name)
        else:
            sessions.append((name, harness))
    return tuple(records), sessions


def _as_sessions(inputs: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The inputs of run records, and those read as sessions, each in order: folders (each
    session in them a run) and the files a harness wrote (a folder of one session)."""
    sessions = [
        name
        for name in inputs
        if name != "-" and (os.path.isdir(name) or _session_file(name) is not None)
    ]
    return [name for name in inputs if name not in sessions], sessions


_NOT_RECORDS = (
    "a {harness} file, not run records: `agentruns import` makes records of it; "
    "`agentruns show` and `agentruns stats` read it as it is"
)


def _sessions_among(transcripts: tuple[str, ...], harness: str) -> bool:
    """Whether several transcripts are sessions an agent kept (each a run of its own: a shell
    glob over a folder of sessions), not rounds of one run it printed."""
    if len(transcripts) < 2 or "-" in transcripts:
        return False
    import stat

    from agentruns._harnesses import ROUNDS
    from agentruns.transcripts import detect

    for name in transcripts:
        try:
            if harness == "auto" and not stat.S_ISREG(os.stat(name).st_mode):
                continue  # a pipe is read once, by its run
            found = harness if harness != "auto" else detect(name)
        except Exception:  # however it fails to be read, its own run reports it
            continue
        if found not in ROUNDS and not found.endswith(".toml"):
            return True
    return False


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
    folders = [name for name in transcripts if _is_folder_of_sessions(name)]
    if not folders and not each and conversation is None:
        each = _sessions_among(transcripts, harness)
    if folders or (each and len(transcripts) > 1):
        _refuse_one_id_for_many(to, values)
    if folders:
        # a folder in, every session out: each session is a run of its own, found lazily
        runs: Iterable[list[str] | _Unreadable] = _each_session(transcripts)
    else:
        runs = [[name] for name in transcripts] if each else [list(transcripts)]
    named: dict[str, str | None] = {"-o": output, "--rejects": rejects, "--losses": losses}
    extra_inputs = [p for p in (sidecar, conversation) if p]
    messages = Reporter("text", max_errors, quiet, err=True)
    made = failed = troubled = 0
    with _outputs([*transcripts, *extra_inputs], named) as outputs:
        _refuse_sessions_as_outputs(folders, {k: v or "-" for k, v in named.items()})
        out = _opened(outputs, "-o")
        assert out is not None
        reject_out = _opened(outputs, "--rejects")
        loss_out = _opened(outputs, "--losses")
        work = partial(
            _imported,
            to=to,
            harness=harness,
            values=values,
            conversation=conversation,
            override=override,
            max_size=max_record_size,
        )
        with (
            OrderedMap(work, runs, jobs_for(jobs), on_failure=_import_failed, chunk=4) as made_runs,
            _shown(_progress(quiet, "imported", (), "runs")) as progress,
        ):
            for _, (done, body) in made_runs:
                if isinstance(done, _Unreadable):
                    failed += 1
                    messages.note(f"{done.path}: unreadable: {done.reason}")
                    continue
                if progress is not None:
                    progress.add(1, _size_of(done.names))
                for key in done.kept:
                    messages.note(
                        f"{done.where}: the session holds {key}: kept (--override replaces it)"
                    )
                for note in done.notes:
                    messages.note(note)
                troubled += bool(done.notes)
                if body is None:
                    # this run only (a missing file, no harness recognized, a refused record):
                    # the others go on
                    failed += 1
                    said = str(done.error)  # a reader's error names its file itself
                    messages.note(
                        said if said.startswith(f"{done.where}: ") else f"{done.where}: {said}"
                    )
                    for pointer, message in done.problems:
                        messages.note(f"{done.where}: {pointer or '/'}: {message}")
                    if reject_out is not None:
                        _write(reject_out, done.rejected, rejects or "")
                    continue
                made += 1
                _write(out, body, output)
                _write(out, b"\n", output)
                if loss_out is not None and done.report is not None:
                    _write(loss_out, done.report, losses or "")
        if isinstance(out, Output) and not made and out.replaces:
            out.abort()  # no run: no file (an empty file is no record)
        _commit_all(outputs)
    count = made + failed
    _err(
        f"{count} run{'s' if count != 1 else ''} from {len(transcripts)} "
        f"{'input' if folders else 'transcript'}"
        f"{'s' if len(transcripts) != 1 else ''}: {made} written as {to}, {failed} rejected"
        + (f"; {troubled} with problems" if troubled else "")
        + messages.summary("--losses FILE lists every problem; --max-errors 0 prints all")
    )
    sys.exit(EXIT_INVALID if failed or troubled else EXIT_OK)


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
    from agentruns.stats import RunStats, add_sessions, facts_from, render, stats_document

    report = Reporter("text", max_errors, err=True)
    stats = RunStats(
        timezone=_zone(zone),
        since=since.date().isoformat() if since else None,
        until=until.date().isoformat() if until else None,
        keep_largest=top,
    )

    def rejected(raw: Raw, outcome: Outcome) -> None:
        stats.rejected += 1
        _say_problems(report, "invalid", raw, outcome)

    def accepted(raw: Raw, outcome: Outcome) -> None:
        assert outcome.output is not None
        stats.add(facts_from(outcome.output))

    inputs = files or ("-",)
    records, folders = _as_sessions(inputs)
    tally = Tally()
    if records or not folders:
        tally = drive(
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
    from agentruns.tables import ParquetExport, export_blocks

    report = Reporter("text", max_errors, err=True)
    tally = Tally()
    layout: Layout | None = "jsonl" if jsonl else None
    sessions = set(_as_sessions(inputs)[1])
    with _outputs(inputs, {"-o": folder, "--rejects": rejects}) as outputs:
        _refuse_folder(folder)
        export = outputs.hold("-o", ParquetExport(folder))
        reject_out = _opened(outputs, "--rejects")
        with _shown(_progress(quiet, "exported", () if sessions else inputs)) as progress:
            for path in inputs:
                if path in sessions:
                    _export_sessions(path, export, tally, report, jobs, progress)
                    continue
                try:
                    raws = read_raw(path, layout, max_record_size)
                    for block, part in export_blocks(raws, fmt=fmt, jobs=jobs):
                        if progress is not None:
                            progress.add(len(block), sum(len(raw.raw) + 1 for raw in block))
                        tally.merge(part.tally)
                        for (source, line, pointer, message), raw in _problem_raws(
                            part.problems, block
                        ):
                            report.say("rejected", source, line, message, raw=raw, pointer=pointer)
                        if reject_out is not None:
                            for text in part.rejects:
                                _write(reject_out, text, rejects or "")
                        export.write(part)
                except InputError as error:
                    tally.unreadable.append(str(error))
                    _unreadable(str(error))
        _commit_all(outputs)
    _err(
        f"{_count(tally.records, 'record')} in: {tally.accepted} exported to {folder}, "
        f"{tally.rejected} rejected"
        + _unreadable_note(tally)
        + report.summary("--rejects FILE keeps every one; --max-errors 0 prints all")
    )
    sys.exit(EXIT_INVALID if tally.rejected or tally.unreadable else EXIT_OK)


def _export_sessions(
    source: str,
    export: ParquetExport,
    tally: Tally,
    report: Reporter,
    jobs: int | None,
    progress: _Progress | None,
) -> None:
    """The sessions of a folder (or the session file ``source`` is), each a run, into the
    tables; a file that cannot be read is named and counted as an unreadable input."""
    from agentruns.tables import export_session_blocks
    from agentruns.transcripts import candidates

    def unreadable(path: str, reason: str) -> None:
        tally.unreadable.append(f"{path}: {reason}")
        _unreadable(f"{path}: unreadable: {reason}")

    for block, part in export_session_blocks(candidates(source, unreadable), jobs=jobs):
        if progress is not None:
            progress.add(part.tally.records, _size_of([name for name, _ in block]))
        tally.merge(part.tally)
        for name, line, pointer, message in part.problems:
            report.say("rejected", name, line, f"{name}: {message}", pointer=pointer)
        export.write(part)


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
            tally = drive(
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
    from agentruns.transcripts import candidates

    def unreadable(path: str, reason: str) -> None:
        tally.unreadable.append(f"{path}: {reason}")
        _unreadable(f"{path}: unreadable: {reason}")

    sent = 0
    items = candidates(source, unreadable)
    with OrderedMap(
        session_spans, items, jobs_for(jobs), on_failure=_spans_failed, chunk=4
    ) as done:
        for (name, _), (line, why) in done:
            if line is None and why is None:
                continue  # no session
            tally.records += 1
            if line is None:
                tally.rejected += 1
                report.say("rejected", name, 0, f"{name}: {why}")
                continue
            tally.accepted += 1
            send(line)
            sent += 1
    return sent


def _spans_failed(
    item: tuple[str, str | None], error: BaseException
) -> tuple[bytes | None, str | None]:
    return None, f"the worker reading it ended ({type(error).__name__}: {error})"


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


def _refuse_folder(folder: str) -> None:
    """An output folder that cannot be one is a usage error, before any input is read."""
    path = Path(folder)
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if path.exists() and not path.is_dir():
        raise _Usage(f"-o {printable(folder)}: exists and is not a folder")
    if existing is not None and not existing.is_dir():
        raise _Usage(f"-o {printable(folder)}: {printable(str(existing))} is not a folder")
    if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
        raise _Usage(f"-o {printable(folder)}: {printable(str(existing))} cannot be written")


def _problem_raws(
    problems: list[tuple[str, int, str, str]], block: list[Raw]
) -> Iterator[tuple[tuple[str, int, str, str], bytes]]:
    by_line = {(raw.source, raw.line): raw.raw for raw in block}
    for problem in problems:
        yield problem, by_line.get((problem[0], problem[1]), b"")


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


def _note(into: list[tuple[str, str]]) -> Callable[[str, str], None]:
    return lambda path, reason: into.append((path, reason))


@main.command(
    "schema",
    epilog=_EPILOG,
    short_help="Print the JSON Schema of a format.",
    help="Print the JSON Schema the models enforce for a format (for agentrun, the "
    "translation of its JSON Structure schema).",
)
@click.argument("format_name", type=_FormatChoice())
@click.option("--source", is_flag=True, help="The vendored original (JSON Structure for agentrun).")
def schema_command(format_name: str, source: bool) -> None:
    text = schema_text(format_name, source=source)
    click.echo(text, nl=not text.endswith("\n"))


_stop_requested: list[int] = []
"""The stopping signal received, if any. The exception the handler raises can be swallowed
where Python cannot let it out (a finalizer, a weakref callback of the worker pool, printed as
"Exception ignored"); outputs are committed only after ``_stop_point``, so a stopped run never
ends as a finished one."""


def _raise_stopped(number: int, frame: FrameType | None) -> NoReturn:
    for other in _STOPPING:  # the first signal wins: a second one must not cut the cleanup
        signal.signal(other, signal.SIG_IGN)
    _stop_requested.append(number)
    raise _Stopped(number)


def _interrupt(number: int, frame: FrameType | None) -> NoReturn:
    """Ctrl-C, as Python raises it, remembered like the other stopping signals."""
    _stop_requested.append(number)
    raise KeyboardInterrupt


def _stop_point() -> None:
    """Raise the stop again if its first raising was swallowed (see ``_stop_requested``)."""
    if _stop_requested:
        number = _stop_requested[0]
        if number == signal.SIGINT:
            raise KeyboardInterrupt
        raise _Stopped(number)


_STOPPING = (signal.SIGTERM, signal.SIGHUP)


def _quit_on_broken_pipe() -> NoReturn:
    """A reader that went away (``| head``) is not an error of ours: stop quietly."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # nothing more to flush at exit
    # Every output was aborted as the command unwound. The interpreter's own exit would join
    # the worker pool's manager thread, which waits for ever for the rest of a result a killed
    # worker was writing (the reader left mid-run, the workers were killed): end here.
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(128 + signal.SIGPIPE)


_ENDINGS = {
    signal.SIGTERM.value: ("terminated", EXIT_TERMINATED),
    signal.SIGHUP.value: ("hung up", EXIT_HANGUP),
}


def _escape_what_the_terminal_cannot_show() -> None:
    """Text a stream's encoding has no character for (a record's non-ASCII text on an ASCII
    terminal) is written as an escape (``\\xe9``), never an error: the command says what it
    has to say on any terminal. Records written to standard output are bytes, untouched."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def run() -> None:
    """Console-script entry point: an exit code for every way a run ends, never a traceback."""
    for stopping in _STOPPING:
        signal.signal(stopping, _raise_stopped)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupt)
    _escape_what_the_terminal_cannot_show()
    try:
        # not standalone: click would turn Ctrl-C into "Aborted!" and exit 1, the code for
        # invalid input
        code = main.main(standalone_mode=False)
    except (KeyboardInterrupt, click.exceptions.Abort, _Stopped) as stop:
        number = stop.number if isinstance(stop, _Stopped) else signal.SIGINT.value
        what, ending = _ENDINGS.get(number, ("interrupted", EXIT_INTERRUPTED))
        _err(f"{what}; no output file was written (a previous one is left as it was)")
        sys.exit(ending)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except (BrokenPipeError, _PipeClosed):
        _quit_on_broken_pipe()
    except _WriteFailed as error:
        _err(f"error: {printable(str(error))}; nothing was left behind")
        sys.exit(EXIT_IO)
    except OSError as error:  # reading failed half way (an I/O error), say
        _err(printable(f"error: {error.strerror or error}: {error.filename or ''}".rstrip(": ")))
        sys.exit(EXIT_IO)
    except Exception as error:  # a bug: one line, the code for it, nothing left behind
        if os.environ.get("AGENTRUNS_TRACEBACK"):
            raise
        text = " ".join(str(error).split())[:300]
        _err(printable(f"internal error ({type(error).__name__}: {text}); please report it"))
        sys.exit(EXIT_SOFTWARE)
    sys.exit(code if isinstance(code, int) else EXIT_OK)  # --help, --version
