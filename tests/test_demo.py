"""``python -m agentruns``: the models in use on whole files."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentruns.__main__ import main

FIXTURES = Path(__file__).parent / "fixtures"


def test_each_fixture_is_recognised_in_its_own_format(capsys: pytest.CaptureFixture[str]) -> None:
    names = ["portable", "cortex", "agentrun"]
    assert main([str(FIXTURES / f"{name}.min.json") for name in names]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[1] for line in lines] == names


def test_an_invalid_record_exits_1_and_says_why_per_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "odd.json"
    path.write_text('{"run_id": "r"}')
    assert main([str(path)]) == 1
    err = capsys.readouterr().err
    assert "not a valid record of any format" in err
    assert "as cortex:" in err


def test_malformed_json_and_missing_files_are_reported_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"run_id": ')
    assert main([str(broken), str(tmp_path / "absent.json")]) == 1
    err = capsys.readouterr().err
    assert "not valid JSON" in err
    assert "cannot read" in err
