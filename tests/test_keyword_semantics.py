"""Generated models on draft-07 keyword semantics: zero false accepts, zero false rejects.

The cases (tests/fidelity/spec_cases.py) are written from the specification, one keyword at a
time, with values of the keyword's own type on both sides of its boundary and values of every
other type (which an untyped keyword must let through). Both validation paths are judged:
JSON text (``model_validate_json``) and parsed values (``model_validate``).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel, ValidationError

from codegen.driver import ModelSource
from codegen.pipeline import model_source
from tests.fidelity.spec_cases import (
    CASES,
    D7,
    ORACLE_MISTAKES,
    ROOT_CASES,
    Case,
    case_schema,
)


def _module(schema: dict[str, Any], name: str, workdir: Path) -> ModuleType:
    code, _ = model_source(schema, class_name="Root", source=ModelSource(name, "-"), strict=False)
    path = workdir / f"{name}.py"
    path.write_text(code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _accepts(model: type[BaseModel], document: Any) -> tuple[bool, bool]:
    try:
        model.model_validate_json(json.dumps(document))
        as_json = True
    except ValidationError:
        as_json = False
    try:
        model.model_validate(document)
        as_python = True
    except ValidationError:
        as_python = False
    return as_json, as_python


def _disagreements(model: type[BaseModel], documents: list[tuple[str, Any, bool]]) -> list[str]:
    found = []
    for name, document, expected in documents:
        as_json, as_python = _accepts(model, document)
        for path, got in (("JSON text", as_json), ("parsed value", as_python)):
            if got != expected:
                kind = "false accept" if got else "false reject"
                found.append(f"{name}: {kind} of {json.dumps(document)} ({path})")
    return found


@pytest.mark.parametrize("cases", [CASES, ROOT_CASES], ids=["as a property", "at the root"])
def test_the_spec_table_agrees_with_jsonschema(cases: list[Case]) -> None:
    for name, schema, accepted, rejected in cases:
        if cases is CASES:
            schema = {"type": "object", "properties": {"v": schema}}
        validator = jsonschema.Draft7Validator(
            {"$schema": D7, **schema} if isinstance(schema, dict) else schema,
            format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER,
        )
        wrap = (lambda v: {"v": v}) if cases is CASES else (lambda v: v)
        verdicts = [validator.is_valid(wrap(v)) for v in accepted] + [
            not validator.is_valid(wrap(v)) for v in rejected
        ]
        if name in ORACLE_MISTAKES:  # jsonschema's Python regexes are not ECMA-262
            assert not all(verdicts), f"{name}: jsonschema now agrees; drop the exception"
        else:
            assert all(verdicts), name


def test_models_have_no_false_accepts_and_no_false_rejects_per_keyword(tmp_path: Path) -> None:
    model = _module(case_schema(CASES), "spec_cases_models", tmp_path).Root
    documents = [
        (name, {f"c{index}": value}, expected)
        for index, (name, _, accepted, rejected) in enumerate(CASES)
        for values, expected in ((accepted, True), (rejected, False))
        for value in values
    ]
    assert len(documents) > 250
    assert _disagreements(model, documents) == []


@pytest.mark.parametrize("index", range(len(ROOT_CASES)))
def test_root_models_have_no_false_accepts_and_no_false_rejects(index: int, tmp_path: Path) -> None:
    name, schema, accepted, rejected = ROOT_CASES[index]
    assert isinstance(schema, dict)
    model = _module({"$schema": D7, **schema}, f"spec_root_{index}", tmp_path).Root
    documents = [(name, v, True) for v in accepted] + [(name, v, False) for v in rejected]
    assert _disagreements(model, documents) == []


def test_a_loose_keyword_is_published_in_the_models_json_schema(tmp_path: Path) -> None:
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}},
    }
    model = _module(schema, "published_rule", tmp_path).Root
    published = json.dumps(model.model_json_schema())
    assert '"uniqueItems": true' in published


def test_json_structure_uuid_and_duration_are_asserted(tmp_path: Path) -> None:
    """JSON Structure's uuid and duration types translate to 2020-12 formats, asserted."""
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "took": {"type": "string", "format": "duration"},
            "on": {"type": "string", "format": "date"},
        },
    }
    model = _module(schema, "structure_formats", tmp_path).Root
    good = {"id": "2eb8aa08-aa98-11ea-b4aa-73b441d16380", "took": "PT1H30M", "on": "2026-11-30"}
    assert _accepts(model, good) == (True, True)
    for bad in ({"id": "2eb8aa08"}, {"took": "1 hour"}, {"took": "PT"}, {"on": "30.11.2026"}):
        assert _accepts(model, bad) == (False, False), bad
