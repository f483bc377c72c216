"""The cost an agent recorded is the cost: a Claude Code line's ``costUSD``, an OpenCode
message's ``cost``, a stream's stated total, a record's ``cost_usd`` are taken before any
price table's (as ccusage's default mode takes them); what nothing states a cost for is
priced by the table, or unknown, never free. OpenCode's 0 states nothing (it writes 0 for
every call it has no price for), as ccusage reads it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import MISSING

from agentruns import _prices
from agentruns._prices import RECORDED, recorded_usd
from agentruns._slots import USAGE_SLOT
from agentruns.canonical import Run
from agentruns.stats import RunFacts
from tests._settings import PROPERTY_SETTINGS
from tests._stats import stats_json

SONNET = "claude-sonnet-4-20250514"
START = datetime(2026, 3, 1, 10, tzinfo=UTC)


def _stats(*args: str) -> dict[str, Any]:
    return stats_json("--no-cache", *args)


def _claude_line(number: int, tokens: int, cost: object = MISSING) -> dict[str, Any]:
    line: dict[str, Any] = {
        "type": "assistant",
        "uuid": f"a-{number}",
        "sessionId": "s-1",
        "timestamp": (START + timedelta(minutes=number)).isoformat().replace("+00:00", "Z"),
        "message": {
            "id": f"m-{number}",
            "role": "assistant",
            "model": SONNET,
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": tokens, "output_tokens": 0},
        },
    }
    if cost is not MISSING:
        line["costUSD"] = cost
    return line


def _claude_session(folder: Path, lines: list[dict[str, Any]]) -> Path:
    (folder / "p").mkdir(parents=True)
    path = folder / "p" / "s-1.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _table(tokens: int) -> float:
    """What the price table says ``tokens`` of fresh input cost the model at START."""
    priced = _prices.price([(int(START.timestamp()) // USAGE_SLOT, SONNET, tokens, 0, 0, 0, 0)])
    assert priced is not None
    return sum(priced.cost.values())


def test_a_claude_lines_cost_usd_is_its_responses_cost(tmp_path: Path) -> None:
    _claude_session(tmp_path, [_claude_line(0, 1_000, 0.5), _claude_line(1, 2_000)])
    cost = _stats(str(tmp_path))["cost_usd"]
    assert cost["total"] == pytest.approx(0.5 + _table(2_000))
    assert cost["prices"] == f"{_prices.source()}, {RECORDED}"


def test_a_response_over_several_lines_costs_what_it_recorded_once(tmp_path: Path) -> None:
    # one response streamed over three lines, each repeating its id and its cost
    lines = [{**_claude_line(0, 1_000, 0.25), "uuid": f"a-{n}"} for n in range(3)]
    _claude_session(tmp_path, lines)
    assert _stats(str(tmp_path))["cost_usd"]["total"] == pytest.approx(0.25)


@pytest.mark.parametrize("cost", [True, "0.5", None, float("inf")])
def test_a_cost_usd_that_is_no_finite_number_is_no_cost(tmp_path: Path, cost: object) -> None:
    line = _claude_line(0, 1_000_000, cost)
    text = json.dumps(line).replace("Infinity", "1e400")  # beyond a double, as JSON says it
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "s-1.jsonl").write_text(text + "\n")
    cost_usd = _stats(str(tmp_path))["cost_usd"]
    assert cost_usd["total"] == pytest.approx(_table(1_000_000))
    assert cost_usd["prices"] == _prices.source()


def test_without_the_price_table_recorded_costs_still_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_prices, "source", lambda: None)
    _claude_session(tmp_path, [_claude_line(0, 1_000, 0.5), _claude_line(1, 2_000)])
    cost = _stats(str(tmp_path))["cost_usd"]
    assert cost["total"] == pytest.approx(0.5)
    assert cost["prices"] == RECORDED
    # the response that recorded none is unknown, never free
    assert cost["unpriced_tokens"] == [{"model": SONNET, "tokens": 2_000}]


def _opencode(
    folder: Path, *, stated: float | None = None, model: str = "claude-sonnet-4-5"
) -> None:
    """An OpenCode storage tree: a session and a subagent session, three priced messages
    over two days (``stated``: the cost every message states instead)."""
    storage = folder / "storage"
    sessions: dict[str, dict[str, Any]] = {
        "ses_A": {"id": "ses_A", "projectID": "p", "title": "main"},
        "ses_B": {"id": "ses_B", "projectID": "p", "title": "sub", "parentID": "ses_A"},
    }
    for ident, session in sessions.items():
        created = 1_760_000_000_000
        session["time"] = {"created": created, "updated": created + 100_000}
        (storage / "session" / "p").mkdir(parents=True, exist_ok=True)
        (storage / "session" / "p" / f"{ident}.json").write_text(json.dumps(session))
    messages = [
        ("ses_A", "msg_1", "user", 1_760_000_000_000, None, None),
        ("ses_A", "msg_2", "assistant", 1_760_000_001_000, 0.05, (1200, 300, 50, 10000, 2000)),
        ("ses_A", "msg_3", "assistant", 1_760_086_400_000, 0.02, (100, 30, 0, 12000, 0)),
        ("ses_B", "msg_4", "assistant", 1_760_000_060_000, 0.01, (500, 70, 20, 0, 0)),
    ]
    for session_id, ident, role, created, cost, tokens in messages:
        message: dict[str, Any] = {
            "id": ident,
            "sessionID": session_id,
            "role": role,
            "time": {"created": created},
        }
        if tokens is not None:
            fresh, out, reasoning, read, write = tokens
            message.update(
                providerID="anthropic",
                modelID=model,
                cost=cost if stated is None else stated,
                tokens={
                    "input": fresh,
                    "output": out,
                    "reasoning": reasoning,
                    "cache": {"read": read, "write": write},
                },
            )
        place = storage / "message" / session_id
        place.mkdir(parents=True, exist_ok=True)
        (place / f"{ident}.json").write_text(json.dumps(message))


def test_opencode_messages_cost_what_they_recorded_on_their_own_days(tmp_path: Path) -> None:
    """The figures ccusage's OpenCode report gives the same tree: $0.06 and $0.02."""
    _opencode(tmp_path)
    cost = _stats("--timezone", "UTC", str(tmp_path))["cost_usd"]
    assert cost["prices"] == RECORDED
    assert cost["total"] == pytest.approx(0.08)
    days = {entry["day"]: entry["usd"] for entry in cost["by_day"]}
    assert days == {"2025-10-09": pytest.approx(0.06), "2025-10-10": pytest.approx(0.02)}


