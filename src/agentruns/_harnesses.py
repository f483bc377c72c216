"""The names of the built-in harnesses: defined once, in a module that imports nothing, so the
command's help can list them without loading a reader."""

from __future__ import annotations

from typing import Literal

__all__ = ["ROUNDS", "HarnessName"]

HarnessName = Literal[
    "claude-code",
    "codex",
    "cline",
    "opencode",
    "claude-code-session",
    "codex-rollout",
    "gemini",
    "copilot",
    "opencode-storage",
    "cline-task",
    "pi",
    "aider",
]

ROUNDS: frozenset[HarnessName] = frozenset({"claude-code", "codex", "cline", "opencode"})
"""Harnesses whose output is what an agent printed for one round of a run: several such
transcripts given together are the rounds of one run, in order (eval-magic's multi-turn runs).
Every other harness keeps whole sessions, each file a run of its own."""
