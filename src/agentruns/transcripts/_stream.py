"""Reading an event stream: one JSON object per line, every bad line a problem, never a stop.

Lines go through the same bounded reader and strict parser as run records
(``agentruns.io``): a line over the size limit is skipped after reading it in bounded memory,
a line that is not JSON (a binary blob, a cut-off last line) is reported with its line
number and the reading goes on, as eval-magic's ``read_jsonl`` skips it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from agentruns.io import MAX_RECORD_SIZE, parse, read_raw
from agentruns.transcripts._summary import Summary
from agentruns_generated._json import JsonValue

M = TypeVar("M", bound=BaseModel)


class EventModel(BaseModel):
    """Base of the event models: harness events carry much a reader does not use (ignored);
    what it uses is typed."""

    model_config = ConfigDict(extra="ignore", frozen=True)


JsonObject = dict[str, JsonValue]


def events(
    path: str, summary: Summary, max_line: int = MAX_RECORD_SIZE
) -> Iterator[tuple[int, JsonObject]]:
    """Each JSON object of the stream with its line number; blank lines are skipped, and any
    other line that is not a JSON object becomes a problem of ``summary``."""
    for raw in read_raw(path, "jsonl", max_line):
        if raw.error is None and not raw.raw.strip():
            continue
        record = parse(raw)
        if record.error is not None:
            summary.problem(record.line, f"not a JSON event, skipped: {record.error}")
        elif not isinstance(record.value, dict):
            summary.problem(record.line, "not a JSON object, skipped")
        else:
            yield record.line, record.value


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


def millis(start: datetime, end: datetime) -> int:
    delta = end - start
    return (delta.days * 86_400_000) + (delta.seconds * 1000) + (delta.microseconds // 1000)


def compact(value: JsonValue) -> str:
    """A value as text the way eval-magic writes a non-string result: compact JSON."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
