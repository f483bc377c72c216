"""The console script: an exit code for every way a run ends, never a traceback."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import NoReturn

import click

from agentruns._text import printable
from agentruns.cli._app import main
from agentruns.cli._exits import (
    EXIT_HANGUP,
    EXIT_INTERRUPTED,
    EXIT_IO,
    EXIT_OK,
    EXIT_SOFTWARE,
    EXIT_TERMINATED,
    _err,
    _PipeClosed,
    _Stopped,
    _WriteFailed,
)
from agentruns.cli._stopping import install, stop_requested


def _quit_on_broken_pipe() -> NoReturn:
    """A reader that went away (``| head``) is not an error of ours: stop quietly."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # nothing more to flush at exit
    # Every output was aborted as the command unwound. The interpreter's own exit would join
    # the worker pool's manager thread, which waits for ever for the rest of a result a killed
    # worker was writing (the reader left mid-run, the workers were killed): end here.
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(128 + signal.SIGPIPE)


_ENDINGS = {
    signal.SIGTERM.value: ("terminated", EXIT_TERMINATED),
    signal.SIGHUP.value: ("hung up", EXIT_HANGUP),
}


def _escape_what_the_terminal_cannot_show() -> None:
    """Text a stream's encoding has no character for (a record's non-ASCII text on an ASCII
    terminal) is written as an escape (``\\xe9``), never an error: the command says what it
    has to say on any terminal. Records written to standard output are bytes, untouched."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def _end_stopped(number: int) -> NoReturn:
    what, ending = _ENDINGS.get(number, ("interrupted", EXIT_INTERRUPTED))
    _err(f"{what}; no output file was written (a previous one is left as it was)")
    sys.exit(ending)


def run() -> None:
    """Console-script entry point: an exit code for every way a run ends, never a traceback."""
    install()
    _escape_what_the_terminal_cannot_show()
    try:
        # not standalone: click would turn Ctrl-C into "Aborted!" and exit 1, the code for
        # invalid input
        code = main.main(standalone_mode=False)
    except (KeyboardInterrupt, click.exceptions.Abort, _Stopped) as stop:
        _end_stopped(stop.number if isinstance(stop, _Stopped) else signal.SIGINT.value)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except (BrokenPipeError, _PipeClosed):
        _quit_on_broken_pipe()
    except _WriteFailed as error:
        _err(f"error: {printable(str(error))}; nothing was left behind")
        sys.exit(EXIT_IO)
    except OSError as error:  # reading failed half way (an I/O error), say
        _err(printable(f"error: {error.strerror or error}: {error.filename or ''}".rstrip(": ")))
        sys.exit(EXIT_IO)
    except Exception as error:  # a bug: one line, the code for it, nothing left behind
        if stop_requested():
            # the stop, raised where the interpreter made it another error: a signal that
            # lands while a class is made (a lazy import of the models) raises it in a
            # descriptor's ``__set_name__``, which Python 3.11 turns into a RuntimeError
            _end_stopped(stop_requested()[0])
        if os.environ.get("AGENTRUNS_TRACEBACK"):
            raise
        text = " ".join(str(error).split())[:300]
        _err(printable(f"internal error ({type(error).__name__}: {text}); please report it"))
        sys.exit(EXIT_SOFTWARE)
    sys.exit(code if isinstance(code, int) else EXIT_OK)  # --help, --version
