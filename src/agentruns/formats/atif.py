"""ATIF (Agent Trajectory Interchange Format, Harbor's RFC 0001) <-> canonical run.

A trajectory is a run told turn by turn: each ATIF step is one turn of the user, the system
or the agent, and an agent turn holds its reasoning, its message, its tool calls and what they
returned. The canonical run lists those as separate steps (``thought``, ``message``,
``tool_call`` with its result as ``output``, ``tool_result`` for a result no call of the turn
claims), each with the turn's ``index`` (``step_id - 1``) and time; the writer puts
consecutive steps of one index back into one turn. What a turn says that no canonical field
holds (its source when not the agent, metrics, model, its own ``extra``...) stays, under its
ATIF name, in the extra properties of the turn's first step, so that AgentRun and cortex
(whose steps allow extra properties) take it there and back.

A turn whose parts would not come back as they were (results in another order than their
calls, say) is kept whole instead: one ``message`` step whose extra property ``atif_step``
holds the turn, which the writer writes as it was.

ATIF's models treat an explicit ``null`` as the field's absence (``atif`` reads both as
``None`` and writes neither): the fields the canonical run shares with other formats
(``session_id``, ``agent.model_name``, the ``final_metrics`` totals and ``extra``) read a
null as absent (``NULL_AS_ABSENT``, computed from the rows), which is how they are written
back; every other null is kept.

Foreign data is carried in the root ``extra`` object under ``x-agentruns-carry``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from contextvars import ContextVar, copy_context
from dataclasses import replace
from datetime import datetime
from functools import cache, lru_cache
from typing import Any, ClassVar, Final, TypeVar

from pydantic import MISSING, BaseModel, JsonValue, TypeAdapter, ValidationError

from agentruns._json_text import compact
from agentruns._results import Derived, Written
from agentruns.canonical import Run, RunStep
from agentruns.crosswalk import Crosswalk, Writing, kept, required
from agentruns.derivations import Derivation
from agentruns.formats._base import CARRY_PROPERTY, Format, InObject, is_carry
from agentruns.models import AtifAgent, AtifFinalMetrics, AtifStep, AtifTrajectory
from agentruns_generated import _ecma
from agentruns_generated._json import JsonDateTime, date_time_text

__all__ = [
    "AGENT",
    "ATIF",
    "ATIF_VERSION",
    "CARRY_KEY",
    "FINAL_METRICS",
    "NULL_AS_ABSENT",
    "RAW_STEP",
    "TRAJECTORY",
    "AtifFormat",
]

ATIF_VERSION: Final = "ATIF-v1.8"
"""The version this writer writes when the run states none."""

CARRY_KEY: Final = CARRY_PROPERTY

RAW_STEP: Final = "atif_step"
"""The extra property of a step that holds an ATIF turn whole."""

T = TypeVar("T")

# The fields of a turn that the canonical steps hold (the rest are kept by name)
_TURN_KEYS: Final = frozenset(AtifStep.model_fields)
# What a step of each kind holds of a turn besides the turn's own leftovers
_CALL_KEYS: Final = frozenset({"tool_call_extra", "subagent_trajectory_ref"})
_RESULT_KEYS: Final = frozenset(
    {"source_call_id", "content", "result_extra", "subagent_trajectory_ref"}
)
_SLOT: Final = {"thought": 0, "message": 1, "tool_call": 2, "tool_result": 3}
"""Where a step of a kind sits in a turn: reasoning, message, calls, results."""


def _present(value: T | MISSING | None) -> T | MISSING:
    """ATIF's null is its absence (see the module's docstring)."""
    return MISSING if value is None else value


@cache
def _timestamps() -> TypeAdapter[JsonDateTime]:
    return TypeAdapter(JsonDateTime)


@lru_cache(maxsize=1024)
def _time(text: str) -> JsonDateTime | None:
    """The time, if the text is an RFC 3339 date-time (the text is kept as written)."""
    try:
        return _timestamps().validate_python(text)
    except ValidationError:
        return None


# -- reading a turn --------------------------------------------------------------------------


def _turn(doc: dict[str, JsonValue], index: int) -> list[RunStep]:
    """The steps of one turn (its JSON, without ``step_id``)."""
    return _read_parts(doc, index)[0]


def _read_parts(doc: dict[str, JsonValue], index: int) -> tuple[list[RunStep], bool]:
    """The steps of one turn (its JSON, without ``step_id``), and whether the turn is *plain*:
    of the shape most turns have (a time the reader takes, text, reasoning and calls that are
    the agent's, each result folded into a later call than the one before it, any other field
    of the turn kept by name), which ``_compose`` gives back by construction, so
    ``_read_turn`` need not compose it to know (``tests/test_atif_turns.py``: every plain
    turn composes back, on turns of every shape).

    Each step is gathered as its fields first and made once at the end (a result folded into
    its call, the turn's leftovers into the first step): a turn costs one constructor per
    step, not one per change."""
    rest = dict(doc)
    plain = True
    at: JsonDateTime | MISSING = MISSING
    stamp = rest.get("timestamp")
    if isinstance(stamp, str) and (parsed := _time(stamp)) is not None:
        at = parsed
        del rest["timestamp"]
    agent = rest.get("source") == "agent"
    if agent:
        del rest["source"]
    steps: list[dict[str, Any]] = []
    reasoning = rest.get("reasoning_content")
    if isinstance(reasoning, str):
        del rest["reasoning_content"]
        steps.append({"kind": "thought", "message": reasoning, "index": index, "started_at": at})
    calls = rest.get("tool_calls")
    call_steps: list[dict[str, Any]] = []
    if isinstance(calls, list):
        del rest["tool_calls"]
        plain = plain and bool(calls)
        for call in calls:
            assert isinstance(call, dict)
            name, call_id, args = call["function_name"], call["tool_call_id"], call["arguments"]
            assert isinstance(name, str)
            assert isinstance(call_id, str)
            plain = plain and isinstance(args, dict)
            step: dict[str, Any] = {
                "kind": "tool_call",
                "name": name,
                "call_id": call_id,
                "input": args,
                "index": index,
                "started_at": at,
            }
            if "extra" in call:
                step["extra"] = {"tool_call_extra": call["extra"]}
            call_steps.append(step)
    message = rest.get("message")
    if isinstance(message, str) and (message or not (steps or call_steps)):
        del rest["message"]
        steps.append({"kind": "message", "message": message, "index": index, "started_at": at})
    elif message == "":
        del rest["message"]  # an agent turn of calls only: the writer writes "" again
    results: list[dict[str, Any]] = []
    observation = rest.get("observation")
    if isinstance(observation, dict):
        del rest["observation"]
        folded = -1
        positions = {step["call_id"]: i for i, step in reversed(list(enumerate(call_steps)))}
        found = observation["results"]
        assert isinstance(found, list)
        plain = (
            plain and bool(found) and len(observation) == 1 and len(positions) == len(call_steps)
        )
        for result in found:
            assert isinstance(result, dict)
            source, content = result.get("source_call_id"), result.get("content")
            k = positions.get(source) if isinstance(source, str) else None
            outcome = _outcome_of(result)
            if (
                k is not None
                and k > folded
                and not results
                and outcome is not None
                and (isinstance(content, str | list) or ("content" not in result and outcome))
                and set(result) <= {"source_call_id", "content", "subagent_trajectory_ref", "extra"}
            ):
                folded = k
                claimed = call_steps[k]
                if isinstance(content, str | list):
                    claimed["output"] = content
                if "subagent_trajectory_ref" in result:
                    claimed["extra"] = {
                        **claimed.get("extra", {}),
                        "subagent_trajectory_ref": result["subagent_trajectory_ref"],
                    }
                claimed.update(outcome)
                continue
            plain = False
            kept_: dict[str, JsonValue] = {}
            if source is None and "source_call_id" in result:
                kept_["source_call_id"] = None
            if "content" in result and not isinstance(content, str | list):
                kept_["content"] = content
            if "extra" in result:
                kept_["result_extra"] = result["extra"]
            if "subagent_trajectory_ref" in result:
                kept_["subagent_trajectory_ref"] = result["subagent_trajectory_ref"]
            made: dict[str, Any] = {"kind": "tool_result", "index": index, "started_at": at}
            if isinstance(source, str):
                made["call_id"] = source
            if isinstance(content, str | list):
                made["output"] = content
            if kept_:
                made["extra"] = kept_
            results.append(made)
    ordered = [*steps, *call_steps, *results]
    if not ordered:
        plain = False
        ordered = [{"kind": "message", "index": index, "started_at": at}]
    if rest:
        # what no step holds is the first step's, which ``_compose`` writes back under its
        # name (a turn's source that is not the agent's too, unless the turn reasons or
        # calls: ``_compose`` says those are the agent's)
        first = ordered[0]
        first["extra"] = {**rest, **first.get("extra", {})}
    plain = plain and (
        agent or ("source" in doc and not call_steps and "reasoning_content" not in doc)
    )
    return [RunStep(**fields) for fields in ordered], plain


def _read_turn(doc: dict[str, JsonValue]) -> list[RunStep]:
    """A turn's steps (its JSON), or the turn kept whole when its steps would not give it
    back."""
    step_id = doc.pop("step_id")
    assert isinstance(step_id, int)
    index = step_id - 1
    steps, plain = _read_parts(doc, index)
    if plain or _compose(steps, {}) == doc:
        return steps
    message = doc.get("message")
    return [
        RunStep(
            kind="message",
            message=message if isinstance(message, str) else MISSING,
            index=index,
            extra={RAW_STEP: doc},
        )
    ]


_COMPOSED: ContextVar[dict[int, tuple[AtifStep, dict[str, JsonValue]]] | None] = ContextVar(
    "_COMPOSED", default=None
)
"""While ``AtifFormat.write_and_read`` runs: each turn written (by id) with the JSON it was
validated from, which reading the record takes instead of a dump of the turn. The JSON is the
dump's where every optional field of a turn's models defaults to absent (``_adds_nothing``:
nothing is added; else the turns are dumped) and the models change no value they accept but
to an equal one (an integer written 5.0 is 5): ``tests/test_atif_turns.py`` reads every
generated run both ways."""


@cache
def _adds_nothing(root: type[BaseModel] = AtifStep) -> bool:
    """Whether validating a ``root`` adds no field its JSON lacks: no field of the models it
    reaches has a default other than absent (a schema that gave one a default would make the
    dump of a turn more than the JSON it was validated from)."""
    from agentruns._coverage import reachable_models

    return all(
        info.is_required() or info.default is MISSING
        for model in reachable_models(root)
        for info in model.model_fields.values()
    )


def _read_steps(steps: list[AtifStep]) -> tuple[RunStep, ...]:
    composed = _COMPOSED.get()
    docs: list[dict[str, JsonValue]] | None = None
    if composed:
        docs = []
        for step in steps:
            known = composed.get(id(step))
            if known is None or known[0] is not step:
                docs = None
                break
            docs.append(dict(known[1]))  # (``_read_turn`` takes its step_id out)
    if docs is None:
        # the turns as JSON in one call into pydantic-core (not one dump per turn)
        docs = _turns_adapter().dump_python(steps, mode="json")
    return tuple(part for doc in docs for part in _read_turn(doc))


# -- writing turns ---------------------------------------------------------------------------


def _own_keys(step: RunStep) -> frozenset[str]:
    if step.kind == "tool_call":
        return _CALL_KEYS
    if step.kind == "tool_result":
        return _RESULT_KEYS
    return frozenset()


def _turns(steps: Iterable[RunStep]) -> list[list[RunStep]]:
    """Consecutive steps of one index (and time), in the order of a turn, are one turn."""
    turns: list[list[RunStep]] = []
    slot = -1
    for step in steps:
        current = turns[-1] if turns else None
        here = _SLOT.get(step.kind, 1)
        extra = step.extra if isinstance(step.extra, dict) else {}
        starts = (
            current is None
            or RAW_STEP in extra
            or RAW_STEP in (current[0].extra if isinstance(current[0].extra, dict) else {})
            or step.index != current[0].index
            or step.started_at != current[0].started_at
            or here < slot
            or (here == slot and here < 2)
            or step.kind not in _SLOT
            or current[0].kind not in _SLOT
            or not set(extra) <= _own_keys(step)
        )
        if starts:
            turns.append([step])
        else:
            assert current is not None
            current.append(step)
        slot = here
    return turns


def _compose(turn: list[RunStep], subagent_refs: dict[str, str]) -> dict[str, JsonValue]:
    """The JSON of one turn (without ``step_id``); ``subagent_refs``: call id -> the
    trajectory id of the subagent it started (a reference written for it)."""
    first = turn[0]
    leftovers = dict(first.extra) if isinstance(first.extra, dict) else {}
    raw = leftovers.get(RAW_STEP)
    if isinstance(raw, dict) and len(turn) == 1:
        return dict(raw)
    own = _own_keys(first)
    doc: dict[str, JsonValue] = {}
    if isinstance(first.started_at, datetime):
        doc["timestamp"] = date_time_text(first.started_at)
    doc["source"] = "agent"
    calls: list[JsonValue] = []
    results: list[JsonValue] = []
    unclaimed: list[JsonValue] = []
    call_ids: set[str] = set()
    for step in turn:
        extra = step.extra if isinstance(step.extra, dict) else {}
        if step.kind == "thought":
            doc["reasoning_content"] = step.message if isinstance(step.message, str) else ""
        elif step.kind == "tool_call":
            call_id = step.call_id if isinstance(step.call_id, str) else f"call-{len(calls)}"
            call_ids.add(call_id)
            call: dict[str, JsonValue] = {
                "tool_call_id": call_id,
                "function_name": step.name if isinstance(step.name, str) else "",
                "arguments": step.input if isinstance(step.input, dict) else {},
            }
            if "tool_call_extra" in extra:
                call["extra"] = extra["tool_call_extra"]
            calls.append(call)
            refs = extra.get("subagent_trajectory_ref")
            if refs is None and call_id in subagent_refs:
                refs = [{"trajectory_id": subagent_refs[call_id]}]
            outcome = _outcome(step)
            if step.output is not MISSING or refs is not None or outcome:
                result: dict[str, JsonValue] = {"source_call_id": call_id}
                if step.output is not MISSING:
                    result["content"] = _content(step.output)
                if refs is not None:
                    result["subagent_trajectory_ref"] = refs
                if outcome:
                    result["extra"] = outcome
                results.append(result)
        elif step.kind == "tool_result":
            result = {}
            if "source_call_id" in extra:
                result["source_call_id"] = extra["source_call_id"]
            elif isinstance(step.call_id, str):
                result["source_call_id"] = step.call_id
            if step.output is not MISSING:
                result["content"] = _content(step.output)
            elif "content" in extra:
                result["content"] = extra["content"]
            if "subagent_trajectory_ref" in extra:
                result["subagent_trajectory_ref"] = extra["subagent_trajectory_ref"]
            if "result_extra" in extra:
                result["extra"] = extra["result_extra"]
            unclaimed.append(result)
        else:
            text = step.message if isinstance(step.message, str) else None
            if text is not None:
                doc["message"] = text
    for item in unclaimed:
        # a result names a call of its own turn (atif checks it); another id stays extra
        assert isinstance(item, dict)
        claimed = item.get("source_call_id")
        if isinstance(claimed, str) and claimed not in call_ids:
            del item["source_call_id"]
            extra_of = item.get("extra")
            item["extra"] = {
                **(extra_of if isinstance(extra_of, dict) else {}),
                "source_call_id": claimed,
            }
    doc.setdefault("message", "")
    if calls:
        doc["tool_calls"] = calls
    if results or unclaimed:
        doc["observation"] = {"results": [*results, *unclaimed]}
    for key, value in leftovers.items():
        if key in _TURN_KEYS and key != "step_id":
            doc[key] = value
        elif key not in own and key != RAW_STEP:
            foreign = doc.get("extra")
            if foreign is None or isinstance(foreign, dict):
                doc["extra"] = {**(foreign or {}), key: value}
    if doc.get("source") != "agent" and ("reasoning_content" in doc or calls):
        doc["source"] = "agent"  # reasoning and calls are an agent's
    # in the order the fields were met: the model orders them when the turn is validated,
    # and the reader's check compares dictionaries (ordering them cost a turn 0.6 us)
    return doc


_OUTCOME_KEYS: Final = frozenset({"status", "message"})
"""What a call's result says of how the call went (a failed call's status and error text),
in the result's ``extra``."""


