"""agentruns: typed models and mappers for AI agent run records.

The four formats -- Portable Run Record (``portable``), Cortex Agent Run Journal
(``cortex``), AgentRun (``agentrun``) and ATIF trajectories (``atif``) -- as Pydantic v2 models
generated from their schemas, and conversion between them through one canonical run model,
with an exact account of what each conversion could not carry. Nested models live in
``agentruns.models``; runs export as OpenTelemetry traces with ``agentruns.otlp``.
"""

from __future__ import annotations

from agentruns import formats as _formats  # registers the built-in formats
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
from agentruns.models import AgentRun, AtifTrajectory, CortexRunJournal, PortableRunRecord

del _formats

RunRecord = PortableRunRecord | CortexRunJournal | AgentRun | AtifTrajectory
"""Any of the built-in formats' root models."""

__all__ = [
    "AgentRun",
    "AgentrunsError",
    "AtifTrajectory",
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
