"""Problem positions and the three message shapes (text, json, github).

Positions: every problem names the line and column of the value at fault (for a missing
property, of the object that lacks it), in pretty-printed JSON documents and in JSONL lines.
Shapes: golden outputs hold each shape exactly; the JSON shape is a documented interface.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from agentruns._positions import locate
from agentruns.cli import main
from agentruns_generated._json import JsonValue

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = FIXTURES / "golden"
PRETTY_BAD = """{
  "schema_version": 1,
  "run_id": "R-1",
  "status": "dispatching",
  "started_at": "2026-09-01T08:00:00Z",
  "events": [
    {"type": "lock_acquired", "at": "2026-09-01T08:00:01Z"},
    {"type": "done", "at": "yesterday"}
  ]
}
"""


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with the golden inputs, as the current directory (paths in outputs are the
    relative ones the golden files hold)."""
    (tmp_path / "run.json").write_text(PRETTY_BAD)
    cortex = json.loads((FIXTURES / "cortex.min.json").read_text())
    bad = dict(cortex, status="dispatching")
    lines = [json.dumps(cortex), json.dumps(bad), '{"run_id": "cut']
    (tmp_path / "runs.jsonl").write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _matches_golden(output: str, golden: Path) -> None:
    """Compare with the golden file; ``REGENERATE_GOLDEN=1`` rewrites it (then review the
    diff: the JSON shape is an interface)."""
    if os.environ.get("REGENERATE_GOLDEN"):
        golden.write_text(output)
    assert output == golden.read_text(), f"REGENERATE_GOLDEN=1 rewrites {golden.name}"


def test_a_problem_in_a_pretty_printed_document_names_its_own_line_and_column(
    workdir: Path,
) -> None:
    result = invoke("validate", "--format", "cortex", "run.json")
    lines = result.stdout.splitlines()
    assert "run.json:4:13: /status: Input should be" in "\n".join(lines)
    assert "run.json:8:28: /events/1/at: " in "\n".join(lines)
    assert "run.json:1:1: /kind: Field required" in lines  # missing: at the object


def test_a_jsonl_problem_keeps_its_line_and_has_a_column_within_it(workdir: Path) -> None:
    result = invoke("validate", "--format", "cortex", "runs.jsonl")
    second = (workdir / "runs.jsonl").read_text().splitlines()[1]
    column = second.index('"dispatching"') + 1
    assert f"runs.jsonl:2:{column}: /status: Input should be" in result.stdout
    assert "runs.jsonl:3:12: /: not valid JSON at column 12" in result.stdout


def test_a_parse_error_in_a_pretty_printed_document_names_the_parsers_line_and_column(
    tmp_path: Path,
) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "run_id": "R-1",\n  "status": completed\n}\n')
    result = invoke("validate", str(path))
    assert f"{path}:3:13: /: not valid JSON at line 3 column 13" in result.stdout


@pytest.mark.parametrize("shape", ["text", "json", "github"])
@pytest.mark.parametrize("command", ["validate", "detect"])
def test_messages_match_the_golden_output(workdir: Path, command: str, shape: str) -> None:
    result = invoke(command, "--output-format", shape, "run.json", "runs.jsonl")
    assert result.exit_code == 1
    _matches_golden(result.stdout, GOLDEN / f"{command}.{shape}.txt")


@pytest.mark.parametrize("shape", ["text", "json", "github"])
def test_convert_messages_match_the_golden_output(workdir: Path, shape: str) -> None:
    # to portable, which has no place for most of what a journal holds: losses are shown
    result = invoke("convert", "--output-format", shape, "--to", "portable", "runs.jsonl")
    _matches_golden(result.stderr, GOLDEN / f"convert.{shape}.txt")


def test_the_json_shape_has_the_documented_keys_on_every_line(workdir: Path) -> None:
    result = invoke("validate", "--output-format", "json", "run.json", "runs.jsonl")
    keys = ["kind", "file", "line", "column", "pointer", "format", "message"]
    for text in result.stdout.splitlines():
        entry = json.loads(text)
        assert list(entry) == keys
        assert isinstance(entry["line"], int)
        assert isinstance(entry["column"], int)


def test_json_lines_are_never_cut_by_max_errors(workdir: Path) -> None:
    limited = invoke("validate", "--output-format", "json", "--max-errors", "1", "run.json")
    assert len(limited.stdout.splitlines()) > 1


def test_github_messages_escape_what_would_end_the_command(tmp_path: Path) -> None:
    document = json.loads((FIXTURES / "cortex.min.json").read_text())
    document["x\n::error::forged,%"] = 1
    path = tmp_path / "run.json"
    path.write_text(json.dumps(document))
    result = invoke("validate", "--output-format", "github", str(path))
    assert all(line.startswith("::") for line in result.stdout.splitlines())
    assert "%0A::error::forged,%25" in result.stdout


# -- the locator, on generated documents ----------------------------------------------------

keys = st.text(st.characters(exclude_categories=["Cs"]), max_size=6)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
)
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=20,
)


def _paths(value: JsonValue, prefix: str = "") -> list[tuple[str, JsonValue]]:
    found = [(prefix, value)]
    if isinstance(value, dict):
        for key, item in value.items():
            token = key.replace("~", "~0").replace("/", "~1")
            found += _paths(item, f"{prefix}/{token}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, f"{prefix}/{index}")
    return found


@given(document=documents, indent=st.sampled_from([None, 0, 1, 2, 4]), data=st.data())
@settings(max_examples=200, deadline=None)
def test_the_locator_finds_the_value_every_pointer_names(
    document: JsonValue, indent: int | None, data: st.DataObject
) -> None:
    text = json.dumps(document, indent=indent, ensure_ascii=data.draw(st.booleans()))
    pointer, value = data.draw(st.sampled_from(_paths(document)))
    lines, column = locate(text.encode(), pointer)
    offset = sum(len(line) + 1 for line in text.split("\n")[:lines]) + column - 1
    found, _ = json.JSONDecoder().raw_decode(text, offset)
    assert found == value
