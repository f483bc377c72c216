"""The JSON Schemas behind the models, as shipped in the package."""

from __future__ import annotations

from importlib import resources

_ENFORCED = {
    "portable": "schemas/portable-run-record.schema.json",
    "cortex": "schemas/cortex-run-journal.schema.json",
    # AgentRun is published in JSON Structure; the models enforce its translation
    "agentrun": "agentrun.schema.json",
}
_SOURCE = {
    "portable": "schemas/portable-run-record.schema.json",
    "cortex": "schemas/cortex-run-journal.schema.json",
    "agentrun": "schemas/agent-run.struct.json",
}


def schema_text(name: str, *, source: bool = False) -> str:
    """The JSON Schema the models of a format enforce, or (``source``) the vendored original."""
    table = _SOURCE if source else _ENFORCED
    if name not in table:
        raise KeyError(f"unknown format {name!r} (known: {', '.join(sorted(table))})")
    return resources.files("agentruns_generated").joinpath(table[name]).read_text(encoding="utf-8")
