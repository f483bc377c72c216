"""What a run record format is: a reader, a writer, and where it keeps foreign data.

The base every format derives from (``Format``), what a format's coverage declares, and the
shape of a carry payload: what the formats need of the conversion machinery, kept apart from
it so that no format imports the module that registers and converts them."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, JsonValue

from agentruns._pointer import escape
from agentruns._results import Derived, Written
from agentruns.canonical import FIELDS, Run, RunStep

if TYPE_CHECKING:
    # the tables are imported with the first format that has one (``import agentruns``
    # builds none of their classes)
    from agentruns.crosswalk import Crosswalk

__all__ = [
    "CARRY_PROPERTY",
    "CARRY_STEPS_VERSION",
    "CARRY_SUBAGENTS_VERSION",
    "CARRY_VERSION",
    "PATCHED_SUBAGENT_FIELDS",
    "WHOLE",
    "CarryPlace",
    "Coverage",
    "Format",
    "InExtras",
    "InObject",
    "Use",
    "fields",
    "is_carry",
]

M = TypeVar("M", bound=BaseModel)

CARRY_VERSION = 1
"""The payload's version when no steps are carried as a patch (what every version read)."""

CARRY_STEPS_VERSION = 2
"""The payload's version when it carries the steps as what the record does not show of each
(a ``steps`` list beside ``fields``: per step ``null``, or ``{"fields", "absent"}`` in the
terms of ``agentruns.RunStep``)."""

CARRY_SUBAGENTS_VERSION = 3
"""The payload's version when it carries the subagents as what the record does not show of
each (a ``subagents`` list beside ``fields``: per subagent ``null``, or ``{"fields",
"absent"}`` in the terms of ``agentruns.Run``, its own steps and subagents left out: a
format that holds subagents, ATIF, shows them), and perhaps the steps as version 2 does."""

CARRY_PROPERTY = "x-agentruns-carry"
"""The property name under which a format with a free-form object keeps carried data (an
``x-`` name: no schema gives it a meaning)."""


_CARRY_KEYS = frozenset({"version", "origin", "fields", "absent"})
_STEPS_KEYS = _CARRY_KEYS | {"steps"}
_SUBAGENTS_KEYS = (_CARRY_KEYS | {"subagents"}, _STEPS_KEYS | {"subagents"})


def is_carry(value: JsonValue) -> bool:
    """Whether a value has the shape of a payload this version writes (not whether its
    values validate): formats read any other value under their reserved name as user data."""
    if not isinstance(value, dict) or type(value.get("version")) is not int:
        return False
    version = value["version"]
    if not (
        (version == CARRY_VERSION and value.keys() == _CARRY_KEYS)
        or (version == CARRY_STEPS_VERSION and value.keys() == _STEPS_KEYS)
        or (version == CARRY_SUBAGENTS_VERSION and value.keys() in _SUBAGENTS_KEYS)
    ):
        return False
    steps = value.get("steps", [])
    subagents = value.get("subagents", [])
    patched = {key for key in ("steps", "subagents") if key in value}
    return (
        isinstance(value["origin"], str)
        and _names(value["fields"], value["absent"], _FIELD_SET)
        and patched.isdisjoint(value["fields"])  # type: ignore[arg-type]
        and isinstance(steps, list)
        and all(_patch(step, _STEP_FIELD_SET) for step in steps)
        and isinstance(subagents, list)
        and all(_patch(sub, _SUBAGENT_FIELD_SET) for sub in subagents)
    )


def _patch(item: JsonValue, known: frozenset[str]) -> bool:
    """Whether an item of a patch list has its shape: null, or the fields and the absent
    names of one step or subagent."""
    return item is None or (
        isinstance(item, dict)
        and item.keys() == {"fields", "absent"}
        and _names(item["fields"], item["absent"], known)
    )


def _names(fields: JsonValue, absent: JsonValue, known: frozenset[str]) -> bool:
    return (
        isinstance(fields, dict)
        and all(name in known for name in fields)
        and isinstance(absent, list)
        and all(isinstance(name, str) and name in known for name in absent)
    )


