"""Standard input is read as what it holds: JSON Lines when its first line that is not blank
is a JSON document by itself, else one JSON document, so a pipe between commands works
(``agentruns import DIR | agentruns stats -``) without ``--jsonl``.

The oracle is the file reader: the same bytes in a ``.jsonl`` file (or a ``.json`` file, for
one document over several lines) give the same documents, line numbers and errors."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentruns.io import Raw, read_raw
from tests._settings import PROPERTY_SETTINGS

documents = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)


def _from_stdin(data: bytes, monkeypatch: pytest.MonkeyPatch) -> list[Raw]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    return [Raw("file", raw.line, raw.raw, raw.error) for raw in read_raw("-")]


def _from_file(data: bytes, path: Path) -> list[Raw]:
    path.write_bytes(data)
    return [Raw("file", raw.line, raw.raw, raw.error) for raw in read_raw(str(path))]


@PROPERTY_SETTINGS
@given(
    records=st.lists(documents, min_size=1, max_size=6),
    blank_first=st.booleans(),
    bom=st.booleans(),
    last_newline=st.booleans(),
    garbage=st.sampled_from([b"", b"{not json\n", b"  \n", b"[1,\n"]),
)
def test_lines_on_standard_input_are_read_as_the_jsonl_file_of_the_same_bytes(
    tmp_path_factory: pytest.TempPathFactory,
    records: list[object],
    blank_first: bool,
    bom: bool,
    last_newline: bool,
    garbage: bytes,
) -> None:
    lines = [json.dumps(record).encode() for record in records]
    data = (b"\xef\xbb\xbf" if bom else b"") + (b"\n" if blank_first else b"")
    data += b"\n".join(lines) + b"\n" + garbage
    if not last_newline:
        data = data.rstrip(b"\n")
    with pytest.MonkeyPatch.context() as patch:
        got = _from_stdin(data, patch)
    path = tmp_path_factory.mktemp("stdin") / "same.jsonl"
    assert got == _from_file(data, path)


@PROPERTY_SETTINGS
@given(record=documents.filter(lambda d: isinstance(d, dict | list) and bool(d)))
def test_one_document_over_several_lines_is_read_as_the_json_file_of_the_same_bytes(
    tmp_path_factory: pytest.TempPathFactory, record: object
) -> None:
    data = json.dumps(record, indent=2).encode()
    with pytest.MonkeyPatch.context() as patch:
        got = _from_stdin(data, patch)
    path = tmp_path_factory.mktemp("stdin") / "same.json"
    assert got == _from_file(data, path)


def test_a_record_on_one_line_is_the_same_record_either_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _from_stdin(b'{"a": 1}', monkeypatch) == [Raw("file", 1, b'{"a": 1}')]


def test_a_line_longer_than_the_record_limit_is_refused_unread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"a": "' + b"x" * 100)))
    (raw,) = list(read_raw("-", max_size=50))
    assert raw.error is not None
    assert "larger than the maximum record size" in raw.error


def test_imported_runs_piped_into_stats_are_counted(tmp_path: Path) -> None:
    import subprocess

    folder = Path(__file__).parent / "fixtures/upstream/agent-logs/claude-session"
    env = {"AGENTRUNS_CACHE_DIR": str(tmp_path / "cache"), "PATH": str(Path(sys.executable).parent)}
    imported = subprocess.run(
        [sys.executable, "-m", "agentruns", "import", str(folder), "--to", "cortex", "-q"],
        capture_output=True,
        check=False,  # exit 1: two sessions have calls without results (said, and written)
        env=env,
    )
    assert imported.stdout.count(b"\n") == 4
    stats = subprocess.run(
        [sys.executable, "-m", "agentruns", "stats", "--output-format", "json", "-"],
        input=imported.stdout,
        capture_output=True,
        check=False,
        env=env,
    )
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["runs"] == 4
