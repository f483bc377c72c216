"""Output files that never destroy anything: not an input, not a link, not a device.

A regular file is written to a temporary file beside it and renamed over it only when the run
succeeds, so an interrupted or failed run leaves the previous file (or none), never half a
file; the new file gets the mode the old one had (or what the umask gives a new file), and is
on disk (fsync of the file, rename, fsync of the folder) before the run says it is done.
A symlink is written through, to its target, and stays a link. A FIFO, a character device or
any other file that is not a regular file is written to directly: renaming over it would
replace the node (``-o /dev/null`` as root would delete the device).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from agentruns._compression import Compressor, MissingCodec, compression_of
from agentruns.errors import OutputError


def _umask() -> int:
    mask = os.umask(0)  # the only way to read it; set straight back
    os.umask(mask)
    return mask


class Output:
    """One output of a run: ``write`` bytes, then ``commit`` (or ``abort`` on any failure)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._compressor: Compressor | None = None
        self.target = os.path.realpath(path)  # through symlinks, to the file they name
        self._temporary: str | None = None
        self.stream: IO[bytes]
        try:
            info: os.stat_result | None = os.stat(self.target)
        except FileNotFoundError:
            info = None
        except OSError as error:
            raise OutputError(f"{path}: cannot write here: {error.strerror}") from None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise OutputError(f"{path}: is a directory; name an output file")
        if info is not None and not stat.S_ISREG(info.st_mode):
            # a FIFO, a device, a socket...: written to as it is, never replaced
            self.stream = _open_directly(path, self.target)
            self._compress()
            return
        directory = Path(self.target).parent
        if not directory.is_dir():
            raise OutputError(f"{path}: directory {directory} does not exist")
        mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~_umask()
        try:
            handle, self._temporary = tempfile.mkstemp(
                dir=directory, prefix=f".{Path(self.target).name}.", suffix=".partial"
            )
        except OSError as error:
            raise OutputError(f"{path}: cannot write here: {error.strerror}") from None
        try:
            os.fchmod(handle, mode)  # mkstemp makes 0600 whatever the umask
        except OSError:
            os.close(handle)
            Path(self._temporary).unlink(missing_ok=True)
            raise
        self.stream = os.fdopen(handle, "wb")
        self._compress()

    def _compress(self) -> None:
        """Compress what is written when the name says so (``.gz``, ``.zst``)."""
        kind = compression_of(self.path)
        if kind is None:
            return
        try:
            self._compressor = Compressor(kind, self.stream)
        except MissingCodec as error:
            self.abort()
            raise OutputError(f"{self.path}: {error}") from None

    @property
    def replaces(self) -> bool:
        """Whether the output is renamed into place at the end (a regular file)."""
        return self._temporary is not None

    @property
    def closed(self) -> bool:
        return self.stream.closed

    def write(self, data: bytes) -> None:
        if self._compressor is not None:
            self._compressor.write(data)
        else:
            self.stream.write(data)

    def commit(self) -> None:
        """Make the output final; on an error (a full disk) nothing is left behind."""
        if self.stream.closed:
            return
        if self._temporary is None:
            self._finish()
            self.stream.close()
            return
        try:
            self._finish()
            self.stream.flush()
            os.fsync(self.stream.fileno())
            self.stream.close()
            os.replace(self._temporary, self.target)
        except BaseException:
            self.abort()
            raise
        self._temporary = None
        _sync_directory(Path(self.target).parent)

    def _finish(self) -> None:
        compressor, self._compressor = self._compressor, None
        if compressor is not None:
            compressor.finish()

    def abort(self) -> None:
        """Drop what was written (regular files); idempotent, never raises for cleanup."""
        temporary, self._temporary = self._temporary, None
        self._compressor = None
        try:
            if not self.stream.closed:
                self.stream.close()
        except OSError:
            pass  # flushing failed (the disk is full): the file goes anyway
        finally:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)


def _open_directly(path: str, target: str) -> IO[bytes]:
    try:
        return open(target, "wb")
    except OSError as error:
        raise OutputError(f"{path}: cannot write here: {error.strerror}") from None


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable; not every platform or filesystem can open a folder."""
    try:
        handle = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def _identity(path: str) -> tuple[str, object]:
    """What makes two paths the same file: the inode of an existing file, else the resolved
    path of the file that would be created."""
    resolved = os.path.realpath(path)
    try:
        info = os.stat(resolved)
    except OSError:
        return "path", resolved
    return "inode", (info.st_dev, info.st_ino)


class Records:
    """Where converted records go: JSON Lines, or one JSON document (a ``.json`` output).
    The one place the policy lives, for the command and the
    cluster alike: a second record cannot join a JSON document (``OutputError``), and a JSON
    output that got no record is not written (an empty file is no JSON document)."""

    def __init__(self, out: IO[bytes] | Output, *, lines: bool) -> None:
        self.out = out
        self.lines = lines
        self.count = 0

    def write(self, record: bytes) -> None:
        """Write one record (its line, newline included); ``OSError`` as the stream gives it."""
        if self.count and not self.lines:
            raise OutputError("several records cannot be one JSON document; write a .jsonl output")
        self.count += 1
        self.out.write(record)

    def finish(self) -> None:
        """Before committing: leave out a JSON output that got no record."""
        if isinstance(self.out, Output) and not self.lines and not self.count and self.out.replaces:
            self.out.abort()


def writes_lines(output: str, inputs: Sequence[str], jsonl: bool) -> bool:
    """Whether converted records are written as JSON Lines: when the output file's name says
    so, or, on stdout or a FIFO or device, when there is any input (an input's layout is
    known only once it is read: standard input, or a file named ``.json`` that holds JSON
    Lines; on a stream one record is one line, JSON and JSON Lines alike), or ``jsonl`` is
    asked."""
    from agentruns.io import layout_of

    if output == "-" or not is_regular_or_new(output):
        return jsonl or bool(inputs)
    return layout_of(output) == "jsonl"


def is_regular_or_new(path: str) -> bool:
    """Whether ``path`` (through symlinks) is a regular file or names no file yet."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True


def refuse_overlaps(inputs: tuple[str, ...], outputs: dict[str, str]) -> None:
    """Refuse outputs that are an input or each other (``outputs``: option name -> path).

    Writing over an input destroys the records (and the rejected lines) being read; two
    outputs in one file keep only one of them. Non-regular files (``/dev/null``, a FIFO
    read by another program) may be shared: nothing is replaced there.
    """
    seen: dict[tuple[str, object], str] = {}
    for path in inputs:
        if path != "-" and os.path.exists(path):
            seen.setdefault(_identity(path), f"input {path}")
    for option, path in outputs.items():
        if path == "-" or not is_regular_or_new(path):
            continue
        key = _identity(path)
        if key in seen:
            raise OutputError(f"{option} {path} is the same file as {seen[key]}; name another")
        seen[key] = f"{option} {path}"
