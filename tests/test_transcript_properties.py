"""Generated event streams: well-formed ones keep every tool call, in order, with its
arguments and result; hostile ones (garbage lines, cut lines, retyped fields, lost lines)
never raise, and whatever record is made from them is valid."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import MISSING

from agentruns.errors import RecordError
from agentruns.transcripts import HARNESSES, ToolCall, load
from agentruns.transcripts._record import needed, to_record
from agentruns_generated._json import JsonValue

Json = dict[str, JsonValue]


@dataclass(frozen=True)
class Call:
    name: str
    args: Json
    result: str


@dataclass(frozen=True)
class Say:
    text: str


Action = Call | Say

_OMITTED = {"id", "type", "status", "aggregated_output", "output", "result", "error"}
names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,12}", fullmatch=True).filter(
    lambda n: n not in ("agent_message", "reasoning", "plan_update", "run_commands")
)
text = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=6)
args = st.dictionaries(
    st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True).filter(lambda k: k not in _OMITTED),
    values,
    min_size=1,
    max_size=4,
)
actions = st.lists(
    st.builds(Call, names, args, text) | st.builds(Say, text.filter(bool)), max_size=12
)


def _claude(plan: list[Action]) -> list[Json]:
    lines: list[Json] = [{"type": "system", "subtype": "init", "session_id": "s-1"}]
    for i, action in enumerate(plan):
        if isinstance(action, Say):
            block: Json = {"type": "text", "text": action.text}
            lines.append({"type": "assistant", "message": {"content": [block]}})
            continue
        use: Json = {"type": "tool_use", "id": f"t{i}", "name": action.name, "input": action.args}
        lines.append({"type": "assistant", "message": {"content": [use]}})
        answer: Json = {"type": "tool_result", "tool_use_id": f"t{i}", "content": action.result}
        lines.append({"type": "user", "message": {"content": [answer]}})
    usage: Json = {"input_tokens": 3, "output_tokens": 4}
    lines.append(
        {"type": "result", "is_error": False, "result": "done", "duration_ms": 7, "usage": usage}
    )
    return lines


def _codex(plan: list[Action]) -> list[Json]:
    lines: list[Json] = [{"type": "thread.started", "thread_id": "s-1"}]
    for i, action in enumerate(plan):
        if isinstance(action, Say):
            item: Json = {"id": f"i{i}", "type": "agent_message", "text": action.text}
        else:
            item = {"id": f"i{i}", "type": action.name, **action.args}
            item["aggregated_output"] = action.result
        lines.append({"type": "item.completed", "item": item})
    lines.append({"type": "turn.completed", "usage": {"input_tokens": 3, "output_tokens": 4}})
    return lines


def _cline(plan: list[Action]) -> list[Json]:
    lines: list[Json] = []
    for i, action in enumerate(plan):
        if isinstance(action, Say):
            end: Json = {"type": "content_end", "contentType": "text", "text": action.text}
            lines.append({"type": "agent_event", "event": end})
            continue
        start: Json = {
            "type": "content_start",
            "contentType": "tool",
            "toolCallId": f"c{i}",
            "toolName": action.name,
            "input": action.args,
        }
        done: Json = {
            "type": "content_end",
            "contentType": "tool",
            "toolCallId": f"c{i}",
            "output": action.result,
        }
        lines += [{"type": "agent_event", "event": start}, {"type": "agent_event", "event": done}]
    lines.append(
        {"type": "run_result", "finishReason": "completed", "durationMs": 7, "text": "done"}
    )
    return lines


def _opencode(plan: list[Action]) -> list[Json]:
    lines: list[Json] = []
    for i, action in enumerate(plan):
        base: Json = {"timestamp": 1000 + i, "sessionID": "s-1"}
        if isinstance(action, Say):
            lines.append({"type": "text", **base, "part": {"text": action.text}})
            continue
        state: Json = {"status": "completed", "input": action.args, "output": action.result}
        part: Json = {"tool": action.name, "callID": f"c{i}", "state": state}
        lines.append({"type": "tool_use", **base, "part": part})
    finish: Json = {"reason": "stop", "tokens": {"input": 3, "output": 4}}
    lines.append({"type": "step_finish", "timestamp": 5000, "sessionID": "s-1", "part": finish})
    return lines


RENDER: dict[str, Callable[[list[Action]], list[Json]]] = {
    "claude-code": _claude,
    "codex": _codex,
    "cline": _cline,
    "opencode": _opencode,
}


def _write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def _encode(lines: list[Json]) -> list[bytes]:
    return [json.dumps(line, ensure_ascii=False).encode() for line in lines]


def _records(run_holder: object) -> None:
    """Every format gets a record or a RecordError, never anything else."""
    from agentruns.transcripts import Transcript

    assert isinstance(run_holder, Transcript)
    run = run_holder.run
    for to in ("portable", "cortex", "agentrun"):
        values: Json = {d.pointer[1:]: _default(d.pointer[1:]) for d in needed(run, to)}
        with contextlib.suppress(RecordError):
            to_record(run, to, values)


def _default(name: str) -> JsonValue:
    return {"files": [], "skill_path": None, "started_at": "2026-01-01T00:00:00Z"}.get(name, "x")


_SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.mark.parametrize("harness", HARNESSES)
@given(plan=actions)
@_SETTINGS
def test_a_well_formed_stream_keeps_every_tool_call_in_order(
    harness: str, plan: list[Action], tmp_path: Path
) -> None:
    stream = _write(tmp_path / f"{harness}.jsonl", _encode(RENDER[harness](plan)))
    transcript = load(stream, harness)
    calls = [a for a in plan if isinstance(a, Call)]
    got = transcript.rounds[0].tool_invocations
    assert [(c.name, c.args, c.result) for c in calls] == [(g.name, g.args, g.result) for g in got]
    assert [g.ordinal for g in got] == list(range(len(calls)))
    assert transcript.complete
    assert not transcript.problems
    assert transcript.run.steps is not MISSING
    _records(transcript)


@pytest.mark.parametrize("harness", HARNESSES)
def test_auto_recognizes_a_generated_stream(harness: str, tmp_path: Path) -> None:
    plan: list[Action] = [Call("Bash", {"command": "ls"}, "a.txt"), Say("done")]
    stream = _write(tmp_path / "t.jsonl", _encode(RENDER[harness](plan)))
    assert load(stream).harness == harness


garbage = st.one_of(
    st.binary(max_size=40).map(lambda b: b.replace(b"\n", b" ")),
    values.map(lambda v: json.dumps(v).encode()),
    st.just(b'{"type": "assistant", "message": {"content": [{"type": "tool_use"'),
    st.just(b'{"type":"x","s":"\\ud800"}'),
    st.just(b"\xff\xfe\x00binary\x00"),
)


@st.composite
def hostile(draw: st.DrawFn, harness: str) -> list[bytes]:
    lines = _encode(RENDER[harness](draw(actions)))
    for _ in range(draw(st.integers(0, 4))):
        action = draw(st.sampled_from(["insert", "delete", "retype", "cut"]))
        if action == "insert" or not lines:
            lines.insert(draw(st.integers(0, len(lines))), draw(garbage))
            continue
        at = draw(st.integers(0, len(lines) - 1))
        if action == "delete":
            del lines[at]
        elif action == "cut":
            lines[at] = lines[at][: draw(st.integers(0, len(lines[at])))]
        else:
            lines[at] = _retype(lines[at], draw)
    return lines


def _retype(line: bytes, draw: st.DrawFn) -> bytes:
    """One field somewhere in the event replaced by any JSON value."""
    try:
        value = json.loads(line)
    except ValueError:
        return line  # garbage inserted before: already hostile
    node = value
    while isinstance(node, dict) and node:
        key = draw(st.sampled_from(sorted(node)))
        if not isinstance(node[key], dict) or draw(st.booleans()):
            node[key] = draw(values)
            break
        node = node[key]
    return json.dumps(value).encode()


@pytest.mark.parametrize("harness", HARNESSES)
@given(data=st.data())
@_SETTINGS
def test_a_hostile_stream_never_raises(harness: str, data: st.DataObject, tmp_path: Path) -> None:
    lines = data.draw(hostile(harness))
    stream = _write(tmp_path / "t.jsonl", lines)
    transcript = load(stream, harness)
    for call in transcript.rounds[0].tool_invocations:
        assert isinstance(call, ToolCall)
    _records(transcript)


@given(blob=st.binary(max_size=300))
@_SETTINGS
def test_random_bytes_never_raise(blob: bytes, tmp_path: Path) -> None:
    stream = tmp_path / "blob.jsonl"
    stream.write_bytes(blob)
    for harness in HARNESSES:
        _records(load(stream, harness))
