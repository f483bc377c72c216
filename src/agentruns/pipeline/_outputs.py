"""The outputs of a job: the files it writes, made to appear together when it succeeds and
left as they were when it does not (a stop, a full disk, an error)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import IO, Protocol, TypeVar

from agentruns._output import Output, refuse_overlaps
from agentruns.errors import OutputError

__all__ = ["Committable", "Outputs"]

C = TypeVar("C", bound="Committable")


class Committable(Protocol):
    """An output made of more than one file (a folder of tables): made final by ``commit``,
    left as it was by ``abort``."""

    def commit(self) -> None: ...

    def abort(self) -> None: ...


class Outputs:
    """The files one run writes, by the option that names them (``{"-o": path, ...}``).

    Refused before anything is read when one is an input or two are one file
    (``OutputError``); each regular file written to a temporary file beside it (see
    ``agentruns._output``); ``-`` is standard output. ``commit`` makes them all appear; an
    exception or a stop before it leaves every previous file as it was.
    """

    def __init__(self, inputs: Sequence[str], named: Mapping[str, str | None]) -> None:
        refuse_overlaps(tuple(inputs), {flag: path or "-" for flag, path in named.items()})
        self.named = dict(named)
        self.pending: list[tuple[str, Committable]] = []
        """What is to be committed, in the order it was opened."""

    def open(self, flag: str) -> IO[bytes] | Output | None:
        """The writer for the output ``flag`` names (None: it names none); ``OutputError``
        when it cannot be written."""
        path = self.named.get(flag)
        if path is None:
            return None
        if path == "-":
            return sys.stdout.buffer
        writer = Output(path)
        self.pending.append((flag, writer))
        return writer

    def hold(self, flag: str, output: C) -> C:
        """Commit and abort ``output`` (a folder of tables) with the others."""
        self.pending.append((flag, output))
        return output

    def commit(self, before: Callable[[], None] | None = None) -> None:
        """Make every output appear (``before``: called first, a last point to stop at);
        ``OutputError`` naming the output that could not be written (a full disk), the
        ones not yet committed then left out."""
        if before is not None:
            before()
        while self.pending:
            flag, output = self.pending[0]
            try:
                output.commit()
            except OSError as error:
                path = self.named.get(flag) or flag
                raise OutputError(f"cannot write {path}: {error.strerror or error}") from None
            self.pending.pop(0)

    def abort(self) -> None:
        """Remove every temporary file; the previous files stay as they were."""
        for _, output in self.pending:
            output.abort()
        self.pending.clear()

    def __enter__(self) -> Outputs:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.abort()  # after a commit there is nothing left to abort
