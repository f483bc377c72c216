"""The build step against JSON-Schema-Test-Suite drafts 4, 6 and 7
(tests/conformance/suite.py).

Every group whose schema the build step generates must agree with the suite on every
instance, on both validation paths; the few it refuses must be refused for a stated reason.
"""

from __future__ import annotations

from functools import cache

import pytest

from tests.conformance.suite import SUITES, GroupResult, groups, run

REFUSAL_REASONS = (
    "leaves the document",  # remote references: the build step never fetches anything
    "does not resolve",
    "wrote Any",
    "without a type alias",
)


DRAFTS = pytest.mark.parametrize("draft", ["draft4", "draft6", "draft7"])


@cache
def _results(draft: str) -> tuple[GroupResult, ...]:
    return tuple(run(draft))


@DRAFTS
def test_the_suite_is_there(draft: str) -> None:
    assert sum(1 for _ in groups(SUITES / draft)) > 150


@DRAFTS
def test_no_generated_model_accepts_what_the_suite_rejects(draft: str) -> None:
    found = [(r.file, r.description, r.false_accepts) for r in _results(draft) if r.false_accepts]
    assert found == []


@DRAFTS
def test_no_generated_model_rejects_what_the_suite_accepts(draft: str) -> None:
    found = [(r.file, r.description, r.false_rejects) for r in _results(draft) if r.false_rejects]
    assert found == []


@DRAFTS
def test_no_generated_model_crashes_on_a_suite_instance(draft: str) -> None:
    assert [(r.description, r.crashes) for r in _results(draft) if r.crashes] == []


@DRAFTS
def test_at_most_five_percent_of_the_groups_are_refused(draft: str) -> None:
    results = _results(draft)
    refused = [r for r in results if r.refused]
    assert len(refused) <= 0.05 * len(results), [r.description for r in refused]


@DRAFTS
def test_refusals_are_for_known_reasons(draft: str) -> None:
    unknown = [
        r.refused
        for r in _results(draft)
        if r.refused and not any(known in r.refused for known in REFUSAL_REASONS)
    ]
    assert unknown == []
