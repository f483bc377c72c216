"""A record's JSON in pieces, for records too large to hold twice (a transcript's record
can be tens of megabytes).

pydantic's serializer builds the whole document in one buffer that grows by doubling, then
copies it into ``bytes``: about three times the record's size at the peak. Here the record
is written without its long lists (as empty lists, so key order and everything else is the
serializer's own), and each list item is serialized on its own where the empty list stood.
The bytes are the serializer's bytes: ``b"".join(json_chunks(r)) == to_json(r)`` (tested).
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel
from pydantic_core import to_json

from agentruns._positions import value_offset

LONG = 256
"""Lists longer than this are written item by item."""


def json_chunks(record: BaseModel) -> Iterator[bytes]:
    """The record's JSON (as ``to_json`` writes it), in pieces of bounded size."""
    serializer = record.__pydantic_serializer__
    fields = type(record).model_fields
    long = {
        name: value
        for name in fields
        if isinstance(value := getattr(record, name), list) and len(value) > LONG
    }
    if not long:
        yield serializer.to_json(record)
        return
    shell = serializer.to_json(record.model_copy(update={name: [] for name in long})).decode()
    places = sorted((value_offset(shell, [fields[name].alias or name]), name) for name in long)
    start = 0
    for offset, name in places:
        if shell[offset : offset + 2] != "[]":  # not where expected: no pieces, to be exact
            yield serializer.to_json(record)
            return
        yield shell[start:offset].encode()
        yield b"["
        for index, item in enumerate(long[name]):
            piece = (
                item.__pydantic_serializer__.to_json(item)
                if isinstance(item, BaseModel)
                else to_json(item)
            )
            yield (b"," + piece) if index else piece
        yield b"]"
        start = offset + 2
    yield shell[start:].encode()
