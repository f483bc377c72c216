"""One module per format: a reader and a writer around the canonical run (the pandoc pattern)."""

from __future__ import annotations

from typing import Any

from agentruns.conversion import Format, register
from agentruns.formats.agentrun import AGENTRUN, AgentRunFormat
from agentruns.formats.atif import ATIF, AtifFormat
from agentruns.formats.cortex import CORTEX, CortexFormat
from agentruns.formats.portable import PORTABLE, PortableFormat

BUILT_IN: tuple[Format[Any], ...] = (AGENTRUN, ATIF, CORTEX, PORTABLE)
"""The formats agentruns ships, by name (plugins register more)."""

for _fmt in BUILT_IN:
    register(_fmt)
del _fmt

__all__ = [
    "AGENTRUN",
    "ATIF",
    "BUILT_IN",
    "CORTEX",
    "PORTABLE",
    "AgentRunFormat",
    "AtifFormat",
    "CortexFormat",
    "PortableFormat",
]