def _outcome(step: RunStep) -> dict[str, JsonValue]:
    """A call's status and message, as its result's ``extra`` holds them."""
    return {
        key: value
        for key, value in (("status", step.status), ("message", step.message))
        if isinstance(value, str)
    }


def _outcome_of(result: dict[str, JsonValue]) -> dict[str, str] | None:
    """The status and message a result's ``extra`` says of its call (None: something else)."""
    extra = result.get("extra")
    if "extra" not in result:
        return {}
    if (
        isinstance(extra, dict)
        and extra
        and set(extra) <= _OUTCOME_KEYS
        and all(isinstance(value, str) for value in extra.values())
    ):
        return {key: value for key, value in extra.items() if isinstance(value, str)}
    return None


def _content(value: JsonValue) -> JsonValue:
    """A result's content: text or content parts; any other value as JSON text."""
    if isinstance(value, str | list):
        return value
    return compact(value)


def _valid_turn(doc: dict[str, JsonValue], step_id: int) -> AtifStep:
    """The turn as a model; fields kept from elsewhere that ATIF refuses are left out (the
    conversion then reports them)."""
    attempt = {**doc, "step_id": step_id}
    for _ in range(len(attempt) + 1):
        try:
            return AtifStep.model_validate(attempt)
        except ValidationError as error:
            locations = {str(e["loc"][0]) for e in error.errors() if e["loc"]}
            droppable = locations - {"step_id", "source", "message"}
            if not droppable:
                break
            for key in droppable:
                attempt.pop(key, None)
    structural = ("step_id", "timestamp", "source", "message", "reasoning_content")
    kept_keys = (*structural, "tool_calls", "observation")
    minimal = {key: attempt[key] for key in kept_keys if key in attempt}
    if not isinstance(minimal.get("message"), str | list):
        minimal["message"] = ""
    minimal["source"] = "agent"
    try:
        return AtifStep.model_validate(minimal)
    except ValidationError:
        return AtifStep.model_validate({"step_id": step_id, "source": "agent", "message": ""})


