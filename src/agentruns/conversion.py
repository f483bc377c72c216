"""Conversion between run record formats, through the canonical ``Run``, with loss reports.

A format is a reader (model -> ``Run``) and a writer (``Run`` -> model); every direction
between registered formats comes from those two functions, so a new format costs two, not
one per pair. Losses are not guessed: after writing the target, the conversion reads it back
and writes it once more in the source format, and every canonical field that does not come back
is either *carried* (kept verbatim in a free-form place of the target, when it has one) or
*reported* as a loss with the JSON pointer of the source value. The second trip is spared the
steps where the source format's declarations say what would come back (``_trip_back``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from functools import cache, partial
from itertools import compress, zip_longest
from operator import attrgetter, ne
from typing import TYPE_CHECKING, Any, Final, TypeVar, overload

from pydantic import MISSING, BaseModel, JsonValue

from agentruns._depth import DEEP, ROOM, left_out, make_room, nests
from agentruns._pointer import escape
from agentruns._results import Conversion, Derived, Loss, Written
from agentruns.canonical import FIELDS, Run, RunStep
from agentruns.errors import AgentrunsError, ConversionError, FormatError, LossError
from agentruns.formats._base import (
    CARRY_PROPERTY,
    CARRY_STEPS_VERSION,
    CARRY_SUBAGENTS_VERSION,
    CARRY_VERSION,
    PATCHED_SUBAGENT_FIELDS,
    WHOLE,
    CarryPlace,
    Coverage,
    Format,
    InExtras,
    InObject,
    Use,
    fields,
    is_carry,
)

__all__ = [
    "CARRY_PROPERTY",
    "CARRY_VERSION",
    "WHOLE",
    "CarryPlace",
    "Conversion",
    "Coverage",
    "Derived",
    "Format",
    "InExtras",
    "InObject",
    "Loss",
    "LossError",
    "Use",
    "Written",
    "convert",
    "fields",
    "format_for",
    "format_named",
    "from_canonical",
    "is_carry",
    "models_by_name",
    "register",
    "registered_formats",
    "registrations",
    "resolve",
    "to_canonical",
    "unread_fields",
]


if TYPE_CHECKING:
    from pydantic import TypeAdapter

M = TypeVar("M", bound=BaseModel)

_REGISTRY: dict[type[BaseModel], Format[Any]] = {}


_BY_NAME: dict[str, type[BaseModel]] = {}

_REGISTRATIONS = [0]
"""How many times ``register`` was called (a cache of what the registry holds compares it)."""

_BUILT_IN: list[bool] = []
"""Whether the built-in formats were registered (on first use of the registry, so that
``import agentruns`` imports no format's models)."""


def _with_built_in() -> None:
    if not _BUILT_IN:
        _BUILT_IN.append(True)
        from agentruns.formats import BUILT_IN

        for fmt in BUILT_IN:
            register(fmt)


def register(fmt: Format[M]) -> Format[M]:
    """Make a format available to ``convert`` (in both directions, with every other format),
    and by its name to ``detect`` and the command line. A name registered again is the
    format registered last (a plugin may replace a built-in format)."""
    _with_built_in()
    _check(fmt)
    _REGISTRY[fmt.model] = fmt
    _BY_NAME[fmt.name] = fmt.model
    _REGISTRATIONS[0] += 1
    return fmt


def _check(fmt: Format[Any]) -> None:
    """A format that could not convert a record is refused when it is registered, naming
    what it lacks (not at the first conversion)."""
    kind = type(fmt)
    if not isinstance(fmt, Format):
        raise TypeError(f"register() takes a Format instance, not {kind.__name__}")
    lacks = [
        name
        for name in ("name", "model")
        if not isinstance(getattr(fmt, name, None), str if name == "name" else type)
    ]
    if fmt.crosswalk is None:
        lacks += [
            f"{method} (or a crosswalk)"
            for method in ("read", "write")
            if getattr(kind, method) is getattr(Format, method)
        ]
    if lacks:
        raise TypeError(f"format {kind.__name__} cannot be registered: no {', '.join(lacks)}")
    if not issubclass(fmt.model, BaseModel):
        raise TypeError(f"format {kind.__name__}: its model is not a pydantic model")


def registrations() -> int:
    """How many registrations the registry has seen: a cache of what it holds (the shapes
    ``detect`` compares, say) is stale when this changes."""
    _with_built_in()
    return _REGISTRATIONS[0]


def registered_formats() -> list[Format[Any]]:
    """Every registered format, by name (the one a name was last registered for)."""
    _with_built_in()
    return [_REGISTRY[_BY_NAME[name]] for name in sorted(_BY_NAME)]


class _Registered(Mapping[str, "type[BaseModel]"]):
    """The registry's root models by name, read-only and live (the built-in formats are
    registered when it is first read)."""

    def __getitem__(self, name: str) -> type[BaseModel]:
        _with_built_in()
        return _BY_NAME[name]

    def __iter__(self) -> Iterator[str]:
        _with_built_in()
        return iter(dict(_BY_NAME))

    def __len__(self) -> int:
        _with_built_in()
        return len(_BY_NAME)

    def __repr__(self) -> str:
        return f"models_by_name({dict(self)!r})"


def models_by_name() -> Mapping[str, type[BaseModel]]:
    """The root model of every registered format, by format name (a live, read-only view)."""
    return _Registered()


def format_for(model: type[M]) -> Format[M]:
    """The registered format whose root model is ``model``; ``FormatError`` if none is."""
    _with_built_in()
    try:
        return _REGISTRY[model]
    except (KeyError, TypeError):
        known = ", ".join(sorted(f.model.__name__ for f in _REGISTRY.values()))
        shown = getattr(model, "__name__", repr(model))
        raise FormatError(
            f"no run record format is registered for {shown} (known: {known})"
        ) from None


def format_named(name: str) -> Format[Any]:
    """The registered format called ``name``; ``FormatError`` (naming the known ones) if none
    is. ``auto`` is no format: detection is the caller's to do."""
    _with_built_in()
    model = _BY_NAME.get(name) if isinstance(name, str) else None
    if model is None:
        known = ", ".join(sorted(_BY_NAME))
        raise FormatError(f"unknown format {name!r} (known: {known})")
    return _REGISTRY[model]


def resolve(fmt: str | type[M]) -> Format[Any]:
    """A format given by name or by its root model: the one place both are accepted."""
    return format_named(fmt) if isinstance(fmt, str) else format_for(fmt)


def to_canonical(record: BaseModel) -> Run:
    """The canonical run for a record of any registered format (carried data included).

    Carried values that contradict the record's own fields, or that do not validate, are
    ignored here; ``convert`` reports them as losses.
    """
    fmt = format_for(type(record))
    make_room()
    try:
        return _read_with_carry(fmt, record)[0]
    except AgentrunsError:
        raise
    except RecursionError as error:
        raise ConversionError(f"reading {fmt.name} failed: {_TOO_DEEP}") from error
    except Exception as error:  # a reader met a value it cannot take
        raise ConversionError(f"reading {fmt.name} failed: {_brief(error)}") from error


def _read_with_carry(fmt: Format[M], record: M) -> tuple[Run, list[Loss]]:
    """The record's run with its carried data applied, and the carried values not applied.

    A carried value may stand in for what the record shows in its own terms (cortex shows an
    ``awaiting_human`` run as ``running``), never contradict it: a carried value that writing
    the record's format would not show as the record shows it (a stale or edited ``run_id``)
    is dropped and reported, and the record's own value kept.
    """
    run = fmt.read(record)
    payload = fmt.carried(record)
    if payload is None:
        return run, []
    where = fmt.carried_at(record)
    try:
        carried = _carried_fields(payload)
        if "steps" in payload:  # carried as what the record does not show of each step
            carried["steps"] = _patched_steps(run.steps, payload["steps"])
        if "subagents" in payload:  # the same, of each subagent
            carried["subagents"] = _patched_subagents(run.subagents, payload["subagents"])
    except ValueError as error:
        return run, [Loss(where, f"carried data that cannot be read is ignored: {error}")]
    if not carried:
        return run, []
    full = replace(run, **carried)
    if _carries_only_unshown(fmt, payload):
        return full, []
    try:
        shown = fmt.read(fmt.write(full).record)
    except Exception as error:  # the carried values do not fit the format at all
        reason = f"carried data that cannot be applied is ignored: {_brief(error)}"
        return run, [Loss(where, reason)]
    conflicts = [name for name in carried if getattr(shown, name) != getattr(run, name)]
    if not conflicts:
        return full, []
    kept = {name: value for name, value in carried.items() if name not in conflicts}
    losses = [
        Loss(
            f"{where}/{name}"
            if name in ("steps", "subagents") and name in payload
            else f"{where}/fields/{name}",
            f"the carried {name} contradicts the record's own value, which is kept",
        )
        for name in conflicts
    ]
    return replace(run, **kept), losses


def _carries_only_unshown(fmt: Format[Any], payload: dict[str, JsonValue]) -> bool:
    """Whether the payload carries values only of fields the format neither shows nor writes
    from (``Format.fields_unshown``), of the run and of each of its subagents: the record
    then shows the run with them as it shows it without them, so none can contradict it,
    and the trip that would prove it (writing the whole record again, its steps and
    subagents included, and reading it) is not taken. Steps carried as a patch are shown."""
    unshown = fmt.fields_unshown
    if not unshown or "steps" in payload:
        return False
    changes: list[JsonValue] = [payload]
    subagents = payload.get("subagents")
    if isinstance(subagents, list):
        changes += subagents
    for change in changes:
        if change is None:
            continue
        if not isinstance(change, dict):
            return False
        fields, absent = change.get("fields"), change.get("absent")
        if not isinstance(fields, dict) or not isinstance(absent, list):
            return False
        if not unshown.issuperset(fields) or not all(name in unshown for name in absent):
            return False
    return True


@overload
def convert(record: BaseModel, to: type[M], *, strict: bool = False) -> Conversion[M]: ...
@overload
def convert(record: BaseModel, to: str, *, strict: bool = False) -> Conversion[BaseModel]: ...
def convert(
    record: BaseModel, to: type[M] | str, *, strict: bool = False
) -> Conversion[M] | Conversion[BaseModel]:
    """Convert a run record to another format (given by its root model or its name).

    Returns the target record, the source values it could not hold (``losses``) and the values
    it had to derive (``derived``).

    Raises ``FormatError`` when ``record`` or ``to`` is of no registered format, ``LossError``
    with ``strict=True`` when any value would be lost, and ``ConversionError`` when no record
    of the target format can hold the run (a value the target's schema refuses).
    """
    source = format_for(type(record))
    target = resolve(to)
    make_room()
    try:
        return _convert(source, target, record, strict=strict)
    except AgentrunsError:
        raise
    except RecursionError as error:
        raise ConversionError(
            f"converting {source.name} to {target.name} failed: {_TOO_DEEP}"
        ) from error
    except Exception as error:  # a reader or writer met a value it cannot take
        raise ConversionError(
            f"converting {source.name} to {target.name} failed: {_brief(error)}"
        ) from error


def _convert(
    source: Format[Any], target: Format[Any], record: BaseModel, *, strict: bool
) -> Conversion[Any]:
    run, ignored = _read_with_carry(source, record)
    ignored += unread_fields(source, record)
    written, back = target.write_and_read(run)
    # A field needs carrying (or is lost) when the target does not hold it as it is *and* the
    # trip back to the source format does not recover it (derivations can: an eval id kept as
    # a run id comes back as the eval id). The trip back is only taken when needed.
    unheld = _differing(FIELDS, _ALL(back), _ALL(run))
    result = written.record
    losses: list[Loss] = list(ignored)
    if not unheld:
        if strict and losses:
            raise LossError(source.name, target.name, losses)
        if source is target and not losses and result == record:
            result = record  # the identity: the record itself, not a copy of it
        return Conversion(result, _in_order(losses), written.derived)
    returned, exact = _trip_back(source, record, run, back, unheld)
    differing = [
        name
        for name in unheld
        if (name == "steps" and not exact) or getattr(returned, name) != getattr(run, name)
    ]
    if differing:
        kept, uncarried = _carried(target, result, source.name, run, differing, back)
        if kept is None:
            uncarried, too_deep = differing, False
        else:
            result, too_deep = kept, True  # a place, and what it could not take nests too deep
        for name in uncarried:
            if name == "steps" and not exact:  # reported step by step: what each gives back
                returned = replace(returned, steps=_whole_trip_back(source, back).steps)
            lost = _losses(source, target, name, run, returned, written.derived)
            if too_deep and getattr(run, name) is not MISSING:
                lost = [replace(loss, reason=f"{loss.reason}{_TOO_DEEP_TO_CARRY}") for loss in lost]
            losses += lost
    if strict and losses:
        raise LossError(source.name, target.name, _in_order(losses))
    return Conversion(result, _in_order(losses), written.derived)


def _trip_back(
    source: Format[Any], record: BaseModel, run: Run, back: Run, unheld: list[str]
) -> tuple[Run, bool]:
    """What the trip back through the source gives of ``back`` (the run as the target
    shows it), in the fields ``unheld`` names: all the conversion reads of it; and whether
    its steps are what the trip gives (False: they are known to differ from the run's, which
    is all a target that carries them needs; the whole trip gives them when they are to be
    reported step by step).

    The steps are most of a run, and the trip is spared writing and reading them again
    where the format's own declarations say what would come back:

    - the steps came back from the target unchanged (not in ``unheld``): nothing is read
      of them;
    - the target kept another number of them, which is then all that is said of them
      (``step_losses``), and the source writes each as an item of its own
      (``Format.keeps_every_step``): as many come back;
    - they differ from the record's own only in fields the source writes nothing from
      (``Format.step_fields_unwritten``: a time cortex gave portable's tool calls), and the
      run is the record's own (no data carried into it): the source writes them as it
      wrote the record, so they come back as the record's;
    - the source can make the trip's steps one by one (``Format.step_trips``: AgentRun's
      items, cortex's events, portable's invocations, ATIF's turns): they are made until
      one does not come back as the run's (the first of a cortex journal's events that
      AgentRun made messages, an ATIF call whose result AgentRun did not keep), or one too
      many or too few.

    The run's other fields then make the trip without the steps, as the format says they
    are written without them (``Format.without_steps``: what it derives from the steps given
    as derived). Otherwise, and should that trip fail, the whole
    run makes the trip, as ``convert`` has always proved it (the oracle of
    ``tests/test_trip_back.py``)."""
    steps, own = back.steps, run.steps
    bare = source.without_steps(back)
    if not isinstance(steps, tuple) or bare is None:
        return _whole_trip_back(source, back), True
    exact = True
    if "steps" not in unheld:
        shown: tuple[RunStep, ...] | None = ()  # (not read)
    elif not isinstance(own, tuple):
        return _whole_trip_back(source, back), True
    elif len(own) != len(steps):
        shown = steps if source.keeps_every_step(steps) else None  # (their number is read)
    elif _alike(source, own, steps) and source.carried(record) is None:
        shown = own
    else:
        differs = _first_unlike(source, back, own)
        if differs is None:
            return _whole_trip_back(source, back), True
        shown, exact = (steps, False) if differs else (own, True)
    if shown is None:
        return _whole_trip_back(source, back), True
    try:
        fields = source.write_and_read(bare)[1]
    except Exception:  # (the whole trip says what is wrong, as it always has)
        return _whole_trip_back(source, back), True
    return replace(fields, steps=shown), exact


def _first_unlike(source: Format[Any], back: Run, steps: tuple[RunStep, ...]) -> bool | None:
    """Whether the steps of ``back`` do not come back through ``source`` as ``steps`` (made
    step by step, up to the first that differs, or one too many or too few); None when the
    format cannot say without the whole trip."""
    tripped = source.step_trips(back)
    if tripped is None:
        return None
    return any(
        returned != step for returned, step in zip_longest(tripped, steps, fillvalue=_NO_STEP)
    )


_NO_STEP: Final = object()
"""Where one list of steps has ended before the other (equal to no step)."""


def _alike(source: Format[Any], steps: tuple[RunStep, ...], others: tuple[RunStep, ...]) -> bool:
    """Whether two lists of steps, as many, differ only in fields ``source`` writes nothing
    from."""
    unwritten = source.step_fields_unwritten
    if not unwritten:
        return False
    written = _written_of_step(unwritten)
    return all(written(a) == written(b) for a, b in zip(steps, others, strict=True))


@cache
def _written_of_step(unwritten: frozenset[str]) -> Callable[[RunStep], tuple[object, ...]]:
    return attrgetter(*(name for name in _STEP_FIELDS if name not in unwritten))


def _whole_trip_back(source: Format[Any], back: Run) -> Run:
    return source.write_and_read(back)[1]


def unread_fields(fmt: Format[Any], record: BaseModel) -> list[Loss]:
    """A loss for every field the record holds that the format's reader does not read: a
    field declared lost, or one no declaration names (the models were regenerated from a
    newer schema and the mapper not updated yet). A model read whole is read whole: nothing
    inside it is looked at. Free when every field is read."""
    skipped = _skipped(type(fmt))
    if not skipped:
        return []
    found: list[Loss] = []
    _walk_unread(record, "", skipped, fmt.name, found)
    return found


_SKIPPED: dict[type[Format[Any]], dict[type[BaseModel], frozenset[str] | None]] = {}


def _skipped(kind: type[Format[Any]]) -> dict[type[BaseModel], frozenset[str] | None]:
    """Per model class: the fields its reader does not read (None for a model read whole);
    empty when the reader reads everything."""
    found = _SKIPPED.get(kind)
    if found is None:
        found = _SKIPPED[kind] = _unread_by(kind)
    return found


def _unread_by(kind: type[Format[Any]]) -> dict[type[BaseModel], frozenset[str] | None]:
    from agentruns._coverage import reachable_models

    coverage = kind.coverage
    result: dict[type[BaseModel], frozenset[str] | None] = {}
    root = kind.model if isinstance(getattr(kind, "model", None), type) else None
    whole = {name for name, declared in coverage.items() if declared == WHOLE}
    models = reachable_models(root, whole) if root is not None else set()
    for model in models:
        declared = coverage.get(model.__name__)
        if declared == WHOLE:
            result[model] = None
            continue
        read = {name for name, use in (declared or {}).items() if use == "read"}
        result[model] = frozenset(model.model_fields) - read
    if not any(result.values()):
        return {}
    return result


def _walk_unread(
    value: object,
    at: str,
    skipped: dict[type[BaseModel], frozenset[str] | None],
    reader: str,
    found: list[Loss],
) -> None:
    if isinstance(value, BaseModel):
        unread = skipped.get(type(value), frozenset())
        if unread is None:
            return  # read whole: nothing inside it is lost
        for name in value.model_fields_set:
            info = type(value).model_fields.get(name)
            if info is None:
                continue
            wire = info.alias or name
            where = f"{at}/{escape(wire)}"
            if name in unread:
                found.append(Loss(where, f"the {reader} reader does not read {wire}"))
            else:
                _walk_unread(getattr(value, name), where, skipped, reader, found)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _walk_unread(item, f"{at}/{index}", skipped, reader, found)


def from_canonical(run: Run, to: type[M]) -> Written[M]:
    """Write a canonical run (built by an adapter, say) in a format.

    Raises ``FormatError`` for a model of no registered format, ``ConversionError`` when no
    record of the format can hold the run, and ``TypeError`` for what is no ``Run`` (a dict,
    or a run whose steps or subagents are not ``RunStep`` and ``Run`` values): said here,
    not as an attribute missing somewhere inside a writer."""
    target = format_for(to)
    _check_run(run, "run")
    make_room()
    try:
        with left_out() as gone:
            written = target.write(run)
    except AgentrunsError:
        raise
    except RecursionError as error:
        raise ConversionError(f"writing {target.name} failed: {_TOO_DEEP}") from error
    except Exception as error:  # a value the format's schema refuses
        raise ConversionError(f"writing {target.name} failed: {_brief(error)}") from error
    if gone:  # nothing here reports a loss: a value left out is the run's refusal
        raise ConversionError(
            f"writing {target.name} failed: {'; '.join(gone)} "
            "(convert reports such a value lost and writes the rest)"
        )
    return written


def _check_run(run: object, name: str) -> None:
    """``TypeError`` unless ``run`` is a ``Run`` whose steps are ``RunStep`` values and whose
    subagents are runs of the same kind, at any depth (an adapter's run is checked before any
    writer reads it)."""
    pending: list[tuple[object, str]] = [(run, name)]
    while pending:
        value, where = pending.pop()
        if not isinstance(value, Run):
            raise TypeError(f"{where} is a {type(value).__name__}, not an agentruns.Run")
        for field, kind in (("steps", RunStep), ("subagents", Run)):
            items = getattr(value, field)
            if items is MISSING:
                continue
            if not isinstance(items, tuple):
                shown = type(items).__name__
                raise TypeError(f"{where}.{field} is a {shown}, not a tuple (or MISSING)")
            for index, item in enumerate(items):
                if kind is RunStep and not isinstance(item, RunStep):
                    shown = type(item).__name__
                    raise TypeError(f"{where}.steps[{index}] is a {shown}, not a RunStep")
                if kind is Run:
                    pending.append((item, f"{where}.subagents[{index}]"))


# -- carrying ---------------------------------------------------------------------------


@cache
def _run_adapter() -> TypeAdapter[Run]:
    from pydantic import TypeAdapter  # imported on first carry: keeps `import agentruns` lean

    return TypeAdapter(Run)


@cache
def _step_adapter() -> TypeAdapter[RunStep]:
    from pydantic import TypeAdapter

    return TypeAdapter(RunStep)


@cache
def _steps_adapter() -> TypeAdapter[list[RunStep]]:
    from pydantic import TypeAdapter

    return TypeAdapter(list[RunStep])


def _carry_payload(
    origin: str,
    run: Run,
    names: list[str],
    shown: Run | None = None,
    *,
    subagents_in_part: bool = False,
) -> dict[str, JsonValue]:
    """The payload carrying ``names`` of ``run``. ``shown``: the run as the target shows it
    without a carry; where its steps pair with the run's, the steps are carried as what the
    target does not show of each (a version 2 payload), not whole: a step whose name and
    time come back but not its kind costs its kind, not its kilobytes of input and output.
    Subagents the target shows are carried so too (a version 3 payload: ATIF keeps a
    subagent's steps and tokens, not its cache writes or its times)."""
    patch = subagents = None
    if "steps" in names and shown is not None:
        patch = _step_patch(run.steps, shown.steps)
    if "subagents" in names and shown is not None:
        subagents = subagent_patch(run.subagents, shown.subagents, partial=subagents_in_part)
    if patch is not None:
        names = [name for name in names if name != "steps"]
    if subagents is not None:
        names = [name for name in names if name != "subagents"]
    present = {name for name in names if getattr(run, name) is not MISSING}
    values: dict[str, JsonValue] = _run_adapter().dump_python(run, mode="json", include=present)
    absent: list[JsonValue] = [name for name in names if name not in present]
    version = CARRY_VERSION if patch is None else CARRY_STEPS_VERSION
    payload: dict[str, JsonValue] = {
        "version": CARRY_SUBAGENTS_VERSION if subagents is not None else version,
        "origin": origin,
        "fields": values,
        "absent": absent,
    }
    if patch is not None:
        payload["steps"] = patch
    if subagents is not None:
        payload["subagents"] = subagents
    return payload


def subagent_patch(
    subagents: tuple[Run, ...] | MISSING,
    shown: tuple[Run, ...] | MISSING,
    *,
    partial: bool = False,
) -> list[JsonValue] | None:
    """Per subagent, what ``shown``'s lacks of it (``null``: nothing) of its own fields, its
    steps and subagents left out; None when the subagents do not pair (the target keeps
    another number of them, or none), or when one differs in its steps or subagents, which
    a patch does not hold. ``partial``: an import's patch, made all the same (the caller
    says what of the steps went) and of the values a subagent has (one the target fills
    in where the session has none is derived, as for the run itself)."""
    if (
        not isinstance(subagents, tuple)
        or not isinstance(shown, tuple)
        or len(subagents) != len(shown)
    ):
        return None
    patch: list[JsonValue] = []
    for sub, kept in zip(subagents, shown, strict=True):
        if not partial and (sub.steps != kept.steps or sub.subagents != kept.subagents):
            return None
        present: set[str] = set()
        absent: list[JsonValue] = []
        for name in PATCHED_SUBAGENT_FIELDS:
            value = getattr(sub, name)
            if value != getattr(kept, name):
                if value is MISSING:
                    if not partial:
                        absent.append(name)
                else:
                    present.add(name)
        if not present and not absent:
            patch.append(None)
            continue
        values: dict[str, JsonValue] = _run_adapter().dump_python(sub, mode="json", include=present)
        patch.append({"fields": values, "absent": absent})
    return patch


_Item = TypeVar("_Item")


def _pairs(
    items: tuple[_Item, ...] | MISSING, patch: JsonValue, what: str
) -> list[tuple[_Item, JsonValue]]:
    """The record's own items (steps, subagents) each with its change in a patch;
    ValueError when they do not pair (the record was edited after the carry was written)."""
    own = items if isinstance(items, tuple) else ()
    assert isinstance(patch, list)
    if len(patch) != len(own):
        raise ValueError(f"{what}: {len(patch)} carried for the record's {len(own)}")
    return list(zip(own, patch, strict=True))


def _patched_subagents(subagents: tuple[Run, ...] | MISSING, patch: JsonValue) -> tuple[Run, ...]:
    """The record's own subagents with a version 3 payload's patch applied; ValueError when
    the patch does not pair with them (the record was edited) or its values do not
    validate."""
    patched: list[Run] = []
    for index, (sub, change) in enumerate(_pairs(subagents, patch, "subagents")):
        if change is None:
            patched.append(sub)
            continue
        assert isinstance(change, dict)
        try:
            update = _carried_fields(change)
        except ValueError as error:
            raise ValueError(f"subagents/{index}/{error}") from None
        patched.append(replace(sub, **update))
    return tuple(patched)


def _step_patch(
    steps: tuple[RunStep, ...] | MISSING, shown: tuple[RunStep, ...] | MISSING
) -> list[JsonValue] | None:
    """Per step, what ``shown``'s step lacks of it (``null``: nothing), or None when the
    steps do not pair (the target keeps another number of them, or none)."""
    if not isinstance(steps, tuple) or not isinstance(shown, tuple) or len(steps) != len(shown):
        return None
    patch: list[JsonValue] = []
    changed: list[RunStep] = []  # the steps that differ, dumped in one call
    include: dict[int, set[str]] = {}
    for step, kept in zip(steps, shown, strict=True):
        mine, theirs = _ALL_OF_STEP(step), _ALL_OF_STEP(kept)
        if mine == theirs:  # (what ``step == kept`` compares, read once for both uses)
            patch.append(None)
            continue
        present: set[str] = set()
        absent: list[JsonValue] = []
        for name in _differing(_STEP_FIELDS, mine, theirs):
            if getattr(step, name) is MISSING:
                absent.append(name)
            else:
                present.add(name)
        include[len(changed)] = present
        changed.append(step)
        patch.append({"fields": {}, "absent": absent})
    if changed:
        dumped: list[dict[str, JsonValue]] = _steps_adapter().dump_python(
            changed, mode="json", include=include
        )
        places = (change for change in patch if isinstance(change, dict))
        for change, values in zip(places, dumped, strict=True):
            change["fields"] = values
    return patch


def _patched_steps(steps: tuple[RunStep, ...] | MISSING, patch: JsonValue) -> tuple[RunStep, ...]:
    """The record's own steps with a version 2 payload's patch applied; ValueError when the
    patch does not pair with them (the record was edited) or its values do not validate."""
    from pydantic import ValidationError

    adapter = _step_adapter()
    patched: list[RunStep] = []
    for index, (step, change) in enumerate(_pairs(steps, patch, "steps")):
        if change is None:
            patched.append(step)
            continue
        assert isinstance(change, dict)
        fields, absent = change["fields"], change["absent"]
        assert isinstance(fields, dict)
        assert isinstance(absent, list)
        try:
            restored = adapter.validate_python({"kind": step.kind, **fields})
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            at = "/".join(str(part) for part in first["loc"])
            raise ValueError(f"steps/{index}/fields/{at}: {first['msg']}") from None
        update: dict[str, Any] = {name: getattr(restored, name) for name in fields}
        update.update({str(name): MISSING for name in absent})
        patched.append(replace(step, **update))
    return tuple(patched)


def _carried_fields(payload: dict[str, JsonValue]) -> dict[str, Any]:
    """Canonical field -> value of a recognised payload; ValueError when its values do not
    validate as the canonical fields they name."""
    from pydantic import ValidationError

    fields = payload["fields"]
    absent = payload["absent"]
    assert isinstance(fields, dict)
    assert isinstance(absent, list)
    try:
        restored = _run_adapter().validate_python(fields)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        at = "/".join(str(step) for step in first["loc"])
        raise ValueError(f"fields/{at}: {first['msg']}") from None
    update: dict[str, Any] = {name: getattr(restored, name) for name in fields}
    update.update({str(name): MISSING for name in absent})
    return update


def _carried(
    target: Format[Any],
    record: BaseModel,
    origin: str,
    run: Run,
    names: list[str],
    shown: Run | None = None,
    *,
    subagents_in_part: bool = False,
) -> tuple[BaseModel | None, list[str]]:
    """The record carrying ``names`` (None where the format has no place), and the names it
    could not carry: a value nested too deep for the target's models to hold is left out
    and reported, the others are still carried. ``shown``: the run the record shows (its
    steps and subagents are then carried as what it does not show of each;
    ``subagents_in_part``: the subagents so even where their own steps differ, which the
    caller reports)."""
    if not _has_place(target):
        return None, []  # (no payload made: a large one costs a run's steps dumped)
    payload = partial(_carry_payload, origin, run, shown=shown, subagents_in_part=subagents_in_part)
    carry = partial(_carry, target, record, deep=_nests(run, _DEEP_SUBAGENTS))
    try:
        return carry(payload(names)), []
    except (ValueError, RecursionError):  # some value nests too deep to carry
        pass
    fits = []
    for name in names:
        try:
            carry(payload([name]))
            fits.append(name)
        except (ValueError, RecursionError):
            continue
    uncarried = [name for name in names if name not in fits]
    try:
        return (carry(payload(fits)) if fits else record), uncarried
    except (ValueError, RecursionError):  # together too deep after all: carry none
        return record, names


def _has_place(target: Format[Any]) -> bool:
    """Whether the format may keep a payload: it has a carry place, or keeps one by its own
    ``carry`` (a format without either returns None for any payload, made for nothing)."""
    return target.carry_place is not None or type(target).carry is not Format.carry


_DEEP_SUBAGENTS = 16
"""Subagent levels from which a carried record is serialized once to prove that it can be:
the payload holds the subagents again, below its place in the record, and pydantic-core's
serializer stops at 255 levels from the root (an ATIF trajectory with 150
levels of subagents carried into AgentRun could not be dumped). Shallower runs cannot come
near it and pay nothing."""


def _carry(
    target: Format[Any], record: BaseModel, payload: dict[str, JsonValue], *, deep: bool
) -> BaseModel | None:
    """``target.carry``, and for a deep run proof that the result serializes (a
    ``ValueError`` when it does not, as for a payload that cannot be made)."""
    kept = target.carry(record, payload)
    if deep and kept is not None:
        kept.model_dump_json()  # PydanticSerializationError is a ValueError
    return kept


def _nests(run: Run, levels: int) -> bool:
    """Whether ``run``'s subagents nest ``levels`` deep (a walk of the subagents alone)."""
    pending = [(run, 0)]
    while pending:
        current, depth = pending.pop()
        if depth >= levels:
            return True
        if isinstance(current.subagents, tuple):
            pending.extend((child, depth + 1) for child in current.subagents)
    return False


_TOO_DEEP_TO_CARRY = (
    ", and it nests too deep to be carried in the record (past the 255 levels pydantic-core "
    "serializes)"
)


def _in_order(losses: list[Loss]) -> tuple[Loss, ...]:
    """Losses in document order of their pointers (array indexes as numbers), so that two
    runs over the same record report the same lines."""
    return tuple(sorted(losses, key=lambda loss: (_pointer_key(loss.pointer), loss.reason)))


def _pointer_key(pointer: str) -> tuple[tuple[int, int, str], ...]:
    return tuple(
        (0, int(part), "") if part.isascii() and part.isdigit() else (1, 0, part)
        for part in pointer.split("/")[1:]
    )


_TOO_DEEP = f"the run nests deeper than {ROOM} Python frames can follow"


def _brief(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:200]}"


