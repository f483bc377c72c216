"""What a conversion gives back: the record, what it lost and what it derived.

A leaf module (it imports no other part of agentruns), so that the crosswalk tables, the
formats, the error tree and the conversion all use one definition without importing each
other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, JsonValue

__all__ = ["Conversion", "Derived", "Loss", "Written"]

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Loss:
    """A source value that has no home in the target."""

    pointer: str
    """JSON pointer of the value in the source document."""
    reason: str

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.reason}"


@dataclass(frozen=True)
class Derived:
    """A value the target requires but the source lacks, computed from the source."""

    pointer: str
    """JSON pointer of the value in the target document."""
    value: JsonValue
    reason: str

    def __str__(self) -> str:
        return f"{self.pointer}: derived {self.value!r}: {self.reason}"


@dataclass(frozen=True)
class Conversion(Generic[M]):
    """The converted record and an exact account of what the conversion did not carry."""

    target: M
    losses: tuple[Loss, ...] = ()
    derived: tuple[Derived, ...] = ()

    @property
    def lossless(self) -> bool:
        return not self.losses


@dataclass(frozen=True)
class Written(Generic[M]):
    """What a writer produced: the record and the values it had to derive."""

    record: M
    derived: tuple[Derived, ...] = ()
