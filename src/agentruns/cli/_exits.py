"""How a command ends: the exit codes (one table, README.md says the same) and the
exceptions that carry them to ``run``."""

from __future__ import annotations

import click

from agentruns._report import emit

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


class _PipeClosed(BaseException):
    """Standard output's reader went away (``| head``). Not an OSError: click turns an
    EPIPE OSError into exit 1, the code for invalid input."""
