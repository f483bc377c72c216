"""schemas/ -> generated/: render every output in memory, then write it or compare it.

Rendering is pure (no clock, no network, no filesystem writes), so ``generate`` and ``check``
share one code path and differ only in what they do with the rendered files.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass, field
from pathlib import Path

from codegen._documents import Loader, folder_loader
from codegen._files import write_all
from codegen._json import MAX_DEPTH, Json, JsonObject, dump_json, load_json, too_deep
from codegen.bundle import bundle, names_other_files
from codegen.diagnostics import CodegenError, Diagnostic, DiagnosticSink, Severity
from codegen.driver import (
    ModelSource,
    generate_models,
    render_ecma_module,
    render_runtime_module,
    sha256_of,
    tidy,
)
from codegen.manifest import SchemaEntry, read_manifest
from codegen.normalize import ROOT_RULE, normalize
from codegen.schema_passes.older_drafts import DRAFT_04, DRAFT_06, DRAFT_07, as_draft_07
from codegen.structure import is_json_structure, translate
from codegen.structure_imports import expand_imports, uses_imports

PACKAGE = "agentruns_generated"
_JSON_SCHEMA_DIALECTS = (
    *DRAFT_04,
    *DRAFT_06,
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
)

DIALECTS: dict[str, str] = {
    "draft-04": f"{DRAFT_04[0]}#",
    "draft-06": f"{DRAFT_06[0]}#",
    "draft-07": DRAFT_07,
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
}
"""The JSON Schema dialects a schema may be read as (``model --dialect``), by name: a schema
whose ``$schema`` names a dialect of its own built on one of them (CloudFormation's resource
schemas: draft-07 and annotations) is read as the one its user names, never guessed."""


@dataclass
class Rendered:
    """Files to place under generated/ (relative path -> text) and what was said on the way."""

    files: dict[str, str] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    hashes: dict[str, str] = field(default_factory=dict)


def json_schema_for(
    document: Json,
    *,
    source: str,
    strict: bool,
    imports: Loader | None = None,
    dialect: str | None = None,
) -> tuple[JsonObject, list[Diagnostic]]:
    """The JSON Schema for a source document: translated if JSON Structure, as is otherwise.

    ``imports`` finds the documents a schema names beside itself (``folder_loader`` of its
    folder): a JSON Structure ``$import``, a JSON Schema ``$ref`` to another file. Without
    it, an import is refused and a reference to another file is remote. ``dialect`` (a name
    of ``DIALECTS``): the JSON Schema draft to read the document as, whatever its ``$schema``
    says (a dialect of its own built on that draft, which the build step cannot know).
    """
    if dialect is not None:
        if dialect not in DIALECTS:
            known = ", ".join(DIALECTS)
            raise CodegenError(
                [Diagnostic(source, "", f"no dialect {dialect!r} (known: {known})", Severity.ERROR)]
            )
        if not isinstance(document, dict) or is_json_structure(document):
            none = "--dialect reads a JSON Schema object as a draft; this document is none"
            raise CodegenError([Diagnostic(source, "", none, Severity.ERROR)])
        document = {**document, "$schema": DIALECTS[dialect]}
    deep = too_deep(document)
    if deep is not None:
        raise CodegenError(
            [
                Diagnostic(
                    source,
                    deep,
                    f"the schema nests deeper than {MAX_DEPTH} levels here; refused",
                    Severity.ERROR,
                )
            ]
        )
    if is_json_structure(document):
        said: list[Diagnostic] = []
        if isinstance(document, dict) and uses_imports(document):
            sink = DiagnosticSink(source)
            document = expand_imports(document, imports or (lambda _uri: None), sink)
            _refuse_deep(document, source, sink)
            sink.raise_if(strict=False)
            said = list(sink.items)
        translation = translate(document, source=source, strict=strict)
        return translation.schema, [*said, *translation.diagnostics]
    if isinstance(document, bool):
        document = {} if document else {"not": {}}  # the schemas every / no value satisfies
    if not isinstance(document, dict):
        raise CodegenError([Diagnostic(source, "", "a schema must be a JSON object or boolean")])
    stated = document.get("$schema")
    if stated is not None and (
        not isinstance(stated, str) or not stated.rstrip("#").startswith(_JSON_SCHEMA_DIALECTS)
    ):
        sink = DiagnosticSink(source)
        sink.error(
            "/$schema",
            f"unsupported schema language {stated!r} (a dialect built on a JSON Schema draft "
            "is read as that draft when it is named: --dialect draft-07, say)",
        )
        sink.raise_if(strict=True)
    document = as_draft_07(document)
    if imports is not None and names_other_files(document):
        sink = DiagnosticSink(source)
        document = bundle(document, imports, sink)
        _refuse_deep(document, source, sink)
        sink.raise_if(strict=False)
        return document, list(sink.items)
    return document, []


def _refuse_deep(document: Json, source: str, sink: DiagnosticSink) -> None:
    """What was brought in from other files is held to the same depth as the schema."""
    deep = too_deep(document)
    if deep is not None:
        sink.error(
            deep,
            f"with the files it brings in, the schema nests deeper than {MAX_DEPTH} levels "
            "here; refused",
        )


def model_source(
    schema: JsonObject, *, class_name: str, source: ModelSource, strict: bool
) -> tuple[str, list[Diagnostic]]:
    """Normalise a JSON Schema and generate the model module for it.

    Where the generator cannot render the schema's types exactly (a name it changes, a type
    it writes as ``Any``...), the model is a JSON value judged by the whole schema: typed
    loosely, but exact, rather than refused. ``strict`` refuses instead. A schema that cannot
    be used at all (a remote reference, an unsafe pattern) is refused either way.
    """
    try:
        return _model_source(schema, class_name=class_name, source=source, strict=strict)
    except CodegenError as error:
        if strict:
            raise
        try:
            code, diagnostics = _model_source(
                schema, class_name=class_name, source=source, strict=False, whole=True
            )
        except CodegenError:
            raise error from None
        reasons = "; ".join(f"{d.pointer or '/'}: {d.message}" for d in error.diagnostics)
        fallback = Diagnostic(
            source.schema_path,
            "",
            f"the generator cannot type this schema exactly ({reasons}); {class_name} is a "
            "JSON value checked against the whole schema",
            Severity.WARNING,
        )
        return code, [*diagnostics, fallback]


def _model_source(
    schema: JsonObject, *, class_name: str, source: ModelSource, strict: bool, whole: bool = False
) -> tuple[str, list[Diagnostic]]:
    normalized = normalize(
        schema, source=source.schema_path, strict=strict, whole=whole, class_name=class_name
    )
    prepared = dict(normalized.schema)
    prepared["title"] = class_name  # the root class name is stable whatever the schema's title
    rules = {
        class_name if name == ROOT_RULE else name: rule for name, rule in normalized.rules.items()
    }
    code = generate_models(
        prepared,
        class_name=class_name,
        source=source,
        rules=rules,
        refs=normalized.refs,
        optional_rules=normalized.unreachable,
    )
    return code, list(normalized.diagnostics)


def render(schemas_dir: Path, *, strict: bool = False) -> Rendered:
    rendered = Rendered()
    entries = read_manifest(schemas_dir)
    for entry in entries:
        _render_entry(schemas_dir, entry, rendered, strict=strict)
    rendered.files[f"{PACKAGE}/__init__.py"] = _package_init(entries)
    rendered.files[f"{PACKAGE}/models.py"] = _models_module(entries, rendered)
    rendered.files[f"{PACKAGE}/py.typed"] = ""
    rendered.files[f"{PACKAGE}/_json.py"] = render_runtime_module()
    rendered.files[f"{PACKAGE}/_ecma.py"] = render_ecma_module()
    return rendered


def _render_entry(
    schemas_dir: Path, entry: SchemaEntry, rendered: Rendered, *, strict: bool
) -> None:
    path = schemas_dir / entry.file
    raw = path.read_bytes()
    digest = sha256_of(raw)
    rendered.hashes[entry.name] = digest
    source_name = f"schemas/{entry.file}"
    # the vendored original ships too (`agentruns schema F --source`), byte for byte
    rendered.files[f"{PACKAGE}/schemas/{entry.file}"] = raw.decode("utf-8")
    document = load_json(path)
    schema, diagnostics = json_schema_for(
        document, source=source_name, strict=strict, imports=folder_loader(schemas_dir)
    )
    rendered.diagnostics.extend(diagnostics)
    translated_from: str | None = None
    schema_path = source_name
    schema_digest = digest
    if entry.is_structure:
        text = dump_json(schema)
        translated_name = f"{PACKAGE}/{entry.name}.schema.json"
        rendered.files[translated_name] = text
        translated_from = f"{source_name} (sha256 {digest})"
        schema_path = f"generated/{translated_name}"
        schema_digest = sha256_of(text.encode("utf-8"))
    code, diagnostics = model_source(
        schema,
        class_name=entry.class_name,
        source=ModelSource(schema_path, schema_digest, translated_from),
        strict=strict,
    )
    rendered.diagnostics.extend(diagnostics)
    rendered.files[f"{PACKAGE}/{entry.name}.py"] = code


def _package_init(entries: list[SchemaEntry]) -> str:
    """The package's table of formats. Nothing in it imports a format's models: a service
    that reads one format pays for that one (a root model is imported when first named)."""
    ordered = sorted(entries, key=lambda e: e.name)
    lines = [
        '"""Models generated from the schemas in schemas/ -- do not edit by hand.',
        "",
        "Import them from ``agentruns`` (the stable public API), not from here.",
        "Regenerate with: python -m codegen generate",
        '"""',
        "",
        "from importlib import import_module",
        "from typing import TYPE_CHECKING, NamedTuple",
        "",
        "from pydantic import BaseModel",
        "",
        "if TYPE_CHECKING:",
    ]
    for entry in ordered:
        lines.append(f"    from {PACKAGE}.{entry.name} import {entry.class_name}")
    lines += [
        "",
        "",
        "class GeneratedFormat(NamedTuple):",
        '    """One format the build step generated models for."""',
        "",
        "    name: str",
        "    version: str",
        '    """The upstream commit of its schema."""',
        "    module: str",
        '    """The module of its models (imported when its model is first asked for)."""',
        "    class_name: str",
        '    """The root model\'s name."""',
        "    source: str",
        '    """The vendored schema, in this package (as published upstream)."""',
        "    enforced: str",
        '    """The JSON Schema the models enforce, in this package (a JSON Structure schema',
        '    is translated)."""',
        "",
        "    @property",
        "    def model(self) -> type[BaseModel]:",
        '        """The root model."""',
        "        found: type[BaseModel] = getattr(import_module(self.module), self.class_name)",
        "        return found",
        "",
        "",
        "FORMATS: dict[str, GeneratedFormat] = {",
    ]
    for entry in ordered:
        source = f"schemas/{entry.file}"
        enforced = f"{entry.name}.schema.json" if entry.is_structure else source
        lines.append(
            f"    {entry.name!r}: GeneratedFormat({entry.name!r}, {entry.commit!r}, "
            f"{f'{PACKAGE}.{entry.name}'!r}, {entry.class_name!r}, {source!r}, {enforced!r}),"
        )
    lines += [
        "}",
        '"""Every generated format by name: the one table the package reads its formats from."""',
        "",
        "_ROOTS = {"
        + ", ".join(f"{entry.class_name!r}: {entry.name!r}" for entry in ordered)
        + "}",
        "",
        "",
        "def __getattr__(name: str) -> object:",
        '    """A root model, imported with its format\'s module when first named."""',
        "    fmt = _ROOTS.get(name)",
        "    if fmt is None:",
        '        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")',
        "    return FORMATS[fmt].model",
        "",
        "",
    ]
    names = sorted([*(e.class_name for e in entries), "FORMATS", "GeneratedFormat"])
    lines.append("__all__ = [" + ", ".join(f'"{name}"' for name in names) + "]")
    return tidy("\n".join(lines) + "\n")


