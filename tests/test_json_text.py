"""``agentruns._json_text.compact`` is ``json.dumps(value, ensure_ascii=False,
separators=(",", ":"))``, byte for byte: the same encoder made once instead of per call.
``json.dumps`` is the oracle."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agentruns._json_text import compact
from tests._settings import PROPERTY_SETTINGS

_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@PROPERTY_SETTINGS
@given(value=_values)
def test_compact_text_is_what_json_dumps_writes(value: Any) -> None:
    assert compact(value) == _dumps(value)


def test_compact_text_keeps_non_ascii_characters_and_escapes_what_json_escapes() -> None:
    value = {"a": ["é", "准备", '"\\\n', 1.5, 10**20, None, True]}
    assert compact(value) == '{"a":["é","准备","\\"\\\\\\n",1.5,100000000000000000000,null,true]}'
    assert compact(value) == _dumps(value)


def test_compact_text_of_one_value_does_not_depend_on_the_values_before_it() -> None:
    first = compact({"a": [1, {"b": 2}]})
    compact(["x" * 1000, {"deep": [[[1]]]}])
    assert compact({"a": [1, {"b": 2}]}) == first == '{"a":[1,{"b":2}]}'
