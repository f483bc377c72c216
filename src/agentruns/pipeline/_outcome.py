"""What became of one item of a job (a record, a session, a block of them), and the
accounting of a job: a leaf, imported by every step and sink."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Generic, Never

from typing_extensions import TypeVar

from agentruns._rejects import Problem

__all__ = ["NOTHING", "Outcome", "Problem", "Problems", "Tally"]

V = TypeVar("V", default=None, covariant=True)

Problems = tuple[Problem, ...]


@dataclass(frozen=True, slots=True)
class Outcome(Generic[V]):
    """What became of one item: accepted (no ``problems``) or rejected.

    ``output`` and ``report`` are bytes because they are written as they are (a record's
    line, its losses line); ``value`` is what a step gives that is not written but added up
    (a run's facts for the statistics, a block's rows for the tables): typed, so no step
    encodes it for the loop to decode again."""

    format: str | None = None
    """The format it was read as (chosen, detected, or the closest one)."""
    problems: Problems = ()
    output: bytes | None = None
    """The converted record, one line of JSON with its newline (``convert_document``)."""
    losses: int = 0
    """How many source values the conversion could not carry."""
    derived: int = 0
    """How many values of the output the conversion made (the target requires a value the
    source has not, or holds one only in another form: ATIF's step ids numbered 1..n)."""
    report: bytes | None = None
    """The record's line for a losses file: pointers lost and values derived (if asked)."""
    value: V | None = None
    """What the step made that is added up, not written (see the class)."""
    unreadable: str | None = None
    """Why the item, an input of its own (a file of a folder of sessions), could not be read
    at all: counted among the job's unreadable inputs, not as a record."""
    empty: bool = False
    """The item held no run (a file of a folder that no harness wrote): not counted, and
    given to no handler."""

    def __reduce__(self) -> tuple[type[Outcome[V]], tuple[object, ...]]:
        # every outcome crosses a pipe: its fields in order, not the slots' state dict a
        # frozen dataclass pickles by default (1.4 against 4.3 us the round trip)
        return (type(self), tuple(getattr(self, name) for name in _FIELDS))

    @property
    def accepted(self) -> bool:
        return not self.problems and self.unreadable is None and not self.empty


NOTHING: Outcome[Never] = Outcome(empty=True)
"""The outcome of an item that held no run."""


_FIELDS = tuple(f.name for f in fields(Outcome))


@dataclass
class Tally:
    """The accounting of a job: ``records == accepted + rejected`` at every step."""

    records: int = 0
    accepted: int = 0
    rejected: int = 0
    lossy: int = 0
    """Accepted records that lost values."""
    lost_values: int = 0
    derived: int = 0
    """Accepted records with values the conversion made."""
    derived_values: int = 0
    unreadable: list[str] = field(default_factory=list)
    """Why each unreadable input could not be read (inputs, not records)."""
    by_format: dict[str, int] = field(default_factory=dict)
    """Accepted records per format."""

    def count(self, outcome: Outcome[V]) -> None:
        if outcome.empty:
            return
        if outcome.unreadable is not None:
            self.unreadable.append(outcome.unreadable)
            return
        self.records += 1
        if outcome.problems:
            self.rejected += 1
            return
        self.accepted += 1
        if outcome.format is not None:
            self.by_format[outcome.format] = self.by_format.get(outcome.format, 0) + 1
        if outcome.losses:
            self.lossy += 1
            self.lost_values += outcome.losses
        if outcome.derived:
            self.derived += 1
            self.derived_values += outcome.derived

    def merge(self, other: Tally) -> None:
        """Add another part's accounting (the parts of one run, in any order)."""
        self.records += other.records
        self.accepted += other.accepted
        self.rejected += other.rejected
        self.lossy += other.lossy
        self.lost_values += other.lost_values
        self.derived += other.derived
        self.derived_values += other.derived_values
        self.unreadable += other.unreadable
        for name, number in other.by_format.items():
            self.by_format[name] = self.by_format.get(name, 0) + number
