"""agentruns: typed models and mappers for AI agent run records.

The three formats -- Portable Run Record (``portable``), Cortex Agent Run Journal
(``cortex``) and AgentRun (``agentrun``) -- as Pydantic v2 models generated from their
published schemas, and conversion between them through one canonical run model, with an exact
account of what each conversion could not carry. Nested models live in ``agentruns.models``.
"""

from __future__ import annotations

from agentruns import formats as _formats  # registers the three formats
from agentruns.canonical import Run, RunStep, Status
from agentruns.conversion import (
    Conversion,
    Derived,
    Format,
    Loss,
    Written,
    convert,
    format_for,
    from_canonical,
    register,
    to_canonical,
)
from agentruns.errors import AgentrunsError, LossError
from agentruns.models import AgentRun, CortexRunJournal, PortableRunRecord

del _formats

RunRecord = PortableRunRecord | CortexRunJournal | AgentRun
"""Any of the three formats' root models."""

__all__ = [
    "AgentRun",
    "AgentrunsError",
    "Conversion",
    "CortexRunJournal",
    "Derived",
    "Format",
    "Loss",
    "LossError",
    "PortableRunRecord",
    "Run",
    "RunRecord",
    "RunStep",
    "Status",
    "Written",
    "convert",
    "format_for",
    "from_canonical",
    "register",
    "to_canonical",
]
