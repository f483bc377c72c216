"""Claude Code's subagents in every layout it has written, counted as the agent counts them.

1.0.x keeps several subagents in the session file (``isSidechain`` threads, no agent id, each
starting with the prompt of the Task call that started it); 2.0.x writes ``agent-<id>.jsonl``
beside the session; 2.1.x ``<session>/subagents/agent-<id>.jsonl``. Generated sessions in each
layout: every subagent a run of its own linked to its call, with its own usage; the session's
tokens are its own and its subagents' (an independent count here), its time covers them, a
folder holds one run per session, and a subagent file read alone is the run it is."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from agentruns.canonical import Run
from agentruns.cli import main
from agentruns.transcripts import load
from tests._settings import PROPERTY_SETTINGS

Json = dict[str, Any]
START = datetime(2026, 2, 10, 9, 0, tzinfo=UTC)
SESSION = "0a1b2c3d-0000-4000-8000-000000000001"
LAYOUTS = ("1.0", "2.0", "2.1")


def _stamp(minutes: float) -> str:
    return (START + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


class _Writer:
    """Lines of one thread: uuids chained by ``parentUuid``, times increasing."""

    def __init__(self, prefix: str, sidechain: bool, agent: str | None, minute: float) -> None:
        self.prefix, self.sidechain, self.agent = prefix, sidechain, agent
        self.lines: list[Json] = []
        self.parent: str | None = None
        self.minute = minute

    def add(self, kind: str, message: Json) -> None:
        uuid = f"{self.prefix}-{len(self.lines)}"
        line: Json = {
            "type": kind,
            "sessionId": SESSION,
            "uuid": uuid,
            "parentUuid": self.parent,
            "isSidechain": self.sidechain,
            "timestamp": _stamp(self.minute),
            "message": message,
        }
        if self.agent is not None:
            line["agentId"] = self.agent
        self.lines.append(line)
        self.parent = uuid
        self.minute += 1

    def response(self, ident: str, content: list[Json], usage: tuple[int, int]) -> None:
        fresh, output = usage
        self.add(
            "assistant",
            {
                "id": ident,
                "role": "assistant",
                "model": "claude-test",
                "content": content,
                "usage": {"input_tokens": fresh, "output_tokens": output},
            },
        )


def _sub(k: int, prompt: str, usages: list[tuple[int, int]], layout: str, minute: float) -> _Writer:
    agent = None if layout == "1.0" else f"a{k}"
    thread = _Writer(f"s{k}", True, agent, minute)
    thread.add("user", {"role": "user", "content": prompt})
    for n, usage in enumerate(usages):
        call = f"sub{k}-call{n}"
        use = {"type": "tool_use", "id": call, "name": "Read", "input": {"path": f"f{n}"}}
        thread.response(f"msg-s{k}-{n}", [use], usage)
        result = {"type": "tool_result", "tool_use_id": call, "content": "ok"}
        thread.add("user", {"role": "user", "content": [result]})
    return thread


def _write(
    folder: Path, layout: str, main_usage: tuple[int, int], subs: list[list[tuple[int, int]]]
) -> tuple[Path, dict[str, int]]:
    """The session (and its subagent files) in ``folder``; the independent count: tokens of
    the main thread and of each subagent, by its Task call's id."""
    session = _Writer("m", False, None, 0)
    session.add("user", {"role": "user", "content": "do it"})
    calls = [
        {"type": "tool_use", "id": f"task-{k}", "name": "Task", "input": {"prompt": f"part {k}"}}
        for k in range(len(subs))
    ]
    session.response("msg-main", [{"type": "text", "text": "splitting"}, *calls], main_usage)
    threads = [_sub(k, f"part {k}", usages, layout, 3 + k) for k, usages in enumerate(subs)]
    for k in range(len(subs)):
        result = {"type": "tool_result", "tool_use_id": f"task-{k}", "content": "done"}
        session.add("user", {"role": "user", "content": [result]})
    lines = list(session.lines)
    folder.mkdir(parents=True, exist_ok=True)
    for k, thread in enumerate(threads):
        if layout == "1.0":
            lines.extend(thread.lines)  # in the session file itself
            continue
        where = folder if layout == "2.0" else folder / SESSION / "subagents"
        where.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(line) + "\n" for line in thread.lines)
        (where / f"agent-a{k}.jsonl").write_text(text)
    path = folder / f"{SESSION}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    counted = {"main": sum(main_usage)}
    counted.update({f"task-{k}": sum(map(sum, usages)) for k, usages in enumerate(subs)})
    return path, counted


