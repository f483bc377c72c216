"""Workers start when there is more than one chunk of work, a chunk closing at ``CHUNK``
items or at ``CHUNK_BYTES`` (by the items' ``size``): a few large items are worth two
workers, a handful of small ones are done here, and a head of large items is not held."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from agentruns._workers import CHUNK, CHUNK_BYTES, OrderedMap


def _pid(item: int) -> int:
    return os.getpid()


def _sized(item: int) -> int:
    return item


def _where(items: list[int], *, sized: bool) -> set[int]:
    with OrderedMap(_pid, items, 2, size=_sized if sized else None) as mapped:
        return {pid for _, pid in mapped}


@pytest.mark.parametrize(
    ("items", "sized", "here"),
    [
        ([1] * CHUNK, True, True),  # one chunk of small items
        ([1] * (CHUNK + 1), True, False),  # one more than a chunk
        ([CHUNK_BYTES // 2] * 2, True, True),  # a chunk closed by its bytes, nothing after
        ([CHUNK_BYTES // 2] * 3, True, False),  # and one item after it
        ([CHUNK_BYTES] * 2, True, False),  # each item a chunk of its own
        ([CHUNK_BYTES] * 2, False, True),  # unsized: by count alone
    ],
)
def test_workers_start_when_there_is_more_than_a_chunk(
    items: list[int], sized: bool, here: bool
) -> None:
    pids = _where(items, sized=sized)
    assert (pids == {os.getpid()}) is here


def test_the_head_of_large_items_is_a_chunk_and_one_more() -> None:
    seen: list[int] = []

    def items() -> Iterator[int]:
        for n in range(1000):
            seen.append(n)
            yield CHUNK_BYTES // 4

    mapped = OrderedMap(_pid, items(), 2, size=_sized)
    try:
        assert len(seen) == 5  # four make a chunk; the fifth says there is more
    finally:
        mapped.close()
