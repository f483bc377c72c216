"""The sessions agents keep as items of a job: the source that walks a folder (each file
that cannot be read an item of its own, in its place) and the step that opens a session in
the worker before the work proper (a stats' facts, a trace, a show)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic

from typing_extensions import TypeVar

from agentruns.pipeline._outcome import NOTHING, Outcome

if TYPE_CHECKING:
    from agentruns.canonical import Run
    from agentruns.transcripts import Summary, Transcript

__all__ = [
    "Candidate",
    "FolderEnd",
    "NotRead",
    "RunItem",
    "SessionStep",
    "is_folder_of_sessions",
    "read_session",
    "runs_of",
    "session_items",
    "session_size",
]

V = TypeVar("V", default=None)

Candidate = tuple[str, str | None]
"""What may be a session: what ``agentruns.transcripts.load`` takes, and its harness (None:
a file the step sniffs, in the worker)."""


@dataclass(frozen=True, slots=True)
class NotRead:
    """A file of a folder of sessions that could not be read at all (a FIFO, a device, no
    permission), as an item in its place: named in order among the sessions, never passed
    over in silence."""

    path: str
    reason: str

    def outcome(self) -> Outcome[V]:
        return Outcome(unreadable=f"{self.path}: {self.reason}")


def session_items(
    source: str | Path,
    *,
    passed: Callable[[str, os.stat_result], bool] | None = None,
) -> Iterator[Candidate | NotRead]:
    """The candidates of a folder of sessions (or of the session file ``source`` is), in
    path order, each file that could not be read a ``NotRead`` in its place; ``passed``
    leaves files alone before they are opened (see ``agentruns.transcripts.candidates``)."""
    from agentruns.transcripts import candidates

    skipped: list[NotRead] = []
    for item in candidates(
        source, lambda path, why: skipped.append(NotRead(path, why)), passed=passed
    ):
        yield from skipped
        skipped.clear()
        yield item
    yield from skipped


class SessionStep(Generic[V]):
    """A step over the items of ``session_items``: the session opened (sniffed first, when
    its harness is not known), then ``make`` its outcome from its name and what it holds. A
    file no harness wrote gives ``NOTHING``; one that cannot be read is rejected with the
    reason. ``make`` must be picklable (a module-level function).

    ``light``, for a step that needs a session's figures and not its run: the outcome of a
    Claude Code session from the summary its one-pass reader makes
    (``agentruns.transcripts.light_summary``), the run never built; ``make`` still has every
    other session."""

    def __init__(
        self,
        make: Callable[[str, Transcript], Outcome[V]],
        light: Callable[[str, Summary], Outcome[V]] | None = None,
    ) -> None:
        self.make = make
        self.light = light

    def __call__(self, item: Candidate | NotRead) -> Outcome[V]:
        from agentruns.transcripts import Unreadable, light_summary, open_session

        if isinstance(item, NotRead):
            return item.outcome()
        if self.light is not None:
            summary = light_summary(*item)
            if summary is not None:
                return self.light(item[0], summary)
        transcript = open_session(*item, light=self.light is None)
        if transcript is None:
            return NOTHING
        if isinstance(transcript, Unreadable):
            return Outcome(problems=(("", transcript.reason),))
        return self.make(item[0], transcript)


def is_folder_of_sessions(name: str) -> bool:
    """A folder that is not itself one session (a Cline task, an OpenCode storage tree is
    one): each session under it is a run of its own."""
    from agentruns import transcripts as readers

    if not os.path.isdir(name):
        return False
    try:
        readers.detect(name)
    except readers.TranscriptError:
        return True
    return False


@dataclass(frozen=True, slots=True)
class FolderEnd:
    """The item after a folder's sessions (``runs_of``): the folder itself, rejected as what
    it is when no file under it is a session (its step looks, in a worker)."""

    path: str


RunItem = list[str] | Candidate | NotRead | FolderEnd
"""An item of ``runs_of``: a run's transcripts, a candidate session of a folder, a file of
a folder that could not be read, or the end of a folder."""


def runs_of(inputs: Sequence[str]) -> Iterator[RunItem]:
    """The runs ``agentruns import`` makes of its inputs: each session of a folder a run of
    its own, found lazily (the folder walked here, each file recognized in a worker: a file
    no harness wrote is no run), a file of a folder that cannot be read a ``NotRead`` in its
    place, then the folder's ``FolderEnd``; any other input a run of one transcript."""
    for name in inputs:
        if is_folder_of_sessions(name):
            yield from session_items(name)
            yield FolderEnd(name)
        else:
            yield [name]


def _holds_a_session(folder: str) -> bool:
    """Whether a file under ``folder`` is a session, or one could not be read (looked at
    until the first is found)."""
    from agentruns import transcripts as readers

    unreadable: list[str] = []
    for _ in readers.sessions(folder, lambda path, why: unreadable.append(path)):
        return True
    return bool(unreadable)


def _transcript_run(name: str, transcript: Transcript) -> Outcome[Run]:
    return Outcome(transcript.harness, value=transcript.run)


read_session: SessionStep[Run] = SessionStep(_transcript_run)
"""The canonical run of a session (``value``; ``format`` is its harness), or why it cannot
be read: ``agentruns.batch.read_run`` for the items of ``session_items``."""


def session_size(item: Candidate | NotRead) -> int:
    """The bytes of a session's file (0 for what is not a regular file of its own)."""
    if isinstance(item, NotRead):
        return 0
    try:
        return os.stat(item[0].partition("#")[0]).st_size
    except OSError:
        return 0
