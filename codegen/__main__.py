"""``python -m codegen``: regenerate, check freshness, generate one model, translate one schema.

Exit codes: 0 success; 1 stale output (``check``) or a schema the build step refuses;
2 usage errors (argparse).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from codegen._documents import folder_loader
from codegen._files import Stopped, atomic_write, stop_within, stoppable
from codegen._json import dump_json, load_json
from codegen._names import class_name_from, pascal
from codegen.diagnostics import CodegenError, Diagnostic
from codegen.driver import ModelSource, sha256_of
from codegen.manifest import MANIFEST_NAME, manifest_with_hashes, read_manifest
from codegen.normalize import reserved_name
from codegen.pipeline import (
    DIALECTS,
    json_schema_for,
    model_source,
    render,
    stale_diff,
    write,
)
from codegen.structure import is_json_structure

ROOT = Path(__file__).resolve().parent.parent


def _report(diagnostics: Sequence[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        print(diagnostic, file=sys.stderr)


def _generate(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    schemas_dir: Path = args.schemas
    rendered = render(schemas_dir, strict=args.strict)
    _report(rendered.diagnostics)
    recorded, manifest = manifest_with_hashes(schemas_dir, rendered.hashes)
    # the models and the hashes they were made from change together, or not at all
    also = {} if manifest is None else {schemas_dir / MANIFEST_NAME: manifest}
    changed = write(rendered, args.out, also)
    for name in recorded:
        print(f"recorded the new sha256 of schema {name!r} in schemas/manifest.json")
    for name in changed:
        print(f"wrote generated/{name}")
    elapsed = time.perf_counter() - started
    print(f"{len(rendered.files)} files, {len(changed)} changed ({elapsed:.2f} s)")
    return 0


def _check(args: argparse.Namespace) -> int:
    rendered = render(args.schemas, strict=args.strict)
    diff = stale_diff(rendered, args.out, schemas=read_manifest(args.schemas))
    if diff:
        sys.stdout.write(diff)
        print(
            "generated/ is stale: run `python -m codegen generate` and commit the result",
            file=sys.stderr,
        )
        return 1
    print(f"generated/ is fresh ({len(rendered.files)} files)")
    return 0


def _model(args: argparse.Namespace) -> int:
    path: Path = args.schema
    document = load_json(path)
    schema, diagnostics = json_schema_for(
        document,
        source=str(path),
        strict=args.strict,
        imports=folder_loader(path.parent),
        dialect=args.dialect,
    )
    class_name = args.class_name or _class_name_for(path, document)
    code, more = model_source(
        schema,
        class_name=class_name,
        source=ModelSource(str(path), sha256_of(path.read_bytes())),
        strict=args.strict,
    )
    _report([*diagnostics, *more])
    out: Path = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, code)
    print(f"wrote {out} ({class_name})")
    return 0


def _changes(args: argparse.Namespace) -> int:
    from codegen.changes import changes

    report = changes(args.schemas, args.out, examples=args.examples, samples=args.samples)
    sys.stdout.write(report)
    return 0


def _translate(args: argparse.Namespace) -> int:
    path: Path = args.schema
    schema, diagnostics = json_schema_for(
        load_json(path), source=str(path), strict=args.strict, imports=folder_loader(path.parent)
    )
    _report(diagnostics)
    sys.stdout.write(dump_json(schema))
    return 0


def _class_name_for(path: Path, document: object) -> str:
    """A JSON Structure document names its root type (``name``); otherwise the file does. A
    name the generated module uses itself (``uri.json``: ``Uri``) gets ``Model`` after it; one
    that is no class name by itself (``2020-12.json``) gets ``Model`` before it."""
    name = class_name_from(path.name.split(".")[0])
    if isinstance(document, dict) and is_json_structure(document):
        stated = document.get("name")
        if isinstance(stated, str) and pascal(stated):
            name = class_name_from(stated)
    return f"{name}Model" if reserved_name(name) else name


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m codegen",
        description="Generate typed Pydantic models from the schemas in schemas/.",
        epilog="Exit codes: 0 ok; 1 stale output or a refused schema; 2 usage error.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    def common(sub: argparse.ArgumentParser, *, tree: bool) -> None:
        sub.add_argument(
            "--strict",
            action="store_true",
            help="treat every diagnostic (each assumption about the input) as an error",
        )
        if tree:
            sub.add_argument(
                "--schemas", type=Path, default=ROOT / "schemas", help=argparse.SUPPRESS
            )
            sub.add_argument("--out", type=Path, default=ROOT / "generated", help=argparse.SUPPRESS)

    generate = commands.add_parser(
        "generate", help="regenerate generated/ from every schema in the manifest"
    )
    common(generate, tree=True)
    generate.set_defaults(run=_generate)

    check = commands.add_parser(
        "check", help="exit 1 with a diff when generated/ is stale (never writes)"
    )
    common(check, tree=True)
    check.set_defaults(run=_check)

    changed = commands.add_parser(
        "changes",
        help="what regenerating changes: classes and fields, compatibility, mapper places",
    )
    changed.add_argument(
        "--examples",
        type=int,
        default=60,
        help="generated records per compatibility direction (default 60)",
    )
    changed.add_argument(
        "--samples",
        type=Path,
        default=Path("tests/fixtures"),
        help="vendored sample records: those the new schema refuses are named "
        "(default tests/fixtures)",
    )
    common(changed, tree=True)
    changed.set_defaults(run=_changes)

    model = commands.add_parser(
        "model", help="generate models for one JSON Schema or JSON Structure file"
    )
    model.add_argument("schema", type=Path)
    model.add_argument("--out", type=Path, required=True, help="the Python module to write")
    model.add_argument("--class-name", help="name of the root model (default: from the file name)")
    model.add_argument(
        "--dialect",
        choices=sorted(DIALECTS),
        help="read the schema as this JSON Schema draft, whatever its $schema names (a dialect "
        "built on the draft, such as CloudFormation's resource schemas on draft-07)",
    )
    common(model, tree=False)
    model.set_defaults(run=_model)

    translate = commands.add_parser(
        "translate", help="print the JSON Schema for a JSON Structure file"
    )
    translate.add_argument("schema", type=Path)
    common(translate, tree=False)
    translate.set_defaults(run=_translate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with stoppable():
            result: int = args.run(args)
    except Stopped as stop:
        return _stopped(stop)
    except Exception as error:
        within = stop_within(error)
        return _failed(error) if within is None else _stopped(within)
    return result


def _stopped(stop: Stopped) -> int:
    print("stopped; nothing half-written was left behind", file=sys.stderr)
    return 128 + stop.number


def _failed(error: Exception) -> int:
    if isinstance(error, CodegenError):
        _report(error.diagnostics)
    elif isinstance(error, OSError | ValueError):
        print(f"error: {error}", file=sys.stderr)
    elif isinstance(error, RecursionError):
        print("error: the schema is nested too deeply for the build step", file=sys.stderr)
    else:  # a bug or a generator failure: say so, without a traceback
        print(
            f"error: the build step failed on this schema ({type(error).__name__}: {error}); "
            "nothing was written",
            file=sys.stderr,
        )
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
