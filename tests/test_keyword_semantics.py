"""Generated models on draft-07 keyword semantics: zero false accepts, zero false rejects.

The cases (tests/fidelity/spec_cases.py) are written from the specification, one keyword at a
time, with values of the keyword's own type on both sides of its boundary and values of every
other type (which an untyped keyword must let through). Both validation paths are judged:
JSON text (``model_validate_json``) and parsed values (``model_validate``).
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from codegen.diagnostics import CodegenError
from codegen.driver import ModelSource
from codegen.pipeline import model_source
from tests.fidelity.spec_cases import (
    CASES,
    D7,
    ORACLE_MISTAKES,
    REFUSALS,
    ROOT_CASES,
    Case,
    accepts,
    build,
    case_documents,
    case_schema,
    disagreements,
    spec_report,
)


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
    model = build(case_schema(CASES), "spec_cases_models", tmp_path).Root
    documents = case_documents(CASES)
    assert len(documents) > 250
    assert disagreements(model, documents) == []


@pytest.mark.parametrize("index", range(len(ROOT_CASES)))
def test_root_models_have_no_false_accepts_and_no_false_rejects(index: int, tmp_path: Path) -> None:
    name, schema, accepted, rejected = ROOT_CASES[index]
    assert isinstance(schema, dict)
    model = build({"$schema": D7, **schema}, f"spec_root_{index}", tmp_path).Root
    documents = [(name, v, True) for v in accepted] + [(name, v, False) for v in rejected]
    assert disagreements(model, documents) == []


def test_a_loose_keyword_is_published_in_the_models_json_schema(tmp_path: Path) -> None:
    schema = {
        "$schema": D7,
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}},
    }
    model = build(schema, "published_rule", tmp_path).Root
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
    model = build(schema, "structure_formats", tmp_path).Root
    good = {"id": "2eb8aa08-aa98-11ea-b4aa-73b441d16380", "took": "PT1H30M", "on": "2026-11-30"}
    assert accepts(model, good) == (True, True)
    for bad in ({"id": "2eb8aa08"}, {"took": "1 hour"}, {"took": "PT"}, {"on": "30.11.2026"}):
        assert accepts(model, bad) == (False, False), bad


@pytest.mark.parametrize("index", range(len(REFUSALS)))
def test_what_cannot_be_enforced_is_refused_with_a_pointer(index: int) -> None:
    reason, schema = REFUSALS[index]
    with pytest.raises(CodegenError) as caught:
        model_source(schema, class_name="Root", source=ModelSource(reason, "-"), strict=False)
    assert all(d.severity.value == "error" for d in caught.value.diagnostics)


def test_the_fidelity_report_lists_the_keyword_results_and_each_refusal(tmp_path: Path) -> None:
    lines, failures = spec_report(tmp_path)
    assert failures == 0
    assert "0 false accepts, 0 false rejects" in lines[0]
    assert f"refused at build time: {len(REFUSALS)}" in lines
