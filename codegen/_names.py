"""Names for generated classes, from schema names and file names."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+")  # letters and digits; anything else separates words


def pascal(name: str) -> str:
    """``run-record.schema`` -> ``RunRecordSchema``; ``tool_call`` -> ``ToolCall``."""
    return "".join(word[:1].upper() + word[1:] for word in _WORD.findall(name))
