"""Cost comes from the price table (genai-prices), call by call: a few prices pinned against
the package, the one meaning of tokens kept (input counts the cache), a model with no price
"unknown" with its tokens (never 0), and a day's cost booked on the day of its calls."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from genai_prices import Usage, calc_price
from hypothesis import given
from hypothesis import strategies as st

from agentruns import _prices
from agentruns._slots import USAGE_SLOT
from agentruns.cli import main
from tests._settings import PROPERTY_SETTINGS
from tests._stats import stats_json
from tests.test_stats_days import _session

SONNET = "claude-sonnet-4-20250514"
SLOT = int(datetime(2026, 3, 1, tzinfo=UTC).timestamp()) // USAGE_SLOT


def _usd(*calls: _prices.Call) -> float:
    priced = _prices.price(calls)
    assert priced is not None
    return sum(priced.cost.values())


def test_a_million_tokens_cost_what_the_table_says() -> None:
    assert _usd((SLOT, SONNET, 1_000_000, 0, 0, 0, 0)) == pytest.approx(3.0)
    assert _usd((SLOT, SONNET, 0, 1_000_000, 0, 0, 0)) == pytest.approx(15.0)
    # input counts the cache: a million tokens all read from the cache cost the cache price
    assert _usd((SLOT, SONNET, 1_000_000, 0, 0, 1_000_000, 0)) == pytest.approx(0.3)
    assert _usd((SLOT, SONNET, 1_000_000, 0, 1_000_000, 0, 0)) == pytest.approx(3.75)
    # a cache write kept an hour costs twice the input price (five minutes': 1.25 times)
    assert _usd((SLOT, SONNET, 1_000_000, 0, 1_000_000, 0, 1_000_000)) == pytest.approx(6.0)


def test_a_model_with_no_price_is_unknown_with_its_tokens_never_free() -> None:
    priced = _prices.price(
        [(SLOT, "no-such-model-anywhere", 100, 20, 0, 0, 0), (SLOT, None, 5, 5, 0, 0, 0)]
    )
    assert priced is not None
    assert priced.cost == {}
    assert priced.unpriced == {"no-such-model-anywhere": 120, "(none)": 10}


MODELS = [
    SONNET,
    "claude-sonnet-4-5-20250929",  # tiered, with 1-hour cache writes and web searches priced
    "claude-opus-4-6",
    "claude-haiku-4-5-20251001",
    "gpt-4o",
    "gemini-2.5-flash",
    "gemini-2.5-pro",  # tiered
    "deepseek-chat",  # a price by the time of day (off-peak from 16:30 to 00:30 UTC)
    "deepseek-flash",  # two peak windows a day
]

_YEARS = int(datetime(2024, 1, 1, tzinfo=UTC).timestamp()) // USAGE_SLOT
slots = (
    st.sampled_from([SLOT, SLOT + 1, None, SLOT + 12 * 4, SLOT + 20 * 4])  # noon, 20:00
    # any quarter hour of three years: every hour of the day, prices that changed on a date
    | st.integers(_YEARS, _YEARS + 3 * 366 * 96)
)

calls = st.lists(
    st.tuples(
        slots,
        st.sampled_from(MODELS),
        # input sizes on both sides of the tiers' thresholds (a tier prices every token of a
        # call whose input is past its start)
        st.integers(0, 300_000) | st.sampled_from([0, 1, 128_000, 128_001, 200_000, 200_001]),
        st.integers(0, 20_000),
        st.integers(0, 50_000),
        st.integers(0, 50_000),
        st.integers(0, 50_000),  # the part of the cache writes kept an hour
    ).filter(lambda c: c[2] >= c[4] + c[5] and c[6] <= c[4]),
    min_size=1,
    max_size=20,
)


@PROPERTY_SETTINGS
@given(made=calls)
def test_calls_priced_together_cost_what_they_cost_one_by_one(made: list[_prices.Call]) -> None:
    """The table (calc_price per call, at the call's own time) is the oracle of the
    buckets: a price that changed on a date, and one that changes with the hour."""
    expected = 0.0
    for slot, model, read, written, cache_written, cache_read, hour in made:
        when = datetime.fromtimestamp(slot * USAGE_SLOT, UTC) if slot is not None else None
        usage = Usage(
            input_tokens=read,
            output_tokens=written,
            cache_write_tokens=cache_written,
            cache_read_tokens=cache_read,
            cache_write_1h_tokens=hour,
        )
        assert model is not None
        expected += float(calc_price(usage, model, genai_request_timestamp=when).total_price)
    assert _usd(*made) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def _stats(*args: str) -> dict[str, Any]:
    return stats_json("--no-cache", *args)


def test_a_sessions_cost_is_booked_on_the_day_of_each_call(tmp_path: Path) -> None:
    _session(tmp_path / "p", [(0, 1_000_000, 0, 0, [1]), (27 * 60, 2_000_000, 0, 0, [1])])
    cost = _stats("--timezone", "UTC", str(tmp_path))["cost_usd"]
    assert cost["prices"].startswith("genai-prices ")
    assert cost["unpriced_tokens"] == [{"model": "claude-test", "tokens": 3_000_002}]
    assert cost["total"] == 0  # the model is no model the table knows: unknown, not free


def test_a_known_model_s_cost_by_day_and_model(tmp_path: Path) -> None:
    lines = _session(tmp_path / "p", [(0, 1_000_000, 0, 0, [1]), (27 * 60, 2_000_000, 0, 0, [1])])
    text = "".join(
        json.dumps(line).replace('"claude-test"', f'"{SONNET}"') + "\n" for line in lines
    )
    (tmp_path / "p" / "s-1.jsonl").write_text(text)
    cost = _stats("--timezone", "UTC", str(tmp_path))["cost_usd"]
    by_day = {entry["day"]: entry["usd"] for entry in cost["by_day"]}
    assert by_day == {
        "2026-03-28": pytest.approx(3.0 + 15e-6),
        "2026-03-29": pytest.approx(6.0 + 15e-6),
    }
    assert cost["by_model"] == [{"model": SONNET, "usd": pytest.approx(9.0 + 30e-6)}]
    assert cost["unpriced_tokens"] == []


def test_without_the_price_table_the_cost_is_said_not_computed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_prices, "source", lambda: None)
    _session(tmp_path / "p", [(0, 10, 0, 0, [1])])
    assert _stats(str(tmp_path))["cost_usd"] is None
    result = CliRunner().invoke(main, ["stats", "-j", "1", "--no-cache", str(tmp_path)])
    assert "cost: not computed" in result.output


def test_a_sessions_hour_long_cache_writes_cost_what_the_provider_charges(tmp_path: Path) -> None:
    """Claude Code says which cache writes are kept an hour (``cache_creation``'s
    ``ephemeral_1h_input_tokens``): those cost twice the input price, not 1.25 times (ccusage
    and Anthropic's bill agree; the five-minute price made a day of Opus 4.6 $0.54, not $0.70)."""
    usage = {
        "input_tokens": 0,
        "cache_creation_input_tokens": 1_000_000,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1_000_000},
        "output_tokens": 0,
    }
    line = {
        "type": "assistant",
        "sessionId": "s-1",
        "uuid": "u-1",
        "timestamp": "2026-03-01T10:00:00Z",
        "message": {"id": "m-1", "role": "assistant", "model": SONNET, "usage": usage},
    }
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "s-1.jsonl").write_text(json.dumps(line) + "\n")
    cost = _stats("--timezone", "UTC", str(tmp_path))["cost_usd"]
    assert cost["total"] == pytest.approx(6.0)


