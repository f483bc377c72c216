"""Run the differential comparison and tally it.

For each subject: instances generated from the schema (hypothesis-jsonschema) must be accepted
by the model, dump back to an equal instance the oracle accepts; every mutant must get the same
verdict from the model as from each oracle, outside the exception table. The schema the model
publishes (``model_json_schema()``) is judged the same way, separately.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis_jsonschema import from_schema
from json_structure import InstanceValidator

from tests.fidelity.mutations import Mutant, sample, schema_constants
from tests.fidelity.oracles import Subject, model_acceptor

# -- the oracle exception table --------------------------------------------------------
# Each entry: an oracle verdict that is wrong by that oracle's own specification, how to
# recognise it, and why the model's verdict is the right one. Nothing else is excused.


def _sdk_errors(subject: Subject, instance: Any) -> list[str]:
    from tests.fidelity.oracles import ROOT

    structure = json.loads((ROOT / "schemas" / "agent-run.struct.json").read_text())
    errors: list[str] = InstanceValidator(structure).validate_instance(instance)
    return errors


_RFC3339_ANY_CASE = re.compile(
    r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})\Z"
)

Exception_ = Callable[[Subject, str, Mutant, bool], str | None]


def _pattern_dollar(subject: Subject, oracle: str, mutant: Mutant, oracle_ok: bool) -> str | None:
    if oracle.startswith("jsonschema") and oracle_ok and mutant.kind == "pattern: trailing newline":
        return (
            "jsonschema runs `pattern` with Python re, where `$` also matches before a final "
            "newline; JSON Schema patterns are ECMA-262, where it does not (the model is right)"
        )
    return None


def _sdk_quirks(subject: Subject, oracle: str, mutant: Mutant, oracle_ok: bool) -> str | None:
    if oracle != "json-structure SDK":
        return None
    if oracle_ok and mutant.kind == "pattern: trailing newline":
        return "SDK matches datetime/date shapes with Python re `$`, which allows a final newline"
    if oracle_ok and mutant.kind == "boolean for number":
        return "SDK accepts true/false as an integer (bool is an int in Python); the spec does not"
    if oracle_ok and mutant.kind == "bad datetime" and mutant.value == "2026-13-01T00:00:00Z":
        return "SDK checks datetime shape with a regex only (month 13 passes); RFC 3339 forbids it"
    if not oracle_ok:
        errors = _sdk_errors(subject, mutant.instance)
        if errors and all("Invalid uri format" in e for e in errors):
            return "SDK rejects relative URIs; the spec's `uri` is an RFC 3986 URI-reference"
        if errors and all("Expected integer" in e and "got float" in e for e in errors):
            return "SDK rejects 5.0 as an integer; JSON has one number type and 5.0 is 5"
        if (
            errors
            and all("Expected datetime (RFC3339)" in e for e in errors)
            and isinstance(mutant.value, str)
            and _RFC3339_ANY_CASE.match(mutant.value)
        ):
            return "SDK rejects lowercase t/z in datetimes; RFC 3339 allows them"
    return None


EXCEPTIONS: tuple[Exception_, ...] = (_pattern_dollar, _sdk_quirks)


def excused(subject: Subject, oracle: str, mutant: Mutant, oracle_ok: bool) -> str | None:
    for rule in EXCEPTIONS:
        reason = rule(subject, oracle, mutant, oracle_ok)
        if reason is not None:
            return reason
    return None


# -- equality of a dumped instance with its input --------------------------------------


def same_json(original: Any, dumped: Any) -> bool:
    """JSON equality, with date-time strings compared as instants.

    pydantic writes ``+00:00`` as ``Z`` and keeps 6 fractional digits; both spellings denote
    the same instant, and the models are defined to preserve instants, not spellings.
    """
    if isinstance(original, dict) and isinstance(dumped, dict):
        return original.keys() == dumped.keys() and all(
            same_json(original[k], dumped[k]) for k in original
        )
    if isinstance(original, list) and isinstance(dumped, list):
        return len(original) == len(dumped) and all(
            same_json(a, b) for a, b in zip(original, dumped, strict=True)
        )
    if isinstance(original, str) and isinstance(dumped, str) and original != dumped:
        return _instant(original) is not None and _instant(original) == _instant(dumped)
    if isinstance(original, bool) or isinstance(dumped, bool):
        return original is dumped
    return bool(original == dumped)


def _instant(text: str) -> datetime | None:
    if not _RFC3339_ANY_CASE.match(text):
        return None
    head, _, rest = text.partition(".")
    if rest:
        digits = re.match(r"[0-9]+", rest)
        assert digits is not None
        text = f"{head}.{digits.group()[:6]}{rest[digits.end() :]}"
    try:
        return datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return None


# -- the run ---------------------------------------------------------------------------


@dataclass
class Report:
    subject: str
    instances: int = 0
    mutations: int = 0
    agreements: int = 0
    disagreements: Counter[str] = field(default_factory=Counter)
    excused: Counter[str] = field(default_factory=Counter)
    published_agreements: int = 0
    published_disagreements: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def disagree(self, kind: str, detail: str) -> None:
        self.disagreements[kind] += 1
        if len(self.examples) < 10:
            self.examples.append(f"{kind}: {detail}")

    @property
    def total_disagreements(self) -> int:
        return sum(self.disagreements.values())


def generate_instances(subject: Subject, count: int, seed: int) -> list[Any]:
    found: list[Any] = []

    @settings(
        max_examples=count,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(from_schema(subject.generation_schema).map(subject.prepare))
    def collect(instance: Any) -> None:
        found.append(instance)

    collect._hypothesis_internal_use_seed = seed  # type: ignore[attr-defined]
    collect()
    return found


def run(
    subject: Subject,
    *,
    instances: int,
    mutations_per_instance: int,
    seed: int = 0,
    mode: str = "json",
) -> Report:
    report = Report(
        subject.name if mode == "json" else f"{subject.name} (validated from parsed JSON)"
    )
    accept = model_acceptor(subject.model, mode)
    published = subject.published
    rng = random.Random(seed)
    constants = schema_constants(subject.source_schema)
    for instance in generate_instances(subject, instances, seed):
        report.instances += 1
        _valid_side(subject, instance, accept, published, report)
        for mutant in sample(instance, constants, mutations_per_instance, rng):
            report.mutations += 1
            _judge(subject, mutant, accept, published, report)
    return report


def _valid_side(
    subject: Subject, instance: Any, accept: Any, published: Any, report: Report
) -> None:
    record = accept(instance)
    oracle_ok = {name: oracle(instance) for name, oracle in subject.oracles.items()}
    primary = next(iter(oracle_ok.values()))
    if not primary:
        report.disagree(
            "generator produced an instance the oracle rejects", json.dumps(instance)[:200]
        )
        return
    if record is None:
        report.disagree("valid instance rejected by the model", json.dumps(instance)[:200])
        return
    dumped = json.loads(record.model_dump_json())
    if not same_json(instance, dumped):
        report.disagree("dump differs from input", json.dumps(instance)[:200])
    for name, oracle in subject.oracles.items():
        if not oracle(dumped) and oracle_ok[name]:
            report.disagree(f"dump rejected by {name}", json.dumps(dumped)[:200])
    if published(instance):
        report.published_agreements += 1
    else:
        report.published_disagreements["valid instance rejected"] += 1
    report.agreements += 1


def _judge(subject: Subject, mutant: Mutant, accept: Any, published: Any, report: Report) -> None:
    model_ok = accept(mutant.instance) is not None
    agreed = True
    for name, oracle in subject.oracles.items():
        oracle_ok = oracle(mutant.instance)
        if oracle_ok == model_ok:
            continue
        reason = excused(subject, name, mutant, oracle_ok)
        if reason is not None:
            report.excused[reason] += 1
            continue
        agreed = False
        verdict = "accepts" if oracle_ok else "rejects"
        report.disagree(
            f"{mutant.kind} ({name} {verdict}, model {'accepts' if model_ok else 'rejects'})",
            f"{mutant.pointer} = {json.dumps(mutant.value)[:80]}",
        )
    if agreed:
        report.agreements += 1
    primary_name, primary = next(iter(subject.oracles.items()))
    primary_ok = primary(mutant.instance)
    if published(mutant.instance) == primary_ok:
        report.published_agreements += 1
    elif excused(subject, primary_name, mutant, primary_ok) is None:
        report.published_disagreements[mutant.kind] += 1


def format_report(report: Report) -> str:
    lines = [
        f"{report.subject}: {report.instances} instances, {report.mutations} mutations, "
        f"{report.agreements} agreements, {report.total_disagreements} disagreements",
    ]
    for kind, count in sorted(report.disagreements.items()):
        lines.append(f"  disagreement x{count}: {kind}")
    for reason, count in sorted(report.excused.items()):
        lines.append(f"  excused (oracle exception) x{count}: {reason}")
    agreed = report.published_agreements
    total = agreed + sum(report.published_disagreements.values())
    lines.append(f"  published schema (model_json_schema): {agreed}/{total} agree")
    for kind, count in sorted(report.published_disagreements.items()):
        lines.append(f"    published disagreement x{count}: {kind}")
    for example in report.examples:
        lines.append(f"  e.g. {example}")
    return "\n".join(lines)
