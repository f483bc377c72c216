"""docs/crosswalk.md names every property of every schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CROSSWALK = (ROOT / "docs" / "crosswalk.md").read_text(encoding="utf-8")
SCHEMAS = {
    "portable": ROOT / "schemas" / "portable-run-record.schema.json",
    "cortex": ROOT / "schemas" / "cortex-run-journal.schema.json",
    "agentrun": ROOT / "schemas" / "agent-run.struct.json",
}


def property_names(schema: Any) -> set[str]:
    names: set[str] = set()
    if isinstance(schema, dict):
        properties = schema.get("properties")
        if isinstance(properties, dict):
            names.update(properties)
        for value in schema.values():
            names |= property_names(value)
    elif isinstance(schema, list):
        for value in schema:
            names |= property_names(value)
    return names


def section(name: str) -> str:
    start = CROSSWALK.index(f"## {name} (")
    end = CROSSWALK.find("\n## ", start + 1)
    return CROSSWALK[start : end if end != -1 else None]


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_schema_property_appears_in_its_crosswalk_section(name: str) -> None:
    schema = json.loads(SCHEMAS[name].read_text(encoding="utf-8"))
    text = section(name)
    missing = sorted(p for p in property_names(schema) if f"`{p}`" not in text)
    assert not missing, f"docs/crosswalk.md section {name!r} does not mention {missing}"


def test_property_names_are_collected_from_nested_definitions() -> None:
    schema = {
        "properties": {"a": {"items": {"properties": {"b": {}}}}},
        "definitions": {"d": {"properties": {"c": {}}}},
    }
    assert property_names(schema) == {"a", "b", "c"}
