from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM = ROOT.parent / "shared" / "upstream"


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture
def upstream() -> Path:
    """Real upstream files, which CI keeps beside the clone; absent elsewhere."""
    if not UPSTREAM.is_dir():
        pytest.skip(f"real upstream files not present at {UPSTREAM} (they live beside the clone)")
    return UPSTREAM
