"""A value as compact JSON text: how eval-magic writes a non-string result, and how a record
kept as it was read is written on one line.

One encoder, made once: ``json.dumps`` with any argument of its own makes a new encoder for
every call, which cost a conversion into ATIF about a microsecond per tool result. The text
is ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``'s, byte for byte (the
same encoder, the same settings; ``tests/test_json_text.py``)."""

from __future__ import annotations

import json

__all__ = ["compact"]

_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def compact(value: object) -> str:
    """``value`` as compact JSON text (non-ASCII characters as themselves)."""
    return _COMPACT.encode(value)
