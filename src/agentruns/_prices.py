"""What model calls cost, from a maintained price table: ``genai-prices`` (the ``cost`` extra).

Prices are never kept here: a model the table does not know is unpriced (its tokens said), never
0 and never a guess. The table prices cache reads and writes as the provider does, and takes
``input`` as every token read, cache included: the one meaning of tokens here. Each call is
priced at the price the table gives for its own quarter hour (prices change from a date on, and
some with the hour: DeepSeek's off-peak rates). A price that is the same per token at any size
is read from the table once per price (not per model and day: a history of a year spans a
few prices a model), as the table's price of a million tokens of each kind; a tiered one (a
higher price for every token of a call whose input is past some size) is read so once per
band of input sizes (see ``_unit_prices``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import cache, lru_cache
from math import isfinite
from typing import TYPE_CHECKING, Any

from agentruns._slots import USAGE_SLOT

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, ModelPrice

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


def billed_usd(value: object) -> float | None:
    """A cost OpenCode states (a message's or a step's ``cost``), else None: as
    ``recorded_usd``, but only a positive amount is a cost. OpenCode writes 0 for every call
    it has no price for (a model models.dev does not price, a provider billed by
    subscription), tokens and all; ccusage prices such a call from its table (it takes an
    OpenCode cost above 0 only), and so does ``stats`` (a model the table does not know
    stays unknown, never free). Other agents' 0 is their statement (ccusage takes Claude
    Code's and Pi's)."""
    usd = recorded_usd(value)
    return usd if usd is not None and usd > 0 else None


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
        table = _price_at(model, slot) if model else None
        if table is None:
            key = model or "(none)"
            found.unpriced[key] = found.unpriced.get(key, 0) + read + written
            found.each.append(None)
            continue
        assert model is not None
        # the call's price, at the rates of its input band
        base, fresh, out, reads, writes, hour_writes = _unit_prices(
            table, bisect_left(_known(table)[0], read)
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


_Rates = tuple[float, float, float, float, float, float]

_BY_TABLE: dict[int, tuple[ModelPrice, tuple[int, ...], dict[int, _Rates]]] = {}
"""By price (the table's own object, held here so its id stays its own): its thresholds and
the rates of each band read so far. A price is one object for all the time it applies, so a
history of a year is read once per price, not once per model and day."""


def _known(table: ModelPrice) -> tuple[tuple[int, ...], dict[int, _Rates]]:
    """What is known of a price: its thresholds, and the rates of the bands read so far."""
    held = _BY_TABLE.get(id(table))
    if held is None:
        held = _BY_TABLE[id(table)] = (table, _thresholds(table), {})
    return held[1], held[2]


def _thresholds(table: ModelPrice) -> tuple[int, ...]:
    """The input sizes past which the price per token changes (none: one price)."""
    from genai_prices.types import TieredPrices

    starts = {
        tier.start
        for value in vars(table).values()
        if isinstance(value, TieredPrices)
        for tier in value.tiers
    }
    return tuple(sorted(starts))


def _unit_prices(table: ModelPrice, band: int) -> _Rates:
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
    bands, rates = _known(table)
    known = rates.get(band)
    if known is not None:
        return known
    from genai_prices import Usage

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
    found = float(base), float(fresh), float(out), float(reads), float(writes), float(hour_writes)
    rates[band] = found
    return found


_MILLION = 1_000_000


@lru_cache(maxsize=1 << 14)
def _price_at(model: str, slot: int | None) -> ModelPrice | None:
    """The table's price of ``model`` for a call made in the quarter hour ``slot`` (None:
    now), None when it has none. Prices change with the date (a new price from a day on)
    and some with the time of day (DeepSeek's off-peak hours, which begin and end on a
    quarter hour): the price of the call's own quarter hour, as the table's ``calc_price``
    takes it for the call's time."""
    info = _model_info(model)
    if info is None:
        return None
    return info.get_prices(_instant(slot) if slot is not None else datetime.now(tz=UTC))


def _instant(slot: int) -> datetime:
    """The start of a quarter hour. One past the years a ``datetime`` holds (9999-12-31 at a
    -14:00 offset is 10000-01-01 in UTC) is taken on the last day it holds, at its own time of
    day: every dated price has begun by then, and the hour still decides an hourly one."""
    seconds = slot * USAGE_SLOT
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        edge = datetime.max if seconds > 0 else datetime.min
        return edge.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=UTC) + timedelta(
            seconds=seconds % 86_400
        )


@cache
def _model_info(model: str) -> ModelInfo | None:
    """The table's model ``model`` names, None when it has none (found once a model: the
    table's lookup matches a name against every provider's models)."""
    from genai_prices import Usage, calc_price

    try:
        return calc_price(Usage(input_tokens=0), model).model
    except (LookupError, ValueError):
        return None