def _subagent_ids(subagents: tuple[Run, ...]) -> list[str]:
    """Each embedded trajectory's id, unique among its siblings (atif refuses a repeated one):
    its own, else its run id, else its position (``subagent-1``); a repeated one gets its
    position as a suffix, never an id a later sibling holds itself."""
    later = Counter(sub.trajectory_id for sub in subagents if isinstance(sub.trajectory_id, str))
    taken: set[str] = set()
    found: list[str] = []
    for position, sub in enumerate(subagents):
        given = sub.trajectory_id
        if isinstance(given, str):
            later[given] -= 1  # from here on: the ids of the siblings after this one
            if given not in taken:
                found.append(given)
                taken.add(given)
                continue
        own = given if isinstance(given, str) else sub.run_id
        name = own if isinstance(own, str) and own else f"subagent-{position + 1}"
        while name in taken or later[name] > 0:
            name = f"{name}-{position + 1}"
        found.append(name)
        taken.add(name)
    return found


def _write_steps(steps: tuple[RunStep, ...] | MISSING, writing: Writing[Run]) -> list[AtifStep]:
    """Consecutive steps of one turn (one index and time, in turn order: reasoning, message,
    calls, results) are one ATIF step; a run without steps has none."""
    if steps is MISSING:
        return []
    refs: dict[str, str] = {}
    subagents = writing.run.subagents
    if isinstance(subagents, tuple):
        referenced = {
            ref.get("trajectory_id")
            for step in steps
            if isinstance(step.extra, dict)
            for ref in _refs(step.extra.get("subagent_trajectory_ref"))
        }
        for sub, sub_id in zip(subagents, _subagent_ids(subagents), strict=True):
            if isinstance(sub.parent_call_id, str) and sub_id not in referenced:
                refs[sub.parent_call_id] = sub_id
    turns = _turns(steps)
    moved = [
        number
        for number, turn in enumerate(turns, 1)
        if isinstance(turn[0].index, int) and turn[0].index != number - 1
    ]
    if moved:
        # ATIF's step ids count 1, 2, 3... (the atif package refuses any other): a run whose
        # turns had other indexes (a trajectory numbered 3, 1, 4, 2) is renumbered, said here
        reason = (
            f"ATIF numbers its steps 1, 2, 3... in turn order; {len(moved)} of the run's "
            f"{len(turns)} turns had another index (the first: step {moved[0]})"
        )
        writing.derived.append(Derived(writing.pointer, f"1..{len(turns)}", reason))
    docs = [{"step_id": number, **_compose(turn, refs)} for number, turn in enumerate(turns, 1)]
    budget = _ecma.open_budget()  # one pattern budget for the turns, as for a record
    try:  # every turn at once: one call into pydantic-core
        written = _turns_adapter().validate_python(docs)
    except ValidationError:  # a field kept from elsewhere that ATIF refuses: turn by turn
        return [_valid_turn(doc, number) for number, doc in enumerate(docs, 1)]
    finally:
        _ecma.close_budget(budget)
    composed = _COMPOSED.get()
    if composed is not None:  # (each turn as it was validated: see ``_COMPOSED``)
        composed.update((id(turn), (turn, doc)) for turn, doc in zip(written, docs, strict=True))
    return written


