"""Reading run records from JSON and JSONL files, record by record, with exact error locations.

Streaming and strict: a JSONL file is read one line at a time (constant memory), and every
line that is not a JSON document gets an error naming the file and line, while the lines
around it are still read. Stricter than Python's ``json``: duplicate keys, ``NaN``/``Infinity``
and numbers beyond a double are errors (RFC 8259 leaves them undefined; silently picking the
last key or ``inf`` would change the record).
"""

from __future__ import annotations

import json
import re
import sys
import zlib
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from pydantic import BaseModel, JsonValue, ValidationError

from agentruns import _places
from agentruns._compression import MissingCodec, compression_of, reader, without_compression
from agentruns._pointer import join
from agentruns._read import up_to
from agentruns.errors import InputError

__all__ = [
    "MAX_RECORD_SIZE",
    "InputError",
    "Layout",
    "Raw",
    "Record",
    "count_lines",
    "error_pointers",
    "layout_of",
    "line_end_after",
    "parse",
    "read_range",
    "read_raw",
    "read_records",
    "too_large",
    "validate",
]


_BOM = _places.BOM

Layout = Literal["json", "jsonl"]


@dataclass(frozen=True, slots=True)
class Record:
    """One JSON document from an input: where it came from, its bytes and its value."""

    source: str
    line: int
    raw: bytes
    value: JsonValue = None
    error: str | None = None
    """Why the document is not JSON (None when it parsed)."""

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"


def layout_of(path: str, forced: Layout | None = None) -> Layout:
    if forced is not None:
        return forced
    name = without_compression(path)
    return "jsonl" if name.endswith((".jsonl", ".ndjson")) else "json"


class Raw:
    """One document's bytes and where they came from, not parsed yet (the unit of work that
    goes to a worker process).

    A document of a plain file may be held as its place in the file (``read_raw(...,
    placed=True)``): its bytes are read where they are first asked for, so a batch sends its
    workers where each record is, not the record (the bytes of a file went through a pipe,
    copied four times, by the one process that feeds every worker). The bytes come from the
    file that was scanned, held open while a place of it is held: here through that
    descriptor, in another process through it too where the system shows it (Linux's
    ``/proc``), else from the file of that name, which must still be the same file (one
    replaced since is an ``InputError``: its records are refused, never misread)."""

    __slots__ = ("_at", "_file", "_raw", "error", "line", "source")
    __match_args__ = ("source", "line", "raw", "error")  # (as the dataclass it was)

    source: str
    line: int
    error: str | None
    """Why the document could not be read whole (too large); ``raw`` is then empty."""
    _raw: bytes | None
    _at: _places.Place | None
    _file: _places.Opened | None

    def __init__(self, source: str, line: int, raw: bytes, error: str | None = None) -> None:
        _set = object.__setattr__
        _set(self, "source", source)
        _set(self, "line", line)
        _set(self, "_raw", raw)
        _set(self, "error", error)
        _set(self, "_at", None)
        _set(self, "_file", None)

    @classmethod
    def placed(
        cls, source: str, line: int, at: _places.Place, file: _places.Opened | None = None
    ) -> Raw:
        """The document at ``at`` in the file ``source`` (open as ``file`` in this process,
        when it is), not read yet."""
        made = cls(source, line, b"")
        object.__setattr__(made, "_raw", None)
        object.__setattr__(made, "_at", at)
        object.__setattr__(made, "_file", file)
        return made

    @property
    def raw(self) -> bytes:
        """The document's bytes (read from its file the first time, for a placed one)."""
        data = self._raw
        if data is None:
            assert self._at is not None
            data = _places.read(self.source, self._at, self._file)
            object.__setattr__(self, "_raw", data)
            object.__setattr__(self, "_file", None)  # (the file may close once all are read)
        return data

    @property
    def size(self) -> int:
        """The document's length in bytes, without reading it."""
        if self._raw is not None:
            return len(self._raw)
        assert self._at is not None
        return self._at.length

    def _key(self) -> tuple[str, int, bytes, str | None]:
        return (self.source, self.line, self.raw, self.error)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Raw):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        shown = repr(self._raw) if self._raw is not None else f"<{self.size} bytes, not read>"
        return f"Raw(source={self.source!r}, line={self.line!r}, raw={shown}, error={self.error!r})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} (a Raw is immutable)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} (a Raw is immutable)")

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # a placed document not read yet travels as its place (a few bytes), not its bytes
        if self._raw is None:
            return (Raw.placed, (self.source, self.line, self._at))
        return (Raw, (self.source, self.line, self._raw, self.error))


