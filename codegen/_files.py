"""Writing the build step's files so that a fault never leaves half of one behind.

Every file is written to a temporary name beside it and renamed over it. A set of files is
written in two phases: all temporary files first (a failure, a full disk or a signal there
removes them all and changes nothing), then the renames, which take microseconds.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import FrameType
from typing import NoReturn


def _temporary(target: Path, text: str) -> str:
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return temporary


def atomic_write(target: Path, text: str) -> None:
    """``target`` holds ``text``, or (on any failure) what it held before."""
    write_all({target: text})


def write_all(files: Mapping[Path, str]) -> None:
    """Every file holds its text; on a failure before the renames, none has changed."""
    written: dict[Path, str] = {}
    try:
        for target, text in files.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            written[target] = _temporary(target, text)
    except BaseException:
        for temporary in written.values():
            Path(temporary).unlink(missing_ok=True)
        raise
    for target, temporary in written.items():
        os.replace(temporary, target)


class Stopped(BaseException):
    """A stopping signal (SIGTERM, SIGINT, SIGHUP) arrived: unwind, cleaning up."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def _stop(number: int, frame: FrameType | None) -> NoReturn:
    raise Stopped(number)


@contextlib.contextmanager
def stoppable() -> Iterator[None]:
    """Within the block a stopping signal raises ``Stopped`` instead of killing the process
    at once, so the temporary files are removed on the way out."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only; there is nothing to install
        return
    numbers = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    previous = {number: signal.signal(number, _stop) for number in numbers}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
