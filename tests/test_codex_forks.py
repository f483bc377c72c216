"""A forked Codex rollout replays its parent's history (the parent's ``session_meta`` and
``token_count`` events, re-stamped at the fork) before its own turns: over a folder holding
both, the replayed calls count once, in the parent; a fork whose parent is not there keeps
them (nothing says what they cost otherwise)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from tests._settings import PROPERTY_SETTINGS
from tests._stats import stats_json

Json = dict[str, Any]
KINDS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens")
ROLLOUT = (
    Path(__file__).parent
    / "fixtures"
    / "upstream"
    / "agent-logs"
    / "codex-rollout"
    / "agentcmd-rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl"
)
FORK = "0199a0b0-0000-7000-8000-000000000001"


def _stats(folder: Path, *more: str) -> Json:
    return stats_json("--no-cache", "--timezone", "UTC", *more, str(folder))


def _dump(path: Path, lines: list[Json]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))


def _meta(ident: str, at: str, parent: str | None = None) -> Json:
    payload: Json = {"id": ident, "timestamp": at, "cwd": "/w", "cli_version": "0.60.0"}
    if parent is not None:
        payload["forked_from_id"] = parent
    return {"timestamp": at, "type": "session_meta", "payload": payload}


def _count(at: str, total: dict[str, int]) -> Json:
    info = {"total_token_usage": {**total, "total_tokens": total["input_tokens"]}}
    return {"timestamp": at, "type": "event_msg", "payload": {"type": "token_count", "info": info}}


def _forked(parent: list[Json], at: str, own: dict[str, int]) -> list[Json]:
    """A fork of the session ``parent`` is: its own meta, the parent's lines re-stamped, then
    one call of its own (``own`` more of each kind than the parent's last total)."""
    totals = [
        line["payload"]["info"]["total_token_usage"]
        for line in parent
        if line["type"] == "event_msg" and line["payload"].get("type") == "token_count"
    ]
    last = totals[-1] if totals else dict.fromkeys(KINDS, 0)
    after = {kind: last.get(kind, 0) + own[kind] for kind in KINDS}
    replay = [{**line, "timestamp": at} for line in parent]
    return [_meta(FORK, at, parent[0]["payload"]["id"]), *replay, _count(at, after)]


def test_a_fork_beside_its_parent_counts_its_own_calls(tmp_path: Path) -> None:
    parent = [json.loads(line) for line in ROLLOUT.read_text().splitlines()]
    own = {"input_tokens": 1000, "cached_input_tokens": 500, "output_tokens": 100}
    own["reasoning_output_tokens"] = 50
    fork = _forked(parent, "2025-09-26T09:00:00.000Z", own)
    _dump(tmp_path / "alone" / "2025" / "09" / "26" / f"rollout-{FORK}.jsonl", fork)
    _dump(tmp_path / "both" / "2025" / "09" / "24" / ROLLOUT.name, parent)
    _dump(tmp_path / "both" / "2025" / "09" / "26" / f"rollout-{FORK}.jsonl", fork)
    kept = _stats(tmp_path / "alone")["tokens_by_kind"]
    counted = _stats(tmp_path / "both")
    # the parent's figures (ccusage's Codex report gives its day 149,449 input, 120,192 cached,
    # 4,808 output, 2,688 reasoning), and the fork's own call
    assert counted["tokens_by_kind"] == {
        "input": 149_449 + 1000,
        "output": 4_808 + 100,
        "cache_creation": 0,
        "cache_read": 120_192 + 500,
        "reasoning": 2_688 + 50,
    }
    runs = {run["run_id"]: run["tokens"] for run in counted["largest_runs"]}
    assert runs[FORK] == 1100
    # the replayed tool calls are the parent's: counted once, as the parent alone counts them
    parent_alone = tmp_path / "parent"
    _dump(parent_alone / ROLLOUT.name, parent)
    tools = _stats(parent_alone)["most_used_tools"]
    assert tools
    assert counted["most_used_tools"] == tools
    assert kept["input"] == 149_449 + 1000  # alone, the fork keeps the replay


sessions = st.lists(
    st.tuples(
        st.integers(-1, 3),  # the session it forks (a session before it), or none
        st.lists(  # its own calls: what each adds, or a restart of the counter (None)
            st.none()
            | st.tuples(
                st.integers(1, 900), st.integers(0, 50), st.integers(1, 90), st.integers(0, 9)
            ),
            max_size=5,
        ),
        st.booleans(),  # whether the parent goes on after the fork
    ),
    min_size=1,
    max_size=4,
)


def _folder(drawn: list[tuple[int, list[Any], bool]]) -> tuple[dict[str, list[Json]], int]:
    """Rollouts as Codex writes them, and the input tokens their sessions spent (each call of
    each session once)."""
    files: dict[str, list[Json]] = {}
    spent = 0
    for number, (forks, calls, goes_on) in enumerate(drawn):
        ident = f"0199{number:04d}-0000-7000-8000-{number:012d}"
        at = f"2025-09-{10 + number:02d}T09:00:00.000Z"
        parents = list(files)
        lines = [_meta(ident, at)]
        total = dict.fromkeys(KINDS, 0)
        if 0 <= forks < len(parents):
            parent = files[parents[forks]]
            lines = [_meta(ident, at, parent[0]["payload"]["id"])]
            lines += [{**line, "timestamp": at} for line in parent]
            counts = [line for line in parent if line["payload"].get("type") == "token_count"]
            if counts:
                total = dict(counts[-1]["payload"]["info"]["total_token_usage"])
                del total["total_tokens"]
        for call in calls:
            if call is None:
                # a new process: the counter restarts (said by a total smaller than before,
                # as the reader tells it: after more than any one call adds)
                if total["input_tokens"] > 900:
                    total = dict.fromkeys(KINDS, 0)
                continue
            for kind, more in zip(KINDS, call, strict=True):
                total[kind] += more
            spent += call[0]
            lines.append(_count(at, total))
        files[ident] = lines
        if goes_on and parents and 0 <= forks < len(parents):
            # the parent goes on after the fork: one more call of its own
            parent_id = parents[forks]
            last = [
                line for line in files[parent_id] if line["payload"].get("type") == "token_count"
            ]
            more = dict(last[-1]["payload"]["info"]["total_token_usage"]) if last else {}
            more.pop("total_tokens", None)
            more = {kind: more.get(kind, 0) + 7 for kind in KINDS}
            files[parent_id] = [*files[parent_id], _count(at, more)]
            spent += 7
    return files, spent


@PROPERTY_SETTINGS
@given(drawn=sessions)
def test_a_folder_of_forks_counts_each_call_once(
    drawn: list[tuple[int, list[Any], bool]], tmp_path_factory: Any
) -> None:
    files, spent = _folder(drawn)
    folder = tmp_path_factory.mktemp("codex")
    for name, lines in files.items():
        _dump(folder / "sessions" / f"rollout-{name}.jsonl", lines)
    shown = _stats(folder)
    assert shown["tokens_by_kind"]["input"] == spent


def _day_of(line: Json) -> float:
    from datetime import datetime

    return datetime.fromisoformat(str(line["timestamp"]).replace("Z", "+00:00")).timestamp()


@PROPERTY_SETTINGS
@given(drawn=sessions, since=st.integers(10, 14))
@example(  # a fork made in the range of a parent last written before it
    drawn=[(-1, [(100, 0, 10, 0)], False), (-1, [], False), (0, [], False)], since=12
)
def test_a_range_counts_what_the_whole_folder_counts_on_its_days(
    drawn: list[tuple[int, list[Any], bool]], since: int, tmp_path_factory: Any
) -> None:
    """``--since`` leaves a file last modified before the range unopened: a fork's replay of
    such a parent is still the parent's, counted on the parent's days, never the fork's."""
    import os

    files, _ = _folder(drawn)
    folder = tmp_path_factory.mktemp("codex")
    for name, lines in files.items():
        path = folder / "sessions" / f"rollout-{name}.jsonl"
        _dump(path, lines)
        last = max(_day_of(line) for line in lines)
        os.utime(path, (last, last))  # modified when its last line was written
    day = f"2025-09-{since:02d}"
    whole = _stats(folder)["tokens_by_day"]
    ranged = _stats(folder, "--since", day)["tokens_by_day"]
    assert [row for row in whole if row["day"] >= day] == ranged


def test_a_fork_begins_when_it_was_made(tmp_path: Path) -> None:
    """The parent's ``session_meta`` replayed in a fork says when the parent began: the
    fork's run starts at the fork, and lasts from there."""
    parent = [json.loads(line) for line in ROLLOUT.read_text().splitlines()]
    own = dict.fromkeys(KINDS, 10)
    fork = _forked(parent, "2025-09-26T09:00:00.000Z", own)
    fork.append(_count("2025-09-26T09:05:00.000Z", {k: v + 10 for k, v in own.items()}))
    _dump(tmp_path / f"rollout-{FORK}.jsonl", fork)
    shown = _stats(tmp_path)
    assert [row["day"] for row in shown["tokens_by_day"]] == ["2025-09-26"]
    assert shown["duration_ms"]["max"] == 5 * 60_000