def _each_turn_tripped(steps: tuple[RunStep, ...]) -> Iterator[RunStep]:
    """The steps reading gives back when the steps are written (``_write_steps``, then
    ``_read_steps``), turn by turn, as many as the caller takes: each turn composed, validated
    and read on its own, the turns sharing one pattern budget as when they are validated at
    once (kept in this pass's own context, which no caller sees). For a run that refers to no
    subagent (``AtifFormat.step_trips``)."""
    context = copy_context()
    context.run(_ecma.open_budget)
    for number, turn in enumerate(_turns(steps), 1):
        yield from context.run(_turn_tripped, turn, number)


def _turn_tripped(turn: list[RunStep], number: int) -> list[RunStep]:
    """The steps of turn ``number`` as the trip gives them: read from the JSON it was validated
    from (see ``_COMPOSED``), or from its dump when a field had to be left out (the whole run's
    turns are then each validated by ``_valid_turn``, and dumped)."""
    doc: dict[str, JsonValue] = {"step_id": number, **_compose(turn, {})}
    try:
        written = AtifStep.model_validate(doc)
    except ValidationError:
        return _read_turn(_valid_turn(doc, number).model_dump(mode="json"))
    return _read_turn(doc if _adds_nothing() else written.model_dump(mode="json"))


@cache
def _turns_adapter() -> TypeAdapter[list[AtifStep]]:
    return TypeAdapter(list[AtifStep])


