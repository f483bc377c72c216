"""What hypothesis generates ATIF trajectories from, and what makes them ones atif accepts.

The vendored schema refers to itself (an embedded trajectory is a trajectory), which
hypothesis-jsonschema cannot generate from, and its validator rules (``if``/``then``) make
generation ten times slower; both are handled here, once, for the fidelity runner, the
conversion properties and ``tests/test_atif.py``.
"""

from __future__ import annotations

import json
from typing import Any


def generation_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with embedded trajectories one level deep (hypothesis-jsonschema cannot
    generate from a recursive ``$ref``): an embedded trajectory embeds none. The validators'
    rules are left to ``as_atif_checks`` (generating under them is ten times slower); the
    refusal tests in ``tests/test_atif.py`` check each rule."""
    schema = json.loads(json.dumps(schema))
    for name in ("AtifStep", "AtifContentPart", "AtifSubagentTrajectoryRef"):
        del schema["definitions"][name]["allOf"]
    inner = json.loads(json.dumps(schema))
    del inner["properties"]["subagent_trajectories"]
    for key in ("$schema", "definitions", "allOf"):
        inner.pop(key, None)
    outer: dict[str, Any] = json.loads(json.dumps(schema))
    outer["properties"]["subagent_trajectories"]["anyOf"][0]["items"] = inner
    return outer


_AGENT_ONLY = ("model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics")


def _parts_valid(parts: Any) -> None:
    """Content parts as the validators want them: text with text, media with their source."""
    if not isinstance(parts, list):
        return
    for i, part in enumerate(parts):
        kind = part["type"]
        source = part.get("source")
        media = source.get("media_type", "") if isinstance(source, dict) else ""
        if kind == "text" or not media.startswith(f"{kind}/"):
            parts[i] = {"type": "text", "text": part.get("text") or "t"}
        else:
            part.pop("text", None)


def as_atif_checks(document: Any) -> Any:
    """The trajectory with the validators' rules made true (agent-only fields, content
    parts, resolvable subagent references), and what no JSON Schema can say: step ids
    counting from 1, results naming calls of their own step, unique embedded ids, timestamps
    ``datetime.fromisoformat`` reads (the manifest lists these differences)."""
    if not isinstance(document, dict):
        return document
    for number, step in enumerate(document.get("steps") or [], 1):
        if not isinstance(step, dict):
            continue
        step["step_id"] = number
        if step["source"] != "agent":
            for name in _AGENT_ONLY:
                step.pop(name, None)
        elif step.get("llm_call_count") == 0:
            step.pop("metrics", None)
            step.pop("reasoning_content", None)
        _parts_valid(step["message"])
        for result in (step.get("observation") or {}).get("results") or []:
            _parts_valid(result.get("content"))
            for ref in result.get("subagent_trajectory_ref") or []:
                if ref.get("trajectory_id") is None and ref.get("trajectory_path") is None:
                    ref["trajectory_path"] = "p"
        if "timestamp" in step and isinstance(step["timestamp"], str):
            step["timestamp"] = "2026-01-01T00:00:00Z"
        calls = {c.get("tool_call_id") for c in step.get("tool_calls") or [] if isinstance(c, dict)}
        observation = step.get("observation")
        if isinstance(observation, dict):
            for result in observation.get("results") or []:
                if isinstance(result, dict) and result.get("source_call_id") not in calls:
                    result.pop("source_call_id", None)
    subs = document.get("subagent_trajectories")
    if isinstance(subs, list):
        for i, sub in enumerate(subs):
            as_atif_checks(sub)
            if isinstance(sub, dict) and isinstance(sub.get("trajectory_id"), str):
                sub["trajectory_id"] = f"sub-{i}"
    return document


def written_form(document: Any) -> Any:
    """The trajectory as agentruns writes it: no null where the format's rows read null as
    absent (``agentruns.formats.atif.NULL_AS_ABSENT``), and no empty ``final_metrics`` (an
    object without any field is none)."""
    from agentruns.formats.atif import NULL_AS_ABSENT

    if not isinstance(document, dict):
        return document
    for pointer in NULL_AS_ABSENT:
        *path, key = pointer[1:].split("/")
        owner: Any = document
        for part in path:
            owner = owner.get(part) if isinstance(owner, dict) else None
        if isinstance(owner, dict) and key in owner and owner[key] is None:
            del owner[key]
    metrics = document.get("final_metrics")
    if isinstance(metrics, dict) and not metrics:
        del document["final_metrics"]
    for sub in document.get("subagent_trajectories") or []:
        written_form(sub)
    return document
