"""A batch sends its workers where each record of a plain file is, not the record: the
places (``read_raw(..., placed=True)``) are the documents the streaming reader gives (its
oracle), read where they are handled, and a file replaced meanwhile is said, not misread."""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentruns import _places
from agentruns.batch import Batch, validate_document
from agentruns.errors import InputError
from agentruns.io import Raw, parse, read_raw
from tests._settings import PROPERTY_SETTINGS

pieces = st.sampled_from(
    [
        b'{"a": 1}',
        b'{"b": "x y"}',
        b"",
        b" ",
        b"\t \x0b\x0c",
        b"\r",
        b"\r\r",
        b"\xef\xbb\xbf",
        b"not json",
        b'{"long": "' + b"z" * 40 + b'"}',
        b" {}",
        b"\xff\xfe",
    ]
)


@st.composite
def files(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(st.lists(pieces, max_size=3).map(b"".join), max_size=12))
    ending = draw(st.sampled_from([b"\n", b"\r\n"]))
    text = ending.join(lines)
    if draw(st.booleans()):
        text += ending
    return text


def _seen(raws: list[Raw]) -> list[tuple[str, int, bytes, str | None]]:
    return [(raw.source, raw.line, raw.raw, raw.error) for raw in raws]


@PROPERTY_SETTINGS
@given(
    text=files(),
    max_size=st.integers(1, 60),
    block=st.sampled_from([1, 2, 7, 64, 1 << 20]),
    small=st.sampled_from([0, 1, 16, 8 << 10]),
)
def test_the_places_of_a_file_are_the_documents_the_stream_reader_gives(
    text: bytes, max_size: int, block: int, small: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("placed") / "runs.jsonl"
    path.write_bytes(text)
    streamed = list(read_raw(str(path), max_size=max_size))
    # lines across the blocks the file is read in; lines as places and as bytes
    with patch.object(_places, "_BLOCK", block), patch.object(_places, "SMALL", small):
        placed = list(read_raw(str(path), max_size=max_size, placed=True))
    assert _seen(placed) == _seen(streamed)
    assert [raw.size for raw in placed] == [len(raw.raw) for raw in streamed]
    assert placed == streamed


def test_a_placed_record_travels_as_its_place_and_is_read_where_it_is_handled(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.jsonl"
    record = b'{"run": "' + b"x" * 10_000 + b'"}'
    path.write_bytes(record + b"\n")
    (raw,) = read_raw(str(path), placed=True)
    sent = pickle.dumps(raw)
    assert len(sent) < 500  # the place, not the 10 KB
    assert pickle.loads(sent).raw == record
    assert raw.size == len(record)


def _scanned_then_replaced(path: Path) -> tuple[Raw, Raw]:
    """The places of a file of two records, every record as its place; then the file
    removed and another one made under its name."""
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n')
    with patch.object(_places, "SMALL", 0):
        first, second = read_raw(str(path), placed=True)
    path.unlink()
    path.write_bytes(b'{"c": 3}\n{"d": 4}\n')
    return first, second


def test_a_placed_record_read_here_comes_from_the_file_that_was_scanned(
    tmp_path: Path,
) -> None:
    first, second = _scanned_then_replaced(tmp_path / "runs.jsonl")
    assert (first.raw, second.raw) == (b'{"a": 1}', b'{"b": 2}')  # as a stream reader reads


def test_a_worker_reads_the_file_that_was_scanned_though_its_name_was_given_to_another(
    tmp_path: Path,
) -> None:
    first, second = _scanned_then_replaced(tmp_path / "runs.jsonl")
    in_the_worker = pickle.loads(pickle.dumps(second))  # (through the scanner's descriptor)
    assert in_the_worker.raw == b'{"b": 2}'
    assert pickle.loads(pickle.dumps(first)).raw == b'{"a": 1}'


@patch.object(_places, "SMALL", 0)  # every record as its place
def test_a_worker_reads_the_file_that_was_scanned_though_its_name_was_removed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    (raw,) = read_raw(str(path), placed=True)
    path.unlink()
    assert pickle.loads(pickle.dumps(raw)).raw == b'{"a": 1}'


def test_a_replaced_file_the_scanner_no_longer_holds_has_its_records_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.jsonl"
    first, second = _scanned_then_replaced(path)
    # as a worker sees a place whose scanner is gone (or a system without /proc)
    place = second._at
    assert place is not None
    orphan = Raw.placed(str(path), 2, place._replace(held=-1))
    record = parse(pickle.loads(pickle.dumps(orphan)))
    assert record.error == "the file was replaced while it was read"
    assert record.value is None
    with pytest.raises(InputError, match="replaced while it was read"):
        orphan.raw  # noqa: B018 -- what a rejects line asks
    assert first.raw == b'{"a": 1}'  # (the scanner's own reads are from the scanned file)


@patch.object(_places, "SMALL", 0)  # every record as its place
def test_a_file_appended_to_while_it_is_read_keeps_its_records(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    (raw,) = read_raw(str(path), placed=True)
    with path.open("ab") as more:
        more.write(b'{"b": 2}\n')
    assert pickle.loads(pickle.dumps(raw)).raw == b'{"a": 1}'
    assert raw.raw == b'{"a": 1}'


@patch.object(_places, "SMALL", 0)  # every record as its place
def test_a_batch_of_placed_records_gives_what_a_batch_of_their_bytes_gives(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.jsonl"
    lines = [b'{"run_id": "r%d"}' % n if n % 7 else b"{oops" for n in range(300)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    with Batch(validate_document, [str(path)], jobs=2) as batch:
        placed = [(raw.line, outcome) for raw, outcome in batch]
    streamed = [(raw.line, validate_document(raw)) for raw in read_raw(str(path), placed=False)]
    assert placed == streamed
    assert len(placed) == 300


def test_a_short_record_travels_as_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    short = b'{"run": "' + b"s" * (_places.SMALL // 2) + b'"}'
    long = b'{"run": "' + b"x" * _places.SMALL + b'"}'
    path.write_bytes(short + b"\n" + long + b"\n")
    first, second = read_raw(str(path), placed=True)
    assert len(pickle.dumps(first)) > len(short)  # its bytes go with it
    assert len(pickle.dumps(second)) < 500  # its place
    assert pickle.loads(pickle.dumps(first)).raw == short
    assert pickle.loads(pickle.dumps(second)).raw == long


def test_a_fifo_is_read_as_a_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "runs.jsonl"
    os.mkfifo(fifo)
    pid = os.fork()
    if pid == 0:  # the writer
        with open(fifo, "wb") as out:
            out.write(b'{"a": 1}\n{"b": 2}\n')
        os._exit(0)
    raws = list(read_raw(str(fifo), placed=True))
    os.waitpid(pid, 0)
    assert [raw.raw for raw in raws] == [b'{"a": 1}', b'{"b": 2}']


@pytest.mark.parametrize("cut_at", [0, 5, 9, 13])
def test_a_file_cut_after_it_was_scanned_refuses_the_records_it_lost_and_keeps_the_rest(
    tmp_path: Path, cut_at: int
) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n')
    with patch.object(_places, "SMALL", 0):
        placed = list(read_raw(str(path), placed=True))
    os.truncate(path, cut_at)
    for raw in (*placed, *(pickle.loads(pickle.dumps(raw)) for raw in placed)):
        record = parse(raw)
        whole = raw.size + (raw.line - 1) * 9 <= cut_at  # each line: 8 bytes and a newline
        if whole:
            assert record.error is None
        else:
            assert record.error == "the file was cut while it was read"
            assert record.value is None