def bytes_of(raw: Raw) -> bytes:
    """A document's bytes where they are needed to say something of it after it was handled
    (its rejects line, a message's line and column): empty when its file was replaced since
    (a placed document; the outcome already says what became of it)."""
    try:
        return raw.raw
    except InputError:
        return b""


MAX_RECORD_SIZE = 64 << 20
"""Default largest document (a JSONL line or a JSON file) read, in bytes: generous for run
records (tens of kilobytes), and a bound on memory whatever the input is (a stream with no
newline, a huge file)."""


def read_records(
    path: str, layout: Layout | None = None, max_size: int = MAX_RECORD_SIZE
) -> Generator[Record, None, None]:
    """Every document of a file (``-`` is standard input), in order, errors included."""
    for raw in read_raw(path, layout, max_size):
        yield parse(raw)


def read_raw(
    path: str,
    layout: Layout | None = None,
    max_size: int = MAX_RECORD_SIZE,
    *,
    placed: bool = False,
) -> Iterator[Raw]:
    """Every document of a file as bytes, in order: each JSONL line, or the whole JSON file.

    A document over ``max_size`` bytes is not kept: it comes as a ``Raw`` with an ``error``,
    and reading goes on after it (memory stays within about ``max_size``). ``placed``: the
    lines of a plain JSONL file come as their places (``Raw.placed``), read where they are
    handled; other inputs (standard input, a compressed file) as bytes.
    """
    chosen = layout_of(path, layout)
    if placed and chosen == "jsonl" and path != "-" and compression_of(path) is None:
        found = _placed_lines(path, max_size)
        if found is not None:
            yield from found
            return
    with _open(path) as opened:
        stream: IO[bytes] | _Prefixed = opened
        if path == "-" and layout is None:
            stream, chosen = _sniffed(opened, max_size)
        elif chosen == "json" and layout is None:
            stream, chosen = _sniffed(opened, max_size, named_json=True)
        number = 0
        try:
            if chosen == "jsonl":
                for raw in _jsonl(path, stream, max_size):
                    number = raw.line
                    yield raw
            else:
                data = up_to(stream, max_size + len(_BOM))
                data = data[len(_BOM) :] if data.startswith(_BOM) else data
                if len(data) > max_size:
                    yield Raw(path, 1, b"", too_large(max_size))
                else:
                    yield Raw(path, 1, data)
        except _BROKEN_STREAM as error:
            if compression_of(path) is None:
                raise
            # a cut or corrupt archive: what came before the cut was read; the rest is one
            # unreadable record, not a traceback
            yield Raw(path, number + 1, b"", f"compressed input broken here: {_why(error)}")


_BROKEN_STREAM = (EOFError, OSError, zlib.error, ValueError)


def _why(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text[:200]


def too_large(max_size: int) -> str:
    return f"record larger than the maximum record size ({max_size} bytes; --max-record-size)"


def parse(raw: Raw) -> Record:
    """The document parsed, strictly (see the module docstring), or why it is not JSON."""
    if raw.error is not None:
        return Record(raw.source, raw.line, raw.raw, error=raw.error)
    try:
        data = raw.raw
    except InputError as error:  # a placed document whose file changed since
        return Record(raw.source, raw.line, b"", error=str(error).removeprefix(f"{raw.source}: "))
    return _document(raw.source, raw.line, data)


_BUFFER = 1 << 20
"""Read buffer. Run records are tens of kilobytes per line; with the default 8 KiB buffer,
reading a line costs four times as much (12 against 3 us for a 19 KB line)."""


@contextmanager
def _open(path: str) -> Iterator[IO[bytes]]:
    if path == "-":
        yield from _stdin()
        return
    target = Path(path)
    if target.is_dir():
        raise InputError(f"{path}: is a directory, not a file of run records")
    try:
        stream = target.open("rb", buffering=_BUFFER)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror}") from None
    kind = compression_of(path)
    with stream:
        if kind is None:
            yield stream
            return
        try:
            decompressed = reader(kind, stream, _BUFFER)
        except MissingCodec as error:
            raise InputError(f"{path}: {error}") from None
        with decompressed:
            yield decompressed


