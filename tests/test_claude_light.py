"""Claude Code sessions read in one pass (``_claude_light``) give the transcript the first
reader gives (the oracle): the same run, summaries, problems and results.

Sessions are generated from small pools of ids, so that entries repeat, responses span
lines, results answer unknown or answered calls, subagents are echoed and kept in files;
and with what the light reader hands to the full one (lines that are no JSON object, a
number beyond a double, an ``is_error`` that is no boolean)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from agentruns import transcripts
from agentruns.cli import main
from agentruns.pipeline import Outcome
from agentruns.stats import RunFacts, _facts_of, _session_facts
from agentruns.transcripts import Transcript, _claude_session, load, open_session
from tests._settings import PROPERTY_SETTINGS

LOGS = Path(__file__).parent / "fixtures" / "upstream" / "agent-logs"

Json = Any

HUGE = "__HUGE_NUMBER__"
"""Written as ``1e400``: a number the parser makes infinite."""


ABSENT = "__ABSENT__"

stamps = st.sampled_from(
    [
        "2026-01-01T10:00:00.000Z",
        "2026-01-01T10:14:59.999Z",
        "2026-01-01T23:59:00.000Z",
        "2026-01-02T00:30:00.000Z",
        "2026-01-01T12:00:00+02:00",
        "2026-01-01T10:00:00",  # no offset: no time
        "yesterday",
        ABSENT,
    ]
) | st.integers(0, 5)
call_ids = st.sampled_from(["t1", "t2", "t3", "t4"])
texts = st.sampled_from(["", "  ", "hello", "done.", "\n\t"]) | st.text(max_size=8)
args = st.one_of(
    st.just(ABSENT),
    st.dictionaries(st.sampled_from(["prompt", "path", "n"]), texts | st.integers(), max_size=2),
    st.just({"prompt": "go"}),
    st.just({"n": [HUGE]}),
    st.integers(),
)
counts = st.one_of(
    st.integers(0, 5000), st.just(ABSENT), st.just(-3), st.just(True), st.just("7"), st.just(2.5)
)


costs = st.one_of(
    st.floats(0, 5, allow_nan=False),
    st.integers(0, 3),
    st.sampled_from([True, "0.5", None, HUGE, -1.5]),
)


@st.composite
def blocks(draw: st.DrawFn) -> Json:
    kind = draw(st.sampled_from(["tool_use", "tool_result"] * 4 + ["text", "image", None, "odd"]))
    if kind == "odd":
        return draw(st.sampled_from([5, "text", None]))
    block: dict[str, Json] = {} if kind is None else {"type": kind}
    if kind == "text":
        block["text"] = draw(texts | st.just(5))
    elif kind == "tool_use":
        block["name"] = draw(st.sampled_from(["Bash", "Task", "Read"] * 3 + [5]))
        block["id"] = draw(st.sampled_from(["t1", "t2", "t3", "t4"] * 3 + [None, 7, ABSENT]))
        block["input"] = draw(args)
    elif kind == "tool_result":
        block["tool_use_id"] = draw(call_ids | st.just(9))
        block["is_error"] = draw(
            st.sampled_from([True, False, None, ABSENT]) | st.sampled_from(["yes", 1])
        )
        block["content"] = draw(
            st.sampled_from([ABSENT, "ok", "", None, [{"type": "text", "text": "x"}], [HUGE]])
        )
    return block


@st.composite
def messages(draw: st.DrawFn, role: str) -> Json:
    message: dict[str, Json] = {}
    if draw(st.booleans()):
        message["role"] = role
    if role == "assistant":
        message["id"] = draw(st.sampled_from(["m1", "m2", "m3", ABSENT]))
        message["model"] = draw(
            st.sampled_from(["claude-opus-4-6", "claude-haiku-4-5", "<synthetic>", "", ABSENT, 3])
        )
        if draw(st.integers(0, 4)):
            message["usage"] = {
                key: draw(counts)
                for key in (
                    "input_tokens",
                    "output_tokens",
                    "cache_creation_input_tokens",
                    "cache_read_input_tokens",
                )
            }
            if draw(st.booleans()):
                message["usage"]["cache_creation"] = {"ephemeral_1h_input_tokens": draw(counts)}
    message["content"] = draw(
        st.one_of(
            st.lists(blocks(), min_size=1, max_size=3),
            st.lists(blocks(), min_size=1, max_size=3),
            st.lists(blocks(), min_size=1, max_size=3),
            texts,
            st.sampled_from([5, ABSENT, []]),
        )
    )
    return message


@st.composite
def entries(draw: st.DrawFn, session: str = "s1", depth: int = 0) -> Json:
    kind = draw(
        st.sampled_from(
            ["user", "assistant", "assistant", "system", "summary", "file-history-snapshot"]
            + (["progress", "sidechain"] if depth == 0 else [])
            + [None]
        )
    )
    entry: dict[str, Json] = {
        "uuid": draw(st.sampled_from([f"u{n}" for n in range(20)] + [ABSENT] * 2)),
        "timestamp": draw(stamps),
        "sessionId": draw(st.sampled_from([session, session, ABSENT, 4])),
    }
    if kind == "progress":
        inner = draw(entries(session, depth + 1))
        entry["type"] = "progress"
        entry["parentToolUseID"] = draw(call_ids | st.just(5))
        entry["data"] = {
            "type": draw(st.sampled_from(["agent_progress", "hook_progress"])),
            "agentId": draw(st.sampled_from(["a1", "a2", ABSENT])),
            "message": inner,
        }
        return entry
    if kind == "sidechain":
        entry = draw(entries(session, depth + 1))
        entry["isSidechain"] = True
        entry["agentId"] = draw(st.sampled_from(["a1", "a2", ABSENT]))
        entry["parentUuid"] = draw(st.sampled_from(["u1", "u2", ABSENT]))
        return entry
    if kind is None:  # an older export: no type, its message's role says
        role = draw(st.sampled_from(["user", "assistant"]))
        entry["message"] = draw(messages(role))
        entry["message"]["role"] = role
        return entry
    entry["type"] = kind
    if kind in ("user", "assistant"):
        entry["message"] = draw(messages(kind) | st.just("no message"))
    if kind == "assistant" and draw(st.integers(0, 2)) == 0:
        # what older Claude Code recorded a response cost (the cost ccusage takes first)
        entry["costUSD"] = draw(costs)
    if kind == "assistant" and draw(st.booleans()):
        # the request a response answered: with the message id, the call across files
        entry["requestId"] = draw(st.sampled_from(["r1", "r2", 7, None]))
    if kind == "user" and draw(st.integers(0, 3)) == 0:
        entry["toolUseResult"] = {"agentId": draw(st.sampled_from(["a1", "a2"]))}
    if draw(st.integers(0, 5)) == 0:
        entry["agentId"] = draw(st.sampled_from(["a1", "a2"]))
    return entry


def _line(value: Json) -> str:
    text = json.dumps(_without_absent(value))
    return text.replace(f'"{HUGE}"', "1e400")


def _without_absent(value: Json) -> Json:
    if isinstance(value, dict):
        return {k: _without_absent(v) for k, v in value.items() if v != ABSENT}
    if isinstance(value, list):
        return [_without_absent(v) for v in value if v != ABSENT]
    return value


@st.composite
def exchanges(draw: st.DrawFn) -> list[Json]:
    """A call and its result, well formed (the common case), each in its own response."""
    n = draw(st.integers(0, 10**6))
    call = draw(call_ids)
    answer: dict[str, Json] = {"type": "tool_result", "content": draw(texts), "tool_use_id": call}
    answer["is_error"] = draw(st.sampled_from([True, False, ABSENT]))
    usage = {"input_tokens": draw(counts), "output_tokens": draw(counts)}
    said: Json = {"id": f"r{n}", "model": "claude-opus-4-6", "usage": usage}
    said["content"] = [
        {
            "type": "tool_use",
            "id": call,
            "name": draw(st.sampled_from(["Bash", "Task"])),
            "input": draw(args),
        }
    ]
    return [
        {
            "type": "assistant",
            "uuid": f"c{n}",
            "timestamp": draw(stamps),
            "sessionId": "s1",
            "message": said,
        },
        {
            "type": "user",
            "uuid": f"d{n}",
            "timestamp": draw(stamps),
            "sessionId": "s1",
            "message": {"content": [answer]},
        },
    ]


sessions = st.fixed_dictionaries(
    {
        "main": st.lists(
            entries() | exchanges().map(lambda pair: pair[0]), min_size=1, max_size=40
        ),
        "exchanges": st.lists(exchanges(), max_size=8),
        "files": st.lists(
            st.tuples(st.sampled_from(["a1", "a2", "a3"]), st.lists(entries(), max_size=6)),
            max_size=2,
        ),
        "beside": st.booleans(),
        "odd": st.sampled_from(["", "blank", "crlf", "bom", "not json", "array"]),
    }
)


def _write(tmp: Path, drawn: dict[str, Json]) -> Path:
    folder = tmp / "project"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "s1.jsonl"
    exchanged = [entry for pair in drawn["exchanges"] for entry in pair]
    lines = [_line(entry) for entry in exchanged + drawn["main"]]
    odd = drawn["odd"]
    ending = "\r\n" if odd == "crlf" else "\n"
    if odd == "blank":
        lines.insert(len(lines) // 2, "   ")
    elif odd == "not json":
        lines.insert(len(lines) // 2, "{oops")
    elif odd == "array":
        lines.insert(len(lines) // 2, "[1, 2]")
    text = ending.join(lines) + ending
    path.write_bytes(("\ufeff" if odd == "bom" else "").encode() + text.encode())
    for agent, agent_entries in drawn["files"]:
        where = folder if drawn["beside"] else folder / "s1" / "subagents"
        where.mkdir(parents=True, exist_ok=True)
        body = [_line({**entry, "sessionId": "s1"}) for entry in agent_entries]
        (where / f"agent-{agent}.jsonl").write_text("".join(f"{b}\n" for b in body))
    return path


@contextmanager
def _first_reader() -> Iterator[None]:
    """Claude Code sessions read as before the one-pass reader: the oracle."""
    first = {**transcripts._NAMED, "claude-session": _claude_session.read}
    with (
        patch.object(transcripts, "_light_session", lambda name, harness: None),
        patch.object(transcripts, "_NAMED", first),
    ):
        yield


def _both(path: Path) -> tuple[object, object]:
    """What ``open_session`` gives (the one-pass reader) and what the first reader gives."""
    read = open_session(str(path), None)
    with _first_reader():
        oracle = open_session(str(path), None)
    return read, oracle


@PROPERTY_SETTINGS
@given(drawn=sessions)
def test_a_session_reads_as_the_first_reader_reads_it(
    drawn: dict[str, Json], tmp_path_factory: Any
) -> None:
    path = _write(tmp_path_factory.mktemp("session"), drawn)
    read, oracle = _both(path)
    assert read == oracle
    if isinstance(read, Transcript):
        assert _facts_of(read) == _facts_of(oracle)  # type: ignore[arg-type]


def _facts_both(path: Path) -> tuple[Outcome[RunFacts], Outcome[RunFacts]]:
    """The outcome ``stats`` makes of a session (a Claude Code session's facts from the
    one-pass reader's summary, its run never built), and the one it makes with neither the
    one-pass reader nor the summary: the facts of the run the first reader builds."""
    item = (str(path), None)
    read = _session_facts(item)
    with _first_reader(), patch.object(transcripts, "light_summary", lambda *_: None):
        oracle = _session_facts(item)
    return read, oracle


@PROPERTY_SETTINGS
@given(drawn=sessions)
def test_a_sessions_facts_are_those_of_the_run_the_first_reader_builds(
    drawn: dict[str, Json], tmp_path_factory: Any
) -> None:
    read, oracle = _facts_both(_write(tmp_path_factory.mktemp("session"), drawn))
    assert read == oracle


def test_every_bundled_claude_sessions_facts_are_those_of_its_run() -> None:
    found = sorted((LOGS / "claude-session").glob("*.jsonl"))
    assert len(found) >= 4
    for path in found:
        read, oracle = _facts_both(path)
        assert read == oracle, path.name
        assert read.value is not None
        assert read.value.tools, path.name


def test_every_bundled_claude_session_reads_as_the_first_reader_reads_it() -> None:
    found = sorted((LOGS / "claude-session").glob("*.jsonl"))
    assert len(found) >= 4
    for path in found:
        read, oracle = _both(path)
        assert isinstance(oracle, Transcript)
        assert read == oracle, path.name


@pytest.mark.parametrize("role", ["assistant", "user"])
def test_a_messages_refused_blocks_are_noted_before_what_reading_its_others_finds(
    role: str, tmp_path: Path
) -> None:
    """The first reader validates a message's blocks before it reads any: a block refused
    after a call whose id was used (or a result no call made) is noted first."""
    valid: Json = (
        {"type": "tool_use", "id": "t1", "name": "Bash"}
        if role == "assistant"
        else {"type": "tool_result", "tool_use_id": "t9", "content": "ok"}
    )
    refused: Json = {"type": "tool_use", "id": "t1", "name": 5}
    call = {"type": "tool_use", "id": "t1", "name": "Bash"}
    lines = [
        {"type": "assistant", "uuid": "a", "sessionId": "s1", "message": {"content": [call]}},
        {"type": role, "uuid": "b", "sessionId": "s1", "message": {"content": [valid, refused]}},
    ]
    path = tmp_path / "s1.jsonl"
    path.write_text("".join(f"{json.dumps(line)}\n" for line in lines))
    read, oracle = _both(path)
    assert isinstance(read, Transcript)
    assert isinstance(oracle, Transcript)
    assert len(read.problems) >= 2
    assert read.problems == oracle.problems


def test_a_session_named_by_its_harness_reads_in_one_pass_too(tmp_path: Path) -> None:
    path = LOGS / "claude-session" / "spotter-short.jsonl"
    named = load(str(path), "claude-code-session")
    with _first_reader():
        assert load(str(path), "claude-code-session") == named
    assert any(call.result for call in named.rounds[0].tool_invocations)


@pytest.mark.parametrize("to", ["agentrun", "cortex", "atif"])
def test_importing_the_bundled_sessions_writes_what_the_first_reader_made_them(
    to: str, tmp_path: Path
) -> None:
    def imported(name: str) -> bytes:
        out = tmp_path / name
        done = CliRunner().invoke(
            main,
            ["import", "-q", "-j", "1", str(LOGS / "claude-session"), "--to", to, "-o", str(out)],
        )
        assert done.exit_code in (0, 1), done.output
        return out.read_bytes()

    read = imported("one-pass.jsonl")
    with _first_reader():
        assert imported("first.jsonl") == read
