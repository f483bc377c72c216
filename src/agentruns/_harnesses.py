"""The names of the built-in harnesses: defined once, in a module that imports nothing, so the
command's help can list them without loading a reader."""

from __future__ import annotations

from typing import Literal

__all__ = ["ROUNDS", "TOTAL_LEAVES_OUT", "HarnessName", "TokenKind"]

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
    "pi-session",
    "aider",
]

ROUNDS: frozenset[HarnessName] = frozenset({"claude-code", "codex", "cline", "opencode"})
"""Harnesses whose output is what an agent printed for one round of a run: several such
transcripts given together are the rounds of one run, in order (eval-magic's multi-turn runs).
Every other harness keeps whole sessions, each file a run of its own."""


TokenKind = Literal["cache_read_tokens", "cache_creation_tokens"]

TOTAL_LEAVES_OUT: dict[str, tuple[TokenKind, ...]] = {
    "claude-code": (),
    "codex": ("cache_read_tokens",),
    "cline": ("cache_read_tokens",),
    "opencode": ("cache_read_tokens", "cache_creation_tokens"),
}
"""eval-magic's ``total_tokens``, per harness (by the label a run's ``framework`` holds): input
plus output tokens less these kinds. Claude Code counts every token (input, output, cache
writes and reads); Codex leaves out cached input and Cline cache reads; OpenCode counts input,
output and reasoning, neither cache kind (eval-magic's README and adapter tests, 1019c00).
The portable format's total means this, the canonical run's total the one rule (input plus
output, ``agentruns.derivations.derive_total_tokens``)."""
