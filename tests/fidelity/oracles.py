"""Independent validators (the oracles) and the subjects they judge.

A subject is one format: its generated model, the JSON Schema hypothesis generates from, and
the oracles whose verdict the model must match. The published schema (the JSON Schema the
model itself reports, as FastAPI would publish it) is judged as a second candidate.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from json_structure import InstanceValidator
from pydantic import BaseModel, ValidationError

from agentruns import AgentRun, CortexRunJournal, PortableRunRecord
from agentruns.models import AtifTrajectory
from codegen.normalize import normalize
from tests.fidelity.atif import as_atif_checks, generation_schema

ROOT = Path(__file__).resolve().parents[2]

Oracle = Callable[[Any], bool]


def format_checking_is_real() -> bool:
    """jsonschema skips date-time silently unless rfc3339-validator is installed."""
    checker = jsonschema.Draft7Validator.FORMAT_CHECKER
    return "date-time" in checker.checkers and not checker.conforms(
        "2020-01-01 00:00:00Z", "date-time"
    )


def json_schema_oracle(schema: dict[str, Any]) -> Oracle:
    cls = jsonschema.validators.validator_for(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)

    def accepts(instance: Any) -> bool:
        return bool(validator.is_valid(instance))

    return accepts


def structure_oracle(schema: dict[str, Any]) -> Oracle:
    def accepts(instance: Any) -> bool:
        # A fresh validator per instance: the SDK keeps errors between calls.
        return not InstanceValidator(schema).validate_instance(instance)

    return accepts


def model_acceptor(model: type[BaseModel], mode: str = "json") -> Callable[[Any], BaseModel | None]:
    """The model as a candidate: ``json`` validates the JSON text (``model_validate_json``);
    ``python`` validates the value ``json.loads`` gives (what ``agentruns.io`` does, so the
    text is parsed once)."""

    def accept(instance: Any) -> BaseModel | None:
        text = json.dumps(instance, allow_nan=False)
        try:
            if mode == "python":
                return model.model_validate(json.loads(text))
            return model.model_validate_json(text)
        except ValidationError:
            return None

    return accept


@dataclass(frozen=True)
class Subject:
    name: str
    model: type[BaseModel]
    generation_schema: dict[str, Any]
    # name -> oracle; the model must agree with each, outside the exception table
    oracles: dict[str, Oracle]
    # the source schema, for mutation candidates (enum/const values)
    source_schema: dict[str, Any]
    # what makes a generated instance valid where the generation schema is looser than the
    # source (ATIF's validator rules, left out of generation for speed)
    prepare: Callable[[Any], Any] = lambda instance: instance

    @property
    def published(self) -> Oracle:
        return json_schema_oracle(self.model.model_json_schema())


def _generation_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The normalised schema: same instances, but conditionals are unions, which
    hypothesis-jsonschema generates from far faster than from if/then (no filtering).
    Rules lifted for model validators go back in as ``allOf`` so they still shape instances."""
    restored: dict[str, Any] = _restore_rules(normalize(schema, source="fidelity").schema)
    return restored


def _restore_rules(node: Any) -> Any:
    if isinstance(node, list):
        return [_restore_rules(n) for n in node]
    if not isinstance(node, dict):
        return node
    result = {k: _restore_rules(v) for k, v in node.items() if k != "x-allOf"}
    if "x-allOf" in node:
        result["allOf"] = [*result.get("allOf", []), *node["x-allOf"]]
    return result


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@cache
def subjects() -> dict[str, Subject]:
    portable = _load(ROOT / "schemas" / "portable-run-record.schema.json")
    cortex = _load(ROOT / "schemas" / "cortex-run-journal.schema.json")
    structure = _load(ROOT / "schemas" / "agent-run.struct.json")
    translated = _load(ROOT / "generated" / "agentruns_generated" / "agentrun.schema.json")
    trajectory = _load(ROOT / "schemas" / "atif-trajectory.schema.json")
    return {
        "atif": Subject(
            "atif",
            AtifTrajectory,
            generation_schema(trajectory),
            {"jsonschema": json_schema_oracle(trajectory)},
            trajectory,
            as_atif_checks,
        ),
        "portable": Subject(
            "portable",
            PortableRunRecord,
            _generation_schema(portable),
            {"jsonschema": json_schema_oracle(portable)},
            portable,
        ),
        "cortex": Subject(
            "cortex",
            CortexRunJournal,
            _generation_schema(cortex),
            {"jsonschema": json_schema_oracle(cortex)},
            cortex,
        ),
        "agentrun": Subject(
            "agentrun",
            AgentRun,
            _generation_schema(translated),
            {
                "jsonschema(translated)": json_schema_oracle(translated),
                "json-structure SDK": structure_oracle(structure),
            },
            translated,
        ),
    }