def _tokens(run: Run) -> int:
    assert isinstance(run.input_tokens, int)
    assert isinstance(run.output_tokens, int)
    return run.input_tokens + run.output_tokens


usage = st.tuples(st.integers(1, 900), st.integers(1, 300))
shapes = st.lists(st.lists(usage, min_size=1, max_size=3), min_size=1, max_size=3)


@PROPERTY_SETTINGS
@given(layout=st.sampled_from(LAYOUTS), main_usage=usage, subs=shapes)
def test_every_subagent_is_a_run_linked_to_its_call_with_its_own_usage(
    tmp_path_factory: Any,
    layout: str,
    main_usage: tuple[int, int],
    subs: list[list[tuple[int, int]]],
) -> None:
    folder = tmp_path_factory.mktemp("claude")
    path, counted = _write(folder / "project", layout, main_usage, subs)
    run = load(str(path), "claude-code-session").run
    assert _tokens(run) == counted["main"]
    assert isinstance(run.subagents, tuple)
    found = {sub.parent_call_id: _tokens(sub) for sub in run.subagents}
    assert found == {k: v for k, v in counted.items() if k != "main"}
    for sub in run.subagents:
        steps = sub.steps if isinstance(sub.steps, tuple) else ()
        made = subs[int(str(sub.parent_call_id).removeprefix("task-"))]
        assert sum(step.kind == "tool_call" for step in steps) == len(made)
    # the session's time covers the subagent still working after the main thread's last line
    last = max(3 + k + 2 * len(usages) for k, usages in enumerate(subs))
    assert run.ended_at == START + timedelta(minutes=last)


@PROPERTY_SETTINGS
@given(layout=st.sampled_from(LAYOUTS), main_usage=usage, subs=shapes)
def test_a_folder_counts_a_session_once_with_its_subagents(
    tmp_path_factory: Any,
    layout: str,
    main_usage: tuple[int, int],
    subs: list[list[tuple[int, int]]],
) -> None:
    folder = tmp_path_factory.mktemp("claude")
    _, counted = _write(folder / "project", layout, main_usage, subs)
    result = CliRunner().invoke(
        main, ["stats", "--output-format", "json", "-j", "1", "--no-cache", str(folder)]
    )
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["runs"] == 1
    assert sum(entry["tokens"] for entry in shown["tokens_by_day"]) == sum(counted.values())
    assert shown["subagent_tokens"] == sum(counted.values()) - counted["main"]


def test_a_subagent_file_read_alone_is_the_run_it_is(tmp_path: Path) -> None:
    for layout in ("2.0", "2.1"):
        _write(tmp_path / layout, layout, (5, 5), [[(10, 1), (20, 2)]])
        found = list((tmp_path / layout).rglob("agent-a0.jsonl"))
        assert len(found) == 1
        run = load(str(found[0]), "auto").run
        steps = run.steps if isinstance(run.steps, tuple) else ()
        assert sum(step.kind == "tool_call" for step in steps) == 2
        assert _tokens(run) == 33


@PROPERTY_SETTINGS
@given(layout=st.sampled_from(LAYOUTS), subs=shapes)
def test_every_subagent_has_an_id_of_its_own(
    tmp_path_factory: Any, layout: str, subs: list[list[tuple[int, int]]]
) -> None:
    folder = tmp_path_factory.mktemp("claude")
    path, _ = _write(folder / "project", layout, (1, 1), subs)
    run = load(str(path), "claude-code-session").run
    assert isinstance(run.subagents, tuple)
    ids = [sub.run_id for sub in run.subagents]
    assert run.run_id == SESSION
    assert SESSION not in ids
    assert len(set(ids)) == len(ids) == len(subs)
