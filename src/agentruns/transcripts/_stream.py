"""Reading an event stream: one JSON object per line, every bad line a problem, never a stop.

Lines go through the same bounded reader as run records (``agentruns.io``): a line over the
size limit is skipped after reading it in bounded memory, a line that is not JSON (a binary
blob, a cut-off last line) is reported with its line number and the reading goes on, as
eval-magic's ``read_jsonl`` skips it. A line is parsed by pydantic-core (twice as fast as
``json`` on the agents' lines, which are most of what reading a session costs), as
``validate_json`` would read it: a key repeated in one object keeps its last value, and a
number beyond a double is infinite. A line it refuses goes through the strict parser of run
records, whose message says where and why.

Some agents write the same events as one JSON document instead: an array of them (Cline's
task files, claude-code-action's execution file) or one object holding them (Gemini CLI's
older sessions), often pretty-printed. Such a file is read whole (within the size limit) and
its objects come out in order, each with the line it starts on.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import from_json

from agentruns.io import MAX_RECORD_SIZE, parse, read_raw
from agentruns.transcripts._summary import Summary
from agentruns_generated._json import JsonValue

M = TypeVar("M", bound=BaseModel)


class EventModel(BaseModel):
    """Base of the event models: harness events carry much a reader does not use (ignored);
    what it uses is typed. Built on first use (``defer_build``): the one-pass Claude reader
    asks them only about a block it refuses, so ``stats`` of a folder never builds most of
    them (building every reader's models took each command 40 ms at start)."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


JsonObject = dict[str, JsonValue]


PEEK = 1 << 16


def is_document(path: str) -> bool:
    """Whether a file is one JSON document (an array, or an object over several lines)
    rather than JSON Lines: it opens with ``[``, or its first line is not JSON by itself."""
    from agentruns.io import _open

    with _open(path) as stream:
        try:
            head = stream.read(PEEK)
        except (EOFError, zlib.error, ValueError):
            return False  # a broken archive: read as lines, whose reading says where it breaks
    return opens_a_document(head)


def opens_a_document(head: bytes) -> bool:
    """``is_document`` of a file that begins with ``head`` (its first ``PEEK`` bytes)."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"["):
        return True
    if not text.startswith(b"{"):
        return False
    end = text.find(b"\n")
    if end < 0:
        return False  # one line (or a line longer than the peek): JSON Lines reads it
    try:
        json.loads(text[:end])
    except (ValueError, RecursionError):
        # an object over several lines, or JSON Lines whose first line is broken (or nests
        # too deep to tell): the lines say which (one bad line must not cost the others)
        return not _stands_alone(text[end + 1 :])
    return False


def _stands_alone(rest: bytes) -> bool:
    """Whether a complete line of ``rest`` is a JSON object of its own, unindented and not
    empty: a line of JSON Lines. No line of a document printed over several lines is one
    (each member of a non-empty object has a line of its own, and with an indent the object
    is indented), so a broken first line does not make JSON Lines a broken document."""
    for line in rest.split(b"\n")[:-1]:  # (the last is not known to be whole)
        if not line.startswith(b"{"):
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and value:
            return True
    return False


def events(
    path: str, summary: Summary, max_line: int = MAX_RECORD_SIZE
) -> Iterator[tuple[int, JsonObject]]:
    """Each JSON object of the stream with its line number; blank lines are skipped, and any
    other line that is not a JSON object becomes a problem of ``summary``. A file that is
    one JSON array gives its elements; one object over several lines gives itself."""
    if is_document(path):
        yield from _document_events(path, summary, max_line)
        return
    for raw in read_raw(path, "jsonl", max_line):
        if raw.error is None:
            try:
                value = from_json(raw.raw, allow_inf_nan=False, cache_strings="keys")
            except ValueError:
                if not raw.raw.strip():
                    continue
            else:
                if isinstance(value, dict):
                    yield raw.line, value
                    continue
        record = parse(raw)  # the strict parse says why the line is not an object
        if record.error is not None:
            summary.problem(record.line, f"not a JSON event, skipped: {record.error}")
        elif not isinstance(record.value, dict):
            summary.problem(record.line, "not a JSON object, skipped")
        else:
            yield record.line, record.value


def _document_events(
    path: str, summary: Summary, max_size: int
) -> Iterator[tuple[int, JsonObject]]:
    for raw in read_raw(path, "json", max_size):
        record = parse(raw)
        if record.error is not None:
            summary.problem(record.line, f"not a JSON document: {record.error}")
            return
        value = record.value
        if isinstance(value, dict):
            yield 1, value
            return
        if not isinstance(value, list):
            summary.problem(1, "neither a JSON array of events nor an object, skipped")
            return
        lines = element_lines(raw.raw.decode("utf-8", "replace"))
        for index, item in enumerate(value):
            line = lines[index] if index < len(lines) else 1
            if isinstance(item, dict):
                yield line, item
            else:
                summary.problem(line, f"element {index} is not a JSON object, skipped")


def element_lines(text: str) -> list[int]:
    """The line each element of the JSON array ``text`` starts on."""
    from agentruns._positions import _skip, _ws

    lines: list[int] = []
    at = _ws(text, 0)
    if at >= len(text) or text[at] != "[":
        return lines
    at = _ws(text, at + 1)
    line = 1 + text.count("\n", 0, at)
    while at < len(text) and text[at] != "]":
        lines.append(line)
        end = _skip(text, at)
        following = _ws(text, end)
        if following < len(text) and text[following] == ",":
            following = _ws(text, following + 1)
        line += text.count("\n", at, following)
        if following <= at:
            break
        at = following
    return lines


def typed(model: type[M], value: JsonObject, line: int, summary: Summary) -> M | None:
    """``value`` as the event model, or ``None`` with a problem naming what does not fit."""
    try:
        return model.model_validate(value)
    except ValidationError as error:
        first = error.errors()[0]
        where = "/" + "/".join(str(part) for part in first["loc"])
        kind = value.get("type")
        label = f"{kind!r} event" if isinstance(kind, str) else "event"
        summary.problem(line, f"{label} skipped: {where}: {first['msg']}")
        return None


def pick(value: JsonValue, path: str) -> JsonValue | None:
    """The value at a dotted path through nested objects, ``None`` where it does not lead."""
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def has(value: JsonValue, path: str) -> bool:
    """Whether the dotted path leads somewhere (to ``null`` included)."""
    parts = path.split(".")
    for part in parts[:-1]:
        if not isinstance(value, dict):
            return False
        value = value.get(part)
    return isinstance(value, dict) and parts[-1] in value


def rfc3339(value: JsonValue) -> datetime | None:
    """An RFC 3339 timestamp with its offset, else ``None`` (no guessing of a time zone)."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def epoch_ms(value: JsonValue) -> datetime | None:
    """Milliseconds since the epoch (bools are not numbers here), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
