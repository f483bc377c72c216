"""agentruns: typed models and mappers for AI agent run records.

The four formats -- Portable Run Record (``portable``), Cortex Agent Run Journal
(``cortex``), AgentRun (``agentrun``) and ATIF trajectories (``atif``) -- as Pydantic v2 models
generated from their schemas, and conversion between them through one canonical run model,
with an exact account of what each conversion could not carry. Nested models live in
``agentruns.models``; runs export as OpenTelemetry traces with ``agentruns.otlp``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from typing import TypeAlias

    from agentruns.models import AgentRun, AtifTrajectory, CortexRunJournal, PortableRunRecord

    RunRecord: TypeAlias = PortableRunRecord | CortexRunJournal | AgentRun | AtifTrajectory
    """Any of the built-in formats' root models."""

_ROOTS = frozenset({"AgentRun", "AtifTrajectory", "CortexRunJournal", "PortableRunRecord"})


def __getattr__(name: str) -> object:
    """A root model (imported with its format's models when first named), ``RunRecord``, or
    a module of the package: ``import agentruns`` imports no format's models, so a service
    pays for the formats it uses."""
    from importlib import import_module

    if name not in _ROOTS and name != "RunRecord":
        if not name.startswith("_"):  # a module of the package (``agentruns.models``)
            try:
                return import_module(f"{__name__}.{name}")
            except ModuleNotFoundError as error:
                if error.name != f"{__name__}.{name}":
                    raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    models = import_module("agentruns.models")
    if name in _ROOTS:
        return getattr(models, name)
    return (
        models.PortableRunRecord | models.CortexRunJournal | models.AgentRun | models.AtifTrajectory
    )


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
