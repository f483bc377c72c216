"""What model calls cost, from a maintained price table: ``genai-prices`` (the ``cost`` extra).

Prices are never kept here: a model the table does not know is unpriced (its tokens said), never
0 and never a guess. The table prices cache reads and writes as the provider does, and takes
``input`` as every token read, cache included: the one meaning of tokens here. A price that is
the same per token at any size is read from the table once per model and day, as the table's
price of a million tokens of each kind; a tiered one (a higher price for every token of a call
whose input is past some size) is read so once per band of input sizes; a call priced by more
than its tokens is priced by the table, call by call.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Any

from agentruns._slots import USAGE_SLOT

if TYPE_CHECKING:
    from genai_prices.types import ModelPrice

Call = tuple[int | None, str | None, int, int, int, int]
"""One model call: (quarter hour or None, model or None, input, output, cache writes, cache
reads), input counting the cache."""

_KINDS = ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok")


@dataclass
class Priced:
    """The cost of a set of calls: USD by (quarter hour, model), and the tokens of calls no
    price was found for, by model (``(none)``: the call names no model)."""

    cost: dict[tuple[int | None, str], float] = field(default_factory=dict)
    unpriced: dict[str, int] = field(default_factory=dict)


@cache
def source() -> str | None:
    """Where prices come from (``genai-prices 0.2.3``), or None when the extra is missing."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        import genai_prices  # noqa: F401
    except ImportError:
        return None
    try:
        return f"genai-prices {version('genai-prices')}"
    except PackageNotFoundError:
        return "genai-prices"


def price(calls: Iterable[Call]) -> Priced | None:
    """The cost of the calls; None when the price table is not installed."""
    if source() is None:
        return None
    from genai_prices import Usage

    found = Priced()
    for slot, model, read, written, cache_written, cache_read in calls:
        day = _day(slot)
        table = _model_price(model, day) if model else None
        if table is None:
            key = model or "(none)"
            found.unpriced[key] = found.unpriced.get(key, 0) + read + written
            continue
        assert model is not None
        bands = _thresholds(model, day)
        if bands is not None:  # per token, at the rate of the call's input band
            fresh, out, reads, writes = _unit_prices(model, day, bisect_left(bands, read))
            usd = (
                (read - cache_read - cache_written) * fresh
                + written * out
                + cache_read * reads
                + cache_written * writes
            )
        else:  # priced by something else than tokens as well: the table prices the call
            usd = float(_usd(table, Usage, (read, written, cache_written, cache_read)))
        found.cost[slot, model] = found.cost.get((slot, model), 0.0) + usd
    return found


def _usd(table: ModelPrice, usage: Any, counts: tuple[int, int, int, int]) -> Decimal:
    read, written, cache_written, cache_read = counts
    made = usage(
        input_tokens=read,
        output_tokens=written,
        cache_write_tokens=cache_written,
        cache_read_tokens=cache_read,
    )
    return table.calc_price(made)["total_price"]


@cache
def _thresholds(model: str, day: str | None) -> tuple[int, ...] | None:
    """The input sizes past which the model's price per token changes (none for a linear
    price), or None when the table prices a call by more than its tokens."""
    from genai_prices.types import TieredPrices

    table = _model_price(model, day)
    if table is None:
        return None
    priced = {key for key, value in vars(table).items() if value is not None}
    if not priced <= set(_KINDS):
        return None
    starts = {
        tier.start
        for kind in _KINDS
        if isinstance(tiered := getattr(table, kind, None), TieredPrices)
        for tier in tiered.tiers
    }
    return tuple(sorted(starts))


@cache
def _unit_prices(model: str, day: str | None, band: int) -> tuple[float, float, float, float]:
    """USD per token of fresh input, output, cache read and cache write, for a call whose
    input is in the ``band``-th range between thresholds: the table's price of a call of that
    size in each kind, divided by its tokens. A tier's price applies to every token of a call
    whose input is past its start, so within one band the price is one per token."""
    from genai_prices import Usage

    table = _model_price(model, day)
    bands = _thresholds(model, day)
    assert table is not None
    assert bands is not None
    # an input size inside the band: just past the threshold below it
    size = bands[band - 1] + 1 if band else (min(bands[0], _MILLION) if bands else _MILLION)
    out = _usd(table, Usage, (size, _MILLION, 0, 0)) - _usd(table, Usage, (size, 0, 0, 0))
    if size == 0:  # a band that only an empty input is in: no input price is ever used
        return 0.0, float(out / _MILLION), 0.0, 0.0
    fresh = _usd(table, Usage, (size, 0, 0, 0)) / size
    reads = _usd(table, Usage, (size, 0, 0, size)) / size
    writes = _usd(table, Usage, (size, 0, size, 0)) / size
    return float(fresh), float(out / _MILLION), float(reads), float(writes)


_MILLION = 1_000_000


def _day(slot: int | None) -> str | None:
    if slot is None:
        return None
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
