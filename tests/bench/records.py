"""A seeded generator of realistic run records (sizes like real runs), for the benchmarks.

Tens of tool calls per run, kilobyte tool outputs, non-ASCII text here and there: the shape of
the real upstream files, scaled to what an eval harness or an agent journal writes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

_TOOLS = ["Bash", "Read", "Edit", "Grep", "Write", "search_knowledge_base", "lookup_customer"]
_WORDS = [
    "the", "build", "failed", "because", "helper", "was", "renamed", "update", "callers",
    "rerun", "tests", "invoice", "export", "enterprise", "billing", "résumé", "准备就绪",
    "worktree", "commit", "branch", "merge",
]  # fmt: skip


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _time(rng: random.Random, base: datetime) -> datetime:
    return base + timedelta(milliseconds=rng.randint(0, 3_600_000))


def portable(rng: random.Random, index: int, scale: float = 1.0) -> dict[str, Any]:
    calls = max(1, int(rng.randint(10, 60) * scale))
    return {
        "eval_id": f"eval-{index % 500:04d}",
        "condition": rng.choice(["with_skill", "without_skill", "old_skill", "new_skill"]),
        "skill_path": rng.choice([None, "/skills/refactor/SKILL.md"]),
        "prompt": _text(rng, 40),
        "files": [f"/work/src/module_{i}.py" for i in range(rng.randint(0, 6))],
        "final_message": _text(rng, 120),
        "tool_invocations": [
            {
                "name": rng.choice(_TOOLS),
                "ordinal": i,
                "args": rng.choice(
                    [{"path": f"/work/src/m{i}.py", "limit": 200}, f"grep -rn x{i} /work"]
                ),
                "result": rng.choice(
                    [_text(rng, rng.randint(20, 300)), None, {"ok": True, "lines": i}]
                ),
            }
            for i in range(calls)
        ],
        "total_tokens": rng.randint(1_000, 200_000),
        "duration_ms": rng.randint(1_000, 900_000),
        "run_index": rng.randint(1, 5),
    }


def cortex(rng: random.Random, index: int, scale: float = 1.0) -> dict[str, Any]:
    base = datetime(2026, 8, 1, tzinfo=UTC) + timedelta(hours=index)
    events = sorted(_time(rng, base) for _ in range(rng.randint(10, 50)))
    return {
        "schema_version": 1,
        "run_id": f"R-M-{index:05d}",
        "task_id": f"T-{index:05d}",
        "mission_id": f"M-{index % 40:03d}",
        "agent_id": f"Worker-{rng.choice('ABC')}",
        "role": "implementer",
        "kind": rng.choice(["plan", "implement", "validate", "merge"]),
        "status": rng.choice(["running", "completed", "failed"]),
        "phase": "implementing",
        "activity": _text(rng, max(1, int(60 * scale))),
        "worktree_path": f"/Volumes/work/worktrees/M-{index:05d}",
        "branch": f"agent/M-{index:05d}",
        "base_commit": f"{rng.getrandbits(28):07x}",
        "head_commit": None,
        "started_at": base.isoformat().replace("+00:00", "Z"),
        "finished_at": None,
        "updated_at": events[-1].isoformat().replace("+00:00", "Z"),
        "events": [
            {
                "type": rng.choice(["lock_acquired", "agent_invoked", "command_run", "checkpoint"]),
                "phase": "implementing",
                "status": "running",
                "activity": _text(rng, max(1, int(rng.randint(10, 200) * scale))),
                "at": at.isoformat().replace("+00:00", "Z"),
                "worker_pid": rng.randint(100, 99999),
            }
            for at in events
        ],
        "next_action": _text(rng, 20),
    }


def agentrun(rng: random.Random, index: int, scale: float = 1.0) -> dict[str, Any]:
    base = datetime(2026, 5, 19, tzinfo=UTC) + timedelta(minutes=index)
    steps = max(1, int(rng.randint(10, 60) * scale))
    return {
        "run_id": f"run_{index:08d}",
        "agent_id": "support-triage-agent",
        "framework": "langgraph",
        "goal": _text(rng, 30),
        "status": rng.choice(["completed", "failed", "running"]),
        "started_at": base.isoformat().replace("+00:00", "Z"),
        "ended_at": (base + timedelta(seconds=90)).isoformat().replace("+00:00", "Z"),
        "steps": [
            {
                "index": i + 1,
                "type": rng.choice(["thought", "tool_call", "tool_result", "message"]),
                "name": rng.choice(_TOOLS),
                "input": {"query": _text(rng, 10)},
                "output": {"text": _text(rng, rng.randint(20, 300)), "score": rng.random()},
                "started_at": _time(rng, base).isoformat().replace("+00:00", "Z"),
                "duration_ms": rng.randint(5, 5000),
            }
            for i in range(steps)
        ],
        "result": {"summary": _text(rng, 40), "output": {"resolution": "auto-resolved"}},
        "metrics": {
            "input_tokens": rng.randint(100, 50_000),
            "output_tokens": rng.randint(100, 20_000),
            "tool_call_count": steps // 2,
            "cost_usd": round(rng.random(), 4),
        },
        "trace_url": f"https://app.example.com/traces/run_{index:08d}",
    }


def atif(rng: random.Random, index: int, scale: float = 1.0) -> dict[str, Any]:
    """A Harbor trajectory: a user turn, then agent turns of reasoning, a message, tool calls
    and their results, with per-turn metrics."""
    base = datetime(2026, 10, 16, tzinfo=UTC) + timedelta(minutes=index)
    turns = max(1, int(rng.randint(5, 30) * scale))
    steps: list[dict[str, Any]] = [
        {"step_id": 1, "timestamp": _stamp(base), "source": "user", "message": _text(rng, 40)}
    ]
    for turn in range(turns):
        calls = [
            {
                "tool_call_id": f"call_{turn}_{k}",
                "function_name": rng.choice(_TOOLS),
                "arguments": {"command": _text(rng, 8), "timeout": rng.randint(1, 600)},
            }
            for k in range(rng.randint(0, 3))
        ]
        step: dict[str, Any] = {
            "step_id": turn + 2,
            "timestamp": _stamp(_time(rng, base)),
            "source": "agent",
            "model_name": "claude-sonnet-4-6",
            "message": _text(rng, rng.randint(0, 60)),
            "reasoning_content": _text(rng, rng.randint(10, 80)),
        }
        if calls:
            step["tool_calls"] = calls
            step["observation"] = {
                "results": [
                    {
                        "source_call_id": c["tool_call_id"],
                        "content": _text(rng, rng.randint(20, 300)),
                    }
                    for c in calls
                ]
            }
        step["metrics"] = {
            "prompt_tokens": rng.randint(1_000, 50_000),
            "completion_tokens": rng.randint(10, 2_000),
            "cached_tokens": rng.randint(0, 1_000),
            "cost_usd": round(rng.random() / 100, 6),
        }
        steps.append(step)
    return {
        "schema_version": "ATIF-v1.8",
        "session_id": f"sess-{index:08d}",
        "agent": {"name": "terminus-2", "version": "2.1.0", "model_name": "claude-sonnet-4-6"},
        "steps": steps,
        "final_metrics": {
            "total_prompt_tokens": rng.randint(10_000, 500_000),
            "total_completion_tokens": rng.randint(100, 20_000),
            "total_cost_usd": round(rng.random(), 4),
            "total_steps": len(steps),
        },
    }


def _stamp(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


GENERATORS = {"portable": portable, "cortex": cortex, "agentrun": agentrun, "atif": atif}


def lines(fmt: str, count: int, seed: int = 0, scale: float = 1.0) -> Iterator[str]:
    """``count`` records as JSON lines; ``scale`` shrinks or grows the steps per record."""
    rng = random.Random(seed)
    make = GENERATORS[fmt]
    for index in range(count):
        yield json.dumps(make(rng, index, scale), ensure_ascii=False)
