"""A session file's lines are parsed by pydantic-core, not by the strict parser of run records;
the strict parser is the oracle: whatever line it reads as an object, the fast path reads as
the same object, and a line either refuses is reported with the strict parser's message."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agentruns.io import Raw, parse
from agentruns.transcripts._stream import events
from agentruns.transcripts._summary import Summary
from agentruns_generated._json import JsonValue
from tests._settings import PROPERTY_SETTINGS

_TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
_VALUES: st.SearchStrategy[JsonValue] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**80), 2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)
_OBJECTS = st.dictionaries(_TEXT, _VALUES, max_size=5).map(
    lambda value: json.dumps(value, ensure_ascii=False)
)
_LINES = st.one_of(
    _OBJECTS,
    _VALUES.map(lambda value: json.dumps(value, ensure_ascii=True)),
    st.sampled_from(
        [
            '{"a": NaN}',
            '{"a": 1e400}',
            '{"a": "\\ud800"}',
            '{"a": 1, "a": 2}',
            '{"cut": "off',
            "[1, 2]",
            "not json",
            '{"a": 1} trailing',
        ]
    ),
)


def _read(path: Path) -> tuple[list[tuple[int, dict[str, JsonValue]]], list[tuple[int, str]]]:
    summary = Summary("test", str(path))
    found = list(events(str(path), summary))
    return found, [(problem.line, problem.message) for problem in summary.problems]


@PROPERTY_SETTINGS
@given(first=_OBJECTS, lines=st.lists(_LINES, min_size=1, max_size=8))
def test_every_line_reads_as_the_strict_parser_reads_it(
    tmp_path: Path, first: str, lines: list[str]
) -> None:
    lines = [first, *lines]  # (a file whose first line is no JSON is read as one document)
    path = tmp_path / "session.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    found, problems = _read(path)
    read = dict(found)
    said = dict(problems)
    for number, line in enumerate(lines, start=1):
        record = parse(Raw(str(path), number, line.encode()))
        if record.error is None and isinstance(record.value, dict):
            assert read[number] == record.value
            assert number not in said
        elif number in read:  # the strict parser refuses what pydantic-core reads
            assert line in ('{"a": 1e400}', '{"a": 1, "a": 2}'), line
        elif record.error is not None:
            assert said[number] == f"not a JSON event, skipped: {record.error}"
        else:
            assert said[number] == "not a JSON object, skipped"
