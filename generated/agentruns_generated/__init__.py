"""Models generated from the schemas in schemas/ -- do not edit by hand.

Import them from ``agentruns`` (the stable public API), not from here.
Regenerate with: python -m codegen generate
"""

from importlib import import_module
from typing import TYPE_CHECKING, NamedTuple

from pydantic import BaseModel

if TYPE_CHECKING:
    from agentruns_generated.agentrun import AgentRun
    from agentruns_generated.atif import AtifTrajectory
    from agentruns_generated.cortex import CortexRunJournal
    from agentruns_generated.portable import PortableRunRecord


class GeneratedFormat(NamedTuple):
    """One format the build step generated models for."""

    name: str
    version: str
    """The upstream commit of its schema."""
    module: str
    """The module of its models (imported when its model is first asked for)."""
    class_name: str
    """The root model's name."""
    source: str
    """The vendored schema, in this package (as published upstream)."""
    enforced: str
    """The JSON Schema the models enforce, in this package (a JSON Structure schema
    is translated)."""

    @property
    def model(self) -> type[BaseModel]:
        """The root model."""
        found: type[BaseModel] = getattr(import_module(self.module), self.class_name)
        return found


FORMATS: dict[str, GeneratedFormat] = {
    "agentrun": GeneratedFormat(
        "agentrun",
        "9f2d5cb",
        "agentruns_generated.agentrun",
        "AgentRun",
        "schemas/agent-run.struct.json",
        "agentrun.schema.json",
    ),
    "atif": GeneratedFormat(
        "atif",
        "atif==1.8.0",
        "agentruns_generated.atif",
        "AtifTrajectory",
        "schemas/atif-trajectory.schema.json",
        "schemas/atif-trajectory.schema.json",
    ),
    "cortex": GeneratedFormat(
        "cortex",
        "320f143",
        "agentruns_generated.cortex",
        "CortexRunJournal",
        "schemas/cortex-run-journal.schema.json",
        "schemas/cortex-run-journal.schema.json",
    ),
    "portable": GeneratedFormat(
        "portable",
        "1019c00",
        "agentruns_generated.portable",
        "PortableRunRecord",
        "schemas/portable-run-record.schema.json",
        "schemas/portable-run-record.schema.json",
    ),
}
"""Every generated format by name: the one table the package reads its formats from."""

_ROOTS = {
    "AgentRun": "agentrun",
    "AtifTrajectory": "atif",
    "CortexRunJournal": "cortex",
    "PortableRunRecord": "portable",
}


def __getattr__(name: str) -> object:
    """A root model, imported with its format's module when first named."""
    fmt = _ROOTS.get(name)
    if fmt is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return FORMATS[fmt].model


__all__ = [
    "FORMATS",
    "AgentRun",
    "AtifTrajectory",
    "CortexRunJournal",
    "GeneratedFormat",
    "PortableRunRecord",
]
