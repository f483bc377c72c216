"""Copilot CLI states a session's usage at its shutdown, model by model: each model's tokens
are booked and priced under that model, as ccusage reads them; a resumed session states its
totals again, and the last statement is the session's.

The lines are of the shape Copilot CLI 1.0.75 writes (``session.shutdown`` with both
``modelMetrics.<model>.usage`` and the session's ``tokenDetails``); the same shape is what
ccusage 20's Copilot reader takes (``CopilotSessionModelMetrics``, ``CopilotSessionUsage``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentruns.stats import RunFacts, _session_facts
from tests._stats import stats_json

START = "2026-07-29T19:20:00.000Z"
END = "2026-07-29T19:26:31.089Z"


def _usage(fresh: int, output: int, read: int = 0, write: int = 0) -> dict[str, int]:
    """A model's usage as Copilot states it: the input counts the cache reads and writes."""
    return {
        "inputTokens": fresh + read + write,
        "outputTokens": output,
        "cacheReadTokens": read,
        "cacheWriteTokens": write,
        "reasoningTokens": 0,
    }


def _shutdown(
    models: dict[str, dict[str, int]], *, details: bool = False, at: str = END
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "shutdownType": "routine",
        "currentModel": next(iter(models)),
        "modelMetrics": {
            model: {"requests": {"count": 1, "cost": 1}, "usage": usage}
            for model, usage in models.items()
        },
    }
    if details:  # the session's totals, all models together
        total = {
            key: sum(usage[name] for usage in models.values())
            for key, name in (
                ("input", "inputTokens"),
                ("output", "outputTokens"),
                ("cache_read", "cacheReadTokens"),
                ("cache_write", "cacheWriteTokens"),
            )
        }
        total["input"] -= total["cache_read"] + total["cache_write"]
        data["tokenDetails"] = {key: {"tokenCount": n} for key, n in total.items()}
    return {"type": "session.shutdown", "data": data, "id": "e9", "timestamp": at}


def _session(tmp_path: Path, *shutdowns: dict[str, Any]) -> Path:
    start = {
        "type": "session.start",
        "data": {"sessionId": "s-1", "copilotVersion": "1.0.75", "startTime": START},
        "id": "e1",
        "timestamp": START,
    }
    user = {"type": "user.message", "data": {"content": "go"}, "id": "e2", "timestamp": START}
    folder = tmp_path / "session-state" / "s-1"
    folder.mkdir(parents=True)
    path = folder / "events.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in (start, user, *shutdowns)))
    return path


def _facts(path: Path) -> RunFacts:
    outcome = _session_facts((str(path), None))
    assert outcome.value is not None, outcome
    return outcome.value


def test_each_models_usage_is_booked_under_that_model(tmp_path: Path) -> None:
    used = {
        "claude-sonnet-4.5": _usage(2, 40, read=1000, write=500),
        "gpt-5-mini": _usage(300, 20),
    }
    facts = _facts(_session(tmp_path, _shutdown(used)))
    assert facts.models == {"claude-sonnet-4.5": 1542, "gpt-5-mini": 320}
    assert facts.kinds["input"] == 1802
    assert facts.kinds["cache_read"] == 1000
    assert facts.kinds["cache_creation"] == 500


def test_each_model_is_priced_at_its_own_price(tmp_path: Path) -> None:
    used = {"claude-sonnet-4.5": _usage(2000, 40), "gpt-5-mini": _usage(2000, 40)}
    facts = _facts(_session(tmp_path, _shutdown(used)))
    priced = {model: usd for _, model, usd in facts.cost}
    assert set(priced) == set(used)
    assert priced["claude-sonnet-4.5"] > priced["gpt-5-mini"] > 0


def test_the_models_usage_and_the_sessions_totals_count_alike(tmp_path: Path) -> None:
    """1.0.75 states both; the totals alone (1.0.77's captures) count the same tokens."""
    used = {"claude-sonnet-5": _usage(2, 4, write=24208)}
    both = _facts(_session(tmp_path / "both", _shutdown(used, details=True)))
    alone = _shutdown(used, details=True)
    del alone["data"]["modelMetrics"]
    totals = _facts(_session(tmp_path / "totals", alone))
    assert both.tokens == totals.tokens == 24214
    assert {kind: n for kind, n in both.kinds.items() if kind != "reasoning"} == totals.kinds
    assert both.kinds["reasoning"] == 0  # stated by the model's usage, not by the totals
    assert both.model == totals.model == "claude-sonnet-5"


def test_a_resumed_sessions_last_shutdown_is_its_usage(tmp_path: Path) -> None:
    """Each shutdown states the totals since the session began: the first is in the last."""
    first = _shutdown({"gpt-5-mini": _usage(100, 10)})
    last = _shutdown({"gpt-5-mini": _usage(250, 30), "claude-haiku-4.5": _usage(50, 5)})
    facts = _facts(_session(tmp_path, first, last))
    assert facts.tokens == 335
    assert facts.models == {"gpt-5-mini": 280, "claude-haiku-4.5": 55}


@pytest.mark.parametrize("details", [False, True])
def test_each_shutdown_books_what_it_adds_on_its_own_day(tmp_path: Path, details: bool) -> None:
    """A session resumed the next day: its second shutdown's totals less the first's are the
    second day's (ccusage 20.0.24 books them so: 150 and 130 tokens on ccusage's own
    fixture of this shape)."""
    first = _shutdown({"gpt-5-mini": _usage(70, 50, 10, 20)}, details=details, at=START)
    later = "2026-07-30T09:00:00.000Z"
    last = _shutdown({"gpt-5-mini": _usage(150, 80, 20, 30)}, details=details, at=later)
    path = _session(tmp_path, first, last)
    days = stats_json("--no-cache", "--timezone", "UTC", str(path))["tokens_by_day"]
    assert [(day["day"], day["tokens"]) for day in days] == [
        ("2026-07-29", 150),
        ("2026-07-30", 130),
    ]


@pytest.mark.parametrize("usage", [{"inputTokens": 10, "cacheReadTokens": 40}, {}, {"x": 1}])
def test_a_models_input_is_never_less_than_its_cache(tmp_path: Path, usage: dict[str, int]) -> None:
    """An input stated below its cache reads is the cache reads, no negative fresh input."""
    facts = _facts(_session(tmp_path, _shutdown({"gpt-5-mini": {**usage, "outputTokens": 1}})))
    assert facts.kinds["input"] == max(usage.get("inputTokens", 0), usage.get("cacheReadTokens", 0))
    assert facts.kinds["cache_read"] == usage.get("cacheReadTokens", 0)
    assert facts.kinds["output"] == 1


def test_a_model_listed_with_no_usage_is_no_call(tmp_path: Path) -> None:
    """A model the session switched away from is listed with zeros: not a model of 0 tokens,
    priced as unknown."""
    used = {"gpt-5-mini": _usage(300, 20), "idle-model": _usage(0, 0)}
    facts = _facts(_session(tmp_path, _shutdown(used)))
    assert facts.models == {}
    assert facts.model == "gpt-5-mini"
    assert facts.unpriced == {}
    assert {model for _, model, _ in facts.cost} == {"gpt-5-mini"}
