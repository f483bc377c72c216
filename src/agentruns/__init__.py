"""agentruns: typed models for AI agent run records.

The three formats -- Portable Run Record (``portable``), Cortex Agent Run Journal
(``cortex``) and AgentRun (``agentrun``) -- as Pydantic v2 models generated from their
published schemas. Import the root models from here; nested models live in
``agentruns.models``.
"""

from __future__ import annotations

from agentruns.models import AgentRun, CortexRunJournal, PortableRunRecord

__all__ = ["AgentRun", "CortexRunJournal", "PortableRunRecord"]
