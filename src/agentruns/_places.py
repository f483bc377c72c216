"""Where the lines of a plain file are, and reading one of them again, in any process.

A batch that sent its workers every byte of its input did it through pipes, copying each
record four times in the one process that feeds them all; the places of the lines are a few
numbers each. The lines are found as ``agentruns.io``'s streaming reader reads them (its
oracle in tests/test_placed_records.py): split at newlines, a BOM skipped on line 1, line
ends and blank lines left out, a line past the limit known by its length alone.
"""

from __future__ import annotations

import contextlib
import os
import stat
import weakref
from collections.abc import Iterator
from typing import NamedTuple

from agentruns.errors import InputError

__all__ = ["Opened", "Place", "read", "scan"]

BOM = b"\xef\xbb\xbf"
_BLOCK = 1 << 20
_LINE_END = frozenset(b"\r\n")
_SPACE = frozenset(b" \t\n\r\x0b\x0c")
"""What ``bytes.isspace`` takes for space."""


class Place(NamedTuple):
    """Where a line's document lies in a plain file, which file that was, and where the
    process that scanned it holds it open."""

    offset: int
    length: int
    device: int
    inode: int
    holder: int = 0
    """The process that scanned the file (0: none)."""
    held: int = -1
    """Its descriptor of the file, open while a place in it is held."""


class Opened:
    """A scanned file, open while a place in it is held (then closed): what its lines are
    read from in this process. Holding it open also keeps its inode from being given to a
    file made under its name after it was removed."""

    __slots__ = ("__weakref__", "descriptor")

    def __init__(self, descriptor: int) -> None:
        self.descriptor = descriptor
        weakref.finalize(self, _close_quietly, descriptor)


def _close_quietly(descriptor: int) -> None:
    with contextlib.suppress(OSError):
        os.close(descriptor)


_ELSEWHERE: list[tuple[str, int, int, int]] = []
"""The file another process scanned, open in this one: (name, descriptor, device, inode).
One: a worker reads a batch's records file after file."""


def read(source: str, at: Place, file: Opened | None) -> bytes:
    """The bytes at ``at``: from ``file`` (this process scanned it), else from the file named
    ``source``, which must be the one scanned (``InputError`` when it was replaced)."""
    try:
        descriptor = file.descriptor if file is not None else _opened_here(source, at)
        data = os.pread(descriptor, at.length, at.offset)
    except OSError as error:
        raise InputError(f"{source}: cannot read again: {error.strerror or error}") from None
    if len(data) != at.length:
        raise InputError(f"{source}: the file was cut while it was read")
    return data


def _opened_here(source: str, at: Place) -> int:
    """The scanned file, open in this process: through the scanning process's own
    descriptor where the system shows it (Linux's ``/proc/PID/fd``: the same file, even
    once its name is removed or given to another), else by its name."""
    if _ELSEWHERE:
        name, descriptor, device, inode = _ELSEWHERE[0]
        if name == source and (device, inode) == (at.device, at.inode):
            return descriptor
        _ELSEWHERE.clear()
        _close_quietly(descriptor)
    for path in (f"/proc/{at.holder}/fd/{at.held}", source) if at.held >= 0 else (source,):
        try:
            descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            if path == source:
                raise
            continue
        status = os.fstat(descriptor)
        if (status.st_dev, status.st_ino) == (at.device, at.inode):
            _ELSEWHERE.append((source, descriptor, at.device, at.inode))
            return descriptor
        _close_quietly(descriptor)  # (a descriptor given to another file since; a new file)
    raise InputError(f"{source}: the file was replaced while it was read")


def scan(path: str, limit: int) -> tuple[Opened, Iterator[tuple[int, Place | bytes | None]]] | None:
    """The lines of the plain file ``path`` that hold a document, as (line number, its
    document): its place, or for a short one (under ``SMALL`` bytes) its bytes, which cost
    less to send than to read again; None for a line of ``limit`` bytes or more (its newline
    included, as a ``readline(limit)`` that does not reach the newline says). None for what
    is no plain file (a FIFO, a device: never opened here, its writer would be taken from
    its reader) or cannot be opened."""
    if not hasattr(os, "pread"):  # (not on Windows: read as a stream there)
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    opened = Opened(descriptor)
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):  # (replaced since)
        return None
    return opened, _lines(opened, limit, status.st_dev, status.st_ino)


SMALL = 8 << 10
"""Documents shorter than this travel as their bytes (a place, read again in the worker,
costs a system call and a Python object more than it saves on a short line)."""


def _lines(
    opened: Opened, limit: int, device: int, inode: int
) -> Iterator[tuple[int, Place | bytes | None]]:
    descriptor, holder = opened.descriptor, os.getpid()
    block, block_at = b"", 0  # the block read last, and where in the file it begins

    def byte(position: int) -> int:
        if block_at <= position < block_at + len(block):
            return block[position - block_at]
        return os.pread(descriptor, 1, position)[0]

    def document(number: int, start: int, end: int, last: bool) -> Place | bytes | None:
        """The line from ``start`` to ``end`` (past its newline, if it has one): its
        document (see ``scan``), or ``_BLANK``."""
        if end - start > limit or (last and end - start >= limit):
            return None
        if end - start < SMALL:  # as ``_jsonl`` reads a line, from its bytes
            line = (
                block[start - block_at : end - block_at]
                if start >= block_at
                else os.pread(descriptor, end - start, start)
            )
            if number == 1 and line.startswith(BOM):
                line = line[len(BOM) :]
            body = line.rstrip(b"\r\n")
            return _BLANK if not body or body.isspace() else body
        if number == 1 and os.pread(descriptor, len(BOM), start) == BOM:
            start += len(BOM)
        stop = end
        while stop > start and byte(stop - 1) in _LINE_END:
            stop -= 1
        if stop == start or (
            byte(start) in _SPACE and os.pread(descriptor, stop - start, start).isspace()
        ):
            return _BLANK  # blank lines separate nothing in JSONL; they are not records
        return Place(start, stop - start, device, inode, holder, descriptor)

    number, start, position = 0, 0, 0
    while read := os.pread(descriptor, _BLOCK, position):
        block, block_at = read, position  # (the last block stays: a last line may be in it)
        position += len(block)
        find = block.find
        newline = find(b"\n")
        while newline >= 0:
            number += 1
            end = block_at + newline + 1
            found = document(number, start, end, last=False)
            if found is not _BLANK:
                yield number, found
            start = end
            newline = find(b"\n", newline + 1)
    if start < position:  # a last line without its newline
        found = document(number + 1, start, position, last=True)
        if found is not _BLANK:
            yield number + 1, found


_BLANK = b""
"""What a blank line holds (no document; its bytes are empty, a document's never are)."""
