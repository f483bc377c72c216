"""The one shape of a rejects line, which every command writes (a leaf: the readers and the
batch engine both write it without importing each other)."""

from __future__ import annotations

import json

__all__ = ["Placed", "Problem", "rejection"]

Problem = tuple[str, str]
"""(JSON pointer into the document, message); the pointer is ``""`` for the whole document."""

Placed = tuple[str, int, str, str]
"""A problem at its place in the inputs: (file, line, JSON pointer, message); the line is 0
for what is not a line of its file (a session)."""


def rejection(
    file: str, line: int, problems: tuple[Problem, ...], record: str | None, error: str = ""
) -> bytes:
    """A line of a rejects file, the one shape every command writes::

        {"file": ..., "line": ..., "error": ..., "problems": [{"pointer": ..., "message": ...}],
         "record": ...}

    ``line`` is 0 for what is not a line of its file (a transcript), ``record`` the original
    text (null where there is none: an imported run), ``error`` every problem on one line
    (or what went wrong as a whole, before them). ASCII, so any tool can read it."""
    said = "; ".join(f"{pointer or '/'}: {message}" for pointer, message in problems)
    entry = {
        "file": file,
        "line": line,
        "error": f"{error}: {said}" if error and said else error or said,
        "problems": [{"pointer": pointer, "message": message} for pointer, message in problems],
        "record": record,
    }
    return json.dumps(entry, ensure_ascii=True).encode("ascii") + b"\n"
