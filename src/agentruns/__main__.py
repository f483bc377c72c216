"""``python -m agentruns``: the same command as the ``agentruns`` console script."""

from __future__ import annotations

from agentruns._command import run

if __name__ == "__main__":
    run()
