"""The cache of what session files say: an entry is used only for the file as it was, and a
cache that cannot remember something never stops a run."""

from __future__ import annotations

from pathlib import Path

from agentruns._facts_cache import FactsCache


def _cache(path: Path) -> FactsCache[dict[str, object]]:
    return FactsCache(dict, dict, path)


def test_an_entry_is_used_for_the_file_as_it_was_and_for_no_other_state(tmp_path: Path) -> None:
    where = tmp_path / "sessions.sqlite3"
    cache = _cache(where)
    cache.put("/history/a.jsonl", "[1, 2]", [{"tokens": 5, "usd": 0.30538900000000003}])
    cache.close()
    again = _cache(where)
    assert again.get("/history/a.jsonl", "[1, 2]") == [{"tokens": 5, "usd": 0.30538900000000003}]
    assert again.get("/history/a.jsonl", "[1, 3]") is None  # the file changed since
    assert again.get("/history/b.jsonl", "[1, 2]") is None  # never read
    again.close()


def test_an_entry_of_another_version_is_not_used(tmp_path: Path) -> None:
    where = tmp_path / "sessions.sqlite3"
    cache = _cache(where)
    cache.put("/history/a.jsonl", "[1]", [{"tokens": 5}])
    cache.close()
    newer = _cache(where)
    newer._version += "+next"  # what a later reader of the files is
    assert newer.get("/history/a.jsonl", "[1]") is None
    newer.close()


def test_facts_json_cannot_hold_are_not_remembered_and_nothing_fails(tmp_path: Path) -> None:
    where = tmp_path / "sessions.sqlite3"
    cache = _cache(where)
    cache.put("/history/a.jsonl", "[1]", [{"tokens": object()}])
    cache.close()
    again = _cache(where)
    assert again.get("/history/a.jsonl", "[1]") is None
    again.close()
