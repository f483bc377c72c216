"""The ``agentruns`` command: detect, validate, convert, show, schema.

Kept out of ``import agentruns``: services that only want the models do not pay for click and
rich. Exit codes: 0 ok; 1 invalid or unreadable input; 2 usage error (bad options, an output
that cannot be written); 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from typing import IO, TYPE_CHECKING, TypeVar

import click
from pydantic import BaseModel

from agentruns._workers import available_cpus, ordered_map
from agentruns.conversion import Conversion, LossError, convert
from agentruns.detect import MODELS, detect
from agentruns.io import (
    AtomicWriter,
    InputError,
    Layout,
    Raw,
    Record,
    layout_of,
    parse,
    read_raw,
    validate,
)
from agentruns.schemas import schema_text

if TYPE_CHECKING:
    from rich.progress import Progress

FORMATS = sorted(MODELS)
EXIT_OK, EXIT_INVALID, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

_EPILOG = (
    "Exit codes: 0 ok; 1 invalid or unreadable input; "
    "2 usage error (bad options, unwritable output); 130 interrupted."
)


class _Usage(click.UsageError):
    exit_code = EXIT_USAGE


def _err(message: str) -> None:
    click.echo(message, err=True)


@dataclass
class _Tally:
    records: int = 0
    valid: int = 0
    invalid: int = 0
    unreadable: int = 0
    by_format: dict[str, int] = field(default_factory=dict)


def _records(paths: tuple[str, ...], layout: Layout | None, tally: _Tally) -> Iterator[Record]:
    """Parsed records of every input in order."""
    return map(parse, _raws(paths, layout, tally))


R = TypeVar("R")


def _raws(paths: tuple[str, ...], layout: Layout | None, tally: _Tally) -> Iterator[Raw]:
    """Unparsed documents of every input in order; an unreadable input is reported and skipped."""
    for path in paths:
        try:
            yield from read_raw(path, layout)
        except InputError as error:
            tally.unreadable += 1
            _err(f"{error}")


def _each(
    work: Callable[[Raw], R],
    paths: tuple[str, ...],
    layout: Layout | None,
    tally: _Tally,
    jobs: int,
) -> Iterator[tuple[Raw, R]]:
    """``work`` done on every document of the inputs, by ``jobs`` processes, in input order."""
    return ordered_map(work, _raws(paths, layout, tally), jobs)


_JOBS_HELP = (
    "Worker processes for JSONL input [default: one per available CPU]; 1 = none, all in this "
    "process. Output and messages are the same and in the same order either way."
)


def _jobs_option(function: Callable[..., None]) -> Callable[..., None]:
    option = click.option("--jobs", "-j", type=click.IntRange(min=1), help=_JOBS_HELP)
    return option(function)


def _progress(quiet: bool, label: str) -> Progress | None:
    """A rich progress display on stderr when it is a terminal, else nothing."""
    if quiet or not sys.stderr.isatty():
        return None
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn

    progress = Progress(
        SpinnerColumn(),
        TextColumn(f"{label} {{task.completed}} records"),
        console=Console(stderr=True),
    )
    progress.start()
    progress.add_task(label, total=None)
    return progress


def _tick(progress: Progress | None) -> None:
    if progress is not None:
        progress.advance(progress.task_ids[0])


def _model_for(record: Record, chosen: str) -> tuple[str | None, str]:
    """The format to validate against: the chosen one, the detected one, or -- for a document
    no format fully matches -- the one it is most like, so its errors say what is wrong."""
    if chosen != "auto":
        return chosen, ""
    found = detect(record.value)
    return found.format or found.closest, found.reason


@click.group(epilog=_EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="agentruns")
def main() -> None:
    """Typed AI agent run records: portable, cortex and agentrun."""


@main.command(epilog=_EPILOG)
@click.argument("files", nargs=-1, required=True)
@click.option("--jsonl", "jsonl", is_flag=True, help="Read every input as JSON Lines.")
def detect_command(files: tuple[str, ...], jsonl: bool) -> None:
    """Say which format each document (or JSONL line) is."""
    tally = _Tally()
    for record in _records(files, "jsonl" if jsonl else None, tally):
        tally.records += 1
        if record.error is not None:
            tally.invalid += 1
            click.echo(f"{record.where}: error: {record.error}")
            continue
        found = detect(record.value)
        if found.format is None:
            tally.invalid += 1
            click.echo(f"{record.where}: error: {found.reason}")
        else:
            click.echo(f"{record.where}: {found.format}")
    sys.exit(EXIT_INVALID if tally.invalid or tally.unreadable else EXIT_OK)


detect_command.name = "detect"


@main.command("validate", epilog=_EPILOG)
@click.argument("files", nargs=-1, required=True)
@click.option(
    "--format", "fmt", type=click.Choice(["auto", *FORMATS]), default="auto", show_default=True
)
@click.option(
    "--jsonl", is_flag=True, help="Read every input as JSON Lines (default: by extension)."
)
@click.option("--quiet", "-q", is_flag=True, help="Only the summary.")
@_jobs_option
def validate_command(
    files: tuple[str, ...], fmt: str, jsonl: bool, quiet: bool, jobs: int | None
) -> None:
    """Validate records; print every problem as file:line: /json/pointer: message."""
    tally = _Tally()
    work = partial(_check, fmt)
    checked = _each(work, files, "jsonl" if jsonl else None, tally, jobs or available_cpus())
    progress = _progress(quiet, "validated")
    try:
        for raw, (name, problems) in checked:
            tally.records += 1
            _tick(progress)
            if problems:
                tally.invalid += 1
                if not quiet:
                    for pointer, message in problems:
                        click.echo(f"{raw.source}:{raw.line}: {pointer or '/'}: {message}")
            else:
                tally.valid += 1
                assert name is not None
                tally.by_format[name] = tally.by_format.get(name, 0) + 1
    finally:
        if progress is not None:
            progress.stop()
    formats = ", ".join(f"{n} {c}" for n, c in sorted(tally.by_format.items()))
    _err(
        f"{tally.records} records: {tally.valid} valid, {tally.invalid} invalid"
        + (f" ({formats})" if formats else "")
        + (f"; {tally.unreadable} inputs unreadable" if tally.unreadable else "")
    )
    sys.exit(EXIT_INVALID if tally.invalid or tally.unreadable else EXIT_OK)


def _check(fmt: str, raw: Raw) -> tuple[str | None, list[tuple[str, str]]]:
    """(format, problems) of one document (in a worker process, with --jobs)."""
    record = parse(raw)
    if record.error is not None:
        return None, [("", record.error)]
    name, reason = _model_for(record, fmt)
    if name is None:
        return None, [("", reason)]
    _, problems = validate(record, MODELS[name])
    if problems and reason:  # guessed from the closest format: say so first
        problems = [("", reason), *problems]
    return name, problems


@main.command("convert", epilog=_EPILOG)
@click.argument("inputs", nargs=-1, required=True)
@click.option("--to", "to", type=click.Choice(FORMATS), required=True, help="Target format.")
@click.option(
    "--from", "source", type=click.Choice(["auto", *FORMATS]), default="auto", show_default=True
)
@click.option("-o", "--output", default="-", show_default=True, help="Output file; - is stdout.")
@click.option("--strict", is_flag=True, help="A record that would lose data is rejected.")
@click.option(
    "--rejects", help="Write rejected records here (JSONL: the original text and the error)."
)
@click.option("--losses", help="Write every record's losses and derived values here (JSONL).")
@click.option(
    "--jsonl", is_flag=True, help="Read every input as JSON Lines (default: by extension)."
)
@click.option("--quiet", "-q", is_flag=True, help="No progress, only the summary.")
@_jobs_option
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
    jobs: int | None,
) -> None:
    """Convert records to another format, streaming (JSON -> JSON, JSONL -> JSONL)."""
    layout: Layout | None = "jsonl" if jsonl else None
    # JSON Lines out when the output file says so, or, on stdout, when any input is JSONL
    if output == "-":
        lines_out = jsonl or any(layout_of(p) == "jsonl" for p in inputs)
    else:
        lines_out = layout_of(output) == "jsonl"
    with ExitStack() as stack:
        out = _open_output(output, stack)
        reject_out = _open_output(rejects, stack) if rejects else None
        loss_out = _open_output(losses, stack) if losses else None
        tally, lossy, lost_pointers, converted = _Tally(), 0, 0, 0
        work = partial(_convert_raw, source, to, strict, loss_out is not None)
        results = _each(work, inputs, layout, tally, jobs or available_cpus())
        progress = _progress(quiet, "converted")
        try:
            for raw, result in results:
                tally.records += 1
                _tick(progress)
                if result.output is None:
                    tally.invalid += 1
                    _reject(raw, result.error, reject_out, quiet)
                    continue
                if converted and not lines_out:
                    raise _Usage(
                        "several records cannot be one JSON document; write a .jsonl output"
                    )
                converted += 1
                out.write(result.output)
                if result.losses:
                    lossy += 1
                    lost_pointers += result.losses
                if loss_out is not None and result.report is not None:
                    loss_out.write(result.report)
        finally:
            if progress is not None:
                progress.stop()
        if isinstance(out, AtomicWriter) and not lines_out and not converted:
            out.abort()  # an empty file is not a JSON document; write nothing
        for writer in (out, reject_out, loss_out):
            if isinstance(writer, AtomicWriter) and not writer.closed:
                writer.commit()
        stack.pop_all()
    _err(
        f"{tally.records} records in: {converted} converted, {tally.invalid} rejected"
        + (f"; {lossy} converted with losses ({lost_pointers} values)" if lossy else "")
        + (f"; {tally.unreadable} inputs unreadable" if tally.unreadable else "")
        + ("" if losses or not lossy else "; --losses FILE lists them")
    )
    sys.exit(EXIT_INVALID if tally.invalid or tally.unreadable else EXIT_OK)


@dataclass(frozen=True, slots=True)
class _Converted:
    """One document converted (``output`` set) or rejected (``error`` says why)."""

    output: bytes | None
    error: str = ""
    losses: int = 0
    report: bytes | None = None
    """Its line of the ``--losses`` file, if asked for and there is something to say."""


def _convert_raw(source: str, to: str, strict: bool, report: bool, raw: Raw) -> _Converted:
    """Everything but the writing (in a worker process, with --jobs)."""
    record = parse(raw)
    result, error = _convert_one(record, source, to, strict)
    if result is None:
        return _Converted(None, error)
    target = result.target
    # the serializer's own bytes: model_dump_json() would decode them to str, and writing
    # would encode them again (two copies of every record)
    output = target.__pydantic_serializer__.to_json(target) + b"\n"
    wanted = report and (result.losses or result.derived)
    return _Converted(
        output, losses=len(result.losses), report=_loss_line(record, result) if wanted else None
    )


def _convert_one(
    record: Record, source: str, to: str, strict: bool
) -> tuple[Conversion[BaseModel] | None, str]:
    if record.error is not None:
        return None, record.error
    name, reason = _model_for(record, source)
    if name is None:
        return None, reason
    model, problems = validate(record, MODELS[name])
    if model is None:
        return None, "; ".join(f"{p or '/'}: {m}" for p, m in problems)
    try:
        return convert(model, MODELS[to], strict=strict), ""
    except LossError as error:
        return None, str(error).replace("\n", " ")


def _reject(record: Raw, error: str, out: IO[bytes] | AtomicWriter | None, quiet: bool) -> None:
    if not quiet:
        _err(f"{record.source}:{record.line}: rejected: {error}")
    if out is not None:
        text = record.raw.decode("utf-8", errors="surrogateescape")
        line = {"file": record.source, "line": record.line, "error": error, "record": text}
        out.write(json.dumps(line, ensure_ascii=True).encode("ascii") + b"\n")


def _loss_line(record: Record, result: Conversion[BaseModel]) -> bytes:
    return (
        json.dumps(
            {
                "file": record.source,
                "line": record.line,
                "losses": [
                    {"pointer": loss.pointer, "reason": loss.reason} for loss in result.losses
                ],
                "derived": [
                    {"pointer": d.pointer, "value": d.value, "reason": d.reason}
                    for d in result.derived
                ],
            },
            ensure_ascii=False,
        ).encode("utf-8")
        + b"\n"
    )


def _open_output(path: str, stack: ExitStack) -> IO[bytes] | AtomicWriter:
    if path == "-":
        return sys.stdout.buffer
    try:
        writer = AtomicWriter(path)
    except InputError as error:
        raise _Usage(str(error)) from None
    stack.callback(writer.abort)
    return writer


@main.command("show", epilog=_EPILOG)
@click.argument("file")
@click.option(
    "--format", "fmt", type=click.Choice(["auto", *FORMATS]), default="auto", show_default=True
)
def show_command(file: str, fmt: str) -> None:
    """Show one run: header (ids, status, times, tokens, cost) and a timeline."""
    from agentruns.show import render

    tally = _Tally()
    shown = 0
    for record in _records((file,), None, tally):
        name, reason = (None, record.error or "") if record.error else _model_for(record, fmt)
        if name is None:
            _err(f"{record.where}: {reason}")
            sys.exit(EXIT_INVALID)
        model, problems = validate(record, MODELS[name])
        if model is None:
            for pointer, message in problems:
                _err(f"{record.where}: {pointer or '/'}: {message}")
            sys.exit(EXIT_INVALID)
        render(model, name)
        shown += 1
    sys.exit(EXIT_INVALID if tally.unreadable or not shown else EXIT_OK)


@main.command("schema", epilog=_EPILOG)
@click.argument("format_name", metavar="FORMAT", type=click.Choice(FORMATS))
@click.option("--source", is_flag=True, help="The vendored original (JSON Structure for agentrun).")
def schema_command(format_name: str, source: bool) -> None:
    """Print the JSON Schema the models enforce (agentrun: the translated one)."""
    text = schema_text(format_name, source=source)
    click.echo(text, nl=not text.endswith("\n"))


def run() -> None:
    """Console-script entry point: click's usage errors exit 2; no traceback reaches a user."""
    try:
        # not standalone: click would turn Ctrl-C into "Aborted!" and exit 1, the code for
        # invalid input
        code = main.main(standalone_mode=False)
    except (KeyboardInterrupt, click.exceptions.Abort):
        _err("interrupted; no output file was written (a previous one is left as it was)")
        sys.exit(EXIT_INTERRUPTED)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except OSError as error:  # e.g. the disk filled up while writing
        _err(f"error: {error.strerror or error}: {error.filename or ''}".rstrip(": "))
        sys.exit(EXIT_USAGE)
    sys.exit(code if isinstance(code, int) else EXIT_OK)  # --help, --version