_OPENCODE_CALLS = [  # (created, input with the cache, output with reasoning, cache write, read)
    (1_760_000_001_000, 1200 + 10000 + 2000, 300 + 50, 2000, 10000),
    (1_760_086_400_000, 100 + 12000, 30, 0, 12000),
    (1_760_000_060_000, 500, 70 + 20, 0, 0),
]


def test_an_opencode_message_stating_0_is_priced_from_the_table(tmp_path: Path) -> None:
    """OpenCode writes 0 for a call it has no price for: ccusage prices it from its table,
    and so does stats (0.0349 for this tree in ccusage 20.0.24, before rounding)."""
    _opencode(tmp_path, stated=0)
    cost = _stats("--timezone", "UTC", str(tmp_path))["cost_usd"]
    calls = [
        (created // 1000 // USAGE_SLOT, "claude-sonnet-4-5", read, written, write, cached, 0)
        for created, read, written, write, cached in _OPENCODE_CALLS
    ]
    priced = _prices.price(calls)
    assert priced is not None
    assert cost["prices"] == _prices.source()
    assert cost["total"] == pytest.approx(sum(priced.cost.values()))
    assert cost["total"] > 0


@pytest.mark.parametrize("stated", [0, 0.0, -0.0, -0.5])
def test_an_opencode_cost_above_0_only_is_a_cost(stated: float) -> None:
    assert _prices.billed_usd(stated) is None
    assert _prices.billed_usd(0.25) == 0.25
    assert _prices.billed_usd(True) is None


def test_an_opencode_message_stating_0_for_a_model_no_table_knows_is_unknown(
    tmp_path: Path,
) -> None:
    _opencode(tmp_path, stated=0.0, model="no-such-model-anywhere")
    cost = _stats("--timezone", "UTC", str(tmp_path))["cost_usd"]
    spent = sum(read + written for _, read, written, _, _ in _OPENCODE_CALLS)
    assert cost["unpriced_tokens"] == [{"model": "no-such-model-anywhere", "tokens": spent}]
    assert not cost.get("total")


def test_an_opencode_stream_step_stating_0_states_no_cost(tmp_path: Path) -> None:
    """``opencode run --format json`` states each step's cost as its storage does: a step of
    0 states none, so the run's cost is unknown (its own call unpriced, where the stream names
    no model: it does not), as it is whenever a step that spent tokens states none."""
    from agentruns.transcripts import load

    def step(at: int, cost: float, fresh: int) -> dict[str, Any]:
        tokens = {"input": fresh, "output": 8, "reasoning": 0, "cache": {"read": 0, "write": 0}}
        part = {"id": f"p{at}", "type": "step-finish", "reason": "stop", "cost": cost}
        return {
            "type": "step_finish",
            "timestamp": at,
            "sessionID": "ses_1",
            "part": part | {"tokens": tokens},
        }

    def stated(*costs: float) -> object:
        lines = [step(1000 * n, cost, 700) for n, cost in enumerate(costs, start=1)]
        path = tmp_path / "events.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        return load(str(path), "opencode").run.cost_usd

    assert stated(0, 0.001) is MISSING
    assert stated(0, 0) is MISSING
    assert stated(0.002, 0.001) == pytest.approx(0.003)


def test_a_record_costs_what_it_states(tmp_path: Path) -> None:
    run = {
        "run_id": "r-1",
        "agent_id": "a",
        "goal": "g",
        "status": "completed",
        "started_at": "2026-03-01T10:00:00Z",
        "metrics": {"cost_usd": 1.25, "input_tokens": 10, "output_tokens": 5},
        "steps": [],
    }
    records = tmp_path / "runs.jsonl"
    records.write_text(json.dumps(run) + "\n")
    cost = _stats("--timezone", "UTC", str(records))["cost_usd"]
    assert cost["total"] == pytest.approx(1.25)
    assert cost["by_day"] == [{"day": "2026-03-01", "usd": 1.25}]
    assert cost["prices"] == RECORDED


@st.composite
def run_trees(draw: st.DrawFn, depth: int = 0) -> Run:
    """A run and its subagents, each stating a cost or not, with tokens or not."""
    children: tuple[Run, ...] | Any = MISSING
    if depth < 3 and draw(st.booleans()):
        children = tuple(draw(st.lists(run_trees(depth + 1), max_size=3)))
    tokens = draw(st.none() | st.integers(0, 10_000))
    return Run(
        run_id=f"r-{depth}",
        model=draw(st.sampled_from(["m-1", "m-2", MISSING])),
        cost_usd=draw(st.sampled_from([MISSING, MISSING, 0.0, 0.5, 2.25])),
        input_tokens=MISSING if tokens is None else tokens,
        output_tokens=MISSING if tokens is None else 1,
        started_at=START + timedelta(days=depth),
        subagents=children,
    )


def _oracle(run: Run) -> tuple[float, int]:
    """The stated costs, and the tokens of the runs neither stating a cost nor below one
    that does: walked recursively, apart from the stats' own walk."""

    def walk(one: Run, covered: bool) -> tuple[float, int]:
        stated = recorded_usd(one.cost_usd)
        usd = stated or 0.0
        unpriced = 0
        if stated is None and not covered and isinstance(one.input_tokens, int):
            unpriced = one.input_tokens + 1
        for child in one.subagents if isinstance(one.subagents, tuple) else ():
            more, unknown = walk(child, covered or stated is not None)
            usd, unpriced = usd + more, unpriced + unknown
        return usd, unpriced

    return walk(run, False)


@PROPERTY_SETTINGS
@given(run=run_trees())
def test_a_records_cost_is_what_its_runs_state_and_the_rest_unknown(run: Run) -> None:
    facts = RunFacts.of(run, "agentrun")
    usd, unpriced = _oracle(run)

    def states(one: Run) -> bool:
        below = one.subagents if isinstance(one.subagents, tuple) else ()
        return recorded_usd(one.cost_usd) is not None or any(states(child) for child in below)

    if not states(run):
        assert (facts.prices, facts.cost, facts.unpriced) == (None, [], {})
        return
    assert facts.prices == RECORDED
    assert sum(cost for _, _, cost in facts.cost) == pytest.approx(usd)
    assert sum(facts.unpriced.values()) == unpriced


def test_a_session_whose_every_response_records_its_cost_imports_with_it(
    tmp_path: Path,
) -> None:
    """The run's ``cost_usd`` is their sum; one response that records none leaves the run's
    cost unknown (its record states none; ``stats`` of the folder prices that call)."""
    from agentruns.transcripts import load

    every = _claude_session(
        tmp_path / "every", [_claude_line(0, 10, 0.5), _claude_line(1, 20, 0.25)]
    )
    assert load(every).run.cost_usd == pytest.approx(0.75)
    some = _claude_session(tmp_path / "some", [_claude_line(0, 10, 0.5), _claude_line(1, 20)])
    assert load(some).run.cost_usd is MISSING


@pytest.mark.parametrize("cost", ["1e400", "true", '"0.5"'])
def test_an_opencode_cost_that_is_no_finite_number_is_no_cost(tmp_path: Path, cost: str) -> None:
    """One meaning of a recorded cost for every reader (``recorded_usd``): the run states none,
    and stats prices the message from the table instead."""
    from agentruns.transcripts import load

    _opencode(tmp_path)
    for message in (tmp_path / "storage" / "message").rglob("*.json"):
        text = message.read_text()
        message.write_text(text.replace('"cost": 0.05', f'"cost": {cost}'))
    run = load(f"{tmp_path / 'storage'}#ses_A", "opencode-storage").run
    # one message states no cost: the run's is unknown (the other's alone is no run's cost,
    # as for a Claude Code session), and stats prices that message
    assert run.cost_usd is MISSING


def test_a_pi_sessions_cost_is_known_only_when_every_answer_states_one(tmp_path: Path) -> None:
    from agentruns.transcripts import load
    from tests.test_pi_sessions import SESSION, _session, _write

    lines = _session()
    path = _write(tmp_path / "every" / f"s_{SESSION}.jsonl", lines)
    assert load(path).run.cost_usd == pytest.approx(0.0216)
    del lines[4]["message"]["usage"]["cost"]  # the second answer states none
    path = _write(tmp_path / "some" / f"s_{SESSION}.jsonl", lines)
    assert load(path).run.cost_usd is MISSING


def _cline_task(folder: Path, requests: list[dict[str, Any]]) -> Path:
    task = folder / "tasks" / "1700000000000"
    task.mkdir(parents=True)
    rows = [{"ts": 1700000000000, "type": "say", "say": "task", "text": "go"}]
    rows += [
        {"ts": 1700000001000 + n, "type": "say", "say": "api_req_started", "text": json.dumps(r)}
        for n, r in enumerate(requests)
    ]
    (task / "ui_messages.json").write_text(json.dumps(rows))
    return task


@pytest.mark.parametrize(
    ("requests", "stated"),
    [
        ([{"tokensIn": 5, "cost": 0.25}, {"tokensIn": 7, "cost": 0.5}], 0.75),
        ([{"tokensIn": 5, "cost": 0.25}, {"tokensIn": 7}], None),
        ([{"tokensIn": 5, "cost": 0.25}, {"cost": 0.5}], 0.75),  # a cost with no tokens
        ([{"tokensIn": 5, "cost": 0.25}, {}], 0.25),  # a request of nothing states nothing
    ],
)
def test_a_cline_tasks_cost_is_known_only_when_every_request_that_spent_tokens_states_one(
    tmp_path: Path, requests: list[dict[str, Any]], stated: float | None
) -> None:
    from agentruns.transcripts import load

    run = load(_cline_task(tmp_path, requests), "cline-task").run
    if stated is None:
        assert run.cost_usd is MISSING
    else:
        assert run.cost_usd == pytest.approx(stated)


Costs = list[float | None]
"""What each call of a generated session states it cost (None: nothing)."""


def _claude_costs(folder: Path, costs: Costs) -> str:
    lines = [
        _claude_line(n, 10 + n) if cost is None else _claude_line(n, 10 + n, cost)
        for n, cost in enumerate(costs)
    ]
    return str(_claude_session(folder, lines))


def _opencode_costs(folder: Path, costs: Costs) -> str:
    storage = folder / "storage"
    session = {"id": "ses_A", "projectID": "p", "time": {"created": 1_760_000_000_000}}
    (storage / "session" / "p").mkdir(parents=True)
    (storage / "session" / "p" / "ses_A.json").write_text(json.dumps(session))
    (storage / "message" / "ses_A").mkdir(parents=True)
    for n, cost in enumerate(costs):
        message = {
            "id": f"msg_{n}",
            "sessionID": "ses_A",
            "role": "assistant",
            "time": {"created": 1_760_000_001_000 + n},
            "modelID": "claude-sonnet-4-5",
            "tokens": {"input": 10 + n, "output": 1},
            "cost": 0 if cost is None else cost,  # OpenCode's 0: no cost
        }
        (storage / "message" / "ses_A" / f"msg_{n}.json").write_text(json.dumps(message))
    return f"{storage}#ses_A"


def _pi_costs(folder: Path, costs: Costs) -> str:
    from tests.test_pi_sessions import SESSION, _entry, _write

    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": SESSION, "timestamp": "2026-01-03T10:00:00Z"}
    ]
    for n, cost in enumerate(costs, start=1):
        usage: dict[str, Any] = {"input": 10 + n, "output": 1}
        if cost is not None:
            usage["cost"] = {"total": cost}
        answer = {"role": "assistant", "content": [], "model": "m", "usage": usage}
        lines.append(_entry(n, answer, f"2026-01-03T10:0{n}:00.000Z"))
    return str(_write(folder / f"s_{SESSION}.jsonl", lines))


