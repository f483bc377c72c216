"""``agentruns._read.up_to``: what ``read(limit + 1)`` gives, without asking for ``limit + 1``
bytes at once (a bound of 64 MiB made every small file cost a 64 MiB allocation)."""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentruns._read import up_to
from tests._settings import PROPERTY_SETTINGS


@PROPERTY_SETTINGS
@given(size=st.integers(0, 3000), limit=st.integers(0, 3000), start=st.integers(0, 50))
def test_a_regular_file_gives_what_one_read_of_the_limit_gives(
    size: int, limit: int, start: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("read") / "file"
    data = os.urandom(size)
    path.write_bytes(data)
    with path.open("rb") as stream, path.open("rb", buffering=0) as plain:
        stream.seek(min(start, size))
        plain.seek(min(start, size))
        expected = data[min(start, size) :][: limit + 1]
        assert up_to(stream, limit) == expected
        assert up_to(plain, limit) == expected


@PROPERTY_SETTINGS
@given(size=st.integers(0, 5000), limit=st.integers(0, 5000))
def test_a_stream_without_a_size_gives_what_one_read_of_the_limit_gives(
    size: int, limit: int
) -> None:
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    assert up_to(io.BytesIO(data), limit) == data[: limit + 1]


def test_a_pipe_is_read_in_pieces_up_to_one_byte_past_the_limit(tmp_path: Path) -> None:
    reader, writer = os.pipe()
    data = b"x" * (3 << 20)

    def feed() -> None:
        with open(writer, "wb") as out:
            out.write(data)

    feeding = threading.Thread(target=feed)
    feeding.start()
    with open(reader, "rb") as stream:
        assert up_to(stream, 2 << 20) == data[: (2 << 20) + 1]
        stream.read()  # the writer is not left blocked
    feeding.join()


def test_a_file_that_grew_after_its_size_was_read_is_read_up_to_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentruns import _read

    path = tmp_path / "growing"
    path.write_bytes(b"a" * 100)
    monkeypatch.setattr(_read, "_size", lambda stream: 10)  # the size seen before it grew
    with path.open("rb") as stream:
        assert up_to(stream, 50) == b"a" * 51
    with path.open("rb") as stream:
        assert up_to(stream, 500) == b"a" * 100
