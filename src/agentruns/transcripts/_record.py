"""A transcript's run written as a record of one format, completed by values the user gives.

A transcript does not hold everything a format requires (portable's eval id and prompt,
cortex's kind, AgentRun's agent id). Where the format's writer would have to make such a
value up, the user must give it (``--set``); a made-up eval id would look like data. Values
the writer derives from what the run does hold (an event's time from the run's start) are
kept and listed as derived. Fields of the run the format has no place for are losses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import MISSING, BaseModel, ValidationError

from agentruns._pointer import escape, split, unescape
from agentruns.canonical import FIELDS, Run
from agentruns.conversion import (
    _EXTRAS,
    Derived,
    Format,
    Loss,
    Written,
    _carried,
    format_for,
    step_losses,
    subagent_patch,
)
from agentruns.detect import MODELS
from agentruns.errors import RecordError
from agentruns.formats._base import PATCHED_SUBAGENT_FIELDS
from agentruns.io import error_pointers
from agentruns_generated._json import JsonValue

_NOT_CARRIED = frozenset({"steps", "subagents"})


@dataclass(frozen=True, slots=True)
class Imported:
    record: BaseModel
    losses: tuple[Loss, ...]
    derived: tuple[Derived, ...]
    kept: tuple[str, ...] = ()
    """Values given (``--set``) that the session already holds: its own were kept."""


def _stem(source: str) -> str:
    name = Path(source.partition("#")[0]).name
    for suffix in (".jsonl", ".ndjson", ".json", ".db", ".aider.chat.history.md", ".md"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or name
    return name


_TIMES = frozenset({"started_at", "ended_at"})

_EVAL_VALUES = frozenset({"eval_id", "condition", "skill_path", "prompt", "files", "run_index"})
"""What portable records of the eval a run belongs to (its prompt among them), which a
session cannot say: asked for, never derived."""


def _timestamp(text: JsonValue) -> object:
    """An RFC 3339 text as the canonical run holds a time (a ``Timestamp`` keeping it)."""
    from pydantic import TypeAdapter

    from agentruns_generated._json import JsonDateTime

    return TypeAdapter(JsonDateTime).validate_python(text)


def _written_at(source: str) -> tuple[JsonValue, str] | None:
    """A session that records no time: when its file was last written."""
    import os
    from datetime import UTC, datetime

    try:
        stamp = os.stat(source.partition("#")[0]).st_mtime
    except (OSError, ValueError):
        return None
    text = datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return text, "the session records no time: when its file was last written"


_FROM_SESSION: dict[str, Callable[[Run, str], tuple[JsonValue, str] | None]] = {
    "agent_id": lambda run, source: (
        (run.framework, "the agent that recorded the session (its harness)")
        if isinstance(run.framework, str)
        else None
    ),
    "run_id": lambda run, source: (
        (_stem(source), "the session file's name (the session records no id of its own)")
        if source not in ("", "-")
        else None
    ),
    "kind": lambda run, source: ("conversation", "a session is an agent's conversation"),
    "goal": lambda run, source: (
        "",
        "the session does not record the task it was given (a scripted stream): none is stated",
    ),
    "started_at": lambda run, source: _written_at(source),
    "final_message": lambda run, source: ("", "the session ends with no message of the agent's"),
}
"""Values a format requires that a session's own facts give, where the session does not
state them: each is reported as derived, with its reason."""


def _top(pointer: str) -> str | None:
    parts = pointer.split("/")
    return unescape(parts[1]) if len(parts) == 2 else None


def _set(document: dict[str, JsonValue], key: str, value: JsonValue) -> None:
    """Set a top-level property, or the property a JSON pointer names (objects on the way
    are made as needed)."""
    if not key.startswith("/"):
        document[key] = value
        return
    parts = split(key)
    target: dict[str, JsonValue] = document
    for part in parts[:-1]:
        inner = target.get(part)
        if not isinstance(inner, dict):
            inner = {}
            target[part] = inner
        target = inner
    target[parts[-1]] = value


def _required(model: type[BaseModel]) -> frozenset[str]:
    return frozenset(
        field.alias or name for name, field in model.model_fields.items() if field.is_required()
    )


def _model(to: str) -> type[BaseModel]:
    try:
        return MODELS[to]
    except KeyError:
        raise RecordError(f"unknown format {to!r}", ()) from None


def _plain(document: dict[str, object]) -> JsonValue:
    """The document as JSON, for locating errors (which are rare: only then is this paid)."""
    from pydantic_core import to_jsonable_python

    plain: JsonValue = to_jsonable_python(document, by_alias=True)
    return plain


def needed(run: Run, to: str) -> tuple[Derived, ...]:
    """The values format ``to`` requires that the run does not hold: what its writer would
    have to make up (an optional value it derives from the run's own data is fine); none
    when no record of the format can hold the run at all (a required value beyond what its
    schema allows): ``to_record`` then says which."""
    model = _model(to)
    try:
        written = format_for(model).write(run)
    except ValueError:  # (pydantic's ValidationError among them)
        return ()
    return _made_up(written.derived, model, run)


def _made_up(derived: tuple[Derived, ...], model: type[BaseModel], run: Run) -> tuple[Derived, ...]:
    """What the writer made up of what the format requires: a value derived under a required
    field, except one the run holds, written in the format's own way (ATIF numbering the
    steps of a run whose indexes count otherwise)."""
    required = _required(model)
    fmt = format_for(model)
    holds = {fmt.pointer(name) for name in FIELDS if getattr(run, name) is not MISSING}
    return tuple(d for d in derived if _top(d.pointer) in required and d.pointer not in holds)


def _with_values(record: BaseModel, values: Mapping[str, JsonValue]) -> dict[str, object]:
    """The record as input for its model, with ``values`` set. Top-level values only: the
    record's own parts go in as they are (models, already valid, are not validated again,
    and not copied: a transcript's record can be tens of megabytes)."""
    if any(key.startswith("/") for key in values):
        document: dict[str, JsonValue] = record.model_dump(mode="json", by_alias=True)
        for key, value in values.items():
            _set(document, key, value)
        return dict(document)
    fields = type(record).model_fields
    shallow: dict[str, object] = {}
    for name, field in fields.items():
        value = getattr(record, name)
        if value is not MISSING:
            shallow[field.alias or name] = value
    shallow.update(record.model_extra or {})
    shallow.update(values)
    return shallow


