"""Every outcome crosses a pipe from a worker: pickled as its fields in order, it comes back
equal, whatever it holds."""

from __future__ import annotations

import pickle

from hypothesis import given
from hypothesis import strategies as st

from agentruns.pipeline import Outcome
from tests._settings import PROPERTY_SETTINGS


@PROPERTY_SETTINGS
@given(
    fmt=st.none() | st.sampled_from(["portable", "atif"]),
    problems=st.lists(st.tuples(st.text(max_size=5), st.text(max_size=9)), max_size=3).map(tuple),
    output=st.none() | st.binary(max_size=20),
    losses=st.integers(0, 9),
    value=st.none() | st.dictionaries(st.text(max_size=3), st.integers(), max_size=3),
    unreadable=st.none() | st.text(max_size=9),
    empty=st.booleans(),
)
def test_an_outcome_crosses_a_pipe_as_it_is(
    fmt: str | None,
    problems: tuple[tuple[str, str], ...],
    output: bytes | None,
    losses: int,
    value: dict[str, int] | None,
    unreadable: str | None,
    empty: bool,
) -> None:
    made = Outcome(
        fmt,
        problems,
        output,
        losses=losses,
        derived=losses // 2,
        report=output,
        value=value,
        unreadable=unreadable,
        empty=empty,
    )
    back = pickle.loads(pickle.dumps(made))
    assert back == made
    assert type(back) is Outcome
