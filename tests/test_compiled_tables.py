"""The crosswalk tables' generated readers and writers handle extra properties exactly as the
general methods they specialize (``Crosswalk._read_extras`` and ``_write_extras``, kept as
the oracle): the same runs, records, losses and derived values, in every direction."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import pytest
from hypothesis import given
from pydantic import MISSING, BaseModel, ValidationError

from agentruns import convert, to_canonical
from agentruns.canonical import Run, RunStep
from agentruns.crosswalk import Crosswalk, Writing, _compile, kept
from agentruns.formats import BUILT_IN
from agentruns.formats.agentrun import STEP
from tests._settings import PROPERTY_SETTINGS
from tests.test_conversion_properties import MODELS, records


def _tables() -> list[Crosswalk[Any, Any]]:
    found: dict[int, Crosswalk[Any, Any]] = {}
    for fmt in BUILT_IN:
        if fmt.crosswalk is not None:
            for table in fmt.crosswalk.tables():
                found[id(table)] = table
    from agentruns.formats import atif

    for table in (atif.AGENT, atif.FINAL_METRICS, atif.TRAJECTORY):
        found[id(table)] = table
    return list(found.values())


@contextmanager
def _interpreted() -> Iterator[None]:
    """Every table run by the general extras methods, for the time of the block."""
    tables = _tables()
    kept = [table._compiled for table in tables]
    try:
        for table in tables:
            table._compiled = _compile(table, interpreted_extras=True)
        yield
    finally:
        for table, plan in zip(tables, kept, strict=True):
            table._compiled = plan


def _outcome(record: BaseModel, target: str) -> tuple[object, ...]:
    converted = convert(record, target)
    again = to_canonical(converted.target)  # the target's extras read back
    return (
        converted.target.model_dump_json(),
        converted.losses,
        converted.derived,
        again,
        to_canonical(record),
    )


def test_every_table_with_extras_is_compiled_with_and_without_the_oracle() -> None:
    with_extras = [table for table in _tables() if table.extras is not None]
    assert with_extras, "no table keeps extra properties: the oracle compares nothing"
    for table in with_extras:
        assert _compile(table).read is not _compile(table, interpreted_extras=True).read


@pytest.mark.parametrize("name", sorted(MODELS))
def test_generated_extras_code_converts_as_the_general_methods_do(name: str) -> None:
    """A record to every format and back: the records written by other formats hold the
    named extras (a step's status and call id in AgentRun, a tool call's kind and input in
    a cortex event) and carried payloads, which the way back reads."""

    @PROPERTY_SETTINGS
    @given(records(name))
    def check(record: BaseModel) -> None:
        for other in MODELS:
            fast = _outcome(record, other)
            written = convert(record, other).target
            back = _outcome(written, name)
            with _interpreted():
                assert _outcome(record, other) == fast
                assert _outcome(written, name) == back

    check()


class _Counted(BaseModel):
    """A model whose constructor does more than validate (counts the records made)."""

    name: str
    made: ClassVar[list[str]] = []

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        type(self).made.append(self.name)


def test_a_model_with_its_own_constructor_is_written_through_it() -> None:
    table = Crosswalk(_Counted, RunStep)
    table.convert(table.field(lambda m: m.name), table.to(lambda s: s.name), kept, _named)
    step = RunStep(kind="tool_call", name="grep")
    written = table.write(step, Writing(Run(), step, []))
    assert written == _Counted(name="grep")
    assert _Counted.made == ["grep", "grep"]


def test_a_plain_model_is_written_by_its_validator_with_the_same_refusals() -> None:
    table = Crosswalk(STEP.model, RunStep)
    table.same(table.field(lambda m: m.name), table.to(lambda s: s.name))
    table.convert(table.field(lambda m: m.type), table.to(lambda s: s.kind), kept, _same_kind)
    step = RunStep(kind="not a step type", name="grep")
    with pytest.raises(ValidationError) as raised:
        table.write(step, Writing(Run(), step, []))
    with pytest.raises(ValidationError) as expected:
        STEP.model.model_validate({"type": "not a step type", "name": "grep"})
    assert raised.value.errors() == expected.value.errors()


def _same_kind(value: str, writing: Writing[RunStep]) -> Any:
    return value


def _named(value: str | MISSING, writing: Writing[RunStep]) -> str:
    return value if isinstance(value, str) else ""