def _validated(
    model: type[BaseModel], written: BaseModel, values: Mapping[str, JsonValue], to: str
) -> BaseModel:
    document = _with_values(written, values)
    try:
        return model.model_validate(document)
    except ValidationError as error:
        problems = tuple(error_pointers(error, _plain(document)))
        said = "; ".join(f"{p or '/'}: {m}" for p, m in problems[:3])
        raise RecordError(f"not a valid {to} record: {said}", problems) from None


def to_record(
    run: Run,
    to: str,
    values: Mapping[str, JsonValue],
    *,
    source: str = "",
    override: bool = False,
) -> Imported:
    """The run as a record of format ``to``, with ``values`` (property names or JSON
    pointers) set on it, validated as a whole by the format's model.

    A value the format requires and the session does not state is derived from the session
    where its facts give it (``source``, the session file, names a run without an id). A
    given value fills what the session does not hold; one it holds is kept, and the given
    one left out (``kept``), unless ``override``."""
    model = _model(to)
    fmt = format_for(model)
    written = _write(fmt, run, to)
    values, kept_own = _unheld(values, written, override)
    given = {key if key.startswith("/") else "/" + key for key in values}
    from_session: list[Derived] = []
    filled: dict[str, Any] = {}
    by_pointer = {fmt.pointer(name): name for name in FIELDS}
    for d in _made_up(written.derived, model, run):
        name = by_pointer.get(d.pointer)
        derive = _FROM_SESSION.get(name or "")
        if d.pointer in given or name is None or derive is None or _top(d.pointer) in _EVAL_VALUES:
            continue
        found = derive(run, source)
        if found is not None:
            value, reason = found
            filled[name] = _timestamp(value) if name in _TIMES else value
            from_session.append(Derived(d.pointer, value, reason))
    if filled:
        run = replace(run, **filled)
        written = _write(fmt, run, to)
    missing = [d for d in _made_up(written.derived, model, run) if d.pointer not in given]
    if missing:
        names = ", ".join(d.pointer[1:] for d in missing)
        if all(_top(d.pointer) in _EVAL_VALUES for d in missing):
            names = f"{names} (an eval's own values: no session holds them)"
        # what the format asks, not what a conversion would put there ("the run id is
        # used"): an import writes no made-up value, it names it
        problems = tuple(
            (
                d.pointer,
                f"the transcript does not give it ({d.reason.split(';')[0]}); "
                f"--set {d.pointer[1:]}=...",
            )
            for d in missing
        )
        raise RecordError(f"{to} needs values the transcript does not give: {names}", problems)
    record = _validated(model, written.record, values, to)
    back = fmt.read(record)
    if any(d.pointer not in given for d in written.derived):
        # Values the writer derived may rest on values given here (cortex dates an untimed
        # event by the run's start): write again from the run with the given values, as
        # the format's own reader understands them.
        updates = {
            name: getattr(back, name)
            for name in FIELDS
            if getattr(run, name) is MISSING
            and fmt.pointer(name) in given
            and getattr(back, name) is not MISSING
        }
        if updates:
            written = _write(fmt, replace(run, **updates), to)
            record = _validated(model, written.record, values, to)
            back = fmt.read(record)
    kept = [*from_session, *(d for d in written.derived if d.pointer not in given)]
    unheld = [
        name
        for name in FIELDS
        if getattr(run, name) is not MISSING
        and getattr(back, name) != getattr(run, name)
        and fmt.pointer(name) not in given
    ]
    # What the format has no field for is carried where it can carry (AgentRun's reserved
    # property, cortex's carry event), as a conversion carries it: the run's model and token
    # kinds come back in `stats` and `convert`. Steps are not carried, nor subagents whole:
    # they would hold the transcript twice (each subagent's own values are, below).
    carriable = [name for name in unheld if name not in _NOT_CARRIED]
    carried = run
    if "subagents" in unheld and isinstance(run.subagents, tuple):
        if isinstance(back.subagents, tuple):
            # a target that shows the subagents (ATIF) is given what it does not show of
            # each (a subagent's cache writes, its times): a few values, not the transcript
            patch = subagent_patch(run.subagents, back.subagents, partial=True)
            if patch is not None and any(change is not None for change in patch):
                carriable.append("subagents")
        else:
            # one that has none is given each without its steps: its tokens, model, times
            # and cost (what stats counts of it), not its transcript a second time
            carried = replace(run, subagents=_without_steps(run.subagents))
            carriable.append("subagents")
    uncarried = carriable
    if carriable:
        carrying, uncarried = _carried(
            fmt, record, "transcript", carried, carriable, back, subagents_in_part=True
        )
        if carrying is None:
            uncarried = carriable
        else:
            record = carrying
    losses: list[Loss] = []
    for name in unheld:
        value = getattr(run, name)
        if name == "subagents" and name in carriable and name not in uncarried:
            assert isinstance(value, tuple)
            if isinstance(back.subagents, tuple):
                # carried as a patch of each one's own fields: what the patch does not hold
                # (a subagent's steps the target shows otherwise) is still named
                losses += _subagent_losses(to, value, back.subagents, "/subagents", _INSIDE)
            else:
                losses += _steps_not_carried(to, value, "/subagents")
            continue
        if name in carriable and name not in uncarried:
            continue
        if name == "steps" and isinstance(value, tuple):
            losses += step_losses(to, value, back.steps, _in_run, "/steps")
            continue
        if name == "subagents" and isinstance(value, tuple) and isinstance(back.subagents, tuple):
            losses += _subagent_losses(to, value, back.subagents, "/subagents")
            continue
        if (own := _stated(written.derived, fmt.pointer(name))) is not None:
            reason = (
                f"{to} writes its own {name} in its place ({own}), not the transcript's {value!r}"
            )
        else:
            reason = f"{to} has no place for the transcript's {name}"
        losses.append(Loss(f"/{name}", reason))
    return Imported(record, tuple(losses), tuple(kept), kept_own)


