"""The step of ``agentruns import``: one run's transcripts in, its record out (as the bytes
written), what reading met and what was refused beside it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from agentruns._serialize import json_chunks
from agentruns.io import MAX_RECORD_SIZE
from agentruns.pipeline._outcome import NOTHING, Outcome
from agentruns.pipeline._sessions import FolderEnd, NotRead, RunItem, _holds_a_session
from agentruns_generated._json import JsonValue

if TYPE_CHECKING:
    from agentruns.transcripts import RunImport

__all__ = ["ImportStep"]


@dataclass(frozen=True)
class ImportStep:
    """A run's transcripts (the rounds of one run, in order) made a record of ``to``, in a
    worker: accepted with the record's line (``output``), or rejected with why; ``value``
    is what became of the run (its notes, the values it kept; the record itself stays in
    the worker). A record larger than ``max_size``, which no other command would read, is
    refused with its size. See ``agentruns.transcripts.import_run`` for the rest."""

    to: str
    harness: str = "auto"
    values: dict[str, JsonValue] = field(default_factory=dict)
    conversation: str | None = None
    override: bool = False
    max_size: int = MAX_RECORD_SIZE

    @staticmethod
    def names(item: RunItem) -> tuple[str, ...]:
        """The transcripts an item names, as a run's messages name them."""
        if isinstance(item, NotRead | FolderEnd):
            return (item.path,)
        return (item[0],) if isinstance(item, tuple) else tuple(item)

    def __call__(self, item: RunItem) -> Outcome[RunImport]:
        from agentruns import transcripts as readers

        harness = self.harness
        if isinstance(item, NotRead):
            return item.outcome()
        if isinstance(item, FolderEnd):
            if _holds_a_session(item.path):
                return NOTHING
            names = [item.path]  # rejected as what it is: a folder without a session
        elif isinstance(item, tuple):  # a file of a folder: a run if a harness wrote it
            path, known = item
            if harness == "auto" and self.conversation is None:
                # recognized and read in one pass (``detect`` would parse its first lines,
                # then the reading all of them again)
                opened = readers.open_session(path, known)
                if opened is None:
                    return NOTHING
                if isinstance(opened, readers.Transcript):
                    done = readers._imported((path,), opened, self.to, self.values, self.override)
                    return self._outcome(done)
                # (unreadable: read again below, for the error in the words it always had)
            if known is None:
                try:
                    known = readers.detect(path)
                except readers.TranscriptError:
                    return NOTHING
            names = [path]
            harness = known if harness == "auto" else harness
        else:
            names = item
        done = readers.import_run(
            names,
            self.to,
            harness=harness,
            values=self.values,
            conversation=self.conversation,
            override=self.override,
        )
        return self._outcome(done)

    def _outcome(self, done: RunImport) -> Outcome[RunImport]:
        if done.record is None:
            return _refused(done)
        body = b"".join(json_chunks(done.record))
        if len(body) > self.max_size:
            why = (
                f"the {self.to} record is {len(body):,} bytes, larger than the maximum record "
                f"size ({self.max_size:,} bytes; --max-record-size): the other commands would "
                "refuse it"
            )
            return _refused(replace(done, record=None, error=why))
        kept = replace(done, record=None)
        return Outcome(self.to, output=body + b"\n", report=done.report, value=kept)


def _refused(done: RunImport) -> Outcome[RunImport]:
    """A run that made no record: its error first, then each problem of the record refused."""
    return Outcome(problems=(("", done.error), *done.problems), value=done)
