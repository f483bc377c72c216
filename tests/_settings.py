"""The one setting of the property tests: how many examples, and whether they are new."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("AGENTRUNS_PROPERTY_EXAMPLES", "25"))
"""CI runs a bounded number; a long local run: ``AGENTRUNS_PROPERTY_EXAMPLES=1000 pytest``."""

PROPERTY_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    # CI runs the same examples every time (a red build is reproducible); a long local run
    # (AGENTRUNS_PROPERTY_EXAMPLES set) explores new ones.
    derandomize="AGENTRUNS_PROPERTY_EXAMPLES" not in os.environ,
)