def _without_steps(subagents: tuple[Run, ...]) -> tuple[Run, ...]:
    """The subagents, at any depth, without their steps (rebuilt from the deepest up, not by
    recursion: a run may nest thousands of levels)."""
    order: list[Run] = []
    pending = list(subagents)
    while pending:
        sub = pending.pop()
        order.append(sub)
        if isinstance(sub.subagents, tuple):
            pending.extend(sub.subagents)
    made: dict[int, Run] = {}
    for sub in reversed(order):  # each subagent's own after it in ``order``: made first
        children = sub.subagents
        below = tuple(made[id(c)] for c in children) if isinstance(children, tuple) else MISSING
        made[id(sub)] = replace(sub, steps=MISSING, subagents=below)
    return tuple(made[id(sub)] for sub in subagents)


def _steps_not_carried(to: str, subagents: tuple[Run, ...], where: str) -> list[Loss]:
    """A loss for the steps of each subagent carried without them, at any depth, in
    document order."""
    reason = f"{to} has no place for a subagent's steps (its other values are carried)"
    losses: list[Loss] = []
    pending = [(f"{where}/{index}", sub) for index, sub in reversed(list(enumerate(subagents)))]
    while pending:
        at, sub = pending.pop()
        if isinstance(sub.steps, tuple) and sub.steps:
            losses.append(Loss(f"{at}/steps", reason))
        if isinstance(sub.subagents, tuple):
            below = enumerate(sub.subagents)
            pending += [(f"{at}/subagents/{index}", one) for index, one in reversed(list(below))]
    return losses


_INSIDE = tuple(name for name in FIELDS if name not in PATCHED_SUBAGENT_FIELDS)
"""A subagent's fields a carried patch does not hold."""


