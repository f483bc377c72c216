"""One run of ``agentruns import``: transcripts read, written as a record, accounted for.

What the command does per run, without click: read the transcripts (the rounds of one run),
write the run as a record of the target format with the values the user gave, and say what
became of it (the record, or why not; the problems met reading; the lines for the rejects and
losses files). The command only routes these to its outputs and messages.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel

from agentruns.batch import rejection
from agentruns.errors import RecordError, TranscriptError
from agentruns_generated._json import JsonValue

__all__ = ["RunImport", "import_run"]


@dataclass(frozen=True, slots=True)
class RunImport:
    """What became of one run."""

    names: tuple[str, ...]
    """Its transcripts (the rounds of the run, in order)."""
    record: BaseModel | None
    """The record; None when the run could not be one (see ``error``)."""
    error: str = ""
    problems: tuple[tuple[str, str], ...] = ()
    """Why the record was refused: (JSON pointer, message) each."""
    notes: tuple[str, ...] = ()
    """What reading the transcripts met (a truncated stream, an unknown event...)."""
    report: bytes | None = None
    """The run's line of a losses file (JSON): losses, derived values, problems, skipped."""
    kept: tuple[str, ...] = ()
    """Given values the session already holds: its own were kept (``override`` replaces)."""

    @property
    def where(self) -> str:
        """The run, as messages name it."""
        names = self.names
        return names[0] if len(names) == 1 else f"{names[0]} (+{len(names) - 1} rounds)"

    @property
    def rejected(self) -> bytes:
        """The run's line of a rejects file (the one shape every command writes)."""
        names = self.names
        error = self.error
        whole = error if len(names) == 1 else f"{error} (transcripts: {', '.join(names)})"
        return rejection(names[0] if names else "-", 0, self.problems, None, whole)


def import_run(
    names: Sequence[str],
    to: str,
    *,
    harness: str = "auto",
    values: Mapping[str, JsonValue] | None = None,
    conversation: str | None = None,
    override: bool = False,
) -> RunImport:
    """Read one run's transcripts and write it as a record of ``to`` (``values``: property
    names or JSON pointers the transcript does not give; with ``override``, also those it
    does). What ``to`` requires and the session does not state is derived from the session
    where it can be (the agent from the harness, the id from the file's name, cortex's kind),
    and reported as derived. Never raises for the run's own faults: a transcript that cannot
    be read, or a run no record of ``to`` can be, is a ``RunImport`` without a record."""
    from agentruns import transcripts as readers
    from agentruns.transcripts._record import to_record

    given = tuple(names)
    try:
        transcript = readers.load(list(given), harness, conversation=conversation)
    except TranscriptError as error:
        return RunImport(given, None, str(error))
    notes = tuple(str(problem) for problem in transcript.problems)
    try:
        imported = to_record(
            transcript.run, to, values or {}, source=given[0] if given else "", override=override
        )
    except RecordError as error:
        return RunImport(given, None, str(error), error.problems, notes)
    report = {
        "file": list(given),
        "harness": transcript.harness,
        "losses": [{"pointer": x.pointer, "reason": x.reason} for x in imported.losses],
        "derived": [
            {"pointer": d.pointer, "value": d.value, "reason": d.reason} for d in imported.derived
        ],
        "problems": list(notes),
        "skipped": dict(transcript.skipped),
    }
    return RunImport(
        given,
        imported.record,
        notes=notes,
        report=json.dumps(report).encode() + b"\n",
        kept=imported.kept,
    )
