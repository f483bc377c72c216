"""A file named ``.json`` that holds JSON Lines (``jq -c ... > runs.json``) is read as JSON
Lines. Read as one document, its second record was "extra data" and the file's every record
was refused with it. Whatever else a ``.json`` file holds is one document, as before."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from agentruns.cli import main
from agentruns.io import read_raw
from agentruns_generated._json import JsonValue
from tests._settings import PROPERTY_SETTINGS

_TEXT = st.text(st.characters(codec="utf-8"), max_size=10)
_VALUES: st.SearchStrategy[JsonValue] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)
_BLANK = st.sampled_from(["", " ", "\t", "\r"])
FIXTURES = Path(__file__).parent / "fixtures"


def _documents(path: Path) -> list[tuple[int, bytes, str | None]]:
    return [(raw.line, raw.raw, raw.error) for raw in read_raw(str(path))]


@PROPERTY_SETTINGS
@given(
    values=st.lists(_VALUES, min_size=2, max_size=6),
    blanks=st.lists(st.tuples(st.integers(0, 8), _BLANK), max_size=3),
    bom=st.booleans(),
)
def test_json_lines_in_a_json_file_read_as_they_read_in_a_jsonl_file(
    tmp_path_factory: pytest.TempPathFactory,
    values: list[JsonValue],
    blanks: list[tuple[int, str]],
    bom: bool,
) -> None:
    lines = [json.dumps(value, ensure_ascii=False) for value in values]
    for position, blank in blanks:
        lines.insert(min(position, len(lines)), blank)
    text = ("\ufeff" if bom else "") + "\n".join(lines) + "\n"
    folder = tmp_path_factory.mktemp("lines")
    named_json, named_jsonl = folder / "runs.json", folder / "runs.jsonl"
    named_json.write_text(text, encoding="utf-8")
    named_jsonl.write_text(text, encoding="utf-8")
    assert _documents(named_json) == _documents(named_jsonl)
    assert len(_documents(named_json)) == len(values)


@PROPERTY_SETTINGS
@given(
    document=st.dictionaries(_TEXT, _VALUES, min_size=1, max_size=5)
    | st.lists(_VALUES, min_size=1, max_size=5),
    indent=st.sampled_from([None, 0, 1, 2, "\t"]),
)
def test_a_json_document_in_a_json_file_is_one_document(
    tmp_path_factory: pytest.TempPathFactory, document: JsonValue, indent: int | str | None
) -> None:
    text = json.dumps(document, indent=indent) + "\n"
    path = tmp_path_factory.mktemp("document") / "run.json"
    path.write_text(text, encoding="utf-8")
    assert _documents(path) == [(1, text.encode(), None)]


def test_an_empty_json_file_is_still_an_empty_document(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_bytes(b"\n\n")
    (found,) = read_raw(str(path))
    assert found.line == 1


def test_a_broken_first_line_keeps_a_json_file_one_document(tmp_path: Path) -> None:
    """Without a whole first line nothing says the file is lines: one document, refused at
    its first error as before."""
    path = tmp_path / "runs.json"
    path.write_text('{"a": \n{"b": 1}\n')
    assert len(_documents(path)) == 1


def test_json_lines_from_a_pipe_named_as_no_jsonl_are_read_once(tmp_path: Path) -> None:
    """A pipe (``<(jq -c ...)``) is read once: the lines read to decide are not lost."""
    reading, writing = os.pipe()
    lines = b'{"a": 1}\n{"b": 2}\n{"c": 3}\n'

    def feed() -> None:
        with os.fdopen(writing, "wb") as stream:
            stream.write(lines)

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        found = [(raw.line, raw.raw) for raw in read_raw(f"/dev/fd/{reading}")]
    finally:
        feeder.join()
        os.close(reading)
    assert found == [(1, b'{"a": 1}'), (2, b'{"b": 2}'), (3, b'{"c": 3}')]


def test_convert_writes_each_record_of_a_json_file_holding_lines(tmp_path: Path) -> None:
    records = [
        json.dumps(json.loads((FIXTURES / f"{name}.min.json").read_text()))
        for name in ("portable", "cortex")
    ]
    path = tmp_path / "runs.json"
    path.write_text("\n".join(records) + "\n")
    validated = CliRunner().invoke(main, ["validate", str(path)])
    assert validated.exit_code == 0, validated.output
    converted = CliRunner().invoke(main, ["convert", "-q", "--to", "agentrun", str(path)])
    assert converted.exit_code == 0, converted.output
    written = [line for line in converted.stdout.splitlines() if line.startswith("{")]
    assert len(written) == 2


@pytest.mark.parametrize("named", ["runs.json", "-"])
def test_records_far_apart_after_blank_lines_are_read_at_their_lines(
    named: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lines read to decide the layout (here, 300,000 blank ones before the second
    record) are all read again, in order, by the reader."""
    import io
    import sys

    data = b'{"a": 1}\n' + b"\n" * 300_000 + b'{"b": 2}\n'
    if named == "-":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        path = "-"
    else:
        path = str(tmp_path / named)
        Path(path).write_bytes(data)
    found = [(raw.line, raw.raw) for raw in read_raw(path)]
    assert found == [(1, b'{"a": 1}'), (300_002, b'{"b": 2}')]
