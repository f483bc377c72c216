"""A conversion into a format that has no place for foreign data (portable) makes no carry
payload: the payload (a run's unheld fields dumped, its steps included) would be dropped
unread, and its making cost a conversion to portable about a fifth of its time. The path
that made it and found no place is the oracle: over records of every other format, the
conversion is the same record with the same losses and derived values."""

from __future__ import annotations

from typing import Any
from unittest import mock

from hypothesis import given
from pydantic import BaseModel

from agentruns import conversion
from agentruns.conversion import Conversion, convert, format_named
from agentruns.formats._base import CarryPlace, Format
from agentruns.formats.portable import PortableFormat
from tests._settings import PROPERTY_SETTINGS
from tests.test_conversion_properties import records

OTHERS = ("agentrun", "atif", "cortex")


def _as_it_was(record: BaseModel, to: str) -> Conversion[Any]:
    """The conversion with a payload made for every target (the path before the shortcut)."""
    with mock.patch.object(conversion, "_has_place", return_value=True):
        return convert(record, to)


def _same(got: Conversion[Any], expected: Conversion[Any]) -> None:
    assert got.target.model_dump_json() == expected.target.model_dump_json()
    assert got.losses == expected.losses
    assert got.derived == expected.derived


def test_portable_has_no_place_and_the_others_have_one() -> None:
    assert not conversion._has_place(format_named("portable"))
    assert all(conversion._has_place(format_named(name)) for name in OTHERS)


def test_a_format_that_carries_by_its_own_method_has_a_place() -> None:
    class OwnCarry(PortableFormat):
        def carry(self, record: Any, payload: Any) -> Any:
            return record

    assert OwnCarry.carry_place is None
    assert conversion._has_place(OwnCarry())


def test_a_format_with_a_place_of_its_own_kind_has_one() -> None:
    class Place(CarryPlace[Any]):
        def carried(self, record: Any) -> None:
            return None

        def carried_at(self, record: Any) -> str:
            return ""

        def carry(self, record: Any, payload: Any) -> Any:
            return record

    class Placed(PortableFormat):
        carry_place = Place()

    assert type(Placed()).carry is Format.carry
    assert conversion._has_place(Placed())


@PROPERTY_SETTINGS
@given(record=records("agentrun"))
def test_agentrun_to_portable_is_the_conversion_that_made_a_payload(record: BaseModel) -> None:
    _same(convert(record, "portable"), _as_it_was(record, "portable"))


@PROPERTY_SETTINGS
@given(record=records("atif"))
def test_atif_to_portable_is_the_conversion_that_made_a_payload(record: BaseModel) -> None:
    _same(convert(record, "portable"), _as_it_was(record, "portable"))


@PROPERTY_SETTINGS
@given(record=records("cortex"))
def test_cortex_to_portable_is_the_conversion_that_made_a_payload(record: BaseModel) -> None:
    _same(convert(record, "portable"), _as_it_was(record, "portable"))


@PROPERTY_SETTINGS
@given(record=records("cortex"))
def test_no_payload_is_made_for_portable(record: BaseModel) -> None:
    with mock.patch.object(conversion, "_carry_payload", side_effect=AssertionError("made")):
        convert(record, "portable")
