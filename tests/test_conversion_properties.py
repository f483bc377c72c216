"""Property tests for every conversion direction between the built-in formats, on instances
valid per the schema oracles."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from pydantic import BaseModel

from agentruns import convert, from_canonical, to_canonical
from agentruns.formats import BUILT_IN
from tests._settings import PROPERTY_SETTINGS as _SETTINGS
from tests.fidelity.atif import written_form
from tests.fidelity.oracles import subjects

MODELS: dict[str, type[BaseModel]] = {fmt.name: fmt.model for fmt in BUILT_IN}
DIRECTIONS = [(s, t) for s in MODELS for t in MODELS if s != t]


# A format whose reader takes two spellings as one value: its records as it writes them
WRITTEN_FORM: dict[str, Callable[[Any], Any]] = {"atif": written_form}


def records(name: str) -> st.SearchStrategy[BaseModel]:
    subject = subjects()[name]
    valid = (
        from_schema(subject.generation_schema)
        .map(subject.prepare)
        .map(WRITTEN_FORM.get(name, lambda doc: doc))
        .filter(lambda doc: all(oracle(doc) for oracle in subject.oracles.values()))
    )
    return valid.map(lambda doc: MODELS[name].model_validate_json(json.dumps(doc)))


def as_json(record: BaseModel) -> Any:
    return json.loads(record.model_dump_json())


def _at(document: Any, pointer: str) -> tuple[bool, Any]:
    node = document
    for token in [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False, None
    return True, node


def differences(a: Any, b: Any, pointer: str = "") -> list[str]:
    """JSON pointers where two documents differ (the deepest that still make sense)."""
    if isinstance(a, dict) and isinstance(b, dict):
        found: list[str] = []
        for key in sorted(set(a) | set(b)):
            where = f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}"
            if key not in a or key not in b:
                found.append(where)
            else:
                found.extend(differences(a[key], b[key], where))
        return found
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in differences(x, y, f"{pointer}/{i}")
        ]
    return [] if a == b and type(a) is type(b) else [pointer]


def without_carry(document: Any, original: Any) -> Any:
    """The document as its own format reads it: data carried for other formats removed.

    A lossy trip can leave the intermediate format's derived values carried in the returned
    document (that is what keeps *that* format's round trip exact); they are not source data.
    """
    document = dict(document)
    document.pop("x-agentruns-carry", None)
    extra = document.get("extra")
    if isinstance(extra, dict) and "x-agentruns-carry" in extra:  # ATIF's root extra
        # as ATIF's reader reads it: an extra that only carries is none of the run's own
        extra = {k: v for k, v in extra.items() if k != "x-agentruns-carry"}
        if extra:
            document["extra"] = extra
        else:
            del document["extra"]
    events = document.get("events")
    if isinstance(events, list):
        carry = [e for e in events if e.get("type") == "x-agentruns-carry"]
        kept = [e for e in events if e.get("type") != "x-agentruns-carry"]
        if carry and carry[0].get("events_absent") and not kept:
            del document["events"]
        else:
            document["events"] = kept
    return document


def covered(pointer: str, by: set[str]) -> bool:
    """Inside a reported pointer, or a container created to hold one (``/result`` for a lost
    absent ``/result/summary``)."""
    return any(
        p == "" or pointer == p or pointer.startswith(p + "/") or p.startswith(pointer + "/")
        for p in by
    )


@pytest.mark.parametrize("name", sorted(MODELS))
def test_reading_and_writing_the_same_format_is_the_identity(name: str) -> None:
    @_SETTINGS
    @given(records(name))
    def check(record: BaseModel) -> None:
        written = from_canonical(to_canonical(record), type(record))
        assert written.record == record
        assert written.derived == ()

    check()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_converting_to_the_same_format_is_the_identity_even_in_strict_mode(name: str) -> None:
    @_SETTINGS
    @given(records(name))
    def check(record: BaseModel) -> None:
        converted = convert(record, type(record), strict=True)
        assert converted.target is record
        assert converted.losses == ()

    check()


@pytest.mark.parametrize(("source", "target"), DIRECTIONS)
def test_conversion_output_is_valid_against_the_target_schema(source: str, target: str) -> None:
    oracles = subjects()[target].oracles

    @_SETTINGS
    @given(records(source))
    def check(record: BaseModel) -> None:
        converted = convert(record, MODELS[target])
        document = as_json(converted.target)
        for name, oracle in oracles.items():
            if name == "json-structure SDK" and isinstance(document.get("trace_url"), str):
                continue  # the SDK rejects relative URIs (see the oracle exception table)
            assert oracle(document), f"{name} rejects {json.dumps(document)[:400]}"

    check()


@pytest.mark.parametrize(("source", "target"), DIRECTIONS)
def test_round_trip_returns_the_source_minus_exactly_the_reported_losses(
    source: str, target: str
) -> None:
    @_SETTINGS
    @given(records(source))
    def check(record: BaseModel) -> None:
        there = convert(record, MODELS[target])
        back = convert(there.target, MODELS[source])
        original = as_json(record)
        returned = without_carry(as_json(back.target), original)
        lost = {loss.pointer for loss in there.losses}
        rederived = {d.pointer for d in back.derived}
        if not lost:
            assert back.target == record
            return
        for pointer in differences(original, returned):
            assert covered(pointer, lost | rederived), f"unreported loss at {pointer}"
        for pointer in lost:
            present, value = _at(original, pointer)
            still, now = _at(returned, pointer)
            if not present:  # the source said "absent", which the target cannot say
                assert still, f"reported loss of absence at {pointer} did not happen"
                continue
            assert (not still) or now != value or pointer == "", (
                f"reported loss {pointer} did not happen"
            )

    check()
