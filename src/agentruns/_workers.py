"""Per-record work on every CPU, in input order, in bounded memory, with no process left behind.

Validating or converting a record is pure CPU work on its own bytes, so records are sent in
chunks to worker processes and the results come back in the order the records were read.
At most ``2 * jobs`` chunks are in flight, and a chunk holds at most ``CHUNK`` items or
``CHUNK_BYTES`` of them: memory stays bounded however long the input is. A small input (one
chunk) is done in this process: starting workers would cost more than it saves.

Workers live only as long as this process: they ignore the signals that stop a run (this
process handles them and ends the workers), they are killed by the kernel when this process
dies (``PR_SET_PDEATHSIG`` on Linux; elsewhere a thread notices the parent is gone), and
``close`` kills them at once. A worker that dies mid-chunk (out of memory, killed) costs only
the item that killed it: every chunk in flight fails with the pool, so their items run again,
each alone in a worker of its own (``one_by_one``), the one that kills its worker again gets
``on_failure``'s result, and new workers take the rest of the input.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, islice
from types import TracebackType
from typing import TYPE_CHECKING, Generic, TypeVar

from agentruns._depth import make_room

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

T = TypeVar("T")
R = TypeVar("R")

CHUNK = 256
"""Items per chunk: large enough that sending a chunk costs little next to its work (with 32,
two workers validated 100,000 records of 200 bytes slower than one process: the chunks'
round trips were the work); a chunk of larger items closes earlier (``CHUNK_BYTES``)."""
CHUNK_BYTES = 1 << 20
"""A chunk closes early at this many bytes (by ``size``), so a chunk of huge records does not
hold many of them in memory per chunk in flight."""


def available_cpus() -> int:
    """CPUs this process may run on (a container or ``taskset`` may allow fewer than exist)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def jobs_for(asked: int | None) -> int:
    """The worker processes to use: as many as asked (one per available CPU if not asked),
    never more than the CPUs this process may use."""
    return max(1, min(asked or available_cpus(), available_cpus()))


