"""The batch engine: every record accounted for, one record never costs another, bounded.

The hostile records here are families, generated: carry payloads this version did not write,
cortex event extras named like declared fields, lone surrogates, random bytes and random JSON,
placed at random among valid records of every format.
"""

from __future__ import annotations

import json
import os
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentruns._workers import available_cpus
from agentruns.batch import Batch, Outcome, convert_document, validate_document
from agentruns.io import Raw
from tests._settings import PROPERTY_SETTINGS as _SETTINGS

FIXTURES = Path(__file__).parent / "fixtures"
VALID = {
    name: json.dumps(json.loads((FIXTURES / f"{name}.min.json").read_text()))
    for name in ("portable", "cortex", "agentrun", "atif")
}

# -- hostile record families ----------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
CANONICAL_NAMES = ["run_id", "goal", "steps", "status", "extra", "eval_id", "run_index", "kind"]
STEP_FIELDS = ["name", "input", "output", "index", "started_at", "duration_ms", "type", "at"]


@st.composite
def foreign_carry(draw: st.DrawFn) -> str:
    """An AgentRun whose reserved property holds a payload of any shape, ours or not."""
    document = json.loads(VALID["agentrun"])
    payload = draw(
        st.fixed_dictionaries(
            {
                "version": st.sampled_from([1, 2, 99, "1", 1.0, True]),
                "origin": st.sampled_from(["portable", "cortex", 7]),
                "fields": st.dictionaries(st.sampled_from(CANONICAL_NAMES), json_values),
                "absent": st.lists(st.sampled_from([*CANONICAL_NAMES, "nope"]), max_size=3),
            }
        )
        | json_values
    )
    document["x-agentruns-carry"] = payload
    return json.dumps(document)


@st.composite
def foreign_atif_carry(draw: st.DrawFn) -> str:
    """An ATIF trajectory whose root ``extra`` holds the reserved name, with any value."""
    document = json.loads(VALID["atif"])
    document["extra"] = {"x-agentruns-carry": draw(json_values), "k": draw(json_values)}
    return json.dumps(document)


@st.composite
def odd_atif_turns(draw: st.DrawFn) -> str:
    """An ATIF trajectory whose turns are cut, repeated and reordered: results before or
    without their calls, calls without results, nulls where values were."""
    document = json.loads(VALID["atif"])
    turns = document["steps"]
    chosen = draw(st.lists(st.sampled_from(turns), min_size=1, max_size=6))
    steps = []
    for number, turn in enumerate(chosen, 1):
        turn = json.loads(json.dumps(turn))
        turn["step_id"] = number
        results = (turn.get("observation") or {}).get("results")
        if results and draw(st.booleans()):
            results.reverse()
        if turn.get("tool_calls") and draw(st.booleans()):
            turn["tool_calls"] = turn["tool_calls"][:1]
        for key in draw(st.lists(st.sampled_from(["timestamp", "metrics", "extra"]), max_size=2)):
            turn[key] = None
        steps.append(turn)
    document["steps"] = steps
    return json.dumps(document)


@st.composite
def colliding_event_extras(draw: st.DrawFn) -> str:
    """A cortex record whose event has extras named like declared or canonical fields."""
    document = json.loads(VALID["cortex"])
    extras = draw(st.dictionaries(st.sampled_from(STEP_FIELDS[:6]), json_values, min_size=1))
    document["events"][0].update(extras)
    return json.dumps(document)


@st.composite
def lone_surrogate(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(sorted(VALID)))
    code = draw(st.integers(0xD800, 0xDFFF))
    document = json.loads(VALID[name])
    key = {"portable": "prompt", "cortex": "run_id", "agentrun": "goal", "atif": "session_id"}[name]
    document[key] = "ok"
    return json.dumps(document).replace('"ok"', f'"a\\u{code:04x}b"', 1)


hostile = st.one_of(
    foreign_carry(),
    foreign_atif_carry(),
    odd_atif_turns(),
    colliding_event_extras(),
    lone_surrogate(),
    json_values.map(json.dumps),
    st.binary(max_size=40)
    .filter(lambda b: b"\n" not in b and b.strip())
    .map(lambda b: b.decode("latin-1")),
)


