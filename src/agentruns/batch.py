"""Files of run records in, one outcome per record out: the steps of ``validate``,
``detect`` and ``convert`` and the stream of files they run on, for the command line and for
services alike (no click, no terminal).

The promise it keeps: **records in = accepted + rejected, always.** Every document read is
handled inside an error boundary: whatever goes wrong with one record (invalid JSON, a schema
error, a value the target cannot hold, a bug) becomes that record's rejection with a message
naming the cause, and the run goes on. A worker process that dies costs only the records it
held, each rejected with the reason. Memory is bounded by the maximum record size.

    from agentruns.batch import Batch, convert_document
    from functools import partial

    with Batch(partial(convert_document, to="agentrun"), ["runs.jsonl"]) as batch:
        for raw, outcome in batch:
            ...  # outcome.output (bytes) or outcome.problems
    batch.tally  # records, accepted, rejected, unreadable inputs, by format

A ``Batch`` is the pipeline's ``Stream`` (``agentruns.pipeline``) of files of records.
Deprecated, kept for one release: ``Boundary``, ``Outcome``, ``Problem``, ``Problems`` and
``Tally`` are ``agentruns.pipeline``'s; import them from there. ``handle_lines`` is
``agentruns.pipeline.Stream(work, raws_of(lines, name, first_line))``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from pydantic import BaseModel
from typing_extensions import TypeVar

from agentruns._json_text import compact
from agentruns._rejects import Placed, rejection
from agentruns.canonical import Run
from agentruns.conversion import Conversion, convert, format_named, to_canonical
from agentruns.detect import MODELS, detect
from agentruns.errors import AgentrunsError, ConversionError, InputError, LossError
from agentruns.io import (
    MAX_RECORD_SIZE,
    Layout,
    Raw,
    Record,
    bytes_of,
    parse,
    read_raw,
    too_large,
    validate,
)
from agentruns.pipeline import Outcome, Problem, Stream, Tally, run
from agentruns.pipeline._outcome import Problems
from agentruns.pipeline._stream import Boundary

V = TypeVar("V", default=None)

__all__ = [
    "Batch",
    "Boundary",
    "Lines",
    "Outcome",
    "Problem",
    "Problems",
    "Tally",
    "collect",
    "convert_document",
    "convert_lines",
    "detect_document",
    "handle_lines",
    "known_format",
    "raws_of",
    "read_inputs",
    "read_model",
    "read_run",
    "reject_line",
    "rejection",
    "validate_document",
    "validate_lines",
]


def known_format(name: str, *, auto: bool = True) -> str:
    """``name`` if a format has it (or it is ``auto`` where detection is allowed): a bad name
    is a ``FormatError`` before any record is read, not a rejection of every record."""
    if not (auto and name == "auto"):
        format_named(name)
    return name


# -- per-record work (runs in worker processes: module-level, picklable) -----------------


def read_model(record: Record, fmt: str = "auto") -> tuple[str | None, BaseModel | None, Problems]:
    """(format, model, problems) of a parsed document read as ``fmt`` (or as detected): the
    model when it is valid, else the problems (first the guess, when the format was guessed
    from the closest one)."""
    if record.error is not None:
        return None, None, (("", record.error),)
    name, reason = _model_for(record, fmt)
    if name is None:
        return None, None, (("", reason),)
    model, problems = validate(record, MODELS[name])
    if problems and reason:  # guessed from the closest format: say so first
        problems = [("", reason), *problems]
    return name, model, tuple(problems)


def read_run(raw: Raw, fmt: str = "auto") -> Outcome[Run]:
    """The canonical run of one document (``value``), read as ``fmt`` (or as detected), or
    why it is none: parse, read the model, make the run, written once for every step that
    works on runs (statistics, tables, show). A run the canonical form cannot hold is
    rejected with the reason."""
    name, model, problems = read_model(parse(raw), fmt)
    if model is None or name is None:
        return Outcome(name, problems)
    try:
        return Outcome(name, value=to_canonical(model))
    except AgentrunsError as error:
        return Outcome(name, (("", f"cannot read this run: {error}"),))


def detect_document(raw: Raw) -> Outcome:
    """The format one document is (accepted), or why it is none of them (rejected, with the
    closest format as its ``format``)."""
    record = parse(raw)
    if record.error is not None:
        return Outcome(None, (("", record.error),))
    found = detect(record.value)
    if found.format is not None:
        return Outcome(found.format)
    return Outcome(found.closest, (("", found.reason),))


def validate_document(raw: Raw, fmt: str = "auto") -> Outcome:
    """Validate one document against ``fmt`` (or the format detected from its shape)."""
    name, _, problems = read_model(parse(raw), fmt)
    return Outcome(name, problems)


def convert_document(
    raw: Raw, to: str, source: str = "auto", strict: bool = False, report: bool = False
) -> Outcome[Problems]:
    """Convert one document to the format ``to``; ``report`` asks for its losses line (and
    its losses as ``value``: (pointer, reason) each, for messages)."""
    record = parse(raw)
    name, model, problems = read_model(record, source)
    if model is None:
        return Outcome(name, problems)
    try:
        result = convert(model, MODELS[to], strict=strict)
    except LossError as error:
        said = f"converting {name} to {to} would lose {len(error.losses)} values (--strict)"
        return Outcome(name, (("", said), *((loss.pointer, loss.reason) for loss in error.losses)))
    except ConversionError as error:  # no record of the target format can hold this run
        return Outcome(name, (("", str(error)),))
    target = result.target
    if target is model:
        # a conversion to the record's own format that changes nothing: the record as it was
        # written (its key order, its numbers' spelling), on one line
        output = compact(record.value).encode() + b"\n"
    else:
        # the serializer's own bytes: model_dump_json() would decode them to str, and writing
        # would encode them again (two copies of every record)
        try:
            output = target.__pydantic_serializer__.to_json(target) + b"\n"
        except ValueError as error:  # pydantic's serializer stops at its depth limit
            said = f"the {to} record cannot be written: {' '.join(str(error).split())[:200]}"
            return Outcome(name, (("", said),))
    wanted = report and (result.losses or result.derived)
    return Outcome(
        name,
        output=output,
        losses=len(result.losses),
        derived=len(result.derived),
        report=_loss_line(record, result) if wanted else None,
        value=tuple((loss.pointer, loss.reason) for loss in result.losses) if wanted else None,
    )


def _model_for(record: Record, chosen: str) -> tuple[str | None, str]:
    """The format to read as: the chosen one, the detected one, or -- for a document no
    format fully matches -- the one it is most like, so its errors say what is wrong."""
    if chosen != "auto":
        return chosen, ""
    found = detect(record.value)
    return found.format or found.closest, found.reason


def _loss_line(record: Record, result: Conversion[BaseModel]) -> bytes:
    line = {
        "file": record.source,
        "line": record.line,
        "losses": [{"pointer": loss.pointer, "reason": loss.reason} for loss in result.losses],
        "derived": [
            {"pointer": d.pointer, "value": d.value, "reason": d.reason} for d in result.derived
        ],
    }
    return json.dumps(line, ensure_ascii=True).encode("ascii") + b"\n"


def reject_line(raw: Raw, problems: tuple[Problem, ...]) -> bytes:
    """The record's line for a rejects file: where it was, why, and its original text."""
    text = bytes_of(raw).decode("utf-8", errors="surrogateescape")
    return rejection(raw.source, raw.line, problems, text)


