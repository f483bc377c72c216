"""A schema whose ``$schema`` names a dialect of its own built on a JSON Schema draft
(CloudFormation's resource schemas: draft-07 and annotations of their own) is refused unless
its user names the draft to read it as (``--dialect``); read so, its models judge documents as
that draft does (jsonschema is the oracle). The schema below is written here in the shape of
CloudFormation's, not copied from them."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codegen.diagnostics import CodegenError
from codegen.pipeline import DIALECTS, json_schema_for
from tests._settings import PROPERTY_SETTINGS
from tests.test_definition_names import _agree_any
from tests.test_random_schemas import json_values

CLOUDFORMATION = (
    "https://schema.cloudformation.us-east-1.amazonaws.com/provider.definition.schema.v1.json"
)

RESOURCE: dict[str, Any] = {
    "$schema": CLOUDFORMATION,
    "typeName": "Example::Queue::Queue",
    "description": "A resource in the shape of a CloudFormation resource provider schema.",
    "additionalProperties": False,
    "definitions": {
        "Tag": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "Key": {"type": "string", "minLength": 1, "maxLength": 128},
                "Value": {"type": "string", "maxLength": 256},
            },
            "required": ["Key", "Value"],
        }
    },
    "properties": {
        "Arn": {"type": "string", "pattern": "^arn:aws[a-z-]*:[a-z]+:"},
        "Name": {"type": "string", "minLength": 1, "maxLength": 80},
        "Delay": {"type": "integer", "minimum": 0, "maximum": 900},
        "Tags": {
            "type": "array",
            "uniqueItems": True,
            "insertionOrder": False,
            "items": {"$ref": "#/definitions/Tag"},
        },
    },
    "required": ["Name"],
    "readOnlyProperties": ["/properties/Arn"],
    "primaryIdentifier": ["/properties/Arn"],
    "handlers": {"create": {"permissions": ["sqs:CreateQueue"]}},
}


def _read(document: dict[str, Any], dialect: str | None) -> dict[str, Any]:
    schema, _ = json_schema_for(
        copy.deepcopy(document), source="queue.json", strict=False, dialect=dialect
    )
    return dict(schema)


def test_a_dialect_the_build_step_does_not_know_is_refused_naming_the_way_out() -> None:
    with pytest.raises(CodegenError, match="--dialect draft-07"):
        _read(RESOURCE, None)


def test_an_unknown_dialect_name_is_refused() -> None:
    with pytest.raises(CodegenError, match="no dialect 'draft-99'"):
        _read(RESOURCE, "draft-99")


def test_a_json_structure_document_is_not_read_as_a_draft() -> None:
    structure = {
        "$schema": "https://json-structure.org/meta/core/v0/#",
        "$id": "https://example.com/s",
        "name": "S",
        "type": "object",
        "properties": {"a": {"type": "string"}},
    }
    with pytest.raises(CodegenError, match="--dialect reads a JSON Schema object"):
        _read(structure, "draft-07")


def test_every_dialect_named_is_one_the_build_step_reads() -> None:
    for name in DIALECTS:
        schema = _read({"$schema": CLOUDFORMATION, "type": "string"}, name)
        assert schema["type"] == "string"


_DOCUMENTS = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"Name": st.text(max_size=90)},
        optional={
            "Arn": st.sampled_from(["arn:aws:sqs:x", "arn:aws-cn:sqs:", "nope", ""]),
            "Delay": st.one_of(st.integers(-5, 1000), st.floats(allow_nan=False), st.text()),
            "Tags": st.lists(
                st.one_of(
                    st.fixed_dictionaries(
                        {"Key": st.sampled_from(["", "k", "x" * 129]), "Value": st.text()}
                    ),
                    json_values,
                ),
                max_size=3,
            ),
            "Extra": json_values,
        },
    ),
)


@PROPERTY_SETTINGS
@given(documents=st.lists(_DOCUMENTS, min_size=10, max_size=20))
def test_a_schema_read_as_draft_07_judges_as_draft_07_does(
    tmp_path_factory: Any, documents: list[Any]
) -> None:
    # (the root has no type of its own: a JSON value the whole schema judges, an alias)
    _agree_any(_read(RESOURCE, "draft-07"), tmp_path_factory.mktemp("dialect"), documents)


def test_the_model_command_takes_the_dialect(tmp_path: Path) -> None:
    from codegen.__main__ import main

    path = tmp_path / "queue.json"
    path.write_text(json.dumps(RESOURCE), encoding="utf-8")
    out = tmp_path / "queue.py"
    assert main(["model", str(path), "--out", str(out)]) == 1
    assert not out.exists()
    assert main(["model", str(path), "--out", str(out), "--dialect", "draft-07"]) == 0
    assert 'Queue = TypeAliasType(\n    "Queue",' in out.read_text(encoding="utf-8")
