"""A bounded read that costs what it reads, not what it may read."""

from __future__ import annotations

import os
import stat
from typing import IO, Protocol

__all__ = ["up_to"]

_PIECE = 1 << 20


class _Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


def up_to(stream: IO[bytes] | _Readable, limit: int) -> bytes:
    """At most ``limit`` bytes of ``stream`` (all of a smaller file), one past ``limit`` to
    say that there is more: ``read(limit + 1)`` itself would first allocate ``limit + 1``
    bytes, which for a bound of 64 MiB is most of the time of reading a file of kilobytes.
    A regular file is read at its size; anything else (a pipe, a decompressed stream) in
    pieces."""
    most = limit + 1
    size = _size(stream)
    if size is not None and 0 < size < most:
        first = stream.read(size + 1)  # one past its size: a file that grew since
        if len(first) <= size:
            return first
        return first + _pieces(stream, most - len(first))
    return _pieces(stream, most)


def _size(stream: object) -> int | None:
    fileno = getattr(stream, "fileno", None)
    if fileno is None:
        return None
    try:
        status = os.fstat(fileno())
    except (OSError, ValueError):  # no descriptor (a wrapped or replaced stream)
        return None
    if not stat.S_ISREG(status.st_mode):
        return None
    try:
        left = status.st_size - stream.tell()  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return None
    return left if left > 0 else None


def _pieces(stream: IO[bytes] | _Readable, most: int) -> bytes:
    pieces: list[bytes] = []
    while most > 0:
        piece = stream.read(min(most, _PIECE))
        if not piece:
            break
        pieces.append(piece)
        most -= len(piece)
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)
