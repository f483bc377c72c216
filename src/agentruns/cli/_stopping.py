"""Stopping signals: SIGTERM and SIGHUP end a run as Ctrl-C does, at the next point where
nothing is left half written; a stop whose first raising was swallowed is raised again."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from types import FrameType
from typing import NoReturn

from agentruns.cli._exits import _Stopped

_stop_requested: list[int] = []
"""The stopping signal received, if any. The exception the handler raises can be swallowed
where Python cannot let it out (a finalizer, a weakref callback of the worker pool, printed as
"Exception ignored"); outputs are committed only after ``_stop_point``, so a stopped run never
ends as a finished one."""


def _raise_stopped(number: int, frame: FrameType | None) -> NoReturn:
    for other in _STOPPING:  # the first signal wins: a second one must not cut the cleanup
        signal.signal(other, signal.SIG_IGN)
    _stop_requested.append(number)
    raise _Stopped(number)


def _interrupt(number: int, frame: FrameType | None) -> NoReturn:
    """Ctrl-C, as Python raises it, remembered like the other stopping signals."""
    _stop_requested.append(number)
    raise KeyboardInterrupt


def stop_requested() -> list[int]:
    """The stopping signals received, the first the one that stops the run."""
    return _stop_requested


def _stop_point() -> None:
    """Raise the stop again if its first raising was swallowed (see ``_stop_requested``)."""
    if _stop_requested:
        number = _stop_requested[0]
        if number == signal.SIGINT:
            raise KeyboardInterrupt
        raise _Stopped(number)


_STOPPING = (signal.SIGTERM, signal.SIGHUP)


def install() -> None:
    """Make SIGTERM and SIGHUP stop a run as Ctrl-C does, and a stop the interpreter
    swallows no traceback on the terminal."""
    for stopping in _STOPPING:
        signal.signal(stopping, _raise_stopped)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupt)
    sys.unraisablehook = _keeping_dropped_stops(sys.unraisablehook)


def _keeping_dropped_stops(
    previous: Callable[[sys.UnraisableHookArgs], object],
) -> Callable[[sys.UnraisableHookArgs], object]:
    """``sys.unraisablehook`` that says nothing of a stop raised where the interpreter drops
    exceptions (a ``__del__``, a weakref callback, the worker pool's finalizers):
    it is raised again at the next stop point, so printing it as "Exception ignored" with a
    traceback would only show the user a trace of a run that stops as asked. Whatever else
    is dropped is reported as before."""

    def hook(unraisable: sys.UnraisableHookArgs) -> object:
        if _stop_requested and isinstance(unraisable.exc_value, _Stopped | KeyboardInterrupt):
            return None
        return previous(unraisable)

    return hook