def _subagent_losses(
    to: str,
    subagents: tuple[Run, ...],
    kept: tuple[Run, ...],
    where: str,
    only: tuple[str, ...] = FIELDS,
) -> list[Loss]:
    """What ``to`` did not keep of the subagents it writes (ATIF's embedded trajectories),
    each value at its own pointer in the run (``/subagents/0/cache_creation_tokens``): a
    format that holds subagents holds most of each, and "no place for the subagents" said
    of all of them named nothing of what went. When it kept another number of them, the
    positions do not pair, and the list is one loss."""
    if len(kept) != len(subagents):
        reason = f"{to} keeps {len(kept)} of the transcript's {len(subagents)} subagents"
        return [Loss(where, reason)]
    losses: list[Loss] = []
    for index, (sub, back) in enumerate(zip(subagents, kept, strict=True)):
        at = f"{where}/{index}"
        for name in only:
            value, shown = getattr(sub, name), getattr(back, name)
            if value is MISSING or value == shown:
                continue  # (what the writer fills in is derived, as for the run itself)
            if name == "steps" and isinstance(value, tuple):
                losses += step_losses(to, value, shown, _in_steps(f"{at}/steps"), f"{at}/steps")
            elif name == "subagents" and isinstance(value, tuple) and isinstance(shown, tuple):
                losses += _subagent_losses(to, value, shown, f"{at}/subagents")
            elif name in _EXTRAS and isinstance(value, dict):
                held = shown if isinstance(shown, dict) else {}
                losses += [
                    Loss(f"{at}/{name}/{escape(key)}", f"{to} has no place for this property")
                    for key, item in value.items()
                    if key not in held or held[key] != item
                ]
            elif shown is MISSING:
                losses.append(Loss(f"{at}/{name}", f"{to} has no place for a subagent's {name}"))
            else:
                reason = f"{to} cannot hold a subagent's {name} as it is"
                losses.append(Loss(f"{at}/{name}", reason))
    return losses


def _in_steps(where: str) -> Callable[[int, str, str | None], str]:
    """``_in_run`` for the steps at ``where`` (a subagent's)."""

    def locate(index: int, field: str, key: str | None) -> str:
        if key is not None:
            return f"{where}/{index}/extra/{escape(key)}"
        return f"{where}/{index}/{field}"

    return locate


def _in_run(index: int, field: str, key: str | None) -> str:
    """Where a step's value is in the run a session reads as (``/steps/3/status``)."""
    if key is not None:
        return f"/steps/{index}/extra/{escape(key)}"
    return f"/steps/{index}/{field}"


def _stated(derived: tuple[Derived, ...], pointer: str) -> str | None:
    """Why the writer put its own value where the run's is (a format's own total)."""
    return next((d.reason for d in derived if d.pointer == pointer), None)


def _write(fmt: Format[Any], run: Run, to: str) -> Written[BaseModel]:
    """The run written as ``to``; a value the format's models refuse where the writer cannot
    leave it out (a required field: an optional one is left out, then carried or reported
    lost) makes the run a refused record naming the value, never a crash."""
    try:
        written: Written[BaseModel] = fmt.write(run)
    except ValidationError as error:
        problems = tuple(
            dict.fromkeys(
                ("/" + "/".join(str(step) for step in item["loc"] if _is_place(step)), item["msg"])
                for item in error.errors(include_url=False)
            )
        )
        raise RecordError(f"{to} cannot hold a value of this run", problems[:1]) from None
    except RecursionError:
        raise RecordError(
            f"{to} cannot hold this run", (("", "a value nests too deep to write"),)
        ) from None
    return written


def _is_place(step: str | int) -> bool:
    """A step of a validation error's location that is a place in the record, not the name
    pydantic gives a member of a union (``str``, ``dict[str,...]``)."""
    return isinstance(step, int) or ("[" not in step and step not in _UNION_TAGS)


_UNION_TAGS = frozenset({"str", "int", "float", "bool", "none", "list", "dict"})


def _unheld(
    values: Mapping[str, JsonValue], written: Written[BaseModel], override: bool
) -> tuple[Mapping[str, JsonValue], tuple[str, ...]]:
    """The given values the written record does not hold from the session itself (a value
    its writer derived is not the session's own), and the keys of those it does."""
    if override or not values:
        return values, ()
    derived = {d.pointer for d in written.derived}
    document: JsonValue = written.record.model_dump(mode="json", by_alias=True)
    keep: dict[str, JsonValue] = {}
    held: list[str] = []
    for key, value in values.items():
        pointer = key if key.startswith("/") else "/" + key
        if pointer not in derived and _resolves(document, pointer):
            held.append(key)
        else:
            keep[key] = value
    return keep, tuple(held)


def _resolves(document: JsonValue, pointer: str) -> bool:
    here = document
    for part in pointer[1:].split("/"):
        name = unescape(part)
        if not isinstance(here, dict) or name not in here:
            return False
        here = here[name]
    return True
