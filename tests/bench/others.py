"""The other validators, as a user runs them on a JSONL file: ``python -m tests.bench.others
{jsonschema,jsonschema-rs} SCHEMA FILE`` starts, imports, compiles the schema and checks every
line, so the benchmark can time them end to end exactly as it times ``agentruns validate``.
It imports nothing of agentruns: their start-up is theirs alone.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

Check = Callable[[bytes], bool]


def python_jsonschema(schema_file: Path) -> Check:
    """The schema's own draft (7 for portable and cortex) with format checking on."""
    import jsonschema

    schema = json.loads(schema_file.read_bytes())
    cls = jsonschema.validators.validator_for(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    return lambda raw: bool(validator.is_valid(json.loads(raw)))


def jsonschema_rs(schema_file: Path) -> Check:
    import jsonschema_rs

    schema = json.loads(schema_file.read_bytes())
    validator = jsonschema_rs.validator_for(schema, validate_formats=True)
    return lambda raw: bool(validator.is_valid(json.loads(raw)))


VALIDATORS: dict[str, Callable[[Path], Check]] = {
    "jsonschema": python_jsonschema,
    "jsonschema-rs": jsonschema_rs,
}


def check_file(path: Path, check: Check) -> None:
    with path.open("rb") as stream:
        for raw in stream:
            if not check(raw):
                raise SystemExit(f"a generated record is invalid: {raw[:200]!r}")


if __name__ == "__main__":
    name, schema_file, file = sys.argv[1:]
    check_file(Path(file), VALIDATORS[name](Path(schema_file)))
