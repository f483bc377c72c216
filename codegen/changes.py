"""``python -m codegen changes``: what regenerating would change, and whether it is compatible.

Compares what ``generated/`` was made from (the schema copies it ships) with ``schemas/``
now, before or after ``generate``: per format, model classes and fields added, removed,
retyped, made required or optional; whether every record valid before stays valid
(backward) and the other way round (forward), judged on generated instances, with a
counter-example when not; and where the mappers must follow.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegen._json import Json, JsonObject
from codegen.manifest import SchemaEntry, read_manifest
from codegen.pipeline import PACKAGE, json_schema_for, render


@dataclass
class ModelShape:
    """A generated module as mappers see it: classes, their fields, and type aliases."""

    classes: dict[str, dict[str, tuple[str, bool]]] = field(default_factory=dict)
    """class -> field -> (annotation, required)."""
    aliases: dict[str, str] = field(default_factory=dict)
    """type alias -> the type it names, as written (``Annotated[JsonInt, Field(ge=0)]``)."""

    def resolved(self, annotation: str) -> list[str]:
        """``alias = type`` for every alias an annotation names, and the aliases those name:
        ``UpdatedAtRule`` alone hides that the type is an integer with a minimum."""
        found: list[str] = []
        pending = [annotation]
        while pending:
            for node in ast.walk(ast.parse(pending.pop(), mode="eval")):
                if isinstance(node, ast.Name) and node.id in self.aliases:
                    line = f"{node.id} = {self.aliases[node.id]}"
                    if line not in found:
                        found.append(line)
                        pending.append(self.aliases[node.id])
        return found


def shape_of(code: str) -> ModelShape:
    shape = ModelShape()
    for node in ast.parse(code).body:
        if isinstance(node, ast.ClassDef):
            fields: dict[str, tuple[str, bool]] = {}
            for statement in node.body:
                if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                    name = statement.target.id
                    if name.startswith("_") or name == "model_config":
                        continue
                    required = statement.value is None
                    fields[name] = (ast.unparse(statement.annotation), required)
            shape.classes[node.name] = fields
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "TypeAliasType"
            and len(node.value.args) == 2
        ):
            shape.aliases[node.targets[0].id] = ast.unparse(node.value.args[1])
    return shape


def describe(before: ModelShape, after: ModelShape) -> list[str]:
    """The differences a mapper author needs, one line each."""
    lines: list[str] = []
    old, new = set(before.classes), set(after.classes)
    for name in sorted(new - old):
        lines.append(f"class added: {name}")
        for member, (annotation, required) in after.classes[name].items():
            kind = "required" if required else "optional"
            lines.append(f"  {name}.{member}: {kind}: {annotation}")
    lines += [f"class removed: {name}" for name in sorted(old - new)]
    for name in sorted(new - old):
        if name in before.aliases:
            lines.append(f"  {name} was a type alias (a union) and is now a class")
    for name in sorted(old - new):
        if name in after.aliases:
            lines.append(f"  {name} is now a type alias (a union), no longer a class")
    for name in sorted(old & new):
        was, now = before.classes[name], after.classes[name]
        for added in sorted(set(now) - set(was)):
            kind = "required" if now[added][1] else "optional"
            lines.append(f"{name}.{added}: added ({kind}: {now[added][0]})")
            lines += [f"  where {line}" for line in after.resolved(now[added][0])]
        for removed in sorted(set(was) - set(now)):
            lines.append(f"{name}.{removed}: removed")
        for kept in sorted(set(was) & set(now)):
            (old_type, old_required), (new_type, new_required) = was[kept], now[kept]
            if old_type != new_type:
                lines.append(f"{name}.{kept}: retyped {old_type} -> {new_type}")
                was_named, now_named = before.resolved(old_type), after.resolved(new_type)
                lines += [f"  before: {line}" for line in was_named if line not in now_named]
                lines += [f"  now: {line}" for line in now_named if line not in was_named]
            if old_required != new_required:
                made = "required" if new_required else "optional"
                lines.append(f"{name}.{kept}: made {made}")
    return lines


def compatibility(before: JsonObject, after: JsonObject, *, examples: int = 60) -> tuple[str, str]:
    """(backward, forward): "yes (N generated records)", "no: <counter-example>", or why it
    could not be judged."""
    try:
        import jsonschema
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis_jsonschema import from_schema
    except ImportError:
        reason = "not checked: install agentruns[dev] (hypothesis-jsonschema, jsonschema)"
        return reason, reason

    def one_way(source: JsonObject, target: JsonObject) -> str:
        formats = jsonschema.Draft7Validator.FORMAT_CHECKER  # a date-time is one
        validator = jsonschema.Draft7Validator(target, format_checker=formats)
        origin = jsonschema.Draft7Validator(source, format_checker=formats)
        found: list[Json] = []

        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrunk below, cheaply
        )
        @given(from_schema(source))
        def check(document: Json) -> None:
            if not validator.is_valid(document):
                found[:] = [document]
                raise AssertionError

        try:
            check()
        except AssertionError:
            pass
        except Exception as error:  # a schema hypothesis-jsonschema cannot generate from
            return f"not checked: {type(error).__name__}: {str(error)[:120]}"
        if found:
            smallest = _shrunk(found[0], lambda d: origin.is_valid(d) and not validator.is_valid(d))
            return "no: " + _counter_example(smallest, validator)
        return f"yes ({examples} generated records)"

    return one_way(before, after), one_way(after, before)


def _shrunk(document: Json, still: Callable[[Json], bool], budget: int = 2000) -> Json:
    """A smaller document that ``still`` holds for: optional members and array items left
    out, strings and numbers made small, while it stays a counter-example (a greedy pass,
    bounded by ``budget`` checks, so the report stays quick)."""
    checks = 0

    def smaller(node: Json) -> Iterator[Json]:
        if isinstance(node, dict):
            for key in node:
                yield {k: v for k, v in node.items() if k != key}
            for key, value in node.items():
                for child in smaller(value):
                    yield {**node, key: child}
        elif isinstance(node, list):
            for index in range(len(node)):
                yield node[:index] + node[index + 1 :]
            for index, value in enumerate(node):
                for child in smaller(value):
                    yield [*node[:index], child, *node[index + 1 :]]
        elif isinstance(node, str) and node:
            yield ""
        elif isinstance(node, int | float) and not isinstance(node, bool) and node not in (0, 1):
            yield 0
            yield 1

    current = document
    improved = True
    while improved and checks < budget:
        improved = False
        for candidate in smaller(current):
            checks += 1
            if checks >= budget:
                break
            if still(candidate):
                current, improved = candidate, True
                break
    return current


def _counter_example(document: Json, validator: Any) -> str:
    """The record (whole, as JSON) and each reason it is refused: pointer, keyword, why."""
    return f"{json.dumps(document, ensure_ascii=False)} ({_reasons(document, validator)})"


def _reasons(document: Json, validator: Any) -> str:
    """Each reason a document is refused: pointer, keyword, why."""
    reasons = []
    for error in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
        pointer = "".join(
            "/" + str(part).replace("~", "~0").replace("/", "~1") for part in error.absolute_path
        )
        reasons.append(f"{pointer or '/'}: {error.validator}: {error.message}")
    return "; ".join(reasons)


def changes(
    schemas_dir: Path, out_dir: Path, *, examples: int = 60, samples: Path | None = None
) -> str:
    """The report, for every format of the manifest; ``samples``: a folder of vendored
    sample documents (the test fixtures), each one the old schema accepts and the new one
    refuses named with why, so that it is refreshed with the schema."""
    rendered = render(schemas_dir)
    report: list[str] = []
    documents = _samples(samples) if samples is not None else []
    for entry in read_manifest(schemas_dir):
        report.extend(
            _entry_report(entry, schemas_dir, out_dir, rendered.files, examples, documents)
        )
    report.append(
        "then: python -m codegen generate; mypy src codegen generated tests noxfile.py (names "
        "the crosswalk row of each removed or retyped field); pytest tests/test_coverage.py "
        "(names each new field with no row, its model and the module to add the row to)"
    )
    return "\n".join(report) + "\n"


_SAMPLE_LIMIT = 1 << 20
"""Larger files are not samples of a record (nor read whole to find out)."""

_NOT_SAMPLES = frozenset({"json-schema-test-suite", "golden"})
"""Fixture folders of documents about schemas, not records of a format."""


def _samples(folder: Path) -> list[tuple[Path, Json]]:
    """Every JSON document under ``folder`` that could be a record (an object, in a regular
    file of at most ``_SAMPLE_LIMIT`` bytes), by path."""
    found: list[tuple[Path, Json]] = []
    if not folder.is_dir():
        return found
    for path in sorted(folder.rglob("*.json")):
        if _NOT_SAMPLES & set(path.relative_to(folder).parts):
            continue
        try:
            if not path.is_file() or path.stat().st_size > _SAMPLE_LIMIT:
                continue
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(document, dict):
            found.append((path, document))
    return found


def refused_samples(
    before: JsonObject, after: JsonObject, documents: Sequence[tuple[Path, Json]]
) -> list[str]:
    """One line per sample the old schema accepts and the new one refuses, with each reason
    (pointer, keyword, why): the samples to refresh from upstream with the schema."""
    import jsonschema

    formats = jsonschema.Draft7Validator.FORMAT_CHECKER
    old = jsonschema.Draft7Validator(before, format_checker=formats)
    new = jsonschema.Draft7Validator(after, format_checker=formats)
    lines = []
    for path, document in documents:
        if old.is_valid(document) and not new.is_valid(document):
            why = _reasons(document, new)
            lines.append(f"sample {path}: valid before, refused now ({why})")
    return lines


def _entry_report(
    entry: SchemaEntry,
    schemas_dir: Path,
    out_dir: Path,
    files: dict[str, str],
    examples: int,
    documents: Sequence[tuple[Path, Json]] = (),
) -> list[str]:
    module = f"{PACKAGE}/{entry.name}.py"
    shipped = out_dir / PACKAGE / "schemas" / entry.file
    current = schemas_dir / entry.file
    lines = [f"== {entry.name} ({entry.class_name}, schemas/{entry.file})"]
    old_code = (out_dir / module).read_text(encoding="utf-8") if (out_dir / module).exists() else ""
    new_code = files[module]
    if shipped.exists() and shipped.read_bytes() == current.read_bytes() and old_code == new_code:
        lines.append("unchanged")
        return lines
    lines += describe(shape_of(old_code), shape_of(new_code)) or ["no class or field changes"]
    if shipped.exists() and shipped.read_bytes() == current.read_bytes():
        lines.append("schema unchanged (only the build step changed): compatible both ways")
    elif shipped.exists():
        before = _as_json_schema(json.loads(shipped.read_text(encoding="utf-8")), str(shipped))
        after = _as_json_schema(json.loads(current.read_text(encoding="utf-8")), str(current))
        backward, forward = compatibility(before, after, examples=examples)
        lines.append(f"backward compatible (every record valid before is valid now): {backward}")
        lines.append(f"forward compatible (every record valid now was valid before): {forward}")
        refused = refused_samples(before, after, documents)
        lines += refused
        if refused:
            lines.append(
                "  refresh each from the upstream commit of the new schema (its provenance is"
                " beside it: tests/fixtures/upstream/PROVENANCE.md), or edit it to the new"
                " schema where it is ours (tests/fixtures/<format>.min.json)"
            )
    else:
        lines.append("new format: nothing to compare with")
    return lines


def _as_json_schema(document: Json, source: str) -> JsonObject:
    from codegen._documents import folder_loader

    schema, _ = json_schema_for(
        document, source=source, strict=False, imports=folder_loader(Path(source).parent)
    )
    return schema