def _cline_costs(folder: Path, costs: Costs) -> str:
    requests: list[dict[str, Any]] = [
        {"tokensIn": 10 + n} | ({} if cost is None else {"cost": cost})
        for n, cost in enumerate(costs)
    ]
    return str(_cline_task(folder, requests))


_COSTED = {
    "claude-code-session": _claude_costs,
    "opencode-storage": _opencode_costs,
    "pi-session": _pi_costs,
    "cline-task": _cline_costs,
}
"""The readers that take the costs an agent records, by a writer of a session whose calls
each spend tokens and state the given costs."""


@pytest.mark.parametrize("harness", sorted(_COSTED))
@given(costs=st.lists(st.none() | st.sampled_from([0.001, 0.25, 1.5, 3.0]), min_size=1, max_size=5))
@PROPERTY_SETTINGS
def test_a_runs_recorded_cost_is_its_calls_only_when_every_call_states_one(
    harness: str, costs: Costs, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Whatever the agent: the calls' sum when each states its cost, else unknown (never the
    sum of those that do, which would price the run below what it spent)."""
    from agentruns.transcripts import load

    where = _COSTED[harness](tmp_path_factory.mktemp(harness), costs)
    stated = load(where, harness).run.cost_usd
    if None in costs:
        assert stated is MISSING
    else:
        assert stated == pytest.approx(sum(cost for cost in costs if cost is not None))
