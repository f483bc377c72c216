"""pi's own session files (``~/.pi/agent/sessions/--<path>--/<time>_<id>.jsonl``, the format
pi-mono's ``docs/session.md`` gives: a header, then the entries of a tree) are sessions of
every command: recognized by what they hold, counted as pi counts them (its recorded cost
per message, the figures ccusage's pi report gives), a branch copied to a session of its own
counted once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentruns.canonical import STEP_FAILED
from agentruns.transcripts import detect, load
from tests._stats import stats_json

Json = dict[str, Any]
SESSION = "11111111-2222-3333-4444-555555555555"


def _entry(number: int, message: Json, at: str) -> Json:
    parent = f"{number - 1:08x}" if number else None
    return {
        "type": "message",
        "id": f"{number:08x}",
        "parentId": parent,
        "timestamp": at,
        "message": message,
    }


def _session(ident: str = SESSION, started: str = "2026-01-03T10:00:00.000Z") -> list[Json]:
    """A header, the user's prompt, a model change, then three answers (the third calls a
    tool whose result follows)."""
    lines: list[Json] = [
        {"type": "session", "version": 3, "id": ident, "timestamp": started, "cwd": "/w"},
        _entry(0, {"role": "user", "content": "hi", "timestamp": 1767434400000}, started),
        {
            "type": "model_change",
            "id": "m0",
            "parentId": "00000000",
            "provider": "a",
            "modelId": "b",
        },
    ]
    for number in range(1, 4):
        usage = {
            "input": 100 * number,
            "output": 20 * number,
            "cacheRead": 1000 * number,
            "cacheWrite": 50,
            "totalTokens": 1170 * number + 50,
            "cost": {"total": 0.0036 * number},
        }
        content: list[Json] = [{"type": "text", "text": "ok"}]
        if number == 3:
            content.append(
                {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"c": "ls"}}
            )
        answer = {
            "role": "assistant",
            "content": content,
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": usage,
            "stopReason": "toolUse" if number == 3 else "stop",
            "timestamp": 1767434400000 + number * 60_000,
        }
        lines.append(_entry(number, answer, f"2026-01-03T10:0{number}:00.000Z"))
    result = {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "isError": True}
    result.update(content=[{"type": "text", "text": "no such file"}], timestamp=1767434600000)
    lines.append(_entry(4, result, "2026-01-03T10:04:00.000Z"))
    return lines


def _write(path: Path, lines: list[Json]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    return path


def _stats(folder: Path) -> Json:
    return stats_json("--no-cache", "--timezone", "UTC", str(folder))


def test_a_pi_session_file_is_recognized_and_read(tmp_path: Path) -> None:
    path = _write(tmp_path / f"2026-01-03T10-00-00-000Z_{SESSION}.jsonl", _session())
    assert detect(str(path)) == "pi-session"
    transcript = load(path)
    run = transcript.run
    assert run.run_id == SESSION
    assert run.status == "completed"  # a session that ends has ended
    steps = run.steps if isinstance(run.steps, tuple) else ()
    (call,) = [step for step in steps if step.kind == "tool_call"]
    assert (call.name, call.status) == ("bash", STEP_FAILED)
    assert transcript.rounds[0].skipped == {"model_change": 1}
    assert (run.input_tokens, run.output_tokens) == (6750, 120)  # input counts the cache
    assert run.cost_usd == pytest.approx(0.0216)


def test_a_folder_of_pi_sessions_counts_as_ccusage_s_pi_report(tmp_path: Path) -> None:
    """ccusage-pi's daily report for this folder: 600 input, 120 output, 150 cache writes,
    6,000 cache reads, $0.0216 (input there leaves the cache out)."""
    _write(tmp_path / "--w--" / f"2026-01-03T10-00-00-000Z_{SESSION}.jsonl", _session())
    shown = _stats(tmp_path)
    assert shown["by_format_and_status"] == {"pi-session": {"completed": 1}}
    kinds = shown["tokens_by_kind"]
    assert (kinds["output"], kinds["cache_creation"], kinds["cache_read"]) == (120, 150, 6000)
    assert kinds["input"] - kinds["cache_creation"] - kinds["cache_read"] == 600
    assert shown["cost_usd"]["total"] == pytest.approx(0.0216)
    assert shown["most_failing_tools"] == [{"name": "bash", "count": 1}]


def test_a_branch_copied_to_a_session_of_its_own_counts_once(tmp_path: Path) -> None:
    _write(tmp_path / "--w--" / f"2026-01-03T10-00-00-000Z_{SESSION}.jsonl", _session())
    other = "99999999-2222-3333-4444-555555555555"
    copied = _session(other, "2026-01-04T10:00:00.000Z")
    _write(tmp_path / "--w--" / f"2026-01-04T10-00-00-000Z_{other}.jsonl", copied)
    shown = _stats(tmp_path)
    assert shown["runs"] == 2
    assert shown["tokens_by_kind"]["output"] == 120
    assert shown["cost_usd"]["total"] == pytest.approx(0.0216)
    assert shown["most_used_tools"] == [{"name": "bash", "count": 1}]