# -- a batch ------------------------------------------------------------------------------


class Batch(Stream[Raw, V]):
    """Every document of ``paths``, handled by ``work`` in ``jobs`` processes, in order: the
    ``agentruns.pipeline.Stream`` of files of records.

    Iterate for ``(raw, outcome)`` pairs; ``tally`` counts as you go. An unreadable input is
    counted in ``tally.unreadable`` (and passed to ``on_unreadable``) and skipped. Use it as a
    context manager (or ``close``): leaving early ends the worker processes at once. ``jobs``
    is capped at the CPUs this process may use (more processes than CPUs only cost memory);
    ``None`` means all of them.
    """

    def __init__(
        self,
        work: Callable[[Raw], Outcome[V]],
        paths: Iterable[str],
        *,
        layout: Layout | None = None,
        jobs: int | None = 1,
        max_record_size: int = MAX_RECORD_SIZE,
        on_unreadable: Callable[[str], None] | None = None,
    ) -> None:
        if isinstance(paths, str | bytes):
            raise TypeError(
                f"Batch takes a list of paths, not one path as a string: Batch(work, [{paths!r}])"
            )
        tally = Tally()
        documents = read_inputs(
            list(paths), layout, max_record_size, tally, on_unreadable=on_unreadable, placed=True
        )
        super().__init__(work, documents, jobs=jobs, size=_size, tally=tally)


# -- lines in, lines out: the API for engines that hand out partitions (Dask, Spark...) ------


def _size(raw: Raw) -> int:
    return raw.size


def read_inputs(
    paths: Iterable[str],
    layout: Layout | None,
    max_record_size: int,
    tally: Tally,
    *,
    on_unreadable: Callable[[str], None] | None = None,
    placed: bool = False,
) -> Iterator[Raw]:
    """Every document of ``paths``, one file after another: a file that cannot be read is
    counted in ``tally.unreadable`` (and given to ``on_unreadable``), and the next one read.
    How every batch reads its inputs (``Batch``, the tables' export). ``placed``: see
    ``agentruns.io.read_raw``."""
    for path in paths:
        try:
            yield from read_raw(path, layout, max_record_size, placed=placed)
        except InputError as error:
            tally.unreadable.append(str(error))
            if on_unreadable is not None:
                on_unreadable(str(error))


