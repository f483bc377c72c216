"""The progress line of a long run, on standard error, only when it is a terminal."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Sequence

from agentruns._compression import compression_of
from agentruns._report import showing
from agentruns.io import Raw


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
        self.add(1, raw.size + 1)

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
