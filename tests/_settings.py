"""The one setting of the property tests: how many examples, and whether they are new."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("AGENTRUNS_PROPERTY_EXAMPLES", "25"))
"""CI runs a bounded number; a long local run: ``AGENTRUNS_PROPERTY_EXAMPLES=1000 pytest``."""

NEW_EXAMPLES = "AGENTRUNS_PROPERTY_EXAMPLES" in os.environ
"""Whether this run explores new examples (a long local run) or runs the same ones every
time (CI: a red build is reproducible, never a draw of the day)."""

settings.register_profile("agentruns", derandomize=not NEW_EXAMPLES, database=None)
settings.load_profile("agentruns")  # (the parent of every test's own ``@settings``)

PROPERTY_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    derandomize=not NEW_EXAMPLES,
)
