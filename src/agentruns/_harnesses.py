"""The names of the built-in harnesses: defined once, in a module that imports nothing, so the
command's help can list them without loading a reader."""

from __future__ import annotations

from typing import Literal

__all__ = ["HarnessName"]

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
