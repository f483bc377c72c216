"""Per-record work in worker processes: same results, same order, bounded read-ahead."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures.process import _ExecutorManagerThread

from agentruns._workers import OrderedMap


def _square_and_pid(n: int) -> tuple[int, int]:
    return n * n, os.getpid()


def test_results_come_back_in_input_order_from_worker_processes() -> None:
    results = list(OrderedMap(_square_and_pid, range(500), 2, chunk=8))
    assert [(n, square) for n, (square, _) in results] == [(n, n * n) for n in range(500)]
    assert os.getpid() not in {pid for _, (_, pid) in results}


def test_one_job_or_a_small_input_stays_in_this_process() -> None:
    for jobs, count in ((1, 500), (4, 7), (4, 8)):
        results = OrderedMap(_square_and_pid, range(count), jobs, chunk=8)
        assert {pid for _, (_, pid) in results} == {os.getpid()}


def test_input_is_read_only_a_bounded_distance_ahead_of_the_output() -> None:
    read = 0

    def counted() -> Iterator[int]:
        nonlocal read
        for n in range(10_000):
            read += 1
            yield n

    ahead = []
    for n, _ in OrderedMap(_square_and_pid, counted(), 2, chunk=8):
        ahead.append(read - n)
    assert max(ahead) <= (2 * 2 + 1) * 8  # 2 * jobs chunks in flight, one being filled


def test_workers_start_before_iteration_and_stop_after_it() -> None:
    before = set(multiprocessing.active_children())  # (children other tests left behind)
    # started at the call: before the caller starts a thread (forking with threads is unsafe)
    results = OrderedMap(_square_and_pid, range(100), 2, chunk=8)
    assert len(set(multiprocessing.active_children()) - before) == 2
    assert len(list(results)) == 100
    # killed and joined by close(); the executor's own thread may hold the reaping of one a
    # moment longer (two threads wait on the same pid), so the check waits for it, bounded
    deadline = time.monotonic() + 30
    while set(multiprocessing.active_children()) - before:
        assert time.monotonic() < deadline, "a worker outlived the iteration"
        time.sleep(0.05)


_LOADED: list[int] = []


def _load() -> None:
    _LOADED.append(os.getpid())


def _loaded_here(n: int) -> tuple[int, ...]:
    return tuple(_LOADED)


def test_what_the_workers_need_is_loaded_once_here_before_they_start() -> None:
    _LOADED.clear()
    results = list(OrderedMap(_loaded_here, range(100), 2, chunk=8, preload=_load))
    assert [os.getpid()] == _LOADED
    # forked after it: each worker started with it loaded, none loaded it again
    assert {seen for _, seen in results} == {(os.getpid(),)}


def test_nothing_is_preloaded_when_no_worker_starts() -> None:
    _LOADED.clear()
    for jobs, count in ((1, 500), (4, 7)):
        assert (
            len(list(OrderedMap(_loaded_here, range(count), jobs, chunk=8, preload=_load))) == count
        )
    assert _LOADED == []


def _managers() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if isinstance(t, _ExecutorManagerThread)}


def test_the_pools_manager_thread_has_ended_when_the_workers_are_closed() -> None:
    """The interpreter's exit wakes every pool manager still running, through a pipe the
    manager closes as it ends, without a lock (Python 3.11): a manager left winding down
    made exit print an ignored 'Bad file descriptor' traceback now and then."""
    before = _managers()
    for jobs in (2, 3):
        results = OrderedMap(_square_and_pid, range(200), jobs, chunk=4)
        assert len(_managers() - before) == 1
        assert len(list(results)) == 200
        assert not {t for t in _managers() - before if t.is_alive()}