class OrderedMap(Generic[T, R]):
    """``(item, function(item))`` for every item, in order; ``function`` runs in ``jobs``
    worker processes (it must be picklable: a module-level function or a ``partial`` of one).

    Use it as a context manager (or call ``close``): leaving early kills the workers at once.
    The workers start in the constructor, so create it before starting any thread (a progress
    display): forking a process that has other threads can leave a lock held in the child.
    """

    def __init__(
        self,
        function: Callable[[T], R],
        items: Iterable[T],
        jobs: int,
        *,
        on_failure: Callable[[T, BaseException], R] | None = None,
        size: Callable[[T], int] | None = None,
        chunk: int = CHUNK,
        preload: Callable[[], None] | None = None,
    ) -> None:
        """``preload``: what every worker needs, loaded here once before they are forked
        (they start with it), only when workers start."""
        self._function = function
        self._on_failure = on_failure
        self._size = size
        self._chunk = chunk
        self._jobs = jobs
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False
        # each chunk sent, the future of its results, and the pool it went to (None: done here)
        self._pending: deque[tuple[list[T], Future[list[R]], ProcessPoolExecutor | None]] = deque()
        iterator = iter(items)
        head, more = self._head(iterator)
        self._rest: Iterator[T] = chain(head, iterator)
        if jobs > 1 and more:  # more than one chunk: workers pay off
            if preload is not None:
                preload()
            with _stopping_signals_held():
                self._pool = _start_pool(jobs)
                self._submit(self._next_chunk())  # starts the workers now, before any thread

    def _head(self, iterator: Iterator[T]) -> tuple[list[T], bool]:
        """The first chunk's items (``_next_chunk``'s: a head of large items is not held
        whole) and one more, if there is one; and whether there is (more than one chunk:
        workers pay off)."""
        self._rest = iterator
        head = self._next_chunk()
        after = list(islice(iterator, 1))
        return head + after, bool(after)

    def __iter__(self) -> Iterator[tuple[T, R]]:
        if self._pool is None:
            yield from ((item, self._function(item)) for item in self._rest)
            return
        while batch := self._next_chunk():
            self._submit(batch)
            if len(self._pending) >= 2 * self._jobs:
                yield from self._done()
        while self._pending:
            yield from self._done()
        self.close()

    def _next_chunk(self) -> list[T]:
        if self._size is None:
            return list(islice(self._rest, self._chunk))
        batch: list[T] = []
        total = 0
        for item in self._rest:
            batch.append(item)
            total += self._size(item)
            if len(batch) >= self._chunk or total >= CHUNK_BYTES:
                break
        return batch

    def _submit(self, batch: list[T]) -> None:
        from concurrent.futures import Future

        for _ in range(2):  # the pool broke (a worker died): once more, on a new one
            pool = self._pool
            if pool is None:
                break
            try:
                self._pending.append((batch, pool.submit(_apply, self._function, batch), pool))
                return
            except (RuntimeError, OSError):  # broken, or no new worker could be forked
                self._renew()
        done: Future[list[R]] = Future()  # no workers (none could start): done here
        try:
            done.set_result(_apply(self._function, batch))
        except Exception as error:
            done.set_exception(error)
        self._pending.append((batch, done, None))

    def _done(self) -> Iterator[tuple[T, R]]:
        batch, future, pool = self._pending.popleft()
        try:
            results = future.result()
        except Exception as error:
            if self._on_failure is None:
                raise
            if pool is None:  # done here: it raised, nothing to isolate it from
                results = [self._on_failure(item, error) for item in batch]
            else:
                if pool is self._pool:  # a broken pool fails every chunk in flight
                    self._renew()
                results = self._alone(batch, error)
        return zip(batch, results, strict=True)

    def _renew(self) -> None:
        """End the current workers and start new ones for the chunks to come (none: the
        rest is done in this process)."""
        self._kill()
        if self._closed:
            return
        try:
            with _stopping_signals_held():
                self._pool = _start_pool(self._jobs)
        except OSError:
            self._pool = None

    def _alone(self, batch: list[T], error: BaseException) -> list[R]:
        """The results of a chunk that was in flight when a worker died: which item killed it
        no one can tell (every chunk in flight fails with the pool), so each item runs again
        alone (``one_by_one``). Only the item that kills its worker is lost, never one that
        was merely beside it."""
        assert self._on_failure is not None
        return one_by_one(self._function, batch, self._on_failure)

    def close(self) -> None:
        """End the workers now (idempotent); pending work is dropped."""
        self._closed = True
        self._kill()
        self._pending.clear()

    def _kill(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            _end(pool)

    def __enter__(self) -> OrderedMap[T, R]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def _end(pool: ProcessPoolExecutor) -> None:
    """Kill a pool's workers now and let its manager thread wind down (see below)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    # The pool's manager thread must be able to wind down once its workers are killed,
    # or exit waits for it for ever (1 run in 15 of an export whose output failed): the
    # call queue's feeder may be blocked on a full pipe the workers will never read (so
    # the manager must not join it), and a worker killed while sending a result leaves
    # the manager reading the rest of that message (so this process's end of the result
    # pipe is closed once the workers are gone, and the read ends).
    calls = getattr(pool, "_call_queue", None)
    if calls is not None:
        calls.cancel_join_thread()
    results = getattr(pool, "_result_queue", None)  # shutdown() forgets it
    manager = getattr(pool, "_executor_manager_thread", None)  # and the manager thread
    for process in processes:
        if process.is_alive():
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        # SIGKILL cannot be caught: the wait is only for the kernel to reap it, which a
        # loaded machine can take seconds to do
        process.join(timeout=30)
    writer = getattr(results, "_writer", None)
    if writer is not None:
        with contextlib.suppress(OSError):
            writer.close()
    # The manager thread closes its wake-up pipe as it winds down, and the interpreter's
    # exit wakes every manager still registered through that pipe without a lock (Python
    # 3.11): a manager winding down as the process exits made exit print an ignored
    # "Bad file descriptor" traceback. Once it has ended, its pipe is marked closed first.
    if manager is not None and manager is not threading.current_thread():
        manager.join(timeout=30)


def one_by_one(
    function: Callable[[T], R], items: Iterable[T], on_failure: Callable[[T, BaseException], R]
) -> list[R]:
    """``function`` of each item, each run alone, one after another, in a worker process of
    its own (never in this one: an item suspected of killing its process may do it again);
    an item whose run fails there (its worker died, or it raised) gets ``on_failure``'s
    result, and a new worker takes the next item."""
    results: list[R] = []
    pool: ProcessPoolExecutor | None = None
    try:
        for item in items:
            try:
                if pool is None:
                    with _stopping_signals_held():
                        pool = _start_pool(1)
                results.append(pool.submit(_apply, function, [item]).result()[0])
            except Exception as error:  # its worker died (or could not start): this item's
                results.append(on_failure(item, error))
                if pool is not None:
                    _end(pool)
                pool = None
    finally:
        if pool is not None:
            _end(pool)
    return results


_HELD = {getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)}


@contextlib.contextmanager
def _stopping_signals_held() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP wait while the workers are forked: raised inside Python's
    at-fork handlers, the stop would be swallowed ("Exception ignored") and the run would go
    on, or the pool be left half made; they are delivered when the workers are up."""
    if not hasattr(signal, "pthread_sigmask"):  # not on Windows: nothing is forked there
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _start_pool(jobs: int) -> ProcessPoolExecutor:
    # imported here: 14 ms that a one-process run does not need
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    # fork: workers start with everything this process has imported; elsewhere the
    # platform's default start method is used.
    context = get_context("fork" if sys.platform == "linux" else None)
    return ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_worker_setup, initargs=(os.getpid(),)
    )


def _apply(function: Callable[[T], R], batch: list[T]) -> list[R]:
    return [function(item) for item in batch]


_PR_SET_PDEATHSIG = 1


def _worker_setup(parent: int) -> None:
    """Make a worker a pure helper of ``parent``.

    Ctrl-C, SIGTERM and SIGHUP reach every process of a terminal's group or a service's
    cgroup: the parent handles them and ends the workers; a worker dying on its own would
    only turn the parent's clean stop into a broken pool. When the parent dies, even by
    SIGKILL, the worker must not linger blocked on its queue.
    """
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)
    make_room()  # forked workers have it already; spawned ones start at Python's default
    if sys.platform == "linux":
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)
    else:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)
