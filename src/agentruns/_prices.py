"""What model calls cost, from a maintained price table: ``genai-prices`` (the ``cost`` extra).

Prices are never kept here: a model the table does not know is unpriced (its tokens said), never
0 and never a guess. The table prices cache reads and writes as the provider does, and takes
``input`` as every token read, cache included: the one meaning of tokens here. A price that is
the same per token at any size is read from the table once per model and day, as the table's
price of a million tokens of each kind; a tiered one (a higher price for every token of a call
whose input is past some size) is read so once per band of input sizes (see ``_unit_prices``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from math import isfinite
from typing import TYPE_CHECKING, Any

from agentruns._slots import USAGE_SLOT

if TYPE_CHECKING:
    from genai_prices.types import ModelPrice

Call = tuple[int | None, str | None, int, int, int, int, int]
"""One model call: (quarter hour or None, model or None, input, output, cache writes, cache
reads, the part of the cache writes kept for an hour), input counting the cache."""

_KINDS = ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok")


RECORDED = "the agents' own records"
"""Where a cost comes from when the run or the harness recorded it (a session's ``costUSD``,
an OpenCode message's ``cost``, a record's ``cost_usd``): the cost as the agent counted it,
taken before any price table's (as ccusage's default ``auto`` mode does)."""


def recorded_usd(value: object) -> float | None:
    """A cost as a harness or a record states it (a finite number of dollars), else None: a
    bool, a string or an infinite number is no cost."""
    if isinstance(value, int | float) and not isinstance(value, bool) and isfinite(value):
        return float(value)
    return None


@dataclass
class Priced:
    """The cost of a set of calls: USD by (quarter hour, model), and the tokens of calls no
    price was found for, by model (``(none)``: the call names no model)."""

    cost: dict[tuple[int | None, str], float] = field(default_factory=dict)
    unpriced: dict[str, int] = field(default_factory=dict)
    each: list[float | None] = field(default_factory=list)
    """Each call's cost, in the order given (None: no price found)."""


@cache
def source() -> str | None:
    """Where prices come from (``genai-prices 0.2.3``), or None when the extra is missing.

    Found without importing the table (its import takes about 0.1 s: a command that reads
    every session from its cache names the table in the cache's key, and prices nothing)."""
    from importlib.metadata import PackageNotFoundError, version
    from importlib.util import find_spec

    if find_spec("genai_prices") is None:
        return None
    try:
        return f"genai-prices {version('genai-prices')}"
    except PackageNotFoundError:
        return "genai-prices"


def load() -> None:
    """Import the price table now, if it is installed: called before worker processes are
    forked, which then start with it (each importing it for itself cost a worker 0.1 s of
    a 1.5 s run over a thousand sessions)."""
    if source() is None:
        return
    try:
        import genai_prices.data  # noqa: F401
    except Exception:  # a broken install: each session's pricing says so, as before
        return


def price(calls: Iterable[Call]) -> Priced | None:
    """The cost of the calls; None when the price table is not installed (or cannot be
    imported)."""
    if source() is None:
        return None
    try:
        import genai_prices  # noqa: F401
    except ImportError:
        return None

    found = Priced()
    for slot, model, read, written, cache_written, cache_read, hour in calls:
        day = _day(slot)
        table = _model_price(model, day) if model else None
        if table is None:
            key = model or "(none)"
            found.unpriced[key] = found.unpriced.get(key, 0) + read + written
            found.each.append(None)
            continue
        assert model is not None
        # the call's price, at the rates of its input band
        base, fresh, out, reads, writes, hour_writes = _unit_prices(
            model, day, bisect_left(_thresholds(model, day), read)
        )
        usd = (
            base
            + (read - cache_read - cache_written) * fresh
            + written * out
            + cache_read * reads
            + (cache_written - hour) * writes
            + hour * hour_writes
        )
        found.cost[slot, model] = found.cost.get((slot, model), 0.0) + usd
        found.each.append(usd)
    return found


def _usd(table: ModelPrice, usage: Any, counts: tuple[int, int, int, int, int]) -> Decimal:
    read, written, cache_written, cache_read, hour = counts
    made = usage(
        input_tokens=read,
        output_tokens=written,
        cache_write_tokens=cache_written,
        cache_read_tokens=cache_read,
        cache_write_1h_tokens=hour,
    )
    return table.calc_price(made)["total_price"]


@cache
def _thresholds(model: str, day: str | None) -> tuple[int, ...]:
    """The input sizes past which the model's price per token changes (none: one price)."""
    from genai_prices.types import TieredPrices

    table = _model_price(model, day)
    values = vars(table).values() if table is not None else ()
    starts = {
        tier.start for value in values if isinstance(value, TieredPrices) for tier in value.tiers
    }
    return tuple(sorted(starts))


@cache
def _unit_prices(
    model: str, day: str | None, band: int
) -> tuple[float, float, float, float, float, float]:
    """USD per call, and per token of fresh input, output, cache read, cache write and
    cache write kept an hour, for a call whose input is in the ``band``-th range between
    thresholds.

    The table's price of a call is a sum of prices per unit, each a count derived linearly
    from the call's tokens (a per-request price is a constant) times a rate that depends on
    the input size alone (a tier's rate applies to every token of a call whose input is past
    its start). Inside one band it is therefore one affine function of the four counts, read
    from the table at two input sizes of the band and one more call per kind. The property
    test in ``tests/test_cost.py`` holds it to the table, call by call.
    """
    from genai_prices import Usage

    table = _model_price(model, day)
    assert table is not None
    bands = _thresholds(model, day)
    # two input sizes in the band (one, when the band is a single size)
    low = bands[band - 1] + 1 if band else 0
    high = bands[band] if band < len(bands) else low + _MILLION

    def usd(
        read: int, written: int = 0, cache_written: int = 0, cache_read: int = 0, hour: int = 0
    ) -> Decimal:
        return _usd(table, Usage, (read, written, cache_written, cache_read, hour))

    fresh = (usd(high) - usd(low)) / (high - low) if high > low else Decimal(0)
    base = usd(low) - fresh * low
    out = (usd(high, _MILLION) - usd(high)) / _MILLION
    reads = (usd(high, 0, 0, high) - base) / high if high else Decimal(0)
    writes = (usd(high, 0, high, 0) - base) / high if high else Decimal(0)
    hour_writes = (usd(high, 0, high, 0, high) - base) / high if high else Decimal(0)
    return float(base), float(fresh), float(out), float(reads), float(writes), float(hour_writes)


_MILLION = 1_000_000


def _day(slot: int | None) -> str | None:
    if slot is None:
        return None
    return _slot_day(slot)


@cache
def _slot_day(slot: int) -> str:
    """The UTC day of a quarter hour (asked once per call; a session's calls share a few)."""
    return datetime.fromtimestamp(slot * USAGE_SLOT, UTC).date().isoformat()


@cache
def _model_price(model: str, day: str | None) -> ModelPrice | None:
    """The table's price of ``model`` on ``day`` (prices change), None when it has none."""
    from genai_prices import Usage, calc_price

    when = datetime.fromisoformat(day).replace(tzinfo=UTC) if day else None
    try:
        return calc_price(Usage(input_tokens=0), model, genai_request_timestamp=when).model_price
    except (LookupError, ValueError):
        return None
