"""Deprecated: the batch commands' loop and outputs are ``agentruns.pipeline``'s (``run``,
``Outputs``); these names stay for one release."""

from __future__ import annotations

from agentruns.pipeline import Committable, Outputs
from agentruns.pipeline import run as drive

__all__ = [
    "Committable",
    "Outputs",
    "drive",
]
