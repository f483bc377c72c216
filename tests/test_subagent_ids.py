"""The ids ATIF's writer gives embedded trajectories: unique among siblings, each its own
where it can be, and computed in one pass (a history with thousands of subagents whose ids
repeat once cost a pass over the siblings per subagent). The first, quadratic rule is kept
here as the oracle."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from pydantic import MISSING

from agentruns.canonical import Run
from agentruns.formats.atif import _subagent_ids
from tests._settings import PROPERTY_SETTINGS

IDS = st.sampled_from(["t", "t-2", "t-3", "t-2-3", "r", "", "subagent-1", "subagent-2"])


def _oracle(subagents: tuple[Run, ...]) -> list[str]:
    found: list[str] = []
    for position, sub in enumerate(subagents):
        if isinstance(sub.trajectory_id, str) and sub.trajectory_id not in found:
            found.append(sub.trajectory_id)
            continue
        own = sub.trajectory_id if isinstance(sub.trajectory_id, str) else sub.run_id
        name = own if isinstance(own, str) and own else f"subagent-{position + 1}"
        later = {
            s.trajectory_id for s in subagents[position + 1 :] if isinstance(s.trajectory_id, str)
        }
        while name in found or name in later:
            name = f"{name}-{position + 1}"
        found.append(name)
    return found


runs = st.builds(
    lambda trajectory_id, run_id: Run(trajectory_id=trajectory_id, run_id=run_id),
    st.one_of(st.just(MISSING), IDS),
    st.one_of(st.just(MISSING), IDS),
)


@PROPERTY_SETTINGS
@given(st.lists(runs, max_size=12).map(tuple))
def test_subagent_ids_are_the_oracles_and_unique(subagents: tuple[Run, ...]) -> None:
    ids = _subagent_ids(subagents)
    assert ids == _oracle(subagents)
    assert len(set(ids)) == len(ids)


def test_a_repeated_id_gets_its_position_and_keeps_clear_of_later_siblings() -> None:
    subagents = tuple(Run(trajectory_id=name) for name in ("t", "t", "t-2", "t"))
    assert _subagent_ids(subagents) == ["t", "t-2-2", "t-2", "t-4"]
