"""Differential fidelity: the generated models agree with independent validators.

A bounded profile runs here; ``nox -s fidelity -- --profile long`` runs the long one and prints
the full report.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen.diagnostics import CodegenError
from codegen.driver import ModelSource
from codegen.pipeline import model_source
from tests.fidelity.keywords import KEYWORD_SCHEMAS, REFUSED_SCHEMAS, keyword_subject
from tests.fidelity.mutations import candidates, schema_constants
from tests.fidelity.oracles import format_checking_is_real, subjects
from tests.fidelity.runner import format_report, run, same_json

CI_INSTANCES = 25
CI_MUTATIONS = 20


def test_format_checking_is_really_on_in_the_jsonschema_oracle() -> None:
    assert format_checking_is_real()


@pytest.mark.parametrize("mode", ["json", "python"])
@pytest.mark.parametrize("name", sorted(subjects()))
def test_model_agrees_with_every_oracle_on_generated_and_mutated_instances(
    name: str, mode: str
) -> None:
    report = run(
        subjects()[name], instances=CI_INSTANCES, mutations_per_instance=CI_MUTATIONS, mode=mode
    )
    assert report.instances == CI_INSTANCES
    assert report.mutations > 0
    assert report.total_disagreements == 0, format_report(report)


@pytest.mark.parametrize("name", sorted(subjects()))
def test_published_schema_agrees_with_the_source_schema(name: str) -> None:
    report = run(subjects()[name], instances=10, mutations_per_instance=20, seed=1)
    assert not report.published_disagreements, format_report(report)


def test_mutations_cover_every_kind_of_rejection() -> None:
    instance = {"a": [1, 2], "b": {"c": "2026-01-01T00:00:00Z"}, "d": 3}
    kinds = {m.kind for m in candidates(instance, ["x"])}
    assert {
        "wrong JSON type",
        "numeric string",
        "boolean for number",
        "float for integer",
        "integral float",
        "null",
        "missing property",
        "extra property",
        "out of range",
        "other enum/const value",
        "bad datetime",
        "shorter array",
        "pattern: trailing newline",
    } <= kinds


def test_schema_constants_collects_enums_and_consts() -> None:
    schema = {"properties": {"a": {"enum": ["x", "y"]}, "b": {"const": 1}}, "examples": ["z"]}
    assert schema_constants(schema) == ["x", "y", 1]


def test_datetimes_compare_as_instants_when_checking_round_trips() -> None:
    assert same_json({"t": "2026-01-01T00:00:00+00:00"}, {"t": "2026-01-01T00:00:00Z"})
    assert same_json({"t": "2026-01-01T00:00:00.1234567Z"}, {"t": "2026-01-01T00:00:00.123456Z"})
    assert not same_json({"t": "2026-01-01T00:00:00Z"}, {"t": "2026-01-01T00:00:01Z"})
    assert not same_json({"n": 1}, {"n": True})


@pytest.mark.parametrize("mode", ["json", "python"])
@pytest.mark.parametrize("name", sorted(KEYWORD_SCHEMAS))
def test_models_from_small_schemas_agree_with_jsonschema_per_keyword(
    name: str, mode: str, tmp_path: Path
) -> None:
    subject = keyword_subject(name, tmp_path)
    report = run(subject, instances=20, mutations_per_instance=25, mode=mode)
    assert report.total_disagreements == 0, format_report(report)
    assert not report.published_disagreements, format_report(report)


@pytest.mark.parametrize("name", sorted(REFUSED_SCHEMAS))
def test_keywords_the_generator_would_drop_are_refused_with_their_pointer(name: str) -> None:
    schema, where = REFUSED_SCHEMAS[name]
    with pytest.raises(CodegenError) as caught:
        model_source(schema, class_name="Root", source=ModelSource("t.json", "-"), strict=False)
    assert where in {d.pointer for d in caught.value.diagnostics}
