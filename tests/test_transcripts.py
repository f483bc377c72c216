"""Transcripts in: every upstream sample gives what eval-magic's own test asserts for it, and
imports to all three formats as a record valid under each format's schema.

The samples and their ``.expected.json`` are copies (tests/fixtures/upstream/PROVENANCE.md).
Each assertion key of an ``.expected.json`` is checked by a rule below; a key no rule knows
fails the test, so no upstream assertion is skipped in silence.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import cast

import jsonschema
import pytest
from pydantic import MISSING

from agentruns.canonical import Run
from agentruns.schemas import schema_text
from agentruns.transcripts import HARNESSES, Message, Transcript, detect, load
from agentruns.transcripts._record import needed, to_record
from agentruns_generated._json import JsonValue

UPSTREAM = Path(__file__).parent / "fixtures" / "upstream" / "eval-magic"
SAMPLES = UPSTREAM / "transcripts"
EXPECTED = sorted(SAMPLES.glob("*/*.expected.json"))

Json = dict[str, JsonValue]

DEFAULTS: Json = {
    # what a transcript does not hold, per format: given as a user gives it with --set
    "eval_id": "eval-1",
    "condition": "with_skill",
    "skill_path": None,
    "prompt": "Fix the date.",
    "files": [],
    "final_message": "",
    "kind": "implement",
    "run_id": "R-1",
    "started_at": "2026-08-21T00:00:00Z",
    "agent_id": "agent-1",
    "goal": "Fix the date.",
}


def values_for(run: Run, to: str, given: Json | None = None) -> Json:
    """The values a user has to give for this run and format (and nothing more)."""
    values = {d.pointer[1:]: DEFAULTS[d.pointer[1:]] for d in needed(run, to)}
    values.update(given or {})
    return values


def record(transcript: Transcript, to: str, given: Json | None = None) -> Json:
    # eval-magic's runner-owned values (final-message.md) win over what the stream says: an
    # explicit override, as `agentruns import --override` gives it
    imported = to_record(transcript.run, to, values_for(transcript.run, to, given), override=True)
    out = json.loads(imported.record.__pydantic_serializer__.to_json(imported.record))
    jsonschema.validate(out, json.loads(schema_text(to)))  # the enforced schema, as an oracle
    return cast(Json, out)


def inputs_of(expected: Path, tmp_path: Path) -> tuple[list[Path], Path | None]:
    """The stream(s) an expectation is about, and the conversation file of a multi-turn run."""
    stem = expected.name.removesuffix(".expected.json")
    folder = expected.parent
    turns = sorted(
        folder.glob(f"{stem}.turn-*.jsonl"), key=lambda p: int(p.name.split("-")[-1][:-6])
    )
    conversation = folder / f"{stem}.conversation.json"
    talk = conversation if conversation.exists() else None
    if turns:
        return turns, talk
    for name in (f"{stem}.jsonl", f"{stem}-events.jsonl"):
        if (folder / name).exists():
            return [folder / name], talk
    # a Codex denial test upstream writes only the stderr log: the events file is empty
    stderr = folder / f"{stem}-stderr.log"
    assert stderr.exists(), f"no input for {expected.name}"
    shutil.copy(stderr, tmp_path / stderr.name)
    events = tmp_path / f"{stem}-events.jsonl"
    events.write_bytes(b"")
    return [events], talk


def view(transcript: Transcript) -> Json:
    """The transcript in the terms eval-magic's tests assert (its ``TranscriptSummary``)."""
    events: list[JsonValue] = []
    calls: list[JsonValue] = []
    for summary in transcript.rounds:
        for event in summary.events:
            if isinstance(event, Message):
                events.append(
                    {"type": "assistant_message", "ordinal": len(events), "text": event.text}
                )
                continue
            call: Json = {"name": event.name, "ordinal": len(calls)}
            if event.args is not MISSING:
                call["args"] = event.args
            call["result"] = event.result
            calls.append(call)
            events.append({"type": "tool_invocation", **call, "ordinal": len(events)})
    last = transcript.rounds[-1]
    return {
        "session_id": last.session_id,
        "events": events,
        "tool_invocations": calls,
        "final_text": last.final_text,
        "total_tokens": transcript.harness_total_tokens,
        "duration_ms": transcript.run.duration_ms
        if transcript.run.duration_ms is not MISSING
        else None,
        "permission_denials": [d.as_json() for d in transcript.denials],
    }


_STEP = re.compile(r"([^.\[\]]+)|\[(\d+|\*)\]")


