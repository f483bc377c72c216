"""The build step against JSON-Schema-Test-Suite draft 7 (tests/conformance/suite.py).

Every group whose schema the build step generates must agree with the suite on every
instance, on both validation paths; the few it refuses must be refused for a stated reason.
"""

from __future__ import annotations

from functools import cache

import pytest

from tests.conformance.suite import GroupResult, groups, run

REFUSAL_REASONS = (
    "leaves the document",  # remote references: the build step never fetches anything
    "does not resolve",
    "wrote Any",
    "without a type alias",
)


@cache
def _results() -> tuple[GroupResult, ...]:
    return tuple(run())


def test_the_suite_is_there() -> None:
    assert sum(1 for _ in groups()) > 200


def test_no_generated_model_accepts_what_the_suite_rejects() -> None:
    assert [(r.description, r.false_accepts) for r in _results() if r.false_accepts] == []


def test_no_generated_model_rejects_what_the_suite_accepts() -> None:
    assert [(r.description, r.false_rejects) for r in _results() if r.false_rejects] == []


def test_no_generated_model_crashes_on_a_suite_instance() -> None:
    assert [(r.description, r.crashes) for r in _results() if r.crashes] == []


def test_at_most_five_percent_of_the_groups_are_refused() -> None:
    results = _results()
    refused = [r for r in results if r.refused]
    assert len(refused) <= 0.05 * len(results), [r.description for r in refused]


@pytest.mark.parametrize("reason", REFUSAL_REASONS)
def test_refusals_are_for_known_reasons(reason: str) -> None:
    unknown = [
        r.refused
        for r in _results()
        if r.refused and not any(known in r.refused for known in REFUSAL_REASONS)
    ]
    assert unknown == []
