"""The canonical classes' quick ``__init__`` does what the frozen dataclass's own does: the
same fields from the same keywords, the same defaults, the same refusals (the dataclass made
again from the same fields is the oracle)."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentruns.canonical import Run, RunStep
from tests._settings import PROPERTY_SETTINGS

CLASSES = {"Run": Run, "RunStep": RunStep}


def _oracle(cls: type[Any]) -> type[Any]:
    """The class as ``@dataclass(frozen=True, slots=True, kw_only=True)`` makes it."""
    spec = [
        (f.name, f.type, dataclasses.field(default=f.default))
        if f.default is not dataclasses.MISSING
        else (f.name, f.type)
        for f in dataclasses.fields(cls)
    ]
    return dataclasses.make_dataclass(
        f"Oracle{cls.__name__}", spec, frozen=True, slots=True, kw_only=True
    )


ORACLES = {name: _oracle(cls) for name, cls in CLASSES.items()}

_VALUES = st.one_of(
    st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2)
)


def _keywords(cls: type[Any]) -> st.SearchStrategy[dict[str, Any]]:
    names = [f.name for f in dataclasses.fields(cls)]
    return st.dictionaries(st.sampled_from([*names, "not_a_field"]), _VALUES, max_size=8)


def _made(cls: type[Any], keywords: dict[str, Any]) -> tuple[str, object]:
    try:
        made = cls(**keywords)
    except TypeError as error:  # the message names the class: compare what follows
        return "refused", str(error).split("(", 1)[1]
    return "made", tuple(getattr(made, f.name) for f in dataclasses.fields(cls))


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_the_quick_init_makes_and_refuses_what_the_dataclass_init_does(name: str) -> None:
    cls, oracle = CLASSES[name], ORACLES[name]

    @PROPERTY_SETTINGS
    @given(_keywords(cls))
    def check(keywords: dict[str, Any]) -> None:
        assert _made(cls, keywords) == _made(oracle, keywords)

    check()


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_the_quick_init_has_the_dataclass_signature(name: str) -> None:
    ours = inspect.signature(CLASSES[name])
    theirs = inspect.signature(ORACLES[name])
    assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == [
        (p.name, p.kind, p.default) for p in theirs.parameters.values()
    ]


def test_a_positional_argument_is_refused_as_the_dataclass_refuses_it() -> None:
    with pytest.raises(TypeError, match="positional"):
        RunStep("tool_call")  # type: ignore[call-arg]


def test_an_instance_stays_frozen() -> None:
    step = RunStep(kind="tool_call")
    with pytest.raises(dataclasses.FrozenInstanceError):
        step.kind = "thought"  # type: ignore[misc]
    assert hash(step) == hash(RunStep(kind="tool_call"))