def public_names(code: str) -> list[str]:
    """The names a generated module defines for its users: classes and type aliases at its
    top level (not what it imports, nothing private), in the order it defines them.

    The machinery of rules is not theirs: an alias that only carries a lifted rule
    (``Value0Rule = TypeAliasType(..., SchemaRule(...))``, named by the generator after where
    the rule stood) and the reference table (``SCHEMA_REFS``) stay in the format's module."""
    names: list[str] = []
    for node in ast.parse(code).body:
        if isinstance(node, ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            if _carries_a_rule(node.value):
                continue
            names += [
                t.id
                for t in node.targets
                if isinstance(t, ast.Name) and not t.id.startswith("SCHEMA_REFS")
            ]
        elif (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and not node.target.id.startswith("SCHEMA_REFS")
        ):
            names.append(node.target.id)
    return [name for name in names if not name.startswith("_")]


def _carries_a_rule(value: ast.expr) -> bool:
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id.startswith("SchemaRule")  # the marker, however it was named
        for node in ast.walk(value)
    )


def _models_module(entries: list[SchemaEntry], rendered: Rendered) -> str:
    """Every public name of every generated model module, in one module.

    ``agentruns.models`` re-exports it, so a class that a regenerated schema adds is importable
    from there after ``generate`` alone. Two formats defining one name would make the second
    shadow the first: the build refuses that, naming both.
    """
    owner: dict[str, str] = {}
    by_module: dict[str, list[str]] = {}
    clashes: list[Diagnostic] = []
    for entry in sorted(entries, key=lambda e: e.name):
        code = rendered.files.get(f"{PACKAGE}/{entry.name}.py")
        if code is None:
            continue
        for name in public_names(code):
            if name in owner:
                clashes.append(
                    Diagnostic(
                        f"schemas/{entry.file}",
                        "",
                        f"the generated class or alias {name} is defined by {owner[name]} too; "
                        "agentruns.models cannot export both (give one a different title)",
                        Severity.ERROR,
                    )
                )
                continue
            owner[name] = entry.name
            by_module.setdefault(entry.name, []).append(name)
    if clashes:
        raise CodegenError(clashes)
    lines = [
        '"""Every class and type alias of the generated model modules -- do not edit by hand.',
        "",
        "``agentruns.models`` re-exports this module: a name a schema adds is exported by",
        "``python -m codegen generate`` alone. A name is imported with its format's module when",
        "it is first used, so importing this module imports no format's models.",
        "Regenerate with: python -m codegen generate",
        '"""',
        "",
        "from importlib import import_module",
        "from typing import TYPE_CHECKING",
        "",
        "if TYPE_CHECKING:",
    ]
    for module, names in by_module.items():
        lines.append(f"    from {PACKAGE}.{module} import (")
        lines += [f"        {name}," for name in sorted(names)]
        lines.append("    )")
    lines += ["", "_MODULES = {"]
    lines += [f"    {name!r}: {owner[name]!r}," for name in sorted(owner)]
    lines += [
        "}",
        '"""The format module of each name."""',
        "",
        "",
        "def __getattr__(name: str) -> object:",
        '    """A generated name, imported with its format\'s module when first used."""',
        "    module = _MODULES.get(name)",
        "    if module is None:",
        '        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")',
        f'    value = getattr(import_module(f"{PACKAGE}.{{module}}"), name)',
        "    globals()[name] = value",
        "    return value",
        "",
        "",
        "def __dir__() -> list[str]:",
        "    return sorted({*globals(), *__all__})",
        "",
        "",
    ]
    listed = sorted(owner)
    lines.append("__all__ = [" + ", ".join(f'"{name}"' for name in listed) + "]")
    return tidy("\n".join(lines) + "\n")


