"""A message held back (past ``--max-errors``, or ``--quiet``) is counted and nothing of it is
worked out: finding a value's line and column walks its record's text, which for a file of
many invalid records was most of the run."""

from __future__ import annotations

import pytest

from agentruns._report import Reporter


def _record(asked: list[int]) -> bytes:
    asked.append(1)
    return b'{"a": {"b": 1}}'


@pytest.mark.parametrize("shape", ["text", "github"])
def test_a_message_past_the_limit_is_counted_and_its_record_never_read(shape: str) -> None:
    report = Reporter(shape, limit=2)  # type: ignore[arg-type]
    asked: list[int] = []
    for _ in range(5):
        report.say("invalid", "runs.jsonl", 1, "wrong", raw=lambda: _record(asked), pointer="/a/b")
    assert len(asked) == 2
    assert report.held_back == 3
    assert "3 more problem lines" in report.summary("--max-errors")


def test_a_quiet_report_reads_no_record() -> None:
    report = Reporter("text", limit=0, quiet=True)
    asked: list[int] = []
    report.say("invalid", "runs.jsonl", 1, "wrong", raw=lambda: _record(asked), pointer="/a")
    assert asked == []


def test_json_messages_are_all_placed(capsys: pytest.CaptureFixture[str]) -> None:
    report = Reporter("json", limit=1)
    asked: list[int] = []
    for _ in range(3):
        report.say("invalid", "runs.jsonl", 1, "wrong", raw=lambda: _record(asked), pointer="/a/b")
    assert len(asked) == 3
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert all('"column": ' in line and '"column": null' not in line for line in lines)


def test_a_message_placed_from_its_record_says_the_line_and_column(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = Reporter("text", limit=5)
    report.say(
        "invalid", "runs.jsonl", 7, "wrong", raw=lambda: b'{"a":\n {"b": 1}}', pointer="/a/b"
    )
    said = capsys.readouterr().out
    assert said.startswith("runs.jsonl:8:")
