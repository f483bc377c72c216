"""``agentruns stats --output-format json`` run in this process, for the tests of what it
counts: one worker (``-j 1``), and the report's JSON."""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner

from agentruns.cli import main


def stats_json(*args: str) -> dict[str, Any]:
    """The report of ``agentruns stats ARGS`` (which must exit 0)."""
    result = CliRunner().invoke(main, ["stats", "--output-format", "json", "-j", "1", *args])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert isinstance(shown, dict)
    return shown