# -- writing and checking -------------------------------------------------------------


def _existing(out_dir: Path) -> dict[str, str]:
    package = out_dir / PACKAGE
    if not package.is_dir():
        return {}
    found: dict[str, str] = {}
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            found[path.relative_to(out_dir).as_posix()] = path.read_text(encoding="utf-8")
    return found


def write(rendered: Rendered, out_dir: Path, also: dict[Path, str] | None = None) -> list[str]:
    """Write the rendered files, and ``also`` (the manifest), all or none (see
    ``codegen._files``); remove stale ones; return what changed under ``out_dir``."""
    existing = _existing(out_dir)
    changed = {
        name: text for name, text in sorted(rendered.files.items()) if existing.get(name) != text
    }
    write_all({**{out_dir / name: text for name, text in changed.items()}, **(also or {})})
    stale = sorted(set(existing) - set(rendered.files))
    for name in stale:
        (out_dir / name).unlink()
    return [*changed, *stale]


def stale_diff(rendered: Rendered, out_dir: Path, *, schemas: list[SchemaEntry]) -> str:
    """A unified diff from what is committed to what the schemas produce ('' when fresh)."""
    existing = _existing(out_dir)
    chunks: list[str] = []
    for entry in schemas:
        recorded, actual = entry.sha256, rendered.hashes.get(entry.name)
        if actual is not None and recorded != actual:
            chunks.append(
                f"schemas/manifest.json: sha256 of {entry.file} is {actual}, manifest records "
                f"{recorded} (run `python -m codegen generate` to record it)\n"
            )
    for name in sorted(set(existing) | set(rendered.files)):
        old = existing.get(name)
        new = rendered.files.get(name)
        if old == new:
            continue
        chunks.append(
            "".join(
                difflib.unified_diff(
                    [] if old is None else old.splitlines(keepends=True),
                    [] if new is None else new.splitlines(keepends=True),
                    fromfile=f"generated/{name}" if old is not None else "/dev/null",
                    tofile=f"generated/{name} (from schemas/)" if new is not None else "/dev/null",
                )
            )
        )
    return "".join(chunks)
