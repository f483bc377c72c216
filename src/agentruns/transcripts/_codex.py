"""Codex: ``codex exec --json``, read by the declarative engine (``harnesses/codex.toml``),
and its permission denials, which the JSONL never shows: Codex writes them to stderr.

The stderr log is the events file's sibling, named by replacing ``events.jsonl`` at the end
of its name by ``stderr.log`` (``codex-events.jsonl`` beside ``codex-stderr.log``), as
eval-magic's dispatch captures them. Only the tool router's error lines count; a denial
keeps the reason, never the command (it may hold secrets or a whole patch).
"""

from __future__ import annotations

from pathlib import Path

from agentruns.transcripts._stream import JsonObject
from agentruns.transcripts._summary import Denial, Summary

_ROUTER = " ERROR codex_core::tools::router: error="
_HOOK = "Command blocked by PreToolUse hook: "
_REJECTED_OPEN = 'Rejected(\\"'
_REJECTED_CLOSE = '\\")'
_POLICY = "approval required by policy"


def looks_like(event: JsonObject) -> bool:
    """An event of ``codex exec --json`` (``thread.started``, ``turn.completed``, ``item.*``)."""
    kind = event.get("type")
    return isinstance(kind, str) and kind.startswith(("thread.", "turn.", "item."))


def stderr_of(events: str) -> Path | None:
    """The stderr log a Codex events file is captured beside, when its name allows one."""
    path = Path(events)
    if not path.name.endswith("events.jsonl"):
        return None
    return path.with_name(path.name[: -len("events.jsonl")] + "stderr.log")


def denials(log: Path, summary: Summary) -> None:
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return
    except OSError as failure:
        summary.problem(0, f"cannot read the stderr log {log}: {failure.strerror}")
        return
    for line in text.splitlines():
        _, marker, error = line.partition(_ROUTER)
        if not marker:
            continue
        denial = _denial(error)
        if denial is not None:
            summary.denials.append(denial)


def _denial(error: str) -> Denial | None:
    if error.startswith(_HOOK):
        reason, found, command = error[len(_HOOK) :].partition(". Command: ")
        if not found:
            return None
        tool = "apply_patch" if command.startswith("*** Begin Patch") else "Bash"
        return Denial(tool, reason, ("command",))
    start = error.find(_REJECTED_OPEN)
    if start < 0:
        return None
    body = error[start + len(_REJECTED_OPEN) :]
    end = body.rfind(_REJECTED_CLOSE)
    text = body[:end] if end >= 0 else body
    if not text.startswith(_POLICY):
        _, found, after = text.rpartition(" rejected: ")
        text = after if found else text
    return Denial("Bash", text, ("command",))