_FIELD_SET = frozenset(FIELDS)
_STEP_FIELD_SET = frozenset(field.name for field in dataclasses.fields(RunStep))
PATCHED_SUBAGENT_FIELDS = tuple(name for name in FIELDS if name not in ("steps", "subagents"))
"""A subagent's fields a version 3 patch holds: its own values, not its steps and subagents
(a format that holds subagents shows those; what it shows otherwise is reported)."""
_SUBAGENT_FIELD_SET = frozenset(PATCHED_SUBAGENT_FIELDS)


Use = Literal["read", "lost"]
"""What a reader does with a model field: reads it into the canonical run, or (declared) does
not, so a conversion reports it lost whenever a record has it."""

WHOLE: Literal["whole"] = "whole"
"""A model its reader keeps whole as JSON (every field, present and future, is read)."""

Coverage = Mapping[str, "Mapping[str, Use] | Literal['whole']"]
"""Per model of a format, by class name: what its reader does with each field. Keyed by
name, so models regenerated from a newer schema are judged by the same declarations."""

F = TypeVar("F", bound=str)


def _coverage_of(table: Crosswalk[Any, Any]) -> dict[str, Mapping[str, Use] | Literal["whole"]]:
    """What a crosswalk reads: every field it has a row for, per model; the models inside a
    value read whole, whole."""
    from agentruns._coverage import reachable_from

    found: dict[str, Mapping[str, Use] | Literal["whole"]] = {}
    for part in table.tables():
        found[part.model.__name__] = {
            row.field: "lost" if row.lost else "read" for row in part.rows
        }
    for model, name in table.whole_fields():
        for inner in reachable_from(model.model_fields[name].annotation):
            found.setdefault(inner.__name__, WHOLE)
    return found


def _named(table: Crosswalk[Any, Any]) -> frozenset[str]:
    """Every canonical field a row of the table (or of a table inside it) names, as its
    target, the target of its extra properties or of one of them, or a fixed value."""
    named: set[str] = set()
    for part in table.tables():
        named.update(row.target for row in part.rows if row.target is not None)
        named.update(part.fixed)
        extras = part.extras
        if extras is not None:
            named.add(extras.target)
            named.update(name for name, _ in extras.named.values())
    return frozenset(named)


def fields(declared: Mapping[F, Use]) -> dict[str, Use]:
    """A declaration keyed by a generated ``<Model>Field`` literal, as the coverage table
    holds it: keying by the literal lets mypy reject a field the model no longer has."""
    return {str(name): use for name, use in declared.items()}


def each_tripped(
    items: Crosswalk[Any, RunStep], run: Run, steps: tuple[RunStep, ...]
) -> Iterator[RunStep]:
    """Each step written as an item of ``items`` and read back, in order, as the table's
    ``write_items`` writes them: one writing of the run, shared (what it computes once of
    the run, cortex's start, say, is computed once)."""
    from agentruns.crosswalk import Writing

    writing = Writing(run, run, [])
    for index, step in enumerate(steps):
        back: RunStep = items.read(items.write(step, writing.item(step, index), f"/{index}"))
        yield back


class CarryPlace(Generic[M]):
    """Where a format keeps data carried for another format (``Format.carry_place``): how
    the payload is found, where it is (for loss reports), and how a record gets one."""

    def carried(self, record: M) -> dict[str, JsonValue] | None:
        """The payload ``record`` carries (one ``is_carry`` recognizes), else None: anything
        else under the reserved name is the user's own data, read like any other value."""
        raise NotImplementedError

    def carried_at(self, record: M) -> str:
        """The JSON pointer of the payload in ``record``."""
        raise NotImplementedError

    def carry(self, record: M, payload: dict[str, JsonValue]) -> M | None:
        """``record`` with ``payload`` kept, or None when the place is the user's already."""
        raise NotImplementedError


class InExtras(CarryPlace[M]):
    """Under ``CARRY_PROPERTY`` among the root object's additional properties (AgentRun)."""

    def carried(self, record: M) -> dict[str, JsonValue] | None:
        payload = (record.model_extra or {}).get(CARRY_PROPERTY)
        return payload if isinstance(payload, dict) and is_carry(payload) else None

    def carried_at(self, record: M) -> str:
        return "/" + escape(CARRY_PROPERTY)

    def carry(self, record: M, payload: dict[str, JsonValue]) -> M | None:
        extras = record.model_extra or {}
        if CARRY_PROPERTY in extras:
            return None  # the user's own data holds the name: report losses, never overwrite
        copy = record.model_copy()  # shallow: the carry is the only change
        copy.__pydantic_extra__ = {**extras, CARRY_PROPERTY: payload}
        return copy


