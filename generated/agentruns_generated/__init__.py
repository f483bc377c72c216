"""Models generated from the schemas in schemas/ -- do not edit by hand.

Import them from ``agentruns`` (the stable public API), not from here.
Regenerate with: python -m codegen generate
"""

from agentruns_generated.agentrun import AgentRun
from agentruns_generated.cortex import CortexRunJournal
from agentruns_generated.portable import PortableRunRecord

__all__ = ["AgentRun", "CortexRunJournal", "PortableRunRecord"]
