"""Conversion between run record formats, through the canonical ``Run``, with loss reports.

A format is a reader (model -> ``Run``) and a writer (``Run`` -> model); every direction
between registered formats comes from those two functions, so a new format costs two, not
one per pair. Losses are not guessed: after writing the target, the conversion reads it back
and writes it once more in the source format, and every canonical field that does not come back
is either *carried* (kept verbatim in a free-form place of the target, when it has one) or
*reported* as a loss with the JSON pointer of the source value.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import MISSING, BaseModel, JsonValue

from agentruns.canonical import FIELDS, Run

if TYPE_CHECKING:
    from pydantic import TypeAdapter

M = TypeVar("M", bound=BaseModel)

CARRY_VERSION = 1


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


class LossError(ValueError):
    """Raised in strict mode when a conversion would lose source values."""

    def __init__(self, source: str, target: str, losses: Sequence[Loss]) -> None:
        self.losses = tuple(losses)
        listed = "\n".join(f"  {loss}" for loss in self.losses)
        super().__init__(f"converting {source} to {target} would lose:\n{listed}")


@dataclass(frozen=True)
class Written(Generic[M]):
    """What a writer produced: the record and the values it had to derive."""

    record: M
    derived: tuple[Derived, ...] = ()


class Format(ABC, Generic[M]):
    """A run record format: a reader, a writer, and where it can keep foreign data.

    Subclass it, set ``name`` and ``model``, implement ``read`` and ``write``, and ``register``
    an instance: every conversion to and from the other formats follows.
    """

    name: ClassVar[str]
    model: type[M]
    pointers: ClassVar[dict[str, str]] = {}
    """Canonical field -> JSON pointer in this format, where it is not ``/<field name>``."""

    @abstractmethod
    def read(self, record: M) -> Run:
        """The run the record describes, from its own fields (ignore any carried data)."""

    @abstractmethod
    def write(self, run: Run) -> Written[M]:
        """The record for a run; derive (and report) what the format requires but the run lacks."""

    def pointer(self, field: str) -> str:
        """JSON pointer, in this format's documents, of the value behind a canonical field."""
        return self.pointers.get(field, "/" + field)

    def carried(self, record: M) -> dict[str, JsonValue] | None:
        """Data carried for another format in this record, if any (see ``carry``)."""
        return None

    def carry(self, record: M, payload: dict[str, JsonValue]) -> M | None:
        """The record with ``payload`` kept in a free-form place, or None if there is none."""
        return None


_REGISTRY: dict[type[BaseModel], Format[Any]] = {}


def register(fmt: Format[M]) -> Format[M]:
    """Make a format available to ``convert`` (in both directions, with every other format)."""
    _REGISTRY[fmt.model] = fmt
    return fmt


def format_for(model: type[M]) -> Format[M]:
    try:
        return _REGISTRY[model]
    except KeyError:
        known = ", ".join(sorted(f.model.__name__ for f in _REGISTRY.values()))
        raise TypeError(
            f"no run record format is registered for {model.__name__} (known: {known})"
        ) from None


def to_canonical(record: BaseModel) -> Run:
    """The canonical run for a record of any registered format (carried data included)."""
    fmt = format_for(type(record))
    return _read_with_carry(fmt, record)


def _read_with_carry(fmt: Format[M], record: M) -> Run:
    run = fmt.read(record)
    payload = fmt.carried(record)
    return run if payload is None else _apply_carry(run, payload)


def convert(record: BaseModel, to: type[M], *, strict: bool = False) -> Conversion[M]:
    """Convert a run record to another format.

    Returns the target record, the source values it could not hold (``losses``) and the values
    it had to derive (``derived``). With ``strict=True`` any loss raises ``LossError``.
    """
    source = format_for(type(record))
    target = format_for(to)
    run = _read_with_carry(source, record)
    written = target.write(run)
    back = target.read(written.record)
    # A field needs carrying (or is lost) when the target does not hold it as it is *and* the
    # trip back to the source format does not recover it (derivations can: an eval id kept as
    # a run id comes back as the eval id). The trip back is only taken when needed.
    unheld = [name for name in FIELDS if getattr(back, name) != getattr(run, name)]
    result = written.record
    losses: list[Loss] = []
    if not unheld:
        return Conversion(result, (), written.derived)
    returned = source.read(source.write(back).record)
    differing = [name for name in unheld if getattr(returned, name) != getattr(run, name)]
    if differing:
        kept = target.carry(result, _carry_payload(source.name, run, differing))
        if kept is None:
            losses = [_loss(source, target, name, run, returned) for name in differing]
        else:
            result = kept
    if strict and losses:
        raise LossError(source.name, target.name, losses)
    return Conversion(result, tuple(losses), written.derived)


def from_canonical(run: Run, to: type[M]) -> Written[M]:
    """Write a canonical run (built by an adapter, say) in a format."""
    return format_for(to).write(run)


# -- carrying ---------------------------------------------------------------------------


@cache
def _run_adapter() -> TypeAdapter[Run]:
    from pydantic import TypeAdapter  # imported on first carry: keeps `import agentruns` lean

    return TypeAdapter(Run)


def _carry_payload(origin: str, run: Run, names: list[str]) -> dict[str, JsonValue]:
    present = {name for name in names if getattr(run, name) is not MISSING}
    values: dict[str, JsonValue] = _run_adapter().dump_python(run, mode="json", include=present)
    absent: list[JsonValue] = [name for name in names if name not in present]
    return {"version": CARRY_VERSION, "origin": origin, "fields": values, "absent": absent}


def _apply_carry(run: Run, payload: dict[str, JsonValue]) -> Run:
    fields = payload.get("fields")
    absent = payload.get("absent")
    if payload.get("version") != CARRY_VERSION or not isinstance(fields, dict):
        raise ValueError("unrecognised carried data (x-agentruns-carry)")
    restored = _run_adapter().validate_python(fields)
    update: dict[str, Any] = {name: getattr(restored, name) for name in fields if name in FIELDS}
    if isinstance(absent, list):
        update.update({str(name): MISSING for name in absent if str(name) in FIELDS})
    return replace(run, **update)


def _loss(source: Format[Any], target: Format[Any], name: str, run: Run, returned: Run) -> Loss:
    where = source.pointer(name)
    value = getattr(run, name)
    if value is MISSING:
        return Loss(where, f"{target.name} cannot say that {name} is absent")
    if name == "steps" and isinstance(value, tuple):
        back = getattr(returned, name)
        kept = len(back) if isinstance(back, tuple) else 0
        kinds = sorted({step.kind for step in value})
        return Loss(
            where,
            f"{target.name} keeps {kept} of {len(value)} steps, not all their fields "
            f"(kinds here: {', '.join(kinds)})",
        )
    return Loss(where, f"{target.name} has no place for {name}")