def _stdin() -> Iterator[IO[bytes]]:
    import sys

    try:
        descriptor = sys.stdin.buffer.fileno()
    except (AttributeError, OSError, ValueError):  # replaced (as in tests): no descriptor
        yield sys.stdin.buffer
        return
    with open(descriptor, "rb", buffering=_BUFFER, closefd=False) as stream:
        yield stream


def _sniffed(
    stream: IO[bytes], max_size: int, *, named_json: bool = False
) -> tuple[_Prefixed, Layout]:
    """A stream's layout, from what it holds: JSON Lines when its first line that is not
    blank is a JSON document by itself (``agentruns import ... | agentruns stats -``), else
    one JSON document (spread over lines, or a single line: the same either way). A stream
    that ends with nothing but blank lines is JSON Lines of no record (``grep ... | agentruns
    validate -`` that matched nothing reads 0 records, as an empty ``.jsonl`` file does).

    ``named_json``: a file named as JSON, which holds JSON Lines (``jq -c ... > runs.json``)
    only when another line that is not blank follows that whole first line: read as one
    document, its second record was "extra data" that cost the file's every record. A lone
    line, blank lines alone and a document over several lines are one document, as its name
    says (an empty file refused as it was).

    The lines read to decide are read again by the reader. At most about ``max_size`` bytes
    are held to decide (blank lines without end are not worth it), each line read once."""
    limit = max_size + len(_BOM) + 2
    parts: list[bytes] = []
    held = 0
    first: bytes | None = None  # (named JSON) the first line that holds something
    decided: Layout | None = "jsonl" if not named_json else None  # at the end of the stream
    while line := stream.readline(limit):
        parts.append(line)
        held += len(line)
        body = (line.removeprefix(_BOM) if first is None else line).strip()
        if not body:
            if held > limit:
                decided = None  # blank lines without end: one document (refused as too large)
                break
            continue
        if first is not None:  # a second line that holds something: was the first whole?
            decided = "jsonl" if _whole(first) else None
            break
        if not line.endswith(b"\n") and (named_json or len(line) >= limit):
            decided = None  # one line only, or one too long to be a record
            break
        if not named_json:
            decided = "jsonl" if _whole(body) else None
            break
        first = body
    return _Prefixed(b"".join(parts), stream), decided or "json"


def _whole(text: bytes) -> bool:
    """Whether a line is a JSON document by itself."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


class _Prefixed:
    """A stream whose first bytes were already read (to decide its layout); they are read
    back from where the reading stands, never copied again line by line."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self._head = head
        self._at = 0
        self._rest = rest

    def readline(self, limit: int = -1) -> bytes:
        head, at = self._head, self._at
        if at >= len(head):
            return self._rest.readline(limit)
        end = head.find(b"\n", at)
        cut = len(head) if end < 0 else end + 1
        if limit >= 0:
            cut = min(cut, at + limit)
        line, self._at = head[at:cut], cut
        if cut >= len(head) and not line.endswith(b"\n") and (limit < 0 or len(line) < limit):
            line += self._rest.readline(-1 if limit < 0 else limit - len(line))
        return line

    def read(self, size: int = -1) -> bytes:
        head = self._head[self._at :]
        self._head, self._at = b"", 0
        if size < 0:
            return head + self._rest.read()
        if len(head) >= size:
            self._head = head[size:]
            return head[:size]
        return head + self._rest.read(size - len(head))


def _jsonl(
    path: str, stream: IO[bytes] | _Window | _Prefixed, max_size: int, first_line: int = 1
) -> Iterator[Raw]:
    limit = max_size + len(_BOM) + 2  # a line of max_size bytes, a BOM, then CR LF
    number = first_line - 1
    while line := stream.readline(limit):
        number += 1
        if not line.endswith(b"\n") and len(line) == limit:
            _skip_line(stream)
            yield Raw(path, number, b"", too_large(max_size))
            continue
        if number == 1 and line.startswith(_BOM):
            line = line[len(_BOM) :]
        body = line.rstrip(b"\r\n")
        if not body or body.isspace():  # (isspace: no copy of a long line, as strip makes)
            continue  # blank lines separate nothing in JSONL; they are not records
        if len(body) > max_size:
            yield Raw(path, number, b"", too_large(max_size))
            continue
        yield Raw(path, number, body)