def _losses(
    source: Format[Any],
    target: Format[Any],
    name: str,
    run: Run,
    returned: Run,
    derived: tuple[Derived, ...] = (),
) -> list[Loss]:
    where = source.pointer(name)
    value = getattr(run, name)
    if value is MISSING:
        return [Loss(where, f"{target.name} cannot say that {name} is absent")]
    there = target.pointer(name)  # (once: a record may lose dozens of fields to one target)
    own = next((d for d in derived if d.pointer == there), None)
    if own is not None and name not in _EXTRAS and name != "steps":
        # the target writes its own value there (portable's total, as eval-magic counts it)
        return [Loss(where, f"{target.name} writes its own {name} in its place: {own.reason}")]
    if name in _EXTRAS and isinstance(value, dict):
        # extra properties of the object at ``where``: each lost one by its own pointer
        back = getattr(returned, name)
        kept = back if isinstance(back, dict) else {}
        return [
            Loss(f"{where}/{escape(key)}", f"{target.name} has no place for this property")
            for key, item in value.items()
            if key not in kept or kept[key] != item
        ] or [Loss(where, f"{target.name} has no place for {name}")]
    if name == "steps" and isinstance(value, tuple):
        return step_losses(target.name, value, returned.steps, source.step_pointer, where)
    return [Loss(where, f"{target.name} has no place for {name}")]