def resolve(value: JsonValue, path: str) -> JsonValue:
    """``a.b[0].c``, ``a[*].name`` and a final ``.len`` over nested JSON."""
    steps = _STEP.findall(path)
    for index, (name, item) in enumerate(steps):
        if name == "len" and index == len(steps) - 1:
            assert isinstance(value, list)
            return len(value)
        if item == "*":
            assert isinstance(value, list)
            rest = "".join(f".{n}" if n else f"[{i}]" for n, i in steps[index + 1 :])
            return [resolve(v, rest.lstrip(".")) if rest else v for v in value]
        if item:
            assert isinstance(value, list), path
            value = value[int(item)]
        else:
            assert isinstance(value, dict), path
            value = value.get(name)
    return value


def same(expected: JsonValue, actual: JsonValue) -> bool:
    """Equal, where a key an expected object lacks must be absent or null in the actual one
    (eval-magic's tests build whole structs), except the ordinal some tests leave out."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        extra = [
            k for k, v in actual.items() if k not in expected and v is not None and k != "ordinal"
        ]
        return not extra and all(same(v, actual.get(k)) for k, v in expected.items())
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(map(same, expected, actual))
    return expected == actual


class Case:
    """One sample read, with its records made lazily (as the assertions ask)."""

    def __init__(self, expected: Path, tmp_path: Path) -> None:
        self.data = json.loads(expected.read_text())
        streams, talk = inputs_of(expected, tmp_path)
        self.transcript = load(streams, expected.parent.name, conversation=talk)
        self.summary = view(self.transcript)
        given = self.data.get("inputs", {}).get("outputs/final-message.md")
        self.final_message = (
            given.strip() if isinstance(given, str) and "absent" not in given else None
        )

    def portable(self, final_message: str | None = None) -> Json:
        text = final_message or self.final_message
        return record(self.transcript, "portable", {"final_message": text} if text else None)


def check(case: Case, key: str, expected: JsonValue) -> None:
    summary = case.summary
    rule = _RULES.get(key)
    if rule is not None:
        rule(case, expected)
    elif key.startswith("run."):
        assert same(expected, resolve(case.portable(), key[4:])), key
    elif key.split(".")[0].split("[")[0] in summary:
        assert same(expected, resolve(summary, key)), (key, resolve(summary, key))
    elif " (" in key and isinstance(expected, dict):  # asserts of one upstream test, by name
        variant = re.search(r"final-message\.md = '([^']*)'", key)
        for inner, value in expected.items():
            if inner == "run.final_message" and variant:
                assert case.portable(variant.group(1))["final_message"] == value
            else:
                check(case, inner, value)
    else:
        pytest.fail(f"no rule checks the upstream assertion {key!r}")


def _timing(case: Case, expected: JsonValue) -> None:
    assert isinstance(expected, dict)
    for key in ("total_tokens", "duration_ms"):
        assert case.summary[key] == expected[key], key


def _denials_file(case: Case, expected: JsonValue) -> None:
    assert isinstance(expected, dict)
    denials = case.transcript.denials
    assert len(denials) == expected["total_denials"]
    task = expected["tasks[0]"]
    assert isinstance(task, dict)
    assert sum(d.by_guard for d in denials) == task["guard_attributed_count"]
    assert same(task["denials[0]"], denials[0].as_json())


def _not_contained(case: Case, expected: JsonValue) -> None:
    reason = str(resolve(case.summary, "permission_denials[0].reason"))
    for text in expected if isinstance(expected, list) else [expected]:
        assert str(text) not in reason


def _also(case: Case, expected: JsonValue) -> None:
    assert isinstance(expected, list)
    shown = json.dumps(case.summary["permission_denials"])
    for sentence in expected:
        found = re.fullmatch(r".* does not contain '([^']+)'", str(sentence))
        assert found, f"no rule for {sentence!r}"
        assert found.group(1) not in shown


def _recorded(case: Case, expected: JsonValue) -> None:
    assert expected == 1
    assert case.portable()


def _no_missing(case: Case, expected: JsonValue) -> None:
    assert expected == 0
    assert all(r.events or r.final_text for r in case.transcript.rounds)


def _driver_conversation(case: Case, expected: JsonValue) -> None:
    # written by eval-magic's dispatch driver, not read from a transcript: what the rounds
    # show of it is their number and the run's outcome
    assert isinstance(expected, dict)
    assert len(case.transcript.rounds) == cast(int, expected["delivered_followups"]) + 1
    assert case.transcript.run.status == expected["status"]
    assert not case.transcript.problems  # the rounds share one session


def _final_message_file(case: Case, expected: JsonValue) -> None:
    assert case.summary["final_text"] == str(expected).strip()


def _session_surface(case: Case, expected: JsonValue) -> None:
    # the skill/plugin roster is no run-record field; the init event it comes from is the
    # session id's source, which is what a record keeps of it
    assert case.summary["session_id"] == "session-1"


def _results(case: Case, expected: JsonValue) -> None:
    assert same(expected, resolve(case.summary, "tool_invocations[*].result"))


def _skill_judge(case: Case, expected: JsonValue) -> None:
    # eval-magic's grader passes when the transcript shows the skill tool called
    assert "skill" in [c["name"] for c in cast(list[Json], case.summary["tool_invocations"])]


_RULES: dict[str, Callable[[Case, JsonValue], None]] = {
    "timing.json": _timing,
    "permission-denials.json": _denials_file,
    "run_record_exists": lambda case, expected: _recorded(case, 1 if expected else 0),
    "recorded": _recorded,
    "missing_transcript": _no_missing,
    "reason does not contain": _not_contained,
    "also_asserts": _also,
    "conversation.json": _driver_conversation,
    "outputs/final-message.md": _final_message_file,
    "loaded_plugins.len": _session_surface,
    "from_line_3_alone": _session_surface,
    "results_in_order": _results,
    "with_skill judge-responses/__skill_invoked.json": _skill_judge,
}


@pytest.mark.parametrize(
    "expected", EXPECTED, ids=[f"{p.parent.name}/{p.name[:-14]}" for p in EXPECTED]
)
def test_upstream_sample_gives_what_eval_magic_asserts(expected: Path, tmp_path: Path) -> None:
    case = Case(expected, tmp_path)
    asserts = case.data["asserts"]
    assert asserts
    for key, value in asserts.items():
        check(case, key, value)


@pytest.mark.parametrize(
    "expected", EXPECTED, ids=[f"{p.parent.name}/{p.name[:-14]}" for p in EXPECTED]
)
def test_upstream_sample_imports_to_every_format_valid_under_its_schema(
    expected: Path, tmp_path: Path
) -> None:
    case = Case(expected, tmp_path)
    steps = case.transcript.run.steps
    assert isinstance(steps, tuple)
    names = [step.name for step in steps if step.kind == "tool_call"]
    portable = objects(record(case.transcript, "portable"), "tool_invocations")
    assert [call["name"] for call in portable] == names
    agentrun = objects(record(case.transcript, "agentrun"), "steps")
    assert [s["name"] for s in agentrun if s["type"] == "tool_call"] == names
    cortex = objects(record(case.transcript, "cortex"), "events")
    skipped = ("message", "error", "x-agentruns-carry")
    assert [e["type"] for e in cortex if e["type"] not in skipped] == names


@pytest.mark.parametrize(
    "expected", EXPECTED, ids=[f"{p.parent.name}/{p.name[:-14]}" for p in EXPECTED]
)
def test_a_portable_record_states_the_total_eval_magic_counts_for_the_harness(
    expected: Path, tmp_path: Path
) -> None:
    """The canonical total is input plus output; portable's is eval-magic's, per harness
    (the number ``harness_total_tokens`` holds, which the upstream assertions check)."""
    case = Case(expected, tmp_path)
    stated = record(case.transcript, "portable").get("total_tokens")
    assert stated == case.transcript.harness_total_tokens


def objects(document: Json, key: str) -> list[Json]:
    found = document.get(key, [])
    assert isinstance(found, list)
    return [cast(Json, item) for item in found]


def test_the_samples_cover_every_stream_harness() -> None:
    """eval-magic's samples are of the scripted streams; the session files' readers are
    checked on upstream session files (test_session_files) and generated ones."""
    streams = {"claude-code", "codex", "cline", "opencode"}
    assert {p.parent.name for p in EXPECTED} == streams
    assert streams < set(HARNESSES)


@pytest.mark.parametrize("stream", sorted(SAMPLES.glob("*/*.jsonl")), ids=lambda p: p.name)
def test_auto_recognizes_the_harness_of_every_sample(stream: Path) -> None:
    if stream.stat().st_size == 0:
        pytest.fail("empty sample")
    assert detect(str(stream)) == stream.parent.name


@pytest.mark.parametrize("harness", HARNESSES)
def test_eval_magics_own_descriptor_reads_as_the_builtin_does(harness: str, tmp_path: Path) -> None:
    descriptor = UPSTREAM / "declarative" / f"{harness}.toml"
    for stream in sorted((SAMPLES / harness).glob("*.jsonl")):
        ours, theirs = load(stream, harness), load(stream, str(descriptor))
        assert view(ours) == view(theirs), stream.name