def _refs(value: JsonValue | None) -> list[dict[str, JsonValue]]:
    if not isinstance(value, list):
        return []
    return [ref for ref in value if isinstance(ref, dict)]


# -- subagents -------------------------------------------------------------------------------


def _read_trajectory(record: AtifTrajectory) -> Run:
    """The run, its subagents linked to the calls whose results refer to them."""
    run: Run = TRAJECTORY.read(record)
    subagents = run.subagents
    if not isinstance(subagents, tuple) or not isinstance(run.steps, tuple):
        return run
    started_by: dict[str, str] = {}
    for step in run.steps:
        if isinstance(step.extra, dict) and isinstance(step.call_id, str):
            for ref in _refs(step.extra.get("subagent_trajectory_ref")):
                target = ref.get("trajectory_id")
                if isinstance(target, str):
                    started_by.setdefault(target, step.call_id)
    if not started_by:
        return run
    linked = tuple(
        replace(sub, parent_call_id=started_by[sub.trajectory_id])
        if isinstance(sub.trajectory_id, str) and sub.trajectory_id in started_by
        else sub
        for sub in subagents
    )
    return replace(run, subagents=linked)


def _read_subagents(found: list[AtifTrajectory] | MISSING | None) -> tuple[Run, ...] | MISSING:
    if found is MISSING or found is None:
        return MISSING
    return tuple(_read_trajectory(sub) for sub in found)


