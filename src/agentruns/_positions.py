"""Where in a document's text a JSON pointer leads: line and column, for problem messages.

The parser that reads records keeps no positions (valid records must not pay for them); a
problem's position is found afterwards, from the record's bytes, by scanning only along the
pointer's path and skipping every other value without building it. A pointer that leads
nowhere (a missing property) stops at the deepest value it reaches: the object that should
hold the property.
"""

from __future__ import annotations

import json
import re

from agentruns._pointer import split

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"[^,\]}\s]*")
_PARSE_AT = re.compile(r"^not valid JSON at (?:line (\d+) )?column (\d+)")
_UTF8_AT = re.compile(r"^invalid UTF-8 at byte (\d+)")


def _ws(text: str, at: int) -> int:
    """The index of the first non-whitespace character from ``at``."""
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def _skip(text: str, at: int) -> int:
    """The index just after the JSON value starting at ``at`` (which is not whitespace)."""
    depth = 0
    index = at
    while index < len(text):
        char = text[index]
        if char == '"':
            found = _STRING.match(text, index)
            index = found.end() if found else len(text)
        elif char in "[{":
            depth += 1
            index += 1
        elif char in "]}":
            depth -= 1
            index += 1
        elif depth == 0:
            found = _SCALAR.match(text, index)
            return found.end() if found and found.end() > index else index + 1
        else:
            index += 1
        if depth == 0:
            return index
    return index


def _value_at(text: str, tokens: list[str]) -> int:
    """The offset of the deepest value along ``tokens``."""
    at = _ws(text, 0)
    for token in tokens:
        if at >= len(text):
            break
        opener = text[at]
        if opener == "{":
            inner = _member(text, at, token)
        elif opener == "[" and token.isdigit():
            inner = _element(text, at, int(token))
        else:
            inner = None
        if inner is None:
            break
        at = inner
    return at


def _member(text: str, at: int, name: str) -> int | None:
    index = _ws(text, at + 1)
    while index < len(text) and text[index] == '"':
        key = _STRING.match(text, index)
        if key is None:
            return None
        try:
            decoded = json.loads(key.group())
        except ValueError:
            return None
        index = _ws(text, key.end())
        if index >= len(text) or text[index] != ":":
            return None
        index = _ws(text, index + 1)
        if decoded == name:
            return index
        index = _ws(text, _skip(text, index))
        if index < len(text) and text[index] == ",":
            index = _ws(text, index + 1)
        else:
            return None
    return None


def _element(text: str, at: int, wanted: int) -> int | None:
    index = _ws(text, at + 1)
    for _ in range(wanted):
        if index >= len(text) or text[index] == "]":
            return None
        index = _ws(text, _skip(text, index))
        if index < len(text) and text[index] == ",":
            index = _ws(text, index + 1)
        else:
            return None
    if index >= len(text) or text[index] == "]":
        return None
    return index


def value_offset(text: str, tokens: list[str]) -> int:
    """The offset in ``text`` of the value the tokens lead to (or of the deepest one)."""
    return _value_at(text, tokens)


def _line_column(text: str, offset: int) -> tuple[int, int]:
    """Lines after the first (0-based) and the 1-based column, in characters."""
    lines = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return lines, offset - start + 1


def locate(raw: bytes, pointer: str, message: str = "") -> tuple[int, int]:
    """(lines into the document, column) of the problem: for a document that is not JSON,
    where the parser stopped; else the value ``pointer`` leads to (or its deepest parent)."""
    parsed = _PARSE_AT.match(message)
    if parsed:
        return int(parsed.group(1) or 1) - 1, int(parsed.group(2))
    text = raw.decode("utf-8", errors="replace")
    broken = _UTF8_AT.match(message)
    if broken:
        prefix = raw[: int(broken.group(1))].decode("utf-8", errors="replace")
        return _line_column(text, len(prefix))
    try:
        offset = _value_at(text, split(pointer))
    except RecursionError:  # pragma: no cover - the scanner does not recurse
        offset = 0
    return _line_column(text, min(offset, len(text)))
