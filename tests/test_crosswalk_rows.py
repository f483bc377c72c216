"""What a maintainer declares for a field with no canonical counterpart (a field upstream added
that no other format means): ``lost`` (not read, reported lost where a record has it) or
``as_extra`` (kept as an extra property of the run, so a format with extra properties holds
it and it comes back)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import MISSING, BaseModel, ConfigDict

from agentruns import AgentRun, CortexRunJournal, PortableRunRecord, Run, convert
from agentruns.conversion import _BY_NAME, _REGISTRY, Format, _skipped, format_for, register
from agentruns.crosswalk import Crosswalk, kept, required
from agentruns.derivations import derive_run_id


class Ticket(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    priority: int | MISSING = MISSING
    labels: list[str] | MISSING = MISSING


def _table(priority: str) -> Crosswalk[Ticket, Run]:
    table = Crosswalk(Ticket, Run)
    table.convert(
        table.field(lambda r: r.id), table.to(lambda run: run.run_id), kept, required(derive_run_id)
    )
    if priority == "lost":
        table.lost(table.field(lambda r: r.priority), "no other format ranks runs")
    else:
        table.as_extra(table.field(lambda r: r.priority))
    table.as_extra(table.field(lambda r: r.labels))
    return table


@contextmanager
def _registered(priority: str) -> Iterator[None]:
    table = _table(priority)

    class TicketFormat(Format[Ticket]):
        name: ClassVar[str] = "ticket"
        model = Ticket
        crosswalk = table

    register(TicketFormat())
    try:
        yield
    finally:
        del _REGISTRY[Ticket], _BY_NAME["ticket"]


@pytest.fixture(params=["lost", "as_extra"])
def declared(request: pytest.FixtureRequest) -> Iterator[str]:
    with _registered(request.param):
        yield request.param


def test_a_lost_row_declares_the_field_lost_and_an_extra_row_read(declared: str) -> None:
    coverage = format_for(Ticket).coverage["Ticket"]
    assert coverage == {
        "id": "read",
        "priority": declared.replace("as_extra", "read"),
        "labels": "read",
    }


def test_a_field_declared_lost_is_reported_at_its_pointer() -> None:
    with _registered("lost"):
        result = convert(Ticket(id="t", priority=3), AgentRun)
        assert [(loss.pointer, loss.reason) for loss in result.losses] == [
            ("/priority", "the ticket reader does not read priority")
        ]
        assert _skipped(type(format_for(Ticket))) == {Ticket: frozenset({"priority"})}


def test_a_field_kept_as_extra_comes_back_through_agentruns_root_extras(declared: str) -> None:
    ticket = Ticket(id="t", priority=3, labels=["a", "b"])
    there = convert(ticket, AgentRun)
    assert there.target.model_extra is not None
    assert there.target.model_extra["labels"] == ["a", "b"]
    back = convert(there.target, Ticket)
    if declared == "as_extra":
        assert there.target.model_extra["priority"] == 3
        assert there.losses == ()
        assert back.target == ticket
    else:
        assert "priority" not in there.target.model_extra
        assert back.target == Ticket(id="t", labels=["a", "b"])


@pytest.mark.parametrize("other", [CortexRunJournal, PortableRunRecord])
def test_a_format_without_extra_properties_carries_or_loses_it_at_its_pointer(
    declared: str, other: type[BaseModel]
) -> None:
    ticket = Ticket(id="t", priority=3)
    there = convert(ticket, other)
    lost = {loss.pointer for loss in there.losses}
    if other is PortableRunRecord or declared == "lost":
        assert "/priority" in lost
    else:  # cortex carries what it cannot hold in a reserved event of its own
        assert "/priority" not in lost
        assert convert(there.target, Ticket).target == ticket


@given(
    priority=st.one_of(st.just(MISSING), st.integers()),
    labels=st.one_of(st.just(MISSING), st.lists(st.text(max_size=5), max_size=3)),
)
def test_every_value_either_comes_back_or_is_reported(priority: Any, labels: Any) -> None:
    for kind in ("lost", "as_extra"):
        with _registered(kind):
            ticket = Ticket(id="t", priority=priority, labels=labels)
            for other in (AgentRun, CortexRunJournal, PortableRunRecord):
                there = convert(ticket, other)
                back = convert(there.target, Ticket).target
                lost = {loss.pointer for loss in there.losses}
                for name in ("priority", "labels"):
                    if getattr(ticket, name) is not MISSING and f"/{name}" not in lost:
                        assert getattr(back, name) == getattr(ticket, name), (kind, other, name)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


@given(priority=json_values, labels=json_values)
def test_another_formats_extra_of_that_name_is_taken_only_when_the_field_holds_it(
    priority: Any, labels: Any
) -> None:
    """An AgentRun root extra called ``priority`` may hold anything: written into the field
    only when the field holds it as it is, else reported lost (never a failed conversion)."""
    with _registered("as_extra"):
        run = AgentRun.model_validate(
            {"run_id": "r", "agent_id": "a", "goal": "g", "status": "completed",
             "priority": priority, "labels": labels}
        )  # fmt: skip
        there = convert(run, Ticket)
        lost = {loss.pointer for loss in there.losses}
        for name, value in (("priority", priority), ("labels", labels)):
            if f"/{name}" not in lost:
                assert getattr(there.target, name) == value
