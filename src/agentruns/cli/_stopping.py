"""Stopping signals: SIGTERM and SIGHUP end a run as Ctrl-C does, at the next point where
nothing is left half written; a stop whose first raising was swallowed is raised again."""

from __future__ import annotations

import signal
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


def _stop_point() -> None:
    """Raise the stop again if its first raising was swallowed (see ``_stop_requested``)."""
    if _stop_requested:
        number = _stop_requested[0]
        if number == signal.SIGINT:
            raise KeyboardInterrupt
        raise _Stopped(number)


_STOPPING = (signal.SIGTERM, signal.SIGHUP)
