"""Quarter hours: where a model call's tokens are booked, so that its day is known in any zone.

Every time zone's offset is a whole number of quarter hours, so a call's quarter hour (UTC)
says which day it was made on wherever the report is read, and a session's calls fit in a few
numbers however many there were.
"""

from __future__ import annotations

from datetime import datetime

USAGE_SLOT = 900
"""Seconds in one slot: a quarter hour."""


def usage_slot(at: datetime | None) -> int | None:
    """The quarter hour (UTC, counted from the epoch) ``at`` lies in; None without an aware
    time."""
    if at is None or at.utcoffset() is None:
        return None
    try:
        return int(at.timestamp()) // USAGE_SLOT
    except (OverflowError, OSError, ValueError):
        return None
