"""JSON-Schema-Test-Suite (drafts 4, 6 and 7) through ``python -m codegen model``'s code path.

Each test group's schema, declared in its draft (the suite's schemas name none), is read,
normalised and generated like any user schema; the group is
*refused* when the build step refuses it, otherwise every test instance is validated by the
root model on both paths (``model_validate_json`` and ``model_validate`` of the parsed value)
and compared with the suite's verdict.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from codegen.diagnostics import CodegenError
from codegen.driver import ModelSource
from codegen.pipeline import json_schema_for, model_source
from tests._load import load_source
from tests.conformance._judge import verdicts

SUITES = Path(__file__).resolve().parents[1] / "fixtures" / "json-schema-test-suite"
SUITE = SUITES / "draft7"
DIALECTS = {
    "draft4": "http://json-schema.org/draft-04/schema#",
    "draft6": "http://json-schema.org/draft-06/schema#",
    "draft7": "http://json-schema.org/draft-07/schema#",
}
# refRemote.json needs a server of remote schemas; the build step never fetches anything, by
# design, so those groups are out of what it claims.
UNCLAIMED = frozenset({"refRemote.json"})
# Of the optional files, those the build step claims: regexes, big and overflowing numbers,
# and the formats it asserts (any other format is an annotation, as draft-07 allows). Each
# format file runs three ways: as written (untyped: a rule), with "type": "string" (the
# generated type), and as the items of an array.
OPTIONAL = (
    "ecmascript-regex.json",
    "non-bmp-regex.json",
    "bignum.json",
    "float-overflow.json",
    "id.json",
    "unknownKeyword.json",
    "zeroTerminatedFloats.json",  # draft-04: 1.0 is no integer
)
FORMATS = ("date-time", "time", "date", "ipv4", "ipv6", "json-pointer", "uri", "uri-reference",
           "regex")  # fmt: skip
"""The formats the build step asserts, where the draft defines them (a draft's folder has a
file for each format it defines)."""


@dataclass
class GroupResult:
    file: str
    description: str
    refused: str | None = None
    false_accepts: list[str] = field(default_factory=list)
    false_rejects: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)


def groups(suite: Path = SUITE) -> Iterator[tuple[str, dict[str, Any]]]:
    for path in sorted(suite.glob("*.json")):
        if path.name in UNCLAIMED:
            continue
        for group in json.loads(path.read_text(encoding="utf-8")):
            yield path.name, group
    for name in OPTIONAL:
        path = suite / "optional" / name
        if path.exists():
            for group in json.loads(path.read_text(encoding="utf-8")):
                yield f"optional/{name}", group
    formats = (suite / "optional" / "format" / f"{name}.json" for name in FORMATS)
    for path in (p for p in formats if p.exists()):
        for group in json.loads(path.read_text(encoding="utf-8")):
            where = f"optional/format/{path.name}"
            yield where, group
            strings = [t for t in group["tests"] if isinstance(t["data"], str)]
            typed = {**group["schema"], "type": "string"}
            yield f"{where} (typed)", {**group, "schema": typed, "tests": strings}
            listed = [{**t, "data": [t["data"]]} for t in strings]
            items = {"type": "array", "items": typed}
            yield f"{where} (items)", {**group, "schema": items, "tests": listed}


def _load(code: str, name: str) -> Any:
    return load_source(code, name)


def run_group(
    file: str, group: dict[str, Any], index: int, dialect: str = DIALECTS["draft7"]
) -> GroupResult:
    result = GroupResult(file, group["description"])
    schema = group["schema"]
    if schema is True:
        schema = {}
    elif schema is False:
        schema = {"not": {}}
    if "$schema" not in schema:
        schema = {"$schema": dialect, **schema}
    try:
        schema, _ = json_schema_for(schema, source=f"{file}#{index}", strict=False)
        code, _ = model_source(
            schema,
            class_name="Root",
            source=ModelSource(f"{file}#{index}", "0" * 64),
            strict=False,
        )
    except CodegenError as error:
        result.refused = str(error).splitlines()[0]
        return result
    stem = "".join(c if c.isalnum() else "_" for c in file)
    module = _load(code, f"suite_{stem}_{index}")
    root = module.Root
    adapter: TypeAdapter[object] = TypeAdapter(root)
    for test in group["tests"]:
        for path, accepted in verdicts(adapter, json.dumps(test["data"])):
            if isinstance(accepted, Exception):
                result.crashes.append(f"{path}: {test['description']}: {accepted!r}")
            elif accepted and not test["valid"]:
                result.false_accepts.append(f"{path}: {test['description']}")
            elif not accepted and test["valid"]:
                result.false_rejects.append(f"{path}: {test['description']}")
    return result


def run(draft: str = "draft7") -> list[GroupResult]:
    return [
        run_group(file, group, i, DIALECTS[draft])
        for i, (file, group) in enumerate(groups(SUITES / draft))
    ]


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tests.conformance.suite")
    parser.add_argument("--draft", choices=("4", "6", "7"), default="7")
    results = run(f"draft{parser.parse_args().draft}")
    refused = [r for r in results if r.refused]
    for r in results:
        if r.refused:
            print(f"REFUSED {r.file}: {r.description}: {r.refused}")
        for kind in ("false_accepts", "false_rejects", "crashes"):
            for item in getattr(r, kind):
                print(f"{kind.upper()} {r.file}: {r.description}: {item}")
    share = 100 * len(refused) / len(results)
    print(
        f"{len(results)} groups, {len(refused)} refused ({share:.1f}%), "
        f"false accepts {sum(len(r.false_accepts) for r in results)}, "
        f"false rejects {sum(len(r.false_rejects) for r in results)}, "
        f"crashes {sum(len(r.crashes) for r in results)}"
    )


if __name__ == "__main__":
    main()
