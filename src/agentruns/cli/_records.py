"""What the commands that read files of records share: saying problems and losses,
rejects, outputs opened and committed together, the batch a command runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import IO, TYPE_CHECKING, TypeVar

from agentruns._output import Output, Records
from agentruns._report import Kind, Reporter
from agentruns._text import printable
from agentruns.batch import Batch, Outcome, Tally, reject_line
from agentruns.cli._exits import _err, _Usage, _WriteFailed
from agentruns.cli._progress import _Progress
from agentruns.cli._stopping import _stop_point
from agentruns.errors import OutputError
from agentruns.io import Raw, bytes_of
from agentruns.pipeline import Outputs
from agentruns.pipeline._outcome import Problems

if TYPE_CHECKING:
    from agentruns.otlp import TracesFile

V = TypeVar("V")


def _unreadable(message: str) -> None:
    _err(printable(message))


def _unreadable_note(tally: Tally) -> str:
    return f"; {_count(len(tally.unreadable), 'input')} unreadable" if tally.unreadable else ""


def _say_problems(report: Reporter, kind: Kind, raw: Raw, outcome: Outcome[object]) -> None:
    """Each problem of a record, at its value's line and column."""
    _say_at(report, kind, raw, outcome.format, outcome.problems)


def _say_at(report: Reporter, kind: Kind, raw: Raw, fmt: str | None, said: Problems) -> None:
    """Each (pointer, message) said of a record, at its value's line and column (the record
    read again only for a message that is written)."""
    for pointer, message in said:
        report.say(
            kind,
            raw.source,
            raw.line,
            message,
            raw=partial(bytes_of, raw),
            pointer=pointer,
            fmt=fmt,
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


def _say_losses(raw: Raw, outcome: Outcome[Problems], messages: Reporter) -> None:
    """Each value the conversion lost (``convert_document``'s value: pointer, reason)."""
    _say_at(messages, "loss", raw, outcome.format, outcome.value or ())


def _reject(
    raw: Raw, outcome: Outcome[object], *, out: IO[bytes] | Output | None, messages: Reporter
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
    work: Callable[[Raw], Outcome[V]],
    inputs: Sequence[str],
    jsonl: bool,
    jobs: int | None,
    max_record_size: int,
) -> Batch[V]:
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
