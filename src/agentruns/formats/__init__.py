"""One module per format: a reader and a writer around the canonical run (the pandoc pattern)."""

from __future__ import annotations

from agentruns.conversion import register
from agentruns.formats.agentrun import AGENTRUN, AgentRunFormat
from agentruns.formats.cortex import CORTEX, CortexFormat
from agentruns.formats.portable import PORTABLE, PortableFormat

register(PORTABLE)
register(CORTEX)
register(AGENTRUN)

__all__ = ["AGENTRUN", "CORTEX", "PORTABLE", "AgentRunFormat", "CortexFormat", "PortableFormat"]
