"""Text from input, made safe to print: one line, no terminal control.

Keys, values and file names come from files nobody here wrote. Printed as they are, a newline
in a key forges a ``file:line:`` message of its own, and an escape sequence (``ESC ]0;...``)
retitles or reprograms the user's terminal. Every such character is shown as a Python-style
escape instead, so a message is always exactly one line and means what it says.
"""

from __future__ import annotations

import re

# C0 controls but tab, DEL, C1 controls, line/paragraph separators, bidirectional overrides
# and isolates (they reorder what a terminal shows: "Trojan Source"), the BOM.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every character that could break a line or drive a terminal escaped."""
    return _UNSAFE.sub(_escape, text)
