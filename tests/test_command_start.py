"""What every command pays at start: no reader's models are built, and the price table is not
imported, until something reads a session or prices a call (each build or import was tens of
milliseconds of every command, ``agentruns --help`` included)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
STREAM = ROOT / "tests" / "fixtures" / "upstream" / "agent-logs" / "opencode-json"

_BUILT = """
import sys
import agentruns.cli, agentruns.stats, agentruns.transcripts
from pydantic import BaseModel
from pydantic_core import SchemaValidator

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

built = sorted(
    model.__qualname__
    for model in subclasses(BaseModel)
    if model.__module__.startswith("agentruns.transcripts")
    and isinstance(model.__dict__.get("__pydantic_validator__"), SchemaValidator)
)
print(len(list(subclasses(BaseModel))), built, "genai_prices" in sys.modules)
"""


def _run(code: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return done.stdout.split(" ", 1)


def test_importing_the_command_builds_no_readers_models_and_imports_no_price_table() -> None:
    count, rest = _run(_BUILT)
    assert int(count) > 20  # the readers' models are there, only not built
    assert rest.strip() == "[] False"


def test_a_reader_builds_the_models_it_uses_when_it_first_uses_them() -> None:
    code = _BUILT.replace(
        "built = sorted(",
        f"from agentruns.transcripts import open_session\n"
        f"open_session({str(STREAM / 'takopi-opencode_stream_success.jsonl')!r})\n"
        "built = sorted(",
    )
    _, rest = _run(code)
    assert rest.strip() != "[] False"
