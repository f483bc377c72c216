"""``python -m agentruns FILE...``: load run records with the generated models and summarise them.

A small, dependency-free entry point that shows the models in use: each file is read as one
JSON document, validated against the three formats, and summarised in the format it matches.
Exit codes: 0 every file is a valid record of some format; 1 otherwise; 2 usage.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import MISSING, BaseModel, ValidationError

from agentruns.models import AgentRun, CortexRunJournal, PortableRunRecord

FORMATS: dict[str, type[BaseModel]] = {
    "portable": PortableRunRecord,
    "cortex": CortexRunJournal,
    "agentrun": AgentRun,
}


def summarise(record: BaseModel) -> str:
    if isinstance(record, PortableRunRecord):
        return (
            f"eval {record.eval_id} ({record.condition}): "
            f"{len(record.tool_invocations)} tool invocations, "
            f"tokens {_shown(record.total_tokens)}, duration {_shown(record.duration_ms)} ms"
        )
    if isinstance(record, CortexRunJournal):
        events = record.events if isinstance(record.events, list) else []
        return (
            f"run {record.run_id} ({record.kind}, {record.status}): started "
            f"{record.started_at.isoformat()}, {len(events)} events"
        )
    if isinstance(record, AgentRun):
        steps = record.steps if isinstance(record.steps, list) else []
        return (
            f"run {record.run_id} of agent {record.agent_id} ({record.status}): "
            f"{len(steps)} steps, goal: {record.goal}"
        )
    raise TypeError(f"not a run record model: {type(record).__name__}")


def _shown(value: object) -> str:
    return "absent" if value is MISSING else "null" if value is None else str(value)


def _first_error(error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    where = "/" + "/".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}"


def check_file(path: Path) -> tuple[bool, str]:
    try:
        raw = path.read_bytes()
    except OSError as error:
        return False, f"{path}: cannot read: {error.strerror}"
    problems: list[str] = []
    for name, model in FORMATS.items():
        try:
            record = model.model_validate_json(raw)
        except ValidationError as error:
            if error.errors()[0]["type"] == "json_invalid":
                return False, f"{path}: not valid JSON: {error.errors()[0]['msg']}"
            problems.append(
                f"  as {name}: {error.error_count()} errors, first {_first_error(error)}"
            )
            continue
        return True, f"{path}: {name}: {summarise(record)}"
    return False, "\n".join([f"{path}: not a valid record of any format", *problems])


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr if not args else sys.stdout)
        return 2 if not args else 0
    ok = True
    for arg in args:
        valid, message = check_file(Path(arg))
        print(message, file=sys.stdout if valid else sys.stderr)
        ok = ok and valid
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
