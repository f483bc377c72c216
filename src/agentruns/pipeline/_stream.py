"""The one loop over the items of a job: each item through its step inside an error
boundary, in worker processes when there are many, back in input order, counted as it
comes. Every command, the library's batch functions and the Dask parts run it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Generic, Never

from typing_extensions import TypeVar

from agentruns._workers import CHUNK, OrderedMap, jobs_for
from agentruns.pipeline._outcome import Outcome, Tally

__all__ = ["Boundary", "Stream", "failed", "run"]

I = TypeVar("I")  # noqa: E741 -- the item, as in the papers on pipelines
V = TypeVar("V", default=None)


class Boundary(Generic[I, V]):
    """``step`` with every exception turned into the item's rejection (picklable): one item
    never costs another."""

    def __init__(self, step: Callable[[I], Outcome[V]]) -> None:
        self.work = step

    def __call__(self, item: I) -> Outcome[V]:
        try:
            return self.work(item)
        except Exception as error:  # the boundary: one record never costs another
            return failed(item, error)


def failed(item: object, error: BaseException) -> Outcome[Never]:
    """A rejection for an item whose handling raised ``error`` (or whose worker died)."""
    from concurrent.futures.process import BrokenProcessPool

    if isinstance(error, BrokenProcessPool):
        why = "the worker process handling this record ended unexpectedly (killed or out of memory)"
    elif isinstance(error, MemoryError):
        why = "out of memory while handling this record"
    elif isinstance(error, RecursionError):
        why = "nesting too deep to handle"
    else:
        text = " ".join(str(error).split())[:300]
        why = f"internal error while handling this record ({type(error).__name__}: {text})"
    return Outcome(problems=(("", why),))


class Stream(Generic[I, V]):
    """``(item, step(item))`` for every item, in order, each inside the boundary; ``step``
    runs in ``jobs`` processes (capped at the CPUs this process may use; ``None``: all of
    them; a small input is handled here). ``tally`` counts as you go. ``preload`` loads
    what ``step`` needs in this process before the workers are forked, so that they start
    with it (called only when workers start).

    Use it as a context manager (or ``close``): leaving early ends the worker processes at
    once. ``step`` must be picklable (a module-level function, a ``partial`` of one, an
    instance of a module-level class). ``size`` weighs an item, so that a chunk of large
    items sent to a worker stays small.
    """

    def __init__(
        self,
        step: Callable[[I], Outcome[V]],
        items: Iterable[I],
        *,
        jobs: int | None = 1,
        size: Callable[[I], int] | None = None,
        chunk: int = CHUNK,
        tally: Tally | None = None,
        preload: Callable[[], None] | None = None,
    ) -> None:
        self.tally = Tally() if tally is None else tally
        self._closed = False
        self.jobs = jobs_for(jobs)
        self._map = OrderedMap(
            Boundary(step),
            items,
            self.jobs,
            on_failure=failed,
            size=size,
            chunk=chunk,
            preload=preload,
        )

    def __iter__(self) -> Iterator[tuple[I, Outcome[V]]]:
        tally = self.tally
        self._check_open()
        for item, outcome in self._map:
            self._check_open()  # closed while iterating: what was pending is gone
            tally.count(outcome)
            yield item, outcome

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError(
                f"this {type(self).__name__} is closed: its workers were ended and the items "
                f"pending dropped ({self.tally.records} handled); make a new one to read them"
            )

    def close(self) -> None:
        self._closed = True
        self._map.close()

    def __enter__(self) -> Stream[I, V]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def _nothing(item: object, outcome: object) -> None:
    return None


def run(
    stream: Stream[I, V],
    *,
    accepted: Callable[[I, Outcome[V]], object] = _nothing,
    rejected: Callable[[I, Outcome[V]], object] = _nothing,
    unreadable: Callable[[I, Outcome[V]], object] = _nothing,
    each: Callable[[I], object] | None = None,
) -> Tally:
    """Run the stream to its end: every item's outcome, in input order, to ``accepted``,
    ``rejected`` or ``unreadable`` (an input that could not be read); an item that held no
    run to none of them (``each`` sees every item first: a progress display). The workers
    end however it ends. Returns the tally, which always adds up (records = accepted +
    rejected)."""
    with stream:
        for item, outcome in stream:
            if each is not None:
                each(item)
            if outcome.empty:
                continue
            if outcome.unreadable is not None:
                unreadable(item, outcome)
            else:
                (accepted if outcome.accepted else rejected)(item, outcome)
    return stream.tally