def raws_of(
    lines: Iterable[bytes],
    name: str = "-",
    first_line: int = 1,
    max_record_size: int = MAX_RECORD_SIZE,
) -> Iterator[Raw]:
    """The records of JSONL lines (with or without their newline) as ``Raw`` documents,
    numbered from ``first_line``; blank lines are numbered and skipped, as in a file."""
    for number, line in enumerate(lines, first_line):
        body = line.rstrip(b"\r\n")
        if number == 1 and body.startswith(b"\xef\xbb\xbf"):
            body = body[3:]
        if not body or body.isspace():
            continue
        if len(body) > max_record_size:
            yield Raw(name, number, b"", too_large(max_record_size))
        else:
            yield Raw(name, number, body)


def handle_lines(
    work: Callable[[Raw], Outcome],
    lines: Iterable[bytes],
    name: str = "-",
    first_line: int = 1,
) -> Iterator[tuple[Raw, Outcome]]:
    """Deprecated: ``Stream(work, raws_of(lines, name, first_line))`` (``agentruns.pipeline``)."""
    import warnings

    warnings.warn(
        "agentruns.batch.handle_lines is deprecated: iterate "
        "agentruns.pipeline.Stream(work, raws_of(lines, name, first_line))",
        DeprecationWarning,
        stacklevel=2,
    )
    with Stream(work, raws_of(lines, name, first_line)) as stream:
        yield from stream


@dataclass
class Lines:
    """What a part of a batch gave: output lines, rejects lines, losses lines, accounting."""

    output: list[bytes] = field(default_factory=list)
    rejects: list[bytes] = field(default_factory=list)
    losses: list[bytes] = field(default_factory=list)
    problems: list[Placed] = field(default_factory=list)
    """(file, line, pointer, message) of each problem, in order."""
    tally: Tally = field(default_factory=Tally)

    def add(self, raw: Raw, outcome: Outcome[object]) -> None:
        """Count one record's outcome and keep what it gives (``keep``)."""
        self.tally.count(outcome)
        self.keep(raw, outcome)

    def keep(self, raw: Raw, outcome: Outcome[object]) -> None:
        """Keep what one record's outcome gives, already counted: its output and losses
        lines if accepted, its rejects line and problems if not."""
        if outcome.problems:
            self.rejects.append(reject_line(raw, outcome.problems))
            self.problems += [(raw.source, raw.line, p, m) for p, m in outcome.problems]
        if outcome.output is not None:
            self.output.append(outcome.output)
        if outcome.report is not None:
            self.losses.append(outcome.report)


def collect(work: Callable[[Raw], Outcome[V]], raws: Iterable[Raw]) -> Lines:
    """``work`` on each record, each inside its error boundary, in this process, gathered
    into one ``Lines``: the pipeline's loop (``agentruns.pipeline.run``) for the per-part
    engines (the ``*_lines`` functions, the Dask parts, a table export)."""
    result = Lines()
    run(Stream(work, raws, tally=result.tally), accepted=result.keep, rejected=result.keep)
    return result


def convert_lines(
    lines: Iterable[bytes],
    to: str,
    *,
    source: str = "auto",
    strict: bool = False,
    name: str = "-",
    first_line: int = 1,
) -> Lines:
    """Convert JSONL lines: exactly what ``agentruns convert`` writes for them (output,
    ``--rejects`` and ``--losses`` lines), with no state outside the call."""
    return collect(_ConvertWork(to, source, strict), raws_of(lines, name, first_line))


def validate_lines(
    lines: Iterable[bytes], fmt: str = "auto", *, name: str = "-", first_line: int = 1
) -> Lines:
    """Validate JSONL lines: the problems ``agentruns validate`` reports, and the tally."""
    return collect(_ValidateWork(fmt), raws_of(lines, name, first_line))


@dataclass(frozen=True, slots=True)
class _ConvertWork:
    to: str
    source: str
    strict: bool

    def __post_init__(self) -> None:
        known_format(self.to, auto=False)
        known_format(self.source)

    def __call__(self, raw: Raw) -> Outcome[Problems]:
        return convert_document(raw, self.to, self.source, self.strict, report=True)


@dataclass(frozen=True, slots=True)
class _ValidateWork:
    fmt: str

    def __post_init__(self) -> None:
        known_format(self.fmt)

    def __call__(self, raw: Raw) -> Outcome:
        return validate_document(raw, self.fmt)
