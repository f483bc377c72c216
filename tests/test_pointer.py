"""JSON pointers: one escape for every loss, derived value, problem and carried place."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentruns._pointer import escape, join, split, unescape
from tests._settings import PROPERTY_SETTINGS


def test_a_key_with_a_slash_and_a_tilde_is_escaped_as_rfc_6901_says() -> None:
    assert escape("a/b~c") == "a~1b~0c"
    assert join(["steps", 3, "extra", "a/b~c"]) == "/steps/3/extra/a~1b~0c"


def test_a_tilde_before_a_one_is_not_read_as_a_slash() -> None:
    assert unescape("~01") == "~1"


def test_the_whole_document_is_the_empty_pointer() -> None:
    assert join([]) == ""
    assert split("") == []


@PROPERTY_SETTINGS
@given(st.lists(st.text()))
def test_every_list_of_keys_comes_back_from_its_pointer(keys: list[str]) -> None:
    assert split(join(keys)) == keys