def _placed_lines(path: str, max_size: int) -> Iterator[Raw] | None:
    """``_jsonl``'s documents of a plain file as their places (``_places.scan``; a short
    one as its bytes); None for what is no plain file (a FIFO, a device: read as a
    stream)."""
    found = _places.scan(path, max_size + len(_BOM) + 2)  # (``_jsonl``'s limit)
    if found is None:
        return None
    return _placed(path, max_size, *found)


def _placed(
    path: str,
    max_size: int,
    opened: _places.Opened,
    lines: Iterator[tuple[int, _places.Place | bytes | None]],
) -> Iterator[Raw]:
    for number, document in lines:
        size = (
            max_size + 1
            if document is None
            else len(document)
            if isinstance(document, bytes)
            else document.length
        )
        if size > max_size:
            yield Raw(path, number, b"", too_large(max_size))
        elif isinstance(document, bytes):
            yield Raw(path, number, document)
        else:
            assert document is not None
            yield Raw.placed(path, number, document, opened)


class _Window:
    """The bytes of a file from its position to ``end``, read by lines."""

    def __init__(self, stream: IO[bytes], end: int) -> None:
        self._stream = stream
        self._left = end - stream.tell()

    def readline(self, limit: int) -> bytes:
        if self._left <= 0:
            return b""
        line = self._stream.readline(min(limit, self._left))
        self._left -= len(line)
        return line


def read_range(
    path: str, start: int, end: int, first_line: int, max_size: int = MAX_RECORD_SIZE
) -> Iterator[Raw]:
    """The JSONL records in bytes ``start`` to ``end`` of a plain file (a part that begins a
    line and whose first line is ``first_line``): what ``read_raw`` gives for those lines,
    read in the same bounded memory."""
    with _open(path) as stream:
        stream.seek(start)
        yield from _jsonl(path, _Window(stream, end), max_size, first_line)


def line_end_after(path: str, offset: int) -> int:
    """The offset just past the end of the line that holds byte ``offset`` (or the file's
    size), found in bounded pieces however long the line is."""
    with _open(path) as stream:
        stream.seek(offset)
        while piece := stream.readline(_BUFFER):
            offset += len(piece)
            if piece.endswith(b"\n"):
                break
        return offset


def count_lines(path: str, start: int, end: int) -> int:
    """Lines in bytes ``start`` to ``end`` (a last line without its newline counts)."""
    lines = 0
    last = b"\n"
    with _open(path) as stream:
        stream.seek(start)
        left = end - start
        while left > 0 and (piece := stream.read(min(_BUFFER, left))):
            lines += piece.count(b"\n")
            last = piece[-1:]
            left -= len(piece)
    return lines + (last != b"\n")


def _skip_line(stream: IO[bytes] | _Window | _Prefixed) -> None:
    """Read past the rest of an overlong line in bounded pieces."""
    while piece := stream.readline(_BUFFER):
        if piece.endswith(b"\n"):
            return


def _document(path: str, line: int, raw: bytes) -> Record:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return Record(path, line, raw, error=f"invalid UTF-8 at byte {error.start}")
    if not text.strip():
        return Record(path, line, raw, error="empty document (no JSON value)")
    try:
        value: JsonValue = json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_no_constant,
            parse_float=_finite_float,
        )
    except json.JSONDecodeError as error:
        at = (
            f"line {error.lineno} column {error.colno}"
            if error.lineno > 1
            else f"column {error.colno}"
        )
        return Record(path, line, raw, error=f"not valid JSON at {at}: {error.msg}")
    except RecursionError:
        return Record(path, line, raw, error="nesting too deep to read")
    except ValueError as error:
        said = str(error)
        if "integer string conversion" in said:  # Python's guard against quadratic parsing
            said = f"an integer of more than {sys.get_int_max_str_digits()} digits"
        return Record(path, line, raw, error=said)
    if _may_hold_surrogate(raw) and (found := _lone_surrogate(value)):
        return Record(path, line, raw, error=found)
    return Record(path, line, raw, value=value)


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _may_hold_surrogate(raw: bytes) -> bool:
    """Whether the text escapes a UTF-16 surrogate that is not half of a pair (valid pairs,
    escaped emoji say, are common; only a record with a lone one, or an escaped backslash
    before such text, pays for the walk of its values)."""
    low_expected_at = -1
    for found in _SURROGATE_ESCAPE.finditer(raw):
        if found.group()[3] in b"cdefCDEF":  # a low surrogate: must follow a high one
            if found.start() != low_expected_at:
                return True
            low_expected_at = -1
        elif low_expected_at != -1:  # a high surrogate after an unpaired high one
            return True
        else:
            low_expected_at = found.end()
    return low_expected_at != -1