def test_naming_the_price_table_does_not_import_it() -> None:
    """A run whose sessions all come from the cache names the table (the cache's key) and
    prices nothing: it does not pay the table's import (about 0.1 s)."""
    code = (
        "import sys; from agentruns import _prices; "
        "print(_prices.source(), 'genai_prices' in sys.modules)"
    )
    said = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert said[0] == "genai-prices"
    assert said[-1] == "False"


def test_a_table_that_cannot_be_imported_prices_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _prices.source() is not None  # installed (and remembered as such)
    monkeypatch.setitem(sys.modules, "genai_prices", None)  # but its import fails
    assert _prices.price([(0, SONNET, 1_000, 10, 0, 0, 0)]) is None


def test_loading_a_table_that_cannot_be_imported_is_left_to_each_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The load before the workers fork never stops the command: each session's pricing
    meets the broken table itself, and says so, as it did before the load."""
    assert _prices.source() is not None
    monkeypatch.setitem(sys.modules, "genai_prices.data", None)
    _prices.load()  # no error


def test_a_call_is_priced_at_its_own_hour_where_the_price_changes_with_the_hour() -> None:
    """DeepSeek Chat costs half off-peak (16:30 to 00:30 UTC): a call at noon is priced at
    the peak rate, one at 20:00 at the off-peak rate, on the same day (priced as at the day's
    midnight, both were off-peak)."""
    day = int(datetime(2026, 3, 2, tzinfo=UTC).timestamp()) // USAGE_SLOT
    noon, evening = day + 12 * 4, day + 20 * 4
    peak = _usd((noon, "deepseek-chat", 1_000_000, 0, 0, 0, 0))
    off_peak = _usd((evening, "deepseek-chat", 1_000_000, 0, 0, 0, 0))
    assert peak == pytest.approx(0.27)
    assert off_peak == pytest.approx(0.135)


@pytest.mark.parametrize("model", MODELS)
@PROPERTY_SETTINGS
@given(slot=slots, read=st.integers(0, 300_000), written=st.integers(0, 20_000))
def test_a_call_costs_what_the_table_says_at_its_own_time(
    model: str, slot: int | None, read: int, written: int
) -> None:
    when = datetime.fromtimestamp(slot * USAGE_SLOT, UTC) if slot is not None else None
    usage = Usage(input_tokens=read, output_tokens=written)
    expected = float(calc_price(usage, model, genai_request_timestamp=when).total_price)
    assert _usd((slot, model, read, written, 0, 0, 0)) == pytest.approx(expected, abs=1e-12)


def test_a_call_past_the_years_a_datetime_holds_is_priced_at_its_hour() -> None:
    """9999-12-31T23:59:59-14:00 is 10000-01-01T13:59:59Z, a quarter hour no ``datetime``
    holds: the call is priced (every dated price has begun), at its own time of day, never
    an error that costs the session."""
    late = int(
        datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone(-timedelta(hours=14))).timestamp()
    )
    slot = late // USAGE_SLOT
    assert _usd((slot, SONNET, 1_000_000, 0, 0, 0, 0)) == pytest.approx(3.0)
    # 13:45 UTC is DeepSeek Chat's peak; 20:00 on that day its off-peak
    assert _usd((slot, "deepseek-chat", 1_000_000, 0, 0, 0, 0)) == pytest.approx(0.27)
    evening = slot - slot % 96 + 20 * 4
    assert _usd((evening, "deepseek-chat", 1_000_000, 0, 0, 0, 0)) == pytest.approx(0.135)


def test_a_session_at_the_end_of_year_9999_is_counted_and_priced(tmp_path: Path) -> None:
    """Its lines' time is past what a ``datetime`` holds in UTC: the session is read, not
    rejected for an error of the pricing."""
    line = {
        "type": "assistant",
        "uuid": "a1",
        "sessionId": "s1",
        "timestamp": "9999-12-31T23:59:59-14:00",
        "requestId": "r1",
        "message": {
            "id": "m1",
            "role": "assistant",
            "model": SONNET,
            "content": [{"type": "text", "text": "hi"}],
            "usage": {"input_tokens": 1_000_000, "output_tokens": 0},
        },
    }
    (tmp_path / "s1.jsonl").write_text(json.dumps(line) + "\n")
    shown = _stats(str(tmp_path))
    assert (shown["runs"], shown["rejected"]) == (1, 0)
    assert shown["cost_usd"]["total"] == pytest.approx(3.0)
