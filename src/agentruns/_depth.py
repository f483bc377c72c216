"""The one depth policy: what the models validate, every reader and writer handles.

The generated models accept records nested up to pydantic-core's guard (about 250 levels of a
recursive model: an ATIF trajectory with 251 levels of subagents validates, one with 252 does
not). The readers and writers recurse into subagents with about six Python frames a level, so
Python's default limit (1,000 frames) ended them near 160 levels with a ``RecursionError``: a
record ``validate`` accepted was refused by ``convert``, and ``show`` crashed on it.

``make_room`` raises the interpreter's limit to ``ROOM`` (never lowers it), which holds the
guard's depth twice over through every command (measured: 2,000 frames are enough at 251
ATIF levels) while staying far inside the 8 MiB C stack of a Linux main thread. It is called
where records enter: the command, its worker processes, and the library's conversion
functions. Past the guard a record is the models' refusal, the same in every command.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["DEEP", "ROOM", "left_out", "make_room", "nests", "note_left_out"]

ROOM = 4000
"""Python frames the readers and writers may use (twice what the models' deepest record
needs)."""


def make_room() -> None:
    """Raise the recursion limit to ``ROOM`` if it is lower (a higher one is left alone)."""
    if sys.getrecursionlimit() < ROOM:
        sys.setrecursionlimit(ROOM)


DEEP = 128
"""Levels from which a value a model refuses as no JSON value is taken as refused for its
depth (pydantic-core's guard stops near 255 levels; no other refusal of a JSON value needs
half as many): a writer then leaves the value out and the conversion reports it lost at its
own pointer, where another refusal is the run's."""


def nests(value: object, levels: int = DEEP) -> bool:
    """Whether ``value`` (JSON as Python data) holds lists or objects ``levels`` deep: a walk
    with a stack of its own, so the depth it meets costs no Python frames."""
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        current, depth = pending.pop()
        if depth >= levels:
            return True
        if isinstance(current, dict):
            pending.extend((item, depth + 1) for item in current.values())
        elif isinstance(current, list | tuple):
            pending.extend((item, depth + 1) for item in current)
    return False


_LEFT_OUT: ContextVar[list[str] | None] = ContextVar("agentruns_left_out", default=None)


@contextmanager
def left_out() -> Iterator[list[str]]:
    """The values the writers leave out while this is open, each as ``pointer: why`` (a
    writer that reports no losses, ``from_canonical``, refuses the run with them)."""
    found: list[str] = []
    token = _LEFT_OUT.set(found)
    try:
        yield found
    finally:
        _LEFT_OUT.reset(token)


def note_left_out(pointer: str, why: str) -> None:
    """A writer left out the value at ``pointer`` (in the record it writes), for ``why``."""
    found = _LEFT_OUT.get()
    if found is not None:
        found.append(f"{pointer}: {why}")
