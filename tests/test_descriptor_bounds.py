"""A hostile ``--harness FILE.toml`` is refused with a clear error, before parsing costs
memory, time or the stack."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentruns.cli import main
from agentruns.errors import DescriptorError
from agentruns.transcripts._declarative import (
    MAX_DESCRIPTOR_DEPTH,
    MAX_DESCRIPTOR_SIZE,
    load,
)

_VALID = 'label = "x"\n[transcript]\nevents_filename = "x.jsonl"\nparser = "cline-json"\n'


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "h.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "hostile",
    [
        "a = " + "{b = " * 5000 + "1" + "}" * 5000,  # inline tables: tomllib recurses
        "a = " + "[" * 5000 + "]" * 5000,
        "[" + ".".join(["k"] * 100_000) + "]\n",  # dotted header: quadratic in tomllib
        "x" + ".y" * 100_000 + " = 1\n",
    ],
    ids=["inline-tables", "arrays", "dotted-header", "dotted-key"],
)
def test_deep_nesting_is_refused_quickly_naming_the_line(tmp_path: Path, hostile: str) -> None:
    path = _write(tmp_path, _VALID + hostile)
    started = time.perf_counter()
    with pytest.raises(DescriptorError, match=rf"h\.toml:5: .* deeper than {MAX_DESCRIPTOR_DEPTH}"):
        load(path)
    assert time.perf_counter() - started < 5


def test_a_descriptor_larger_than_the_limit_is_refused_unread(tmp_path: Path) -> None:
    path = _write(tmp_path, _VALID + 'big = "' + "x" * MAX_DESCRIPTOR_SIZE + '"\n')
    with pytest.raises(DescriptorError, match="larger than"):
        load(path)


def test_nesting_within_the_limit_and_dots_in_strings_and_numbers_load(tmp_path: Path) -> None:
    shallow = '[agentruns]\ntool_failed = [{ status = "a.b.c.d" }]\n'
    nested = "[conversation]\nx = " + "[" * 20 + "1.5" + "]" * 20 + "\n"
    descriptor = load(_write(tmp_path, _VALID + shallow + nested))
    assert descriptor.agentruns.tool_failed == [{"status": "a.b.c.d"}]


def test_the_command_reports_a_hostile_descriptor_as_a_usage_error(tmp_path: Path) -> None:
    path = _write(tmp_path, _VALID + "a = " + "{b = " * 5000 + "1" + "}" * 5000)
    events = tmp_path / "e.jsonl"
    events.write_text("{}\n")
    result = CliRunner().invoke(
        main, ["import", str(events), "--harness", str(path), "--to", "agentrun"]
    )
    assert result.exit_code == 2
    assert "deeper than" in result.stderr
    assert "Traceback" not in result.output
