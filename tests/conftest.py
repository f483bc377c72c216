from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """The tests test this checkout: in a second clone whose environment holds the first
    one's editable install, they imported the first one's code and passed or failed for it,
    silently."""
    import agentruns
    import agentruns_generated
    import codegen

    for module in (agentruns, agentruns_generated, codegen):
        where = Path(module.__file__ or "").resolve()
        if ROOT not in where.parents:
            pytest.exit(
                f"{module.__name__} is imported from {where.parent}, not from this checkout "
                f"({ROOT}); install this one (pip install -e '.[dev]') and run again",
                returncode=2,
            )


# days are counted in this machine's zone unless a command names one: the tests fix it, so
# that a day they expect is the same day on every machine
os.environ["TZ"] = "UTC"
time.tzset()


@pytest.fixture
def root() -> Path:
    return ROOT
