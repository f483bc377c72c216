"""Crosswalk tables: one row per field of a format's model, tying it to the canonical run.

A format is declared once, as a table. Each row names a field of a generated model and the
canonical field it means, with the conversion each way and how a value the format requires is
derived when the run lacks it. The reader, the writer, the JSON pointers in loss reports, the
coverage (which fields are read) and docs/crosswalk.md are all computed from the rows, so no
declaration can say a field is read when the code does not read it.

Rows are typed: ``T.field(lambda r: r.branch)`` is a ``Source[CortexRunJournal, str | MISSING |
None]`` and ``T.to(lambda run: run.branch)`` a ``Target[Run, str | MISSING | None]``. ``same``
takes a source and a target of one type (the classes are invariant, so mypy asks for the exact
type, not a union of the two), ``convert`` takes functions typed against both. After a schema
change mypy names the row of a removed field (no such attribute) and of a retyped one (the
types no longer agree), in the reader's and the writer's direction at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Generic, Literal, TypeVar

from pydantic import MISSING, BaseModel, JsonValue, ValidationError

from agentruns._depth import note_left_out
from agentruns._pointer import escape
from agentruns._results import Derived
from agentruns.canonical import Run
from agentruns.derivations import Derivation
from agentruns_generated._json import date_time_text

__all__ = [
    "Crosswalk",
    "Row",
    "Source",
    "Target",
    "Writing",
    "extras_for",
    "kept",
    "required",
]

M = TypeVar("M", bound=BaseModel)
N = TypeVar("N", bound=BaseModel)
K = TypeVar("K")
V = TypeVar("V")
C = TypeVar("C")
T = TypeVar("T")


class Writing(Generic[K]):
    """What a writer's conversion functions may use: the run being written, the canonical
    object of the row (the run, or the step of a list item) and its position in its list, and
    where to note a value they derive (at the JSON pointer of the field being written)."""

    __slots__ = ("at", "derived", "field", "memo", "of", "position", "run")

    def __init__(
        self,
        run: Run,
        of: K,
        derived: list[Derived],
        position: int = 0,
        memo: dict[str, object] | None = None,
    ) -> None:
        self.run = run
        self.of = of
        self.derived = derived
        self.position = position
        self.memo: dict[str, object] = {} if memo is None else memo
        """What a writer computed once from the run, for every item of its lists (the run's
        start time, say): shared by the writings of one record."""
        self.at = ""
        self.field = ""
        # the object and field being written, set by the table before each row (joined into
        # a pointer only when one is needed: most rows derive nothing)

    @property
    def pointer(self) -> str:
        """The target pointer of the field being written."""
        return f"{self.at}/{self.field}" if self.field else self.at

    def item(self, of: T, position: int) -> Writing[T]:
        """The writing of one item of a list (a step), at its position."""
        return Writing(self.run, of, self.derived, position, self.memo)

    def derive(self, derivation: Derivation[T], pointer: str | None = None) -> T:
        """The derived value, noted at ``pointer`` (the field being written, by default)."""
        value = derivation.value
        # derivations hold JSON values, or date-times
        shown: JsonValue = date_time_text(value) if isinstance(value, datetime) else value  # type: ignore[assignment]
        where = self.pointer if pointer is None else pointer
        self.derived.append(Derived(where, shown, derivation.reason))
        return value


# -- accessors --------------------------------------------------------------------------


class _Probe:
    """Finds the attribute an accessor reads, by running it on this instead of a record."""

    __slots__ = ("read",)

    def __init__(self) -> None:
        self.read: list[str] = []

    def __getattr__(self, name: str) -> object:
        self.read.append(name)
        return _PROBED


_PROBED: Final = object()


def _attribute(accessor: Callable[[Any], object]) -> str:
    probe = _Probe()
    if accessor(probe) is not _PROBED or len(probe.read) != 1:
        raise TypeError("a crosswalk accessor reads exactly one attribute: lambda r: r.name")
    return probe.read[0]


@dataclass(frozen=True, slots=True)
class Source(Generic[M, V]):
    """A field of a model, read by a typed accessor (``lambda r: r.name``)."""

    name: str
    get: Callable[[M], V]


@dataclass(frozen=True, slots=True)
class Target(Generic[K, C]):
    """A field of the canonical run (or step), read by a typed accessor."""

    name: str
    get: Callable[[K], C]


# -- conversions --------------------------------------------------------------------------


def kept(value: T) -> T:
    """The value as it is (where the canonical type is wider than the model's)."""
    return value


def required(
    derive: Callable[[Run], Derivation[T]], *, when: Callable[[T], bool] | None = None
) -> Callable[[T | MISSING, Writing[Any]], T]:
    """A writer for a field the format requires: the run's value, or (when it has none, or
    ``when`` says it cannot be used) the derivation's, noted as derived."""

    def write(value: T | MISSING, writing: Writing[Any]) -> T:
        if value is MISSING or (when is not None and when(value)):
            return writing.derive(derive(writing.run))
        return value

    write.__doc__ = derive.__doc__
    return write


# -- rows -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Row(Generic[M, K]):
    """One field of a model and what it is in the canonical run: what the table's reader and
    writer are compiled from (see ``_compile``)."""

    field: str
    """The model's field (the Python name)."""
    wire: str
    """Its name in documents (its alias, if it has one), escaped for a JSON pointer."""
    target: str | None
    """The canonical field it is read into (None: a constant, or an object read by a table)."""
    whole: bool = False
    """The value is read whole, as JSON: nothing inside it can go unread."""
    table: Crosswalk[Any, Any] | None = None
    """The table its value (an object, or the items of a list) is read with."""
    nested: bool = False
    """The table's fields are the canonical fields of this row's own table (an object such as
    AgentRun ``result`` that groups fields of the run)."""
    always: bool = False
    """A nested object the format requires: written even when the run has none of its fields
    (its rows then derive what they must)."""
    doc: str = ""
    reader: Callable[[Any], Any] | None = None
    """The row's conversion to the canonical value (None: the value as it is)."""
    writer: Callable[[Any, Writing[Any]], Any] | None = None
    """The row's conversion back (None: the value as it is)."""
    value: object = None
    """What a constant row always writes."""
    lost: bool = False
    """A field the reader does not read: a record holding it reports it lost at its pointer."""
    as_extra: _AsExtra | None = None
    """A field with no canonical field of its own, kept as the canonical object's extra
    property of its name (``target`` is ``extra``): how its value is read as JSON, and
    which extra values it takes back."""

    @property
    def as_it_is(self) -> bool:
        """The field is its canonical field value for value (a ``same`` row of a value, not
        of an object read whole or by a table)."""
        return (
            self.target is not None
            and self.reader is None
            and self.writer is None
            and self.table is None
            and not self.whole
            and self.as_extra is None
        )


class _AsExtra:
    """A field kept as an extra property: its value as JSON when read, and whether an extra
    value (another format's, say) is one the field holds as it is. A value it does not hold
    is not written: the trip back finds it missing, and the conversion carries or reports
    it, never fails on it."""

    __slots__ = ("_adapter",)

    def __init__(self, annotation: Any) -> None:
        from pydantic import TypeAdapter

        self._adapter: TypeAdapter[Any] = TypeAdapter(Any if annotation is None else annotation)

    def __call__(self, value: object) -> JsonValue:
        dumped: JsonValue = self._adapter.dump_python(value, mode="json", by_alias=True)
        return dumped

    def takes(self, value: JsonValue) -> bool:
        try:
            held = self._adapter.validate_python(value)
        except (ValidationError, RecursionError):
            return False
        return bool(self(held) == value)


_Empty = Literal["missing", "empty"]


@dataclass(slots=True)
class _Extras(Generic[K]):
    target: str
    skip: Callable[[str, JsonValue], bool] | None
    empty: _Empty
    written: Callable[[K], bool] | None
    named: dict[str, tuple[str, Callable[[JsonValue], bool]]]
    """Extra properties that are canonical fields of their own: key -> (field, the values
    the field takes)."""


class Crosswalk(Generic[M, K]):
    """The rows of one model: how each of its fields reads into, and is written from, the
    canonical ``K`` (``Run``, or ``RunStep`` for the items of a list of steps)."""

    def __init__(self, model: type[M], canonical: type[K]) -> None:
        self.model = model
        self.canonical = canonical
        self.rows: list[Row[M, K]] = []
        self.fixed: dict[str, object] = {}
        self.extras: _Extras[K] | None = None
        self._compiled: _Compiled[M, K] | None = None

    # -- declaring ----------------------------------------------------------------------

    def field(self, get: Callable[[M], V]) -> Source[M, V]:
        """The model's field that ``get`` reads (``lambda r: r.name``)."""
        name = _attribute(get)
        if name not in self.model.model_fields:
            raise TypeError(f"{self.model.__name__} has no field {name!r}")
        return Source(name, get)

    def to(self, get: Callable[[K], C]) -> Target[K, C]:
        """The canonical field that ``get`` reads (``lambda run: run.name``)."""
        return Target(_attribute(get), get)

    def same(self, source: Source[M, V], target: Target[K, V], *, whole: bool = False) -> None:
        """A field that is the canonical field, value for value."""
        self.convert(source, target, kept, _same, whole=whole)

    def convert(
        self,
        source: Source[M, V],
        target: Target[K, C],
        read: Callable[[V], C],
        write: Callable[[C, Writing[K]], V],
        *,
        whole: bool = False,
        table: Crosswalk[Any, Any] | None = None,
    ) -> None:
        """A field read into a canonical field with ``read``, written back with ``write``
        (which derives what the format requires and the run lacks). ``whole``: the value is
        kept whole as JSON; ``table``: the table its items are read with (for coverage)."""
        name, into = source.name, target.name
        doc = _first_paragraph(write.__doc__) if write is not _same else ""
        token = self._token(name)
        reader = None if read is kept else read
        writer = None if write is _same else write
        self.rows.append(
            Row(
                name,
                token,
                into,
                whole=whole,
                table=table,
                doc=doc,
                reader=reader,
                writer=writer,
            )
        )
        self._compiled = None

    def constant(self, source: Source[M, V], value: V) -> None:
        """A field that always holds ``value`` (a schema version): written, nothing to read."""
        name = source.name
        self.rows.append(Row(name, self._token(name), None, doc=f"always {value!r}", value=value))
        self._compiled = None

    def lost(self, source: Source[M, object], reason: str) -> None:
        """A field whose value has no place in the canonical run (a field upstream added
        that no other format means): not read, and reported lost, at its pointer, by every
        conversion of a record that holds it. ``reason`` says why, in docs/crosswalk.md."""
        name = source.name
        self.rows.append(Row(name, self._token(name), None, doc=f"not read: {reason}", lost=True))
        self._compiled = None

    def as_extra(self, source: Source[M, object]) -> None:
        """A field with no canonical field of its own, kept as an extra property of the
        canonical object (``Run.extra``, ``RunStep.extra``) under its name in documents: a
        format that keeps extra properties (AgentRun's root) holds it there, and it comes
        back into this field; the others report it lost or carry it."""
        name = source.name
        if "extra" not in getattr(self.canonical, "__dataclass_fields__", {}):
            raise TypeError(f"{self.canonical.__name__} has no extra properties to keep it in")
        kept = _AsExtra(self.model.model_fields[name].annotation)
        doc = "kept as an extra property of the run (no canonical field means it)"
        self.rows.append(Row(name, self._token(name), "extra", doc=doc, as_extra=kept))
        self._compiled = None

    def nested(
        self,
        source: Source[M, N] | Source[M, N | MISSING] | Source[M, N | MISSING | None],
        table: Crosswalk[N, K],
        *,
        always: bool = False,
    ) -> None:
        """An object whose fields are canonical fields of this table's (AgentRun ``result``):
        read when present (null is no object); written when any of them is, or always
        (``always``: the format requires the object)."""
        name = source.name
        self.rows.append(
            Row(name, self._token(name), None, table=table, nested=True, always=always)
        )
        self._compiled = None

    def keep_extras(
        self,
        target: Target[K, dict[str, JsonValue] | MISSING],
        *,
        skip: Callable[[str, JsonValue], bool] | None = None,
        empty: _Empty = "missing",
        written: Callable[[K], bool] | None = None,
    ) -> None:
        """The model's extra properties are the canonical field ``target``: ``empty`` says
        whether an object without extras reads as ``{}`` or as absent; ``skip`` leaves out
        reserved ones (a carry payload); ``written`` says of which canonical objects they are
        written back (a cortex event's extras, not another kind of step's fields). The
        properties ``extra`` names are canonical fields and always written."""
        named = self.extras.named if self.extras is not None else {}
        self.extras = _Extras(target.name, skip, empty, written, named)
        self._compiled = None

    def extra(self, key: str, target: Target[K, V], takes: Callable[[JsonValue], bool]) -> None:
        """A canonical field the model has no field for, kept as its extra property ``key``
        (the model must allow extras: ``keep_extras`` first). A value there that ``takes``
        refuses is the user's own data and stays an extra property."""
        if self.extras is None:
            raise TypeError("extra(): declare keep_extras first")
        if key in _declared(self.model):
            raise TypeError(f"{self.model.__name__} has a field {key!r}: not an extra")
        self.extras.named[key] = (target.name, takes)
        self._compiled = None

    def fix(self, **values: object) -> None:
        """Canonical fields every record of this model reads as (a cortex event is a step of
        kind ``event``)."""
        self.fixed.update(values)
        self._compiled = None

    # -- reading and writing -------------------------------------------------------------

    def read_into(self, record: M, fields: dict[str, object]) -> None:
        """Put the canonical fields the record holds into ``fields``."""
        self._plan().read_into(record, fields)

    def _read_extras(self, record: M, fields: dict[str, object]) -> None:
        extras = self.extras
        if extras is None:
            return
        found = record.__pydantic_extra__  # (``model_extra`` is a property: a call a record)
        if found:
            skip = extras.skip
            if skip is not None:
                found = {k: v for k, v in found.items() if not skip(k, v)}
            named = extras.named
            if named and found:
                copied = False
                for key, (name, takes) in named.items():
                    if key in found and takes(found[key]):
                        if not copied:  # the record's own extras are never changed
                            found, copied = dict(found), True
                        fields[name] = found.pop(key)
        if found or extras.empty == "empty":
            found = found or {}
            kept = fields.get(extras.target)  # fields kept as extras (``as_extra``)
            fields[extras.target] = {**kept, **found} if isinstance(kept, dict) else dict(found)

    def read(self, record: M) -> K:
        """The canonical value the record is."""
        return self._plan().read(record)

    def read_items(self, records: list[M]) -> tuple[K, ...]:
        """The canonical value of each record (the items of a list of steps)."""
        read = self._plan().read
        return tuple([read(record) for record in records])

    def write_items(self, items: tuple[K, ...], writing: Writing[Any]) -> list[M]:
        """A model for each canonical item (a step), at its position in the list being
        written (what an item derives is noted under its own pointer)."""
        where = writing.pointer
        write = self._plan().write
        return [write(item, writing.item(item, i), f"{where}/{i}") for i, item in enumerate(items)]

    def holds(self, canonical: K) -> bool:
        """Whether ``canonical`` has any value this table writes (so its object is written)."""
        return self._plan().holds(canonical)

    def write(self, canonical: K, writing: Writing[K], at: str = "") -> M:
        """The model for ``canonical``; what it must derive is noted under pointer ``at``."""
        return self._plan().write(canonical, writing, at)

    def _write_extras(self, canonical: K, fields: dict[str, object]) -> None:
        extras = self.extras
        if extras is None:
            return
        if extras.written is None or extras.written(canonical):
            extra = getattr(canonical, extras.target)
            if isinstance(extra, dict) and extra:  # (absent or empty: nothing to write)
                fields.update(extras_for(self.model, extra))
        for key, (name, takes) in extras.named.items():  # canonical fields: always theirs
            value = getattr(canonical, name)
            if value is not MISSING and takes(value):  # only what reading takes back
                fields[key] = value

    def _remake(self, fields: dict[str, object], error: ValidationError, at: str = "") -> M:
        """The model of ``fields`` that the model refused (``error``), without the values it
        can be made without: a named extra property it cannot hold, and the value of an
        optional field its schema refuses (a tool's arguments 260 levels deep, past what
        pydantic-core validates; a token count past the target's 32-bit range). The trip back
        finds them missing, so the conversion carries each or reports it lost at its own
        pointer (``from_canonical``, which reports no losses, refuses the run naming them).
        A required field refused, or a refusal of the object as a whole, is the run's,
        raised as it was."""
        named = self.extras.named if self.extras is not None else {}
        refused: dict[str, list[tuple[str, str]]] = {}
        for item in error.errors(include_url=False):
            if not item["loc"]:
                raise error  # the object as a whole (a rule of the schema across its fields)
            refused.setdefault(str(item["loc"][0]), []).append((item["type"], item["msg"]))
        if not refused or not all(name in named or self._optional(name) for name in refused):
            raise error
        for name, said in refused.items():
            if name not in named:
                note_left_out(f"{at}/{escape(self.wire(name))}", _why(said))
        return self.model(**{k: v for k, v in fields.items() if k not in refused})

    def _optional(self, name: str) -> bool:
        """Whether the model can be made without the field ``name``."""
        info = self.model.model_fields.get(name)
        return info is not None and not info.is_required()

    def _plan(self) -> _Compiled[M, K]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = _compile(self)
        return compiled

    # -- what the rows say ---------------------------------------------------------------

    def _token(self, name: str) -> str:
        return escape(self.wire(name))

    def wire(self, name: str) -> str:
        """The field's name in documents (its alias, if it has one)."""
        info = self.model.model_fields[name]
        return info.alias or name

    def pointers(self, at: str = "") -> Iterator[tuple[str, str]]:
        """(canonical field, JSON pointer of its source value) for every field read."""
        for row in self.rows:
            where = f"{at}/{row.wire}"
            if row.as_extra is not None:
                yield "extra", at  # the object whose extra property it is
            elif row.target is not None:
                yield row.target, where
            if row.nested and row.table is not None:
                yield from row.table.pointers(where)
        if self.extras is not None:
            yield self.extras.target, at
            for key, (name, _) in self.extras.named.items():
                yield name, f"{at}/{escape(key)}"

    def tables(self) -> Iterator[Crosswalk[Any, Any]]:
        """This table and every table its rows read with."""
        yield self
        for row in self.rows:
            if row.table is not None:
                yield from row.table.tables()

    def whole_fields(self) -> Iterator[tuple[type[BaseModel], str]]:
        for table in self.tables():
            for row in table.rows:
                if row.whole:
                    yield table.model, row.field


_ABSENT: Final = object()
"""A property an object does not have (in the generated readers: ``None`` is a value)."""

"""What pydantic-core says of a value past its recursion guard (the first behind a JSON
value's own error)."""


def _why(said: list[tuple[str, str]]) -> str:
    """Why a writer left a value out (pydantic's refusals of it: type, message)."""
    if any(kind in _DEPTH_ERRORS for kind, _ in said):
        return "nested deeper than its models validate"
    return f"its schema refuses the value ({said[0][1]})"


_DEPTH_ERRORS = frozenset({"invalid-json-value", "recursion_depth_exceeded"})


def _first_paragraph(doc: str | None) -> str:
    """A docstring's first paragraph on one line, as Markdown."""
    first = (doc or "").strip().split("\n\n")[0]
    return " ".join(first.split()).replace("``", "`")


def _same(value: T, writing: Writing[Any]) -> T:
    return value


def extras_for(model: type[BaseModel], extra: object) -> dict[str, JsonValue]:
    """The extra properties ``model`` can hold as extras.

    A key that names one of the model's declared fields (or its alias) would be read as that
    field, or collide with it in the constructor; it is left out, and the conversion's trip
    back then sees the difference and carries or reports it.
    """
    if not isinstance(extra, dict):
        return {}
    declared = _declared(model)
    return {key: value for key, value in extra.items() if key not in declared}


_DECLARED: dict[type[BaseModel], frozenset[str]] = {}


def _declared(model: type[BaseModel]) -> frozenset[str]:
    """The names an extra property must not have: a declared field's name or alias would be
    read as that field (or collide with it in the constructor)."""
    found = _DECLARED.get(model)
    if found is None:
        names: set[str] = set()
        for name, info in model.model_fields.items():
            names.add(name)
            for alias in (info.alias, info.validation_alias, info.serialization_alias):
                if isinstance(alias, str):
                    names.add(alias)
        found = _DECLARED[model] = frozenset(names)
    return found


# -- compiling a table ------------------------------------------------------------------------
# A table is read and written for every record, field by field: interpreting the rows costs
# three Python calls a field (the row, the accessor, the conversion). As dataclasses and attrs
# do, each table's reader and writer are generated once, as Python source from its rows: an
# attribute read and a test for the fields taken as they are, a call only where a row has a
# conversion. The rows stay the one declaration; this is how they are run.


@dataclass(frozen=True, slots=True)
class _Compiled(Generic[M, K]):
    read_into: Callable[[M, dict[str, object]], None]
    read: Callable[[M], K]
    write: Callable[[K, Writing[K], str], M]
    holds: Callable[[K], bool]


def _compile(table: Crosswalk[M, K], *, interpreted_extras: bool = False) -> _Compiled[M, K]:
    """The table's reader and writer as Python functions. ``interpreted_extras``: the extra
    properties handled by ``_read_extras`` and ``_write_extras``, the general methods the
    generated code specializes (kept as the oracle the tests compare it with)."""
    names: dict[str, object] = {
        "MISSING": MISSING,
        "MODEL": table.model,
        "TABLE": table,
        "CANONICAL": table.canonical,
    }
    read = ["def read_into(record, fields):"]
    if table.fixed:
        names["FIXED"] = dict(table.fixed)
        read.append("    fields.update(FIXED)")
    write = ["def write(canonical, writing, at):", "    fields = {}"]
    held: list[str] = []
    for number, row in enumerate(table.rows):
        if row.nested:
            names[f"T{number}"] = row.table
            read += [
                f"    v = record.{row.field}",
                "    if v is not MISSING and v is not None:",
                f"        T{number}.read_into(v, fields)",
            ]
            write += [
                f"    if {'True' if row.always else f'T{number}.holds(canonical)'}:",
                f"        writing.at, writing.field = at, {row.wire!r}",
                f"        fields[{row.field!r}] = T{number}.write(",
                "            canonical, writing, writing.pointer",
                "        )",
            ]
            held.append(f"T{number}.holds(canonical)")
            continue
        if row.lost:  # neither read nor written: reported lost where a record has it
            continue
        if row.as_extra is not None:
            key = table.wire(row.field)  # its name in documents, as the extra's key
            names[f"X{number}"] = row.as_extra
            read += [
                f"    v = record.{row.field}",
                "    if v is not MISSING:",
                f"        fields.setdefault('extra', {{}})[{key!r}] = X{number}(v)",
            ]
            write += [
                "    v = canonical.extra",
                f"    if v is not MISSING and {key!r} in v and X{number}.takes(v[{key!r}]):",
                f"        fields[{row.field!r}] = v[{key!r}]",
            ]
            held.append(f"(canonical.extra is not MISSING and {key!r} in canonical.extra)")
            continue
        if row.target is None:  # a constant
            names[f"C{number}"] = row.value
            write.append(f"    fields[{row.field!r}] = C{number}")
            continue
        held.append(f"canonical.{row.target} is not MISSING")
        if row.reader is None:
            read.append(f"    v = record.{row.field}")
        else:
            names[f"R{number}"] = row.reader
            read.append(f"    v = R{number}(record.{row.field})")
        read += ["    if v is not MISSING:", f"        fields[{row.target!r}] = v"]
        if row.writer is None:
            write.append(f"    v = canonical.{row.target}")
        else:
            names[f"W{number}"] = row.writer
            write += [
                f"    writing.at, writing.field = at, {row.wire!r}",
                f"    v = W{number}(canonical.{row.target}, writing)",
            ]
        write += ["    if v is not MISSING:", f"        fields[{row.field!r}] = v"]
    extras = table.extras
    if extras is not None and interpreted_extras:
        read.append("    TABLE._read_extras(record, fields)")
        write.append("    TABLE._write_extras(canonical, fields)")
    elif extras is not None:
        # what each named extra property takes, as TAKES0, TAKES1... of both functions
        names.update({f"TAKES{n}": takes for n, (_, takes) in enumerate(extras.named.values())})
        read += _read_extras_source(extras, names)
        write += _write_extras_source(table.model, extras, names)
    if extras is not None:
        held.append(f"canonical.{extras.target} is not MISSING")
        held += [f"canonical.{name} is not MISSING" for name, _ in extras.named.values()]
    body = read[1:]
    read.append("    return None")
    read += ["", "def read(record):", "    fields = {}", *body, "    return CANONICAL(**fields)"]
    names["INVALID"] = ValidationError
    write += [
        "    try:",
        # pydantic's constructor is this call, one Python frame and a copy of the fields
        # deeper (2.4 against 1.7 us a step); a model's own __init__ is still called by it
        "        return MODEL.__pydantic_validator__.validate_python(fields)",
        "    except INVALID as error:",
        "        return TABLE._remake(fields, error, at)",
    ]
    holds = ["def holds(canonical):", f"    return {' or '.join(held) or 'False'}"]
    source = "\n".join([*read, "", *write, "", *holds]) + "\n"
    exec(compile(source, f"<crosswalk {table.model.__name__}>", "exec"), names)
    return _Compiled(
        names["read_into"],  # type: ignore[arg-type]
        names["read"],  # type: ignore[arg-type]
        names["write"],  # type: ignore[arg-type]
        names["holds"],  # type: ignore[arg-type]
    )


def _read_extras_source(extras: _Extras[Any], names: dict[str, object]) -> list[str]:
    """``Crosswalk._read_extras`` for one table's extras, as lines of the reader: the
    properties the canonical object names taken out by a lookup each, the rest copied once."""
    names["SKIP"] = extras.skip
    names["ABSENT"] = _ABSENT
    taken: list[str] = []  # what is done with a record's extra properties, when it has any
    if extras.skip is not None:
        taken += [
            "        found = {k: v for k, v in found.items() if not SKIP(k, v)}",
            "        own = True",
        ]
    for number, (key, (name, _)) in enumerate(extras.named.items()):
        taken += [
            f"        v = found.get({key!r}, ABSENT)",
            f"        if v is not ABSENT and TAKES{number}(v):",
            "            if not own:",
            "                found, own = dict(found), True",
            f"            del found[{key!r}]",
            f"            fields[{name!r}] = v",
        ]
    lines = [
        "    found = record.__pydantic_extra__",
        "    own = False",  # whether ``found`` is a copy (the record's extras are never changed)
    ]
    if taken:
        lines += ["    if found:", *taken]
    target = extras.target
    lines.append("    if found:" if extras.empty == "missing" else "    if True:")
    lines += [
        f"        kept = fields.get({target!r})",  # fields kept as extras (``as_extra``)
        "        if isinstance(kept, dict):",
        f"            fields[{target!r}] = {{**kept, **found}} if found else dict(kept)",
        "        else:",
        f"            fields[{target!r}] = found if own else dict(found or {{}})",
    ]
    return lines


def _write_extras_source(
    model: type[BaseModel], extras: _Extras[Any], names: dict[str, object]
) -> list[str]:
    """``Crosswalk._write_extras`` for one table's extras, as lines of the writer."""
    names["DECLARED"] = _declared(model)
    names["WRITTEN"] = extras.written
    lines = [f"    v = canonical.{extras.target}"]
    test = "isinstance(v, dict) and v"
    if extras.written is not None:
        test = f"WRITTEN(canonical) and {test}"
    lines += [
        f"    if {test}:",
        "        if DECLARED.isdisjoint(v):",
        "            fields.update(v)",
        "        else:",
        "            fields.update({k: x for k, x in v.items() if k not in DECLARED})",
    ]
    for number, (key, (name, _)) in enumerate(extras.named.items()):
        lines += [
            f"    v = canonical.{name}",
            f"    if v is not MISSING and TAKES{number}(v):",  # only what reading takes back
            f"        fields[{key!r}] = v",
        ]
    return lines
