from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# days are counted in this machine's zone unless a command names one: the tests fix it, so
# that a day they expect is the same day on every machine
os.environ["TZ"] = "UTC"
time.tzset()


@pytest.fixture
def root() -> Path:
    return ROOT
