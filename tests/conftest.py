from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import tests._settings  # noqa: F401  (every test's examples: the same each run, see there)

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


@pytest.fixture(autouse=True)
def _recursion_limit_restored() -> Iterator[None]:
    """Each test starts at the recursion limit the session started with: a test that raises
    it (to write a deep document, or through ``make_room``) does not raise it for the tests
    after it, whose outcome (and Hypothesis's examples) would then depend on what ran first."""
    limit = sys.getrecursionlimit()
    yield
    sys.setrecursionlimit(limit)
