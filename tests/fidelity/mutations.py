"""Turn valid instances into (mostly) invalid ones, in every way the schemas can reject.

The engine is schema-agnostic: it visits every JSON pointer of an instance and applies the
mutations that fit the value found there, with replacement values that include the schema's
own enum and const values (so discriminators, status rules and constants are exercised). The
oracle, not the engine, decides whether a mutant is valid.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# kind -> replacement values. Kinds name the rejection they aim at, for the report.
_REPLACEMENTS: dict[str, list[Any]] = {
    "wrong JSON type": [{}, [], "text", None, {"nested": 1}],
    "numeric string": ["5", "0", "-1", "1e3"],
    "boolean for number": [True, False],
    "float for integer": [1.5, -0.25],
    "integral float": [5.0, 0.0, 1.0],
    "out of range": [-1, 0, 2**31, -(2**31) - 1, 2**63],
    "bad datetime": [
        "2026-01-01 00:00:00Z",
        "2026-01-01T00:00:00",
        "2026-01-01",
        "2026-13-01T00:00:00Z",
        "01/01/2026",
        1767225600,
    ],
    "good datetime spelling": ["2026-01-01t00:00:00z", "2026-01-01T00:00:00.123456+05:30"],
    "empty string": [""],
}


@dataclass(frozen=True)
class Mutant:
    kind: str
    pointer: str
    instance: Any
    value: Any = None


def _pointers(
    instance: Any, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    yield path, instance
    if isinstance(instance, dict):
        for key, value in instance.items():
            yield from _pointers(value, (*path, key))
    elif isinstance(instance, list):
        for index, value in enumerate(instance):
            yield from _pointers(value, (*path, index))


def pointer_text(path: tuple[str | int, ...]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _set(instance: Any, path: tuple[str | int, ...], value: Any) -> Any:
    if not path:
        return value
    result = copy.deepcopy(instance)
    target = result
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return result


def _delete(instance: Any, path: tuple[str | int, ...]) -> Any:
    result = copy.deepcopy(instance)
    target = result
    for step in path[:-1]:
        target = target[step]
    del target[path[-1]]
    return result


def schema_constants(schema: Any) -> list[Any]:
    """Every enum and const value in a schema: wrong-but-plausible replacements."""
    found: list[Any] = []
    if isinstance(schema, dict):
        if "const" in schema:
            found.append(schema["const"])
        if isinstance(schema.get("enum"), list):
            found.extend(schema["enum"])
        for key, value in schema.items():
            if key not in ("const", "enum", "examples", "default"):
                found.extend(schema_constants(value))
    elif isinstance(schema, list):
        for value in schema:
            found.extend(schema_constants(value))
    unique: list[Any] = []
    for value in found:
        if not any(value == seen and type(value) is type(seen) for seen in unique):
            unique.append(value)
    return unique


@dataclass(frozen=True)
class _Plan:
    """A mutation not yet applied: cheap to enumerate, materialised only when sampled."""

    kind: str
    path: tuple[str | int, ...]
    op: str  # "set" or "delete"
    value: Any = None

    def apply(self, instance: Any) -> Mutant:
        mutated = (
            _delete(instance, self.path)
            if self.op == "delete"
            else _set(instance, self.path, self.value)
        )
        return Mutant(self.kind, pointer_text(self.path), mutated, self.value)


def _plans(instance: Any, constants: list[Any]) -> Iterator[_Plan]:
    """Every mutation the engine knows for this instance (deterministic order)."""
    for path, value in _pointers(instance):
        if path:
            for kind, replacements in _REPLACEMENTS.items():
                for replacement in replacements:
                    yield _Plan(kind, path, "set", replacement)
            yield _Plan("null", path, "set", None)
            for constant in constants:
                yield _Plan("other enum/const value", path, "set", constant)
        if isinstance(value, dict):
            for key in value:
                yield _Plan("missing property", (*path, key), "delete")
            yield _Plan("extra property", (*path, "zz_extra"), "set", 1)
        if isinstance(value, list) and value:
            yield _Plan("shorter array", path, "set", value[:-1])
            yield _Plan("empty array", path, "set", [])
        if isinstance(value, str) and path:
            yield _Plan("pattern: trailing newline", path, "set", value + "\n")
            yield _Plan("pattern: changed case", path, "set", value.upper() + "Z")
        if isinstance(value, int) and not isinstance(value, bool) and path:
            yield _Plan("out of range", path, "set", value - 10**6)


def candidates(instance: Any, constants: list[Any]) -> Iterator[Mutant]:
    for plan in _plans(instance, constants):
        yield plan.apply(instance)


def sample(instance: Any, constants: list[Any], count: int, rng: random.Random) -> list[Mutant]:
    """Up to ``count`` mutants of one instance, chosen without replacement."""
    plans = list(_plans(instance, constants))
    chosen = plans if len(plans) <= count else rng.sample(plans, count)
    return [plan.apply(instance) for plan in chosen]