_STEP_FIELDS = tuple(field.name for field in dataclasses.fields(RunStep))


def _differing(
    names: tuple[str, ...], mine: tuple[object, ...], theirs: tuple[object, ...]
) -> list[str]:
    """The names whose values differ between two rows of values in ``names``' order: the
    comparisons made in one pass of C (``map``, ``compress``), not a Python loop over every
    field of a run or a step, most of them equal."""
    return list(compress(names, map(ne, mine, theirs)))


_ALL = attrgetter(*FIELDS)
"""A run's fields in ``FIELDS`` order, read in one call (comparing two runs field by field
reads about fifty of each)."""

_ALL_OF_STEP = attrgetter(*_STEP_FIELDS)


def step_losses(
    target: str,
    steps: tuple[RunStep, ...],
    back: tuple[RunStep, ...] | MISSING,
    locate: Callable[[int, str, str | None], str | None],
    where: str,
) -> list[Loss]:
    """What ``target`` did not keep of the steps, each value at its own pointer
    (``locate(index, field, extra key)``; ``where``, the steps' pointer, when it cannot
    say): a step's status, its arguments, one extra property. When the target kept a
    different number of steps, the positions do not pair, and the list is one loss."""
    returned = back if isinstance(back, tuple) else ()
    if len(returned) != len(steps):
        kinds = ", ".join(sorted({step.kind for step in steps}))
        reason = (
            f"{target} keeps {len(returned)} of {len(steps)} steps, not all their fields "
            f"(kinds here: {kinds})"
        )
        return [Loss(where, reason)]
    losses: list[Loss] = []
    for index, (step, kept) in enumerate(zip(steps, returned, strict=True)):
        mine, theirs = _ALL_OF_STEP(step), _ALL_OF_STEP(kept)
        if mine == theirs:
            continue
        for name in _differing(_STEP_FIELDS, mine, theirs):
            value, shown = getattr(step, name), getattr(kept, name)
            if name == "extra" and isinstance(value, dict):
                held = shown if isinstance(shown, dict) else {}
                for key, item in value.items():
                    if key not in held or held[key] != item:
                        at = locate(index, name, key) or where
                        reason = f"{target} has no place for this property of step {index}"
                        losses.append(Loss(at, reason))
                continue
            at = locate(index, name, None) or where
            if value is MISSING:
                reason = f"{target} cannot say that step {index}'s {name} is absent"
            elif shown is MISSING and nests(value):
                reason = (
                    f"{target} cannot hold step {index}'s {name}: it nests {DEEP} levels or "
                    "more, past what pydantic-core validates"
                )
            elif shown is MISSING:
                reason = f"{target} has no place for step {index}'s {name}"
            else:
                reason = f"{target} cannot hold step {index}'s {name} as it is"
            losses.append(Loss(at, reason))
    return losses


_EXTRAS = frozenset({"extra", "result_extra", "metrics_extra"})
"""Canonical fields holding the extra properties of the object their pointer names."""