def _lone_surrogate(value: JsonValue) -> str | None:
    """Why the value is not Unicode text, if a string or key holds an unpaired surrogate.

    ``json`` reads ``"\\ud800"`` into a string no UTF-8 encoder can write back; pydantic's own
    JSON parser rejects it, so this one does too (valid pairs were joined by the parse).
    """
    stack: list[JsonValue] = [value]
    while stack:
        node = stack.pop()
        texts: list[str] = []
        if isinstance(node, str):
            texts = [node]
        elif isinstance(node, dict):
            texts = list(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        for text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as error:
                code = ord(text[error.start])
                return f"string holds an unpaired UTF-16 surrogate \\u{code:04x} (not text)"
    return None


def _unique_keys(pairs: list[tuple[str, JsonValue]]) -> dict[str, JsonValue]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key!r} in one object")
            seen.add(key)
    return result


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text[:40]} is too large for a double")
    return value


# -- validation errors as JSON pointers ---------------------------------------------------


def error_pointers(error: ValidationError, value: JsonValue) -> list[tuple[str, str]]:
    """(JSON pointer into the document, message) for each error.

    pydantic's locations include union tags (``stopped``, ``user_message``) that are not
    part of the document; walking the document along the location keeps only real steps.
    """
    found: list[tuple[str, str]] = []
    for item in error.errors(include_url=False):
        node: JsonValue = value
        tokens: list[str] = []
        for step in item["loc"]:
            if isinstance(node, dict) and isinstance(step, str) and step in node:
                node = node[step]
                tokens.append(step)
            elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
                node = node[step]
                tokens.append(str(step))
            elif isinstance(node, dict) and isinstance(step, str) and item["type"] in _KEY_ERRORS:
                tokens.append(step)  # the key that is missing or not allowed
        pointer = join(tokens)
        message = item["msg"]
        if item["type"] == "recursion_depth_exceeded" or (
            item["type"] == "invalid-json-value"
            and len(tokens) + _depth(node, _TOO_DEEP) >= _TOO_DEEP
        ):
            # pydantic-core's recursion guard, behind the JSON value's own error (counted
            # from the record's root: a value shallow in itself, deep in the record)
            message = f"nested too deep to validate (more than {_TOO_DEEP} levels)"
        found.append((pointer, message))
    return found


_TOO_DEEP = 200
"""Nesting beyond which an invalid JSON value is one pydantic-core would not descend into
(its guard stops at about 250 levels in all, the record's own included)."""


def _depth(value: JsonValue, limit: int) -> int:
    """How deep ``value`` nests, counted up to ``limit`` (without recursion)."""
    deepest = 0
    pending: list[tuple[JsonValue, int]] = [(value, 0)]
    while pending and deepest < limit:
        node, depth = pending.pop()
        deepest = max(deepest, depth)
        children = (
            node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        )
        pending.extend((child, depth + 1) for child in children)
    return deepest


_KEY_ERRORS = frozenset({"missing", "extra_forbidden"})


def validate(
    record: Record, model: type[BaseModel]
) -> tuple[BaseModel | None, list[tuple[str, str]]]:
    """The model instance, or the errors as (pointer, message).

    Validates the value already parsed (the text is parsed once). The generated models use
    strict, JSON-faithful types, so this accepts exactly what ``model_validate_json`` accepts;
    the fidelity suite checks both paths against the oracles.
    """
    if record.error is not None:
        return None, [("", record.error)]
    try:
        return model.model_validate(record.value), []
    except ValidationError as error:
        return None, error_pointers(error, record.value)
