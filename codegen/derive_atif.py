"""Derive the vendored ATIF schema from the ``atif`` package's models (the recorded command).

ATIF (Harbor's RFC 0001) publishes no JSON Schema file; the ``atif`` package on PyPI (MIT)
holds pydantic models for v1.8. ``schemas/atif-trajectory.schema.json`` is their JSON Schema,
brought to draft-07 and completed by the constraints the models check in Python, so that the
generated model accepts what ``atif.Trajectory`` accepts wherever JSON Schema can say it:

    python -m codegen.derive_atif > schemas/atif-trajectory.schema.json

Each change to pydantic's output is one named step below: ``$defs`` become ``definitions``
(named ``Atif...``) and the root is the trajectory itself (a subagent trajectory refers to
``#``); annotations that only describe the Python models are dropped (``title`` but the
root's, ``default: null``: an optional field is absent, never a default); the validators
become schema keywords.
What no JSON Schema can say (consecutive ``step_id``s, unique subagent ids, a result naming a
call of its own step, ISO 8601 timestamps as ``datetime.fromisoformat`` reads them, audio
media type aliases) is listed in the manifest's ``differences``;
``tests/test_atif.py`` checks that this file is what this command prints.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from codegen._json import Json

ATIF_VERSION = "1.8.0"
"""The version of the ``atif`` package the vendored schema is derived from."""

PREFIX = "Atif"
"""Every definition's name is prefixed (``AtifStep``): ``agentruns.models`` exports the
classes of all formats side by side, and AgentRun has a ``Step`` and a ``Metrics`` too."""

_AGENT_ONLY = ("model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics")


def _absent_or_null(*names: str) -> dict[str, Json]:
    return {"properties": {name: {"type": "null"} for name in names}}


def _step_rules() -> list[Json]:
    """``Step._check_source_constraints``: agent-only fields are absent (or null) on the
    steps of a user or the system, and an agent step without an LLM call has no metrics and
    no reasoning."""
    return [
        {
            "if": {"properties": {"source": {"not": {"const": "agent"}}}},
            "then": _absent_or_null(*_AGENT_ONLY),
        },
        {
            "if": {
                "properties": {"source": {"const": "agent"}, "llm_call_count": {"const": 0}},
                "required": ["source", "llm_call_count"],
            },
            "then": _absent_or_null("metrics", "reasoning_content"),
        },
    ]


def _content_part_rules() -> list[Json]:
    """``ContentPart._check_payload``: a text part has text and no source; an image or audio
    part has a source of its kind and no text."""
    return [
        {
            "if": {"properties": {"type": {"const": "text"}}},
            "then": {
                "required": ["text"],
                "properties": {"text": {"type": "string"}, "source": {"type": "null"}},
            },
        },
        {
            "if": {"properties": {"type": {"const": "image"}}},
            "then": {
                "required": ["source"],
                "properties": {
                    "source": {"$ref": "#/definitions/" + PREFIX + "ImageSource"},
                    "text": {"type": "null"},
                },
            },
        },
        {
            "if": {"properties": {"type": {"const": "audio"}}},
            "then": {
                "required": ["source"],
                "properties": {
                    "source": {"$ref": "#/definitions/" + PREFIX + "AudioSource"},
                    "text": {"type": "null"},
                },
            },
        },
    ]


def _subagent_ref_rules() -> list[Json]:
    """``SubagentTrajectoryRef._require_resolvable``: an embedded id or a path is set."""
    return [
        {
            "anyOf": [
                {
                    "required": ["trajectory_id"],
                    "properties": {"trajectory_id": {"type": "string"}},
                },
                {
                    "required": ["trajectory_path"],
                    "properties": {"trajectory_path": {"type": "string"}},
                },
            ]
        }
    ]


def _without_annotations(node: Any, *, keep_title: bool = False) -> Any:
    if isinstance(node, list):
        return [_without_annotations(item) for item in node]
    if not isinstance(node, dict):
        return node
    result: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and not keep_title and isinstance(value, str):
            continue
        if key == "default" and value is None:
            continue
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            result[key] = {name: _without_annotations(sub) for name, sub in value.items()}
        else:
            result[key] = _without_annotations(value)
    return result


def _retarget(node: Any) -> Any:
    """``#/$defs/Trajectory`` is the root; ``#/$defs/X`` is ``#/definitions/X``."""
    if isinstance(node, list):
        return [_retarget(item) for item in node]
    if not isinstance(node, dict):
        return node
    result = {key: _retarget(value) for key, value in node.items()}
    ref = result.get("$ref")
    if ref == "#/$defs/Trajectory":
        result["$ref"] = "#"
    elif isinstance(ref, str) and ref.startswith("#/$defs/"):
        result["$ref"] = "#/definitions/" + PREFIX + ref[len("#/$defs/") :]
    return result


def derive(pydantic_schema: dict[str, Any]) -> dict[str, Any]:
    """The vendored schema, from ``atif.Trajectory.model_json_schema()``."""
    definitions = {PREFIX + k: v for k, v in _retarget(pydantic_schema["$defs"]).items()}
    trajectory = definitions.pop(PREFIX + "Trajectory")
    definitions = _without_annotations(definitions)
    trajectory = _without_annotations(trajectory)
    definitions[PREFIX + "Step"]["allOf"] = _step_rules()
    definitions[PREFIX + "ContentPart"]["allOf"] = _content_part_rules()
    definitions[PREFIX + "SubagentTrajectoryRef"]["allOf"] = _subagent_ref_rules()
    # ``Trajectory._validate_steps_and_subagents``: an embedded trajectory has an id (a rule
    # of the parent, so the items stay trajectories: an ``allOf`` of ``#`` and the rule in
    # ``items`` would be a JSON value checked whole)
    trajectory["allOf"] = [
        {
            "properties": {
                "subagent_trajectories": {
                    "items": {
                        "required": ["trajectory_id"],
                        "properties": {"trajectory_id": {"type": "string"}},
                    }
                }
            }
        }
    ]
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "ATIF Trajectory",
        "description": (
            "Agent Trajectory Interchange Format (Harbor RFC 0001) v1.8, derived from the "
            f"models of the atif {ATIF_VERSION} package (MIT) by `python -m codegen.derive_atif`."
        ),
        **{k: v for k, v in trajectory.items() if k not in ("title", "description")},
        "definitions": dict(sorted(definitions.items())),
    }


def main() -> int:
    try:
        from importlib.metadata import version

        import atif
    except ImportError:
        print(
            "derive_atif needs the atif package: pip install atif==" + ATIF_VERSION, file=sys.stderr
        )
        return 1
    found = version("atif")
    if found != ATIF_VERSION:
        print(
            f"derive_atif is pinned to atif {ATIF_VERSION}; {found} is installed", file=sys.stderr
        )
        return 1
    schema = derive(atif.Trajectory.model_json_schema())
    sys.stdout.write(json.dumps(schema, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
