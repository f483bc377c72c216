"""Per-record work on every CPU, in input order, in bounded memory.

Validating or converting a record is pure CPU work on its own bytes, so records are sent in
chunks to worker processes and the results come back in the order the records were read.
At most ``2 * jobs`` chunks are in flight: memory stays constant however long the input is.
A small input (one chunk) is done in this process: starting workers would cost more than it
saves.
"""

from __future__ import annotations

import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, islice
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

T = TypeVar("T")
R = TypeVar("R")

CHUNK = 32
"""Records per chunk: large enough that sending a chunk costs little next to its work."""


def available_cpus() -> int:
    """CPUs this process may run on (a container or ``taskset`` may allow fewer than exist)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def ordered_map(
    function: Callable[[T], R], items: Iterable[T], jobs: int, chunk: int = CHUNK
) -> Iterator[tuple[T, R]]:
    """``(item, function(item))`` for every item, in order; ``function`` runs in ``jobs``
    worker processes (it must be picklable: a module-level function or a ``partial`` of one).

    The workers start before this returns, so call it before starting any thread (a progress
    display): forking a process that has other threads can leave a lock held in the child.
    """
    iterator = iter(items)
    head = list(islice(iterator, chunk + 1))
    if jobs <= 1 or len(head) <= chunk:  # all of it is one chunk: workers would only wait
        return _here(function, head, iterator)
    first, iterator = head[:chunk], chain(head[chunk:], iterator)
    # imported here: 14 ms that a one-process run does not need
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    # fork: workers start with everything this process has imported; elsewhere the
    # platform's default start method is used.
    context = get_context("fork" if sys.platform == "linux" else None)
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_ignore_interrupts)
    pending = deque([(first, pool.submit(_apply, function, first))])  # starts the workers
    return _in_workers(pool, pending, function, iterator, jobs, chunk)


def _here(function: Callable[[T], R], first: list[T], rest: Iterator[T]) -> Iterator[tuple[T, R]]:
    yield from ((item, function(item)) for item in first)
    yield from ((item, function(item)) for item in rest)


def _in_workers(
    pool: ProcessPoolExecutor,
    pending: deque[tuple[list[T], Future[list[R]]]],
    function: Callable[[T], R],
    rest: Iterator[T],
    jobs: int,
    chunk: int,
) -> Iterator[tuple[T, R]]:
    try:
        while batch := list(islice(rest, chunk)):
            pending.append((batch, pool.submit(_apply, function, batch)))
            if len(pending) >= 2 * jobs:
                yield from _done(pending.popleft())
        while pending:
            yield from _done(pending.popleft())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _done(entry: tuple[list[T], Future[list[R]]]) -> Iterator[tuple[T, R]]:
    batch, future = entry
    return zip(batch, future.result(), strict=True)


def _apply(function: Callable[[T], R], batch: list[T]) -> list[R]:
    return [function(item) for item in batch]


def _ignore_interrupts() -> None:
    """Ctrl-C reaches every process of the terminal's group: the main process handles it
    (and stops the workers); a worker printing its own traceback would only be noise."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
