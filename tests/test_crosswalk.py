"""docs/crosswalk.md says what the crosswalk tables do, and the tables do what it says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from agentruns import convert
from agentruns._crosswalk_doc import BEGIN, END, render
from agentruns.conversion import Format
from agentruns.crosswalk import Crosswalk
from agentruns.formats import BUILT_IN

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "crosswalk.md").read_text(encoding="utf-8")
FIXTURES = Path(__file__).parent / "fixtures"
FORMATS = {fmt.name: fmt for fmt in BUILT_IN}


def _record(name: str) -> BaseModel:
    model: type[BaseModel] = FORMATS[name].model
    return model.model_validate_json((FIXTURES / f"{name}.min.json").read_bytes())


def test_the_generated_tables_in_the_document_are_the_crosswalk_tables() -> None:
    generated = DOC.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert generated == render().strip(), (
        "docs/crosswalk.md is stale: python -m agentruns._crosswalk_doc docs/crosswalk.md"
    )


def _at(document: Any, pointer: str) -> tuple[bool, Any]:
    node = document
    for token in pointer.split("/")[1:]:
        if isinstance(node, dict) and token in node:
            node = node[token]
        else:
            return False, None
    return True, node


def _carried(document: dict[str, Any], name: str) -> set[str]:
    """The canonical fields a converted document carries."""
    fmt = FORMATS[name]
    payload: Any = fmt.carried(fmt.model.model_validate(document))
    return set(payload["fields"]) | set(payload["absent"]) if isinstance(payload, dict) else set()


def _run_rows(fmt: Format[Any]) -> list[tuple[str, str]]:
    """(pointer, canonical field) of every run-level row (not items of lists, not extras: the
    carry tests follow each extra property)."""
    table = fmt.crosswalk
    assert isinstance(table, Crosswalk)
    extras = {part.extras.target for part in table.tables() if part.extras is not None}
    return [(pointer, field) for field, pointer in table.pointers() if field not in extras]


@pytest.mark.parametrize(("source", "target"), [(s, t) for s in FORMATS for t in FORMATS if s != t])
def test_a_value_goes_where_the_document_says(source: str, target: str) -> None:
    record = _record(source)
    document = json.loads(record.model_dump_json())
    converted = convert(record, FORMATS[target].model)
    written = json.loads(converted.target.model_dump_json())
    places = dict(FORMATS[target].pointers)
    lost = {loss.pointer for loss in converted.losses}
    back = json.loads(convert(converted.target, FORMATS[source].model).target.model_dump_json())
    checked = 0
    for pointer, field in _run_rows(FORMATS[source]):
        present, value = _at(document, pointer)
        if not present or pointer == "":
            continue
        checked += 1
        if field in places:  # the document names the target's pointer
            assert _at(written, places[field])[0], f"{field} is not at {places[field]}"
            continue
        # "carried" or "lost": carried or reported, unless what the target derives on the
        # way back gives the value back as it was
        comes_back = _at(back, pointer) == (True, value)
        assert field in _carried(written, target) or pointer in lost or comes_back, field
    assert checked
