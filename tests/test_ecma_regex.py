"""The backtracking matcher for patterns with lookaround and backreferences (codegen/ecma.py,
shipped as agentruns_generated/_ecma.py) against Python's ``re``, on the patterns where the
two languages mean the same: ASCII text, captures only where both engines set them."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import example, given, reject, settings
from hypothesis import strategies as st

from codegen import ecma
from tests._settings import EXAMPLES, PROPERTY_SETTINGS

_ATOMS = ["a", "b", ".", "[ab]", "[^a]", "[a-c]", "\\w", "\\d", "(?<=a)", "(?<!b)", "^", "$"]
_QUANTIFIERS = ["", "", "*", "+", "?", "{1,2}", "*?", "+?", "??", "{0,3}?", "{2}"]


def _sequence(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    item = st.tuples(inner, st.sampled_from(_QUANTIFIERS)).map(
        lambda pair: (
            pair[0] + (pair[1] if pair[0] not in ("^", "$") else "")
            if not pair[0].startswith("(?<")
            else pair[0]
        )
    )
    return st.lists(item, min_size=1, max_size=4).map("".join)


def _patterns() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        alternation = st.lists(_sequence(inner), min_size=1, max_size=3).map("|".join)
        return st.one_of(
            alternation.map(lambda body: f"(?:{body})"),
            alternation.map(lambda body: f"(?={body})"),
            alternation.map(lambda body: f"(?!{body})"),
        )

    atoms = st.recursive(st.sampled_from(_ATOMS), extend, max_leaves=6)
    return st.lists(_sequence(atoms), min_size=1, max_size=3).map("|".join)


_TEXT = st.text(alphabet="abc1_ ", max_size=8)


def _agree(pattern: str, text: str) -> None:
    """The matcher answers as ``re`` does, or refuses a pattern that backtracks past its
    budget (nested stars: ``(?:.*.*)*``), which is its answer by design (a schema's pattern
    never hangs a validation): such an example is passed over, never counted as agreement."""
    try:
        found = ecma.search(pattern, text)
    except ecma.PatternBudgetError:
        reject()
    assert found == (re.search(pattern, text) is not None)


@settings(PROPERTY_SETTINGS, max_examples=max(400, EXAMPLES))
@given(_patterns(), _TEXT)
def test_the_matcher_agrees_with_pythons_re_on_lookaround(pattern: str, text: str) -> None:
    _agree(pattern, text)


@settings(PROPERTY_SETTINGS, max_examples=max(200, EXAMPLES))
@given(_patterns(), _patterns(), _TEXT)
@example("a|(?:.*.*)*", "a", "11111111")  # past the budget: refused, passed over
def test_the_matcher_agrees_with_pythons_re_on_backreferences(
    head: str, tail: str, text: str
) -> None:
    """A group at the top of the pattern always takes part, so both engines agree on what
    ``\\1`` repeats."""
    _agree(f"({head})(?:{tail})\\1", text)


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("^\\d$", "\u0661", False),  # ECMA-262 \d is ASCII
        ("^\\w$", "é", False),
        ("^\\s$", "\ufeff", True),  # ECMA white space has U+FEFF
        ("^.$", "\u2028", False),  # . stops at line terminators
        ("x$", "x\n", False),  # $ is the end of the text
        ("^(a)?\\1b$", "b", True),  # an unset group matches the empty string
        ("[]", "a", False),
        ("[^]", "\n", True),
        ("a{,2}", "a{,2}", True),  # Annex B: a brace that is no quantifier is literal
        ("(?<=ab)c", "abc", True),
        ("(?<![0-9])x", "1x", False),
    ],
)
def test_ecma_meanings_that_differ_from_python(pattern: str, text: str, expected: bool) -> None:
    assert ecma.search(pattern, text) is expected


def test_a_search_past_the_budget_fails_closed_quickly() -> None:
    started = time.monotonic()
    with pytest.raises(ecma.PatternBudgetError):
        ecma.search("^(?=a)(a|aa)+$", "a" * 60 + "b")
    assert time.monotonic() - started < 5


def test_a_long_text_does_not_exhaust_the_stack() -> None:
    assert ecma.search("^(?!x).*y$", "a" * 100_000 + "y")


@pytest.mark.parametrize("pattern", ["(", "a)", "*a", "[b-a]", "(?<n>a)\\k<m>", "\\3(a)"])
def test_what_is_no_pattern_is_a_syntax_error(pattern: str) -> None:
    with pytest.raises(ecma.PatternSyntaxError):
        ecma.parse(pattern)