def _write_subagents(
    subagents: tuple[Run, ...] | MISSING, writing: Writing[Run]
) -> list[AtifTrajectory] | MISSING:
    """Each subagent an embedded trajectory, with an id unique among its siblings (its own,
    else its run id, else its position: ``subagent-1``; derived ones reported)."""
    if subagents is MISSING:
        return MISSING
    where = writing.pointer
    written: list[AtifTrajectory] = []
    for i, (sub, sub_id) in enumerate(zip(subagents, _subagent_ids(subagents), strict=True)):
        own = sub
        if sub.trajectory_id != sub_id:
            own = replace(sub, trajectory_id=sub_id)
            reason = (
                "an embedded trajectory needs an id"
                if not isinstance(sub.trajectory_id, str)
                else "an embedded trajectory's id is unique among its siblings"
            )
            writing.derive(Derivation(sub_id, reason), f"{where}/{i}/trajectory_id")
        written.append(TRAJECTORY.write(own, Writing(own, own, writing.derived), f"{where}/{i}"))
    return written


# -- conversions the rows name -----------------------------------------------------------------


def _version(value: str | MISSING, writing: Writing[Run]) -> str:
    """The version the trajectory was read with, else ``ATIF-v1.8``, what this writer
    writes (the version of the document, not a value of the run: not reported as derived,
    as cortex's constant ``schema_version`` is not)."""
    return value if isinstance(value, str) else ATIF_VERSION


