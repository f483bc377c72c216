"""gzip and zstd streams, chosen by file extension (``.gz``, ``.zst``), read and written as
streams in constant memory.

gzip is in the standard library; zstd needs the ``zstandard`` package (the ``zstd`` extra),
imported only when a ``.zst`` file is met. A compressed stream that ends before its
end-of-stream marker (a cut download, a full disk while archiving) raises ``EOFError`` at
the cut, after every whole line before it was read; one that is not what its extension says,
or whose bytes were damaged, raises ``BrokenStream`` where the codec notices.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Callable
from types import ModuleType
from typing import IO, Literal, Protocol

from agentruns.errors import MissingDependency

Compression = Literal["gzip", "zstd"]
_SUFFIXES: dict[str, Compression] = {".gz": "gzip", ".zst": "zstd"}
_CHUNK = 1 << 17

ZSTD_MISSING = "zstd files need the zstandard package: pip install 'agentruns[zstd]'"


class MissingCodec(MissingDependency):
    """The codec a file's extension asks for is not installed."""


class BrokenStream(ValueError):
    """The compressed bytes cannot be decompressed (damaged, or not of the codec the file's
    extension names). One class for every codec: the readers catch ``ValueError`` and report
    the record that meets it; a codec's own error class (zlib's, zstandard's, which is no
    ``ValueError``) never reaches them."""


def compression_of(path: str) -> Compression | None:
    for suffix, kind in _SUFFIXES.items():
        if path.endswith(suffix):
            return kind
    return None


def without_compression(path: str) -> str:
    """The name the content has once decompressed (``runs.jsonl.gz`` -> ``runs.jsonl``)."""
    for suffix in _SUFFIXES:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def _zstandard() -> ModuleType:
    try:
        import zstandard
    except ImportError:
        raise MissingCodec(ZSTD_MISSING) from None
    return zstandard


class _Decompressor(Protocol):
    @property
    def eof(self) -> bool: ...

    @property
    def unused_data(self) -> bytes: ...

    def decompress(self, data: bytes) -> bytes: ...


class _FrameReader(io.RawIOBase):
    """Decompresses frames (gzip members, zstd frames) one after another, handing out every
    byte decompressed so far; ``EOFError`` when the input ends inside a frame. (GzipFile
    drops the data of the read that meets the cut; zstandard's reader ends quietly.)

    Memory stays bounded whatever the input expands to: compressed bytes are fed ``step`` at
    a time, and no more once ``_TARGET`` decompressed bytes wait to be read, so a bomb (a
    megabyte that expands to gigabytes) costs no more than an ordinary file, and the line
    reader above applies ``--max-record-size`` to what comes out."""

    def __init__(
        self,
        source: IO[bytes],
        start: Callable[[], _Decompressor],
        name: str,
        step: int,
        broken: tuple[type[Exception], ...],
    ) -> None:
        self._source = source
        self._broken = broken  # what the codec raises for bytes it cannot decompress
        self._start = start
        self._name = name
        self._step = step
        self._decompressor = start()
        self._input = b""
        self._consumed = 0  # how much of _input was fed
        self._pending = b""
        self._offset = 0  # how much of _pending was handed out (slicing would copy the rest)
        self._inside = False  # within a frame: some of its bytes were read

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while self._offset >= len(self._pending):
            if self._consumed >= len(self._input):
                chunk = self._source.read(_CHUNK)
                if not chunk:
                    if self._inside:
                        raise EOFError(f"{self._name} stream ended before the end of its frame")
                    return 0
                self._input, self._consumed = chunk, 0
            self._pending, self._offset = self._decompressed(), 0
        size = min(len(buffer), len(self._pending) - self._offset)
        buffer[:size] = memoryview(self._pending)[self._offset : self._offset + size]
        self._offset += size
        return size

    def _decompressed(self) -> bytes:
        """Up to about ``_TARGET`` bytes from the input not yet fed (maybe none)."""
        pieces: list[bytes] = []
        size = 0
        while size < _TARGET and self._consumed < len(self._input):
            end = self._consumed + self._step
            chunk = self._input[self._consumed : end]
            self._consumed = min(end, len(self._input))
            while chunk:
                self._inside = True
                try:
                    piece = self._decompressor.decompress(chunk)
                except self._broken as error:
                    raise BrokenStream(f"not a valid {self._name} stream: {error}") from None
                pieces.append(piece)
                size += len(piece)
                if not self._decompressor.eof:
                    break
                chunk = self._decompressor.unused_data
                self._decompressor = self._start()
                self._inside = False
        return b"".join(pieces)


_TARGET = 1 << 20
"""Decompressed bytes made ready at a time (then the reader hands them out)."""

# The most a compressed byte can expand to bounds what one step makes: deflate about 1032
# times, zstd about 43,690 (a 3-byte block header and 1 byte for a 128 KiB run), so a step
# makes at most some 8 MiB (gzip) or 11 MiB (zstd) beyond the target.
_GZIP_STEP = 8 << 10
_ZSTD_STEP = 256


def _gzip_member() -> _Decompressor:
    return zlib.decompressobj(wbits=31)  # 16 + 15: a gzip header and trailer


def reader(kind: Compression, source: IO[bytes], buffer: int) -> IO[bytes]:
    """A buffered, line-readable stream of the decompressed bytes of ``source``."""
    if kind == "gzip":
        frames = _FrameReader(source, _gzip_member, "gzip", _GZIP_STEP, (zlib.error,))
        return io.BufferedReader(frames, buffer)
    zstd = _zstandard()

    def frame() -> _Decompressor:
        started: _Decompressor = zstd.ZstdDecompressor().decompressobj()
        return started

    frames = _FrameReader(source, frame, "zstd", _ZSTD_STEP, (zstd.ZstdError,))
    return io.BufferedReader(frames, buffer)


class Compressor:
    """Writes compressed bytes to ``sink``; ``finish`` ends the stream and leaves ``sink``
    open (its owner flushes, syncs and closes it)."""

    def __init__(self, kind: Compression, sink: IO[bytes]) -> None:
        self._gzip: gzip.GzipFile | None = None
        self._zstd: IO[bytes] | None = None
        if kind == "gzip":
            self._gzip = gzip.GzipFile(fileobj=sink, mode="wb", compresslevel=6, mtime=0)
        else:
            zstd = _zstandard()
            self._zstd = zstd.ZstdCompressor(level=3).stream_writer(sink, closefd=False)

    def write(self, data: bytes) -> None:
        if self._gzip is not None:
            self._gzip.write(data)
        elif self._zstd is not None:
            self._zstd.write(data)

    def finish(self) -> None:
        if self._gzip is not None:
            self._gzip.close()
        elif self._zstd is not None:
            self._zstd.close()
