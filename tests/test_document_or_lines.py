"""Whether a session file is one JSON document or JSON Lines is read from its first bytes. A
broken first line of JSON Lines (a hand edit, a copy cut short) once made the file a broken
document: every good line after it was lost with the one bad one. A document printed over
several lines stays a document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentruns.transcripts import load
from agentruns.transcripts._stream import PEEK, opens_a_document
from agentruns_generated._json import JsonValue
from tests._settings import PROPERTY_SETTINGS

_TEXT = st.text(st.characters(codec="utf-8"), max_size=10)
_VALUES: st.SearchStrategy[JsonValue] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)
_OBJECTS = st.dictionaries(_TEXT, _VALUES, min_size=1, max_size=5)
_INDENTS = st.sampled_from([0, 1, 2, 4, "\t", " "])


@PROPERTY_SETTINGS
@given(document=_OBJECTS, indent=_INDENTS, ascii_only=st.booleans())
def test_an_object_printed_over_several_lines_is_a_document(
    document: dict[str, JsonValue], indent: int | str, ascii_only: bool
) -> None:
    text = json.dumps(document, indent=indent, ensure_ascii=ascii_only).encode()
    assert opens_a_document(text[:PEEK])


@PROPERTY_SETTINGS
@given(
    lines=st.lists(_OBJECTS, min_size=2, max_size=6),
    cut=st.integers(min_value=1),
    ascii_only=st.booleans(),
)
def test_json_lines_whose_first_line_is_cut_short_are_lines(
    lines: list[dict[str, JsonValue]], cut: int, ascii_only: bool
) -> None:
    written = [json.dumps(line, ensure_ascii=ascii_only).encode() for line in lines]
    first = written[0][: cut % len(written[0])]  # (never the whole line)
    text = b"\n".join([first, *written[1:]]) + b"\n"
    assert not opens_a_document(text[:PEEK])


def test_json_lines_that_open_with_a_whole_line_are_lines() -> None:
    assert not opens_a_document(b'{"type": "system"}\n{"type": "assistant"}\n')


def test_an_array_is_a_document() -> None:
    assert opens_a_document(b'[{"type": "system"},\n{"type": "assistant"}]\n')


def test_a_broken_first_line_loses_that_line_alone(tmp_path: Path) -> None:
    """A Claude Code print-mode stream whose opening event is cut short: its response and its
    result are read, and the broken line is a problem at its line."""
    path = tmp_path / "stream.ndjson"
    response = {
        "type": "assistant",
        "message": {
            "id": "msg_1",
            "model": "claude-opus-4-5",
            "content": [{"type": "text", "text": "4"}],
            "usage": {"input_tokens": 10, "output_tokens": 5},
        },
        "session_id": "s-1",
    }
    result = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "4",
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    lines = [
        '{"type":"system","subtype":"init","session_id":"s-',
        *map(json.dumps, [response, result]),
    ]
    path.write_text("\n".join(lines) + "\n")
    transcript = load(str(path))
    assert transcript.run.status == "completed"
    assert transcript.run.output_tokens == 5
    assert [problem.line for problem in transcript.problems] == [1]


@pytest.mark.parametrize("first_broken", [False, True])
@pytest.mark.parametrize("depth", [1_000, 20_000])
def test_a_line_nested_past_the_parser_is_one_bad_line(first_broken: bool, depth: int) -> None:
    """A line nested deeper than Python's parser goes (a recursion error, not a value error)
    costs that line, never the decision for the file (which once failed on it whole)."""
    deep = '{"a":' + "[" * depth + "]" * depth + "}"
    lines = ['{"cut', deep] if first_broken else [deep]
    text = "\n".join([*lines, '{"type": "x"}', ""]).encode()
    assert not opens_a_document(text[:PEEK])
