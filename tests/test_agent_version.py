"""The agent's version a session file states is the run's ``agent_version`` (ATIF's
``agent.version``, which was written "unknown"): each harness's own field, a subagent's from
its own lines or else from the process that ran it, and nothing made up where a file has none."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic import MISSING

from agentruns import AtifTrajectory, from_canonical
from agentruns.transcripts import read

LOGS = Path(__file__).parent / "fixtures" / "upstream" / "agent-logs"
ROLLOUT = "01997ea4-a70d-7da3-8c20-c736db82a7c5"

STATED = {
    "claude-session/spotter-subagent.jsonl": "2.1.38",
    "claude-session/agentcmd-full-session.jsonl": "2.0.14",
    "claude-stream-json/gleam-basic_query.ndjson": "2.1.7",
    f"codex-rollout/agentcmd-rollout-2025-09-24T20-12-23-{ROLLOUT}.jsonl": "0.40.0",
    "copilot/jazzy-copilot-small.jsonl": "1.0.77",
    "opencode-storage/jazzy-ses_s_stage0_small.json": "1.3.17",
}
"""Each file, and the version its own text states (read off the file by the test below)."""


@pytest.mark.parametrize("name", sorted(STATED))
def test_the_file_states_the_version_the_table_says(name: str) -> None:
    text = (LOGS / name).read_text(encoding="utf-8")
    said = re.findall(
        r'"(?:version|claude_code_version|cli_version|copilotVersion)"\s*:\s*"([^"]+)"', text
    )
    assert said
    assert set(said) == {STATED[name]}


@pytest.mark.parametrize("name", sorted(STATED))
def test_a_sessions_stated_version_is_the_runs_agent_version(name: str) -> None:
    run = read(str(LOGS / name))
    assert run.agent_version == STATED[name]
    written = from_canonical(run, AtifTrajectory).record
    assert json.loads(written.model_dump_json())["agent"]["version"] == STATED[name]


def test_a_subagent_without_a_version_of_its_own_has_its_parents() -> None:
    run = read(str(LOGS / "claude-session" / "spotter-subagent.jsonl"))
    assert run.subagents is not MISSING
    assert run.subagents
    assert {sub.agent_version for sub in run.subagents} == {"2.1.38"}


@pytest.mark.parametrize(
    "name",
    [
        "claude-stream-json/claude-code-action-sample-turns.json",
        "codex-rollout/ccusage-session-alpha.jsonl",
        "gemini/jazzy-jsonl_v040.jsonl",
    ],
)
def test_a_file_that_states_no_version_has_none(name: str) -> None:
    assert read(str(LOGS / name)).agent_version is MISSING
