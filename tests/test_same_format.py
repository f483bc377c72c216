"""Converting a record to its own format gives it back as it was written, and the command's
``--strict`` judges a record as ``convert(..., strict=True)`` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentruns import LossError, convert
from agentruns.batch import convert_document
from agentruns.cli import main
from agentruns.detect import MODELS, detect
from agentruns.io import Raw

FIXTURES = Path(__file__).parent / "fixtures"
RECORDS = sorted(
    path
    for path in [*FIXTURES.glob("*.min.json"), *(FIXTURES / "upstream").rglob("*.json")]
    if "schema" not in path.name
    and not {"transcripts", "declarative"} & set(path.parts)
    and detect(json.loads(path.read_text())).format is not None
)


def _format(path: Path) -> str:
    found = detect(json.loads(path.read_text())).format
    assert found is not None
    return found


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_a_record_converted_to_its_own_format_is_the_record_as_written(path: Path) -> None:
    text = path.read_bytes()
    outcome = convert_document(Raw(str(path), 1, text), to=_format(path), strict=True)
    assert outcome.accepted, outcome.problems
    compact = json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":"))
    assert outcome.output == compact.encode() + b"\n"


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
@pytest.mark.parametrize("to", sorted(MODELS))
def test_the_command_and_the_api_agree_on_strict(path: Path, to: str, tmp_path: Path) -> None:
    fmt = _format(path)
    record = MODELS[fmt].model_validate_json(path.read_bytes())
    try:
        convert(record, MODELS[to], strict=True)
        api_accepts = True
    except LossError:
        api_accepts = False
    result = CliRunner().invoke(
        main, ["convert", "--strict", "--to", to, "-o", str(tmp_path / "out.jsonl"), str(path)]
    )
    assert (result.exit_code == 0) == api_accepts, result.output