def _name(value: str | MISSING | None, writing: Writing[Run]) -> str:
    """The agent's id; without one, the framework that ran it (a harness names its agent),
    else ``unknown``."""
    if isinstance(value, str):
        return value
    framework = writing.run.framework
    if isinstance(framework, str) and framework:
        reason = "ATIF requires agent.name; the source names no agent but its framework"
        return writing.derive(Derivation(framework, reason))
    return writing.derive(Derivation("unknown", "ATIF requires agent.name; the source has none"))


def _agent_version(run: Run) -> Derivation[str]:
    """``unknown``: ATIF requires the agent's version."""
    return Derivation("unknown", "ATIF requires agent.version; the source has none")


def _json_list(value: list[dict[str, JsonValue]] | MISSING | None) -> JsonValue | MISSING:
    """A list of objects, or null: JSON as it is."""
    return value if value is MISSING or value is None else list[JsonValue](value)


def _write_tools(
    value: JsonValue | MISSING, writing: Writing[Run]
) -> list[dict[str, JsonValue]] | MISSING | None:
    """The tool definitions if they are a list of objects (or null)."""
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(item, dict) for item in value):
        return [item for item in value if isinstance(item, dict)]
    return MISSING


def _json_object(value: dict[str, JsonValue] | MISSING | None) -> JsonValue | MISSING:
    return value


def _write_object(
    value: JsonValue | MISSING, writing: Writing[Run]
) -> dict[str, JsonValue] | MISSING | None:
    """The object (or null) as it was read."""
    return value if value is None or isinstance(value, dict) else MISSING


def _write_present(value: T | MISSING, writing: Writing[Any]) -> T | MISSING:
    return value


def _own_extra(value: dict[str, JsonValue] | MISSING | None) -> dict[str, JsonValue] | MISSING:
    """The root's ``extra``, without a carried payload (an ``extra`` that only carries is
    none of the run's own)."""
    if not isinstance(value, dict):
        return MISSING
    carried = value.get(CARRY_KEY)
    if carried is not None and is_carry(carried):
        own = {key: item for key, item in value.items() if key != CARRY_KEY}
        return own or MISSING
    return value


def _write_extra(
    value: dict[str, JsonValue] | MISSING, writing: Writing[Run]
) -> dict[str, JsonValue] | MISSING:
    """The run's extra properties."""
    return value


# -- the crosswalk -----------------------------------------------------------------------------

AGENT = Crosswalk(AtifAgent, Run)
"""The agent system: its name (the agent's id), version, default model and tools."""
AGENT.convert(AGENT.field(lambda a: a.name), AGENT.to(lambda run: run.agent_id), kept, _name)
AGENT.convert(
    AGENT.field(lambda a: a.version),
    AGENT.to(lambda run: run.agent_version),
    kept,
    required(_agent_version),
)
AGENT.convert(
    AGENT.field(lambda a: a.model_name), AGENT.to(lambda run: run.model), _present, _write_present
)
AGENT.convert(
    AGENT.field(lambda a: a.tool_definitions),
    AGENT.to(lambda run: run.tool_definitions),
    _json_list,
    _write_tools,
    whole=True,
)
AGENT.convert(
    AGENT.field(lambda a: a.extra),
    AGENT.to(lambda run: run.agent_extra),
    _json_object,
    _write_object,
    whole=True,
)

