"""A record written in pieces is byte for byte what the serializer writes whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentruns import _serialize
from agentruns._serialize import json_chunks
from agentruns.conversion import convert
from agentruns.detect import MODELS, detect

FIXTURES = Path(__file__).parent / "fixtures"
RECORDS = [
    FIXTURES / "portable.min.json",
    FIXTURES / "cortex.min.json",
    FIXTURES / "agentrun.min.json",
    *sorted((FIXTURES / "upstream" / "eval-magic").glob("*.run.json")),
    FIXTURES / "upstream" / "cortex-agent" / "cortex-run-journal.sample.json",
]


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
@pytest.mark.parametrize("to", ["portable", "cortex", "agentrun"])
def test_pieces_join_to_the_serializers_bytes(
    path: Path, to: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_serialize, "LONG", 0)  # every non-empty list goes in pieces
    value = json.loads(path.read_text())
    fmt = detect(value).format
    assert fmt is not None
    record = convert(MODELS[fmt].model_validate(value), MODELS[to]).target
    assert b"".join(json_chunks(record)) == record.__pydantic_serializer__.to_json(record)


def test_a_long_list_is_written_item_by_item() -> None:
    value = json.loads((FIXTURES / "portable.min.json").read_text())
    call = value["tool_invocations"][0]
    value["tool_invocations"] = [dict(call, ordinal=n) for n in range(1000)]
    record = MODELS["portable"].model_validate(value)
    pieces = list(json_chunks(record))
    assert len(pieces) > 1000
    assert max(map(len, pieces)) < 1000
    assert b"".join(pieces) == record.__pydantic_serializer__.to_json(record)