class InObject(CarryPlace[M]):
    """Under ``CARRY_PROPERTY`` in a free-form object field of the root (ATIF's ``extra``)."""

    def __init__(self, field: str) -> None:
        self.field = field

    def _held(self, record: M) -> dict[str, JsonValue]:
        value = getattr(record, self.field)
        return value if isinstance(value, dict) else {}

    def carried(self, record: M) -> dict[str, JsonValue] | None:
        payload = self._held(record).get(CARRY_PROPERTY)
        return payload if isinstance(payload, dict) and is_carry(payload) else None

    def carried_at(self, record: M) -> str:
        wire = type(record).model_fields[self.field].alias or self.field
        return f"/{escape(wire)}/{escape(CARRY_PROPERTY)}"

    def carry(self, record: M, payload: dict[str, JsonValue]) -> M | None:
        held = self._held(record)
        if CARRY_PROPERTY in held:
            return None  # the user's own data holds the name: report losses, never overwrite
        return record.model_copy(update={self.field: {**held, CARRY_PROPERTY: payload}})


class Format(Generic[M]):
    """A run record format: a reader, a writer, and where it can keep foreign data.

    Subclass it, set ``name``, ``model`` and ``crosswalk`` (the table of what each field of
    the model is in the canonical run, ``agentruns.crosswalk``), and ``register`` an instance:
    the reader, the writer, the pointers of loss reports and the coverage all follow from the
    table, and so does every conversion to and from the other formats. A format may instead
    implement ``read`` and ``write`` by hand and declare ``pointers`` and ``coverage``.
    """

    name: ClassVar[str]
    model: type[M]
    crosswalk: ClassVar[Crosswalk[Any, Run] | None] = None
    """The format's table (see ``agentruns.crosswalk``)."""
    pointers: ClassVar[dict[str, str]] = {}
    """Canonical field -> JSON pointer in this format, where it is not ``/<field name>``
    (computed from the crosswalk when there is one)."""
    coverage: ClassVar[Coverage] = {}
    """What ``read`` does with every field of every model of the format (``fields`` per
    model, or ``WHOLE``), computed from the crosswalk when there is one. A field it does not
    name is reported lost by ``convert``, never dropped."""
    step_pointers: ClassVar[dict[str, str] | None] = None
    """Canonical step field -> JSON pointer inside an item of the steps list, when each step
    of a run is the item at its own position there (AgentRun steps, cortex events), so that
    what a target cannot hold of a step is reported at that step's value; None for a format
    whose steps are made from items otherwise (ATIF's turns, portable's invocations).
    Computed from the crosswalk's table of the steps' items, when it reads them one to one."""
    steps_one_to_one: ClassVar[bool] = False
    """Each canonical step is read from the item at its own position (see ``step_pointers``)."""
    _step_items: ClassVar[Crosswalk[Any, RunStep] | None] = None
    carry_place: ClassVar[CarryPlace[Any] | None] = None
    """Where the format keeps data carried for another format (``InExtras``, ``InObject``,
    or a place of its own); None: it has no free-form place, and what it cannot hold is
    lost."""

    fields_by_hand: ClassVar[frozenset[str]] = frozenset()
    """Run fields the format's own code (not its table's rows) reads a value into: ATIF links
    each subagent to the call that started it (``parent_call_id``)."""
    fields_unshown: ClassVar[frozenset[str]] = frozenset()
    """Run fields the format never reads a value into, and that writing a run read from one of
    its records takes nothing from: a value carried for them cannot contradict the record,
    so reading a record that carries only such values needs no trip to prove that
    (``agentruns.conversion._read_with_carry``). Computed from the crosswalk: the fields no
    row of its tables names, less ``fields_by_hand``; none without one (the safe answer).
    ``tests/test_carry_check.py`` holds both halves on generated records, and the trip as
    the oracle of the reading."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        table = cls.__dict__.get("crosswalk")
        if table is not None:
            cls.pointers = dict(table.pointers())
            cls.coverage = _coverage_of(table)
            cls.fields_unshown = _FIELD_SET - _named(table) - cls.fields_by_hand
            items = next((r.table for r in table.rows if r.target == "steps"), None)
            if cls.__dict__.get("steps_one_to_one") and items is not None:
                cls.step_pointers = dict(items.pointers())
                cls._step_items = items

    step_fields_unwritten: ClassVar[frozenset[str]] = frozenset()
    """Step fields the format writes nothing from (nor reads anything into), in a format
    that writes its steps from the steps alone (not from the run's other fields): two runs
    whose steps differ only in them are written alike (portable keeps a tool call's name,
    arguments, result and index, not its time). None unless a format says so: the safe
    answer."""

    def without_steps(self, run: Run) -> Run | None:
        """``run`` with no steps, its other fields written as this format writes ``run``'s: a
        value the format would derive from the steps given as that value (cortex dates a run
        that records no start by its earliest step). The trip back through the format then
        takes the run's fields without its steps (``agentruns.conversion``). None unless a
        format says: the safe answer."""
        return None

    def keeps_every_step(self, steps: tuple[RunStep, ...]) -> bool:
        """Whether reading what this format writes of ``steps`` gives as many steps back,
        one an item (AgentRun steps, cortex events), so that the trip back need not write
        them to count them. False unless a format says otherwise: the safe answer."""
        return False

    def step_trips(self, run: Run) -> Iterator[RunStep] | None:
        """The steps of ``write_and_read(run)``'s run (what reading gives back of the run's
        steps when this format writes it), made step by step, in order, as many as the caller
        takes; None when the format cannot say without writing the whole run. By default, for
        a format whose steps are items read one to one by its table, where
        ``keeps_every_step(run.steps)``: each item written and read on its own."""
        items = self._step_items
        steps = run.steps
        if items is None or not isinstance(steps, tuple) or not self.keeps_every_step(steps):
            return None
        return each_tripped(items, run, steps)

    def step_pointer(self, index: int, field: str, key: str | None = None) -> str | None:
        """JSON pointer of the value behind a field of the run's step ``index`` (``key``: one
        of its extra properties), or None when the format cannot say (see ``step_pointers``)."""
        found = self.step_pointers
        if found is None:
            return None
        item = f"{self.pointer('steps')}/{index}"
        if key is not None:
            return f"{item}/{escape(key)}"
        return item + found.get(field, "")

    def read(self, record: M) -> Run:
        """The run the record describes, from its own fields (ignore any carried data)."""
        table = self.crosswalk
        if table is None:
            raise NotImplementedError(f"{type(self).__name__} has no crosswalk and no read")
        run: Run = table.read(record)
        return run

    def write(self, run: Run) -> Written[M]:
        """The record for a run; derive (and report) what the format requires but the run lacks."""
        table = self.crosswalk
        if table is None:
            raise NotImplementedError(f"{type(self).__name__} has no crosswalk and no write")
        derived: list[Derived] = []
        from agentruns.crosswalk import Writing

        record: M = table.write(run, Writing(run, run, derived))
        return Written(record, tuple(derived))

    def write_and_read(self, run: Run) -> tuple[Written[M], Run]:
        """The record for a run, and the run as this format reads that record: what the proof
        of a conversion takes (the trip through the target, and back through the source). A
        format may know the second faster than by reading the record it has just made (ATIF
        reads each turn from the JSON it composed, not from a dump of the turn validated from
        it); it must be the run ``read`` gives."""
        written = self.write(run)
        return written, self.read(written.record)

    def pointer(self, field: str) -> str:
        """JSON pointer, in this format's documents, of the value behind a canonical field."""
        return self.pointers.get(field, "/" + field)

    def carried(self, record: M) -> dict[str, JsonValue] | None:
        """Data carried for another format in this record, if any (see ``carry``): only a
        payload that ``is_carry`` recognises; anything else under the reserved name is the
        user's own data and is read like any other value."""
        place = self.carry_place
        return None if place is None else place.carried(record)

    def carried_at(self, record: M) -> str:
        """JSON pointer of the carried payload in ``record`` (for loss reports)."""
        place = self.carry_place
        return "" if place is None else place.carried_at(record)

    def carry(self, record: M, payload: dict[str, JsonValue]) -> M | None:
        """The record with ``payload`` kept in a free-form place, or None if there is none."""
        place = self.carry_place
        return None if place is None else place.carry(record, payload)