FINAL_METRICS = Crosswalk(AtifFinalMetrics, Run)
"""What the whole trajectory used."""
F = FINAL_METRICS
F.convert(
    F.field(lambda m: m.total_prompt_tokens),
    F.to(lambda run: run.input_tokens),
    _present,
    _write_present,
)
F.convert(
    F.field(lambda m: m.total_completion_tokens),
    F.to(lambda run: run.output_tokens),
    _present,
    _write_present,
)
F.convert(
    F.field(lambda m: m.total_cached_tokens),
    F.to(lambda run: run.cache_read_tokens),
    _present,
    _write_present,
)
F.convert(
    F.field(lambda m: m.total_cost_usd), F.to(lambda run: run.cost_usd), _present, _write_present
)
F.same(F.field(lambda m: m.total_steps), F.to(lambda run: run.step_count))
F.convert(
    F.field(lambda m: m.extra),
    F.to(lambda run: run.metrics_extra),
    _present,
    _write_present,
    whole=True,
)
del F

TRAJECTORY = Crosswalk(AtifTrajectory, Run)
"""A trajectory is the run, turn by turn, with its subagents' trajectories embedded."""
R = TRAJECTORY
R.convert(R.field(lambda t: t.schema_version), R.to(lambda run: run.atif_version), kept, _version)
R.convert(R.field(lambda t: t.session_id), R.to(lambda run: run.run_id), _present, _write_present)
R.same(R.field(lambda t: t.trajectory_id), R.to(lambda run: run.trajectory_id))
R.nested(R.field(lambda t: t.agent), AGENT, always=True)
R.convert(
    R.field(lambda t: t.steps), R.to(lambda run: run.steps), _read_steps, _write_steps, whole=True
)
R.same(R.field(lambda t: t.notes), R.to(lambda run: run.notes))
R.nested(R.field(lambda t: t.final_metrics), FINAL_METRICS)
R.same(
    R.field(lambda t: t.continued_trajectory_ref), R.to(lambda run: run.continued_trajectory_ref)
)
R.convert(R.field(lambda t: t.extra), R.to(lambda run: run.extra), _own_extra, _write_extra)
R.convert(
    R.field(lambda t: t.subagent_trajectories),
    R.to(lambda run: run.subagents),
    _read_subagents,
    _write_subagents,
    whole=True,
)
del R


_NULL_READERS: Final = (_present, _own_extra, _read_subagents)
"""The readers that take ATIF's null for the field's absence."""


def _null_as_absent() -> tuple[str, ...]:
    """JSON pointers (``*``: an item of an embedded trajectory list, read the same way) of the
    fields whose null the rows read as absent, and so write as absent: from the rows."""
    found: list[str] = []
    for table, at in ((TRAJECTORY, ""), (AGENT, "/agent"), (FINAL_METRICS, "/final_metrics")):
        for row in table.rows:
            if row.reader in _NULL_READERS or (row.nested and not row.always):
                found.append(f"{at}/{row.wire}")  # a nested object read from null is none
    return tuple(found)


NULL_AS_ABSENT: Final = _null_as_absent()
"""Where ATIF's null is read as absent (the fields the run shares with other formats)."""


class AtifFormat(Format[AtifTrajectory]):
    """ATIF's root ``extra`` is free-form: foreign data is carried in it under
    ``x-agentruns-carry``, which readers skip."""

    name: ClassVar[str] = "atif"
    model = AtifTrajectory
    fields_by_hand: ClassVar[frozenset[str]] = frozenset({"parent_call_id"})
    # (the agent's name is written from the framework only for a run without an agent id,
    # which a run read from ATIF never is: its agent has a name)
    crosswalk = TRAJECTORY

    def read(self, record: AtifTrajectory) -> Run:
        return _read_trajectory(record)

    def write_and_read(self, run: Run) -> tuple[Written[AtifTrajectory], Run]:
        if not _adds_nothing():
            return super().write_and_read(run)
        token = _COMPOSED.set({})
        try:  # the same trip, with each turn written known to the read (``_COMPOSED``)
            return super().write_and_read(run)
        finally:
            _COMPOSED.reset(token)

    def without_steps(self, run: Run) -> Run | None:
        # no row derives a value from the steps; but a subagent's call is read from the
        # steps' references to it (``_read_trajectory``), and written into them
        return None if _has_subagents(run) else replace(run, steps=())

    def step_trips(self, run: Run) -> Iterator[RunStep] | None:
        steps = run.steps
        if not isinstance(steps, tuple) or _has_subagents(run):
            return None
        return _each_turn_tripped(steps)

    carry_place = InObject[AtifTrajectory]("extra")


def _has_subagents(run: Run) -> bool:
    return isinstance(run.subagents, tuple) and bool(run.subagents)


ATIF = AtifFormat()
