"""Models generated from the schemas in schemas/ -- do not edit by hand.

Import them from ``agentruns`` (the stable public API), not from here.
Regenerate with: python -m codegen generate
"""

from typing import NamedTuple

from pydantic import BaseModel

from agentruns_generated.agentrun import AgentRun
from agentruns_generated.atif import AtifTrajectory
from agentruns_generated.cortex import CortexRunJournal
from agentruns_generated.portable import PortableRunRecord


class GeneratedFormat(NamedTuple):
    """One format the build step generated models for."""

    name: str
    version: str
    """The upstream commit of its schema."""
    model: type[BaseModel]
    """The root model."""
    source: str
    """The vendored schema, in this package (as published upstream)."""
    enforced: str
    """The JSON Schema the models enforce, in this package (a JSON Structure schema
    is translated)."""


FORMATS: dict[str, GeneratedFormat] = {
    "agentrun": GeneratedFormat(
        "agentrun", "9f2d5cb", AgentRun, "schemas/agent-run.struct.json", "agentrun.schema.json"
    ),
    "atif": GeneratedFormat(
        "atif",
        "atif==1.8.0",
        AtifTrajectory,
        "schemas/atif-trajectory.schema.json",
        "schemas/atif-trajectory.schema.json",
    ),
    "cortex": GeneratedFormat(
        "cortex",
        "320f143",
        CortexRunJournal,
        "schemas/cortex-run-journal.schema.json",
        "schemas/cortex-run-journal.schema.json",
    ),
    "portable": GeneratedFormat(
        "portable",
        "1019c0066a09",
        PortableRunRecord,
        "schemas/portable-run-record.schema.json",
        "schemas/portable-run-record.schema.json",
    ),
}
"""Every generated format by name: the one table the package reads its formats from."""

__all__ = [
    "FORMATS",
    "AgentRun",
    "AtifTrajectory",
    "CortexRunJournal",
    "GeneratedFormat",
    "PortableRunRecord",
]
