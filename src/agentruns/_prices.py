"""What model calls cost, from a maintained price table: ``genai-prices`` (the ``cost`` extra).

Prices are never kept here: a model the table does not know is unpriced (its tokens said), never
0 and never a guess. The table prices cache reads and writes as the provider does, and takes
``input`` as every token read, cache included: the one meaning of tokens here. A price that is
the same per token at any size is read from the table once per model and day, as the table's
price of a million tokens of each kind; a tiered one (a higher price past some context size)
is the table's, call by call.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
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
        unit = _unit_prices(model, day)
        if unit is not None:  # linear: the table's price of one token of each kind
            fresh, out, reads, writes = unit
            usd = (
                (read - cache_read - cache_written) * fresh
                + written * out
                + cache_read * reads
                + cache_written * writes
            )
        else:  # tiered: the table prices the call
            usd = _usd(table, Usage, (read, written, cache_written, cache_read))
        found.cost[slot, model] = found.cost.get((slot, model), 0.0) + usd
    return found


def _usd(table: ModelPrice, usage: Any, counts: tuple[int, int, int, int]) -> float:
    read, written, cache_written, cache_read = counts
    made = usage(
        input_tokens=read,
        output_tokens=written,
        cache_write_tokens=cache_written,
        cache_read_tokens=cache_read,
    )
    return float(table.calc_price(made)["total_price"])


@cache
def _unit_prices(model: str, day: str | None) -> tuple[float, float, float, float] | None:
    """USD per token of fresh input, output, cache read and cache write, as the table prices a
    million of each (None when the price is tiered: it is not one price per token)."""
    from genai_prices import Usage

    table = _model_price(model, day)
    if table is None or not _linear(table):
        return None
    million = 1_000_000
    fresh = _usd(table, Usage, (million, 0, 0, 0)) / million
    out = _usd(table, Usage, (0, million, 0, 0)) / million
    reads = _usd(table, Usage, (million, 0, 0, million)) / million
    writes = _usd(table, Usage, (million, 0, million, 0)) / million
    return fresh, out, reads, writes


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


def _linear(table: ModelPrice) -> bool:
    from decimal import Decimal

    return all(isinstance(getattr(table, kind, None), Decimal | None) for kind in _KINDS)
