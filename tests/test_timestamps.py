"""A date-time is read by one C call (``fromisoformat``) after the Rust pattern, and means what
the previous path meant: pydantic-core's date-time parser, then the text remembered. That path
is the oracle here, rebuilt in the test, over every shape the pattern lets through."""

from __future__ import annotations

import json
import pickle
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError
from pydantic_core import SchemaValidator, core_schema

from agentruns_generated._json import (
    _RFC3339_DATETIME_RUST,
    JsonDateTime,
    Timestamp,
    _format_ok,
    _leap_second_at,
    date_time_text,
)
from tests._settings import PROPERTY_SETTINGS


def _previous(text: str, parse: Any) -> datetime:
    if text[17:19] == "60":
        offset = text[19:].lstrip(".0123456789")
        if _leap_second_at(int(text[11:13]), int(text[14:16]), offset.upper()):
            return Timestamp.of(parse(text[:17] + "59" + text[19:]), text)
    return Timestamp.of(parse(text), text)


ORACLE = SchemaValidator(
    core_schema.chain_schema(
        [
            core_schema.str_schema(strict=True, pattern=_RFC3339_DATETIME_RUST),
            core_schema.no_info_wrap_validator_function(
                _previous, core_schema.datetime_schema(tz_constraint="aware")
            ),
        ]
    )
)
OURS: TypeAdapter[datetime] = TypeAdapter(JsonDateTime)

two = st.integers(0, 99).map(lambda n: f"{n:02d}")


def _field(low: int, high: int) -> st.SearchStrategy[str]:
    """Two digits, in the field's range half the time (else most texts would be refused)."""
    return st.integers(low, high).map(lambda n: f"{n:02d}") | two


texts = st.builds(
    lambda year, month, day, sep, hour, minute, second, fraction, offset: (
        f"{year:04d}-{month}-{day}{sep}{hour}:{minute}:{second}{fraction}{offset}"
    ),
    st.sampled_from([0, 1, 4, 100, 400, 1900, 1970, 2000, 2024, 2025, 9999]) | st.integers(0, 9999),
    _field(1, 12),
    _field(1, 31),
    st.sampled_from(["T", "t"]),
    _field(0, 23),
    _field(0, 59),
    _field(0, 60),
    st.sampled_from(
        ["", ".5", ".123456", ".1234567", ".000000001", ".000000", ".000123", ".500000"]
    ),
    st.sampled_from(["Z", "z", "+00:00", "-00:00"])
    | st.builds(
        lambda sign, h, m: f"{sign}{h}:{m}", st.sampled_from("+-"), _field(0, 23), _field(0, 59)
    ),
)


def _read(validate: Any, text: str) -> tuple[datetime, str, timedelta | None] | None:
    """The instant read, the text it is written back as, and its offset (None: refused)."""
    try:
        made = validate(text)
    except ValidationError:
        return None
    return made, json.loads(OURS.dump_json(made)), made.utcoffset()


@PROPERTY_SETTINGS
@given(st.lists(texts, min_size=50, max_size=50))
def test_a_date_time_is_read_as_the_previous_parser_read_it(batch: list[str]) -> None:
    """Read in Rust (a text pydantic writes as it is) or remembered (any other spelling), a
    date-time is the instant, offset and text the previous path gave."""
    for text in batch:
        expected = _read(ORACLE.validate_python, text)
        assert expected is None or (expected[1] == text == date_time_text(expected[0]))
        assert _read(OURS.validate_python, text) == expected, text
        assert _read(lambda t: OURS.validate_json(f'"{t}"'), text) == expected, text


def test_a_date_time_spelled_as_pydantic_writes_it_is_read_without_a_timestamp() -> None:
    for text in (
        "2026-01-31T12:00:00Z",
        "2026-01-31T12:00:00.000123+05:30",
        "1999-12-31T23:59:59-08:00",
    ):
        read = OURS.validate_json(f'"{text}"')
        assert type(read) is datetime
        assert OURS.dump_json(read).decode() == f'"{text}"'
        assert date_time_text(read) == text  # not isoformat()'s "+00:00"


def test_a_date_time_made_in_code_is_shown_as_pydantic_writes_it() -> None:
    made = datetime(2026, 1, 31, 12, 0, 0, 500000, tzinfo=UTC)
    assert date_time_text(made) == "2026-01-31T12:00:00.500000Z"
    assert f'"{date_time_text(made)}"' == OURS.dump_json(made).decode()


def test_a_date_time_spelled_otherwise_keeps_its_text() -> None:
    for text in (
        "2026-01-31T12:00:00.5Z",
        "2026-01-31T12:00:00.000000Z",
        "2026-01-31T12:00:00+00:00",
        "2026-01-31T12:00:00-00:00",
        "2026-01-31t12:00:00z",
        "2026-01-31T12:00:00.1234567Z",
        "0999-01-31T12:00:00Z",
    ):
        read = OURS.validate_json(f'"{text}"')
        assert isinstance(read, Timestamp)
        assert read.text == text


def test_a_refused_date_time_is_refused_as_every_date_time_is() -> None:
    for text in ("2025-02-29T00:00:00Z", "2026-01-31 12:00:00Z", "2026-01-31T12:00Z"):
        with pytest.raises(ValidationError) as raised:
            OURS.validate_json(f'"{text}"')
        [error] = raised.value.errors()
        assert error["type"] == "rfc3339_datetime", text


@PROPERTY_SETTINGS
@given(st.lists(texts, min_size=50, max_size=50))
def test_a_rules_date_time_format_accepts_what_the_models_accept(batch: list[str]) -> None:
    """The ``format: date-time`` of a lifted rule and a model's date-time field judge by one
    function: an offset minute of 60, a leap second off 23:59:60 UTC, are refused by both."""
    for text in batch:
        assert _format_ok("date-time", text) is (_read(OURS.validate_python, text) is not None)


def test_an_offset_minute_of_60_is_refused_by_the_rules_too() -> None:
    assert _format_ok("date-time", "1990-12-31T10:00:00+10:60") is False
    assert _format_ok("date-time", "1990-12-31T10:00:00+10:59") is True


def test_leap_seconds_and_offset_bounds_are_read_as_before() -> None:
    for text in (
        "1998-12-31T23:59:60Z",
        "1998-12-31T15:59:60-08:00",
        "1998-12-31T23:59:60+01:00",
        "1990-12-31T10:00:00+10:60",
        "1990-12-31T10:00:00+24:00",
        "0000-01-01T00:00:00Z",
        "2024-02-29T00:00:00z",
        "2025-02-29T00:00:00Z",
    ):
        assert _read(OURS.validate_python, text) == _read(ORACLE.validate_python, text), text


def test_a_timestamp_keeps_its_text_through_pickle_and_loses_it_when_changed() -> None:
    read = OURS.validate_json('"2026-01-31T12:00:00.5Z"')
    assert isinstance(read, Timestamp)
    assert read.text == "2026-01-31T12:00:00.5Z"
    assert pickle.loads(pickle.dumps(read)).text == read.text
    assert read == datetime(2026, 1, 31, 12, 0, 0, 500000, tzinfo=UTC)
    moved = read.replace(hour=1)
    assert getattr(moved, "text", None) is None
    assert Timestamp(2026, 1, 1, tzinfo=UTC).text is None