def _jsonl(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n".join(x.encode("utf-8", errors="surrogateescape") for x in lines) + b"\n")
    return path


@pytest.mark.parametrize("to", sorted(VALID))
def test_any_mix_of_hostile_records_never_costs_a_valid_one(to: str, tmp_path: Path) -> None:
    @_SETTINGS
    @given(
        st.lists(
            st.tuples(st.sampled_from(sorted(VALID)), st.booleans(), hostile),
            min_size=1,
            max_size=12,
        )
    )
    def check(plan: list[tuple[str, bool, str]]) -> None:
        lines: list[str] = []
        valid_lines: set[int] = set()
        for name, first, bad in plan:
            pair = [VALID[name], bad] if first else [bad, VALID[name]]
            lines.extend(pair)
            valid_lines.add(len(lines) - (1 if first else 0))
        path = _jsonl(tmp_path, lines)
        with Batch(partial(convert_document, to=to), [str(path)]) as batch:
            outcomes = list(batch)
        tally = batch.tally
        assert tally.records == len(lines) == tally.accepted + tally.rejected
        accepted = {raw.line for raw, outcome in outcomes if outcome.accepted}
        assert valid_lines <= accepted
        for _, outcome in outcomes:
            assert outcome.accepted == (outcome.output is not None)
            if outcome.output is not None:
                json.loads(outcome.output)
            # the boundary is the last defence, not how records are handled: a schema-valid
            # record converts, an invalid one is rejected for what is wrong with it
            assert not any(m.startswith("internal error") for _, m in outcome.problems)

    check()


def _explode_on_line_3(raw: Raw) -> Outcome:
    if raw.line == 3:
        raise RuntimeError("a bug")
    return validate_document(raw)


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_exception_while_handling_a_record_becomes_its_rejection(
    jobs: int, tmp_path: Path
) -> None:
    path = _jsonl(tmp_path, [VALID["cortex"]] * 100)
    with Batch(_explode_on_line_3, [str(path)], jobs=jobs) as batch:
        outcomes = {raw.line: outcome for raw, outcome in batch}
    assert batch.tally.records == 100
    assert batch.tally.rejected == 1
    assert outcomes[3].problems == (
        ("", "internal error while handling this record (RuntimeError: a bug)"),
    )


def _die_on_line_50(raw: Raw) -> Outcome:
    if raw.line == 50:
        os._exit(9)  # a worker killed mid-chunk (out of memory, say)
    return validate_document(raw)


def test_a_worker_that_dies_costs_only_the_records_it_held(tmp_path: Path) -> None:
    import multiprocessing

    before = set(multiprocessing.active_children())
    path = _jsonl(tmp_path, [VALID["agentrun"]] * 300)
    with Batch(_die_on_line_50, [str(path)], jobs=2) as batch:
        outcomes = list(batch)
    for child in set(multiprocessing.active_children()) - before:
        child.kill()  # (see the closing note: a pool a worker died in can leave one behind)
        child.join(5)
    assert len(outcomes) == 300
    rejected = [raw.line for raw, outcome in outcomes if not outcome.accepted]
    assert rejected == [50]  # the records in flight beside it ran again, each alone
    for raw, outcome in outcomes:
        if not outcome.accepted:
            assert "ended unexpectedly" in outcome.problems[0][1], raw.line


def test_jobs_are_capped_at_the_available_cpus(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, [VALID["cortex"]])
    with Batch(validate_document, [str(path)], jobs=200) as batch:
        assert batch.jobs == available_cpus()


def test_an_overlong_line_is_rejected_unread_and_reading_goes_on(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, [VALID["cortex"], "[" + "1," * 5000 + "1]", VALID["agentrun"]])
    with Batch(validate_document, [str(path)], max_record_size=4096) as batch:
        outcomes = [(raw.line, outcome) for raw, outcome in batch]
    assert [line for line, outcome in outcomes if outcome.accepted] == [1, 3]
    assert "maximum record size (4096 bytes" in outcomes[1][1].problems[0][1]


def test_a_line_of_exactly_the_maximum_size_is_read(tmp_path: Path) -> None:
    record = VALID["cortex"]
    path = tmp_path / "in.jsonl"
    path.write_bytes(record.encode() + b"\r\n" + record.encode())
    size = len(record.encode())
    with Batch(validate_document, [str(path)], max_record_size=size) as batch:
        assert all(outcome.accepted for _, outcome in batch)
    assert batch.tally.records == 2


def test_a_json_document_over_the_maximum_size_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(VALID["portable"])
    with Batch(validate_document, [str(path)], max_record_size=100) as batch:
        ((_, outcome),) = list(batch)
    assert "maximum record size" in outcome.problems[0][1]


def test_an_unreadable_input_is_counted_and_the_others_are_read(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, [VALID["cortex"]])
    said: list[str] = []
    with Batch(
        validate_document, [str(tmp_path / "nowhere.jsonl"), str(path)], on_unreadable=said.append
    ) as batch:
        assert len(list(batch)) == 1
    assert batch.tally.unreadable == said
    assert said == [f"{tmp_path / 'nowhere.jsonl'}: no such file"]


def test_reading_the_lines_keeps_their_numbers_after_an_overlong_one(tmp_path: Path) -> None:
    body: Any = "x" * 10_000
    path = _jsonl(tmp_path, [body, "", VALID["cortex"]])
    with Batch(validate_document, [str(path)], max_record_size=100) as batch:
        assert [raw.line for raw, _ in batch] == [1, 3]


def _rfc3339() -> st.SearchStrategy[str]:
    """Every spelling RFC 3339 allows: either case of T and Z, any number of fraction
    digits, -00:00, offsets of either sign."""
    digits = st.integers(min_value=1, max_value=12).flatmap(
        lambda n: st.text("0123456789", min_size=n, max_size=n)
    )
    offset = st.sampled_from(["Z", "z", "+00:00", "-00:00"]) | st.builds(
        lambda sign, h, m: f"{sign}{h:02d}:{m:02d}",
        st.sampled_from("+-"),
        st.integers(0, 23),
        st.integers(0, 59),
    )
    return st.builds(
        lambda d, t, h, mi, s, frac, off: f"{d.isoformat()}{t}{h:02d}:{mi:02d}:{s:02d}{frac}{off}",
        st.dates(min_value=date(1, 1, 2)),
        st.sampled_from("Tt"),
        st.integers(0, 23),
        st.integers(0, 59),
        st.integers(0, 59),
        st.none().map(lambda _: "") | digits.map(lambda x: "." + x),
        offset,
    )


@_SETTINGS
@given(written=_rfc3339(), to=st.sampled_from(["agentrun", "cortex"]))
def test_a_time_is_written_exactly_as_it_was_read_and_costs_no_loss(written: str, to: str) -> None:
    document = json.loads(VALID["cortex"])
    document["finished_at"] = written
    raw = Raw("in.json", 1, json.dumps(document).encode())
    outcome = convert_document(raw, to=to, strict=True, report=True)
    assert outcome.accepted, outcome.problems
    assert outcome.losses == 0
    assert outcome.output is not None
    key = "ended_at" if to == "agentrun" else "finished_at"
    assert json.loads(outcome.output)[key] == written


@_SETTINGS
@given(
    st.lists(
        st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
        | st.sampled_from(["a", "\\", "é", "😀", '"'])
    ).map("".join)
)
def test_a_string_is_refused_exactly_when_it_holds_a_lone_surrogate(text: str) -> None:
    from agentruns.io import _document

    raw = json.dumps({"k": text}).encode("ascii")  # surrogates escaped, pairs included
    decoded = json.loads(raw)["k"]
    try:
        decoded.encode("utf-8")
        expected_error = False
    except UnicodeEncodeError:
        expected_error = True
    assert (_document("in.json", 1, raw).error is not None) == expected_error


def test_every_command_writes_rejects_lines_of_one_shape(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from agentruns.cli import main

    bad = dict(json.loads(VALID["cortex"]), status="dispatching")
    inputs = tmp_path / "in.jsonl"
    inputs.write_text("\n".join([VALID["cortex"], json.dumps(bad), "{cut"]) + "\n")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "system", "subtype": "init"}) + "\n")
    runs = {
        "convert": ["convert", "--to", "agentrun", str(inputs), "-o", str(tmp_path / "o.jsonl")],
        "export": ["export", str(inputs), "-o", str(tmp_path / "tables")],
        # portable asks for an eval's own values, which no transcript holds: rejected
        "import": ["import", str(transcript), "--to", "portable", "-o", str(tmp_path / "i.json")],
    }
    for command, args in runs.items():
        rejects = tmp_path / f"{command}.rejects.jsonl"
        CliRunner().invoke(main, [*args, "--rejects", str(rejects)])
        entries = [json.loads(text) for text in rejects.read_text().splitlines()]
        assert entries, command
        for entry in entries:
            assert list(entry) == ["file", "line", "error", "problems", "record"], command
            assert all(list(p) == ["pointer", "message"] for p in entry["problems"]), command


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_batch_closed_part_way_refuses_to_go_on_rather_than_skip(
    tmp_path: Path, jobs: int
) -> None:
    path = _jsonl(tmp_path, [VALID["cortex"]] * 300)
    batch = Batch(validate_document, [str(path)], jobs=jobs)
    read = iter(batch)
    next(read)
    batch.close()
    with pytest.raises(ValueError, match="this Batch is closed"):
        next(read)
    with pytest.raises(ValueError, match="this Batch is closed"):
        list(batch)
    assert batch.tally.records == 1


def test_a_batch_given_one_path_as_a_string_is_refused() -> None:
    with pytest.raises(TypeError, match=r"Batch\(work, \['one/path.jsonl'\]\)"):
        Batch(validate_document, "one/path.jsonl")
