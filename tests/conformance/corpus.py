"""Real-world schemas through the build step: refused or generated, and if generated, the
model judged against ``jsonschema`` (with formats) on instances generated from the schema
(hypothesis-jsonschema), on mutants of them, and on the schema's own test instances when
``--tests`` gives them.

``python -m tests.conformance.corpus DIR [--tests TESTS]`` prints one line per schema and a
summary. The corpus is whatever folder of ``*.json`` schemas it is given (SchemaStore's
``src/schemas/json``, the schemas check-jsonschema vendors); nothing is fetched. A schema's own
instances are the files (JSON, YAML, TOML) in every folder under TESTS named like the schema
(SchemaStore's ``src/test/NAME`` and ``src/negative_test/NAME``, check-jsonschema's
``hooks/positive/NAME`` and ``hooks/negative/NAME``); ``jsonschema`` judges them as it judges
the generated ones, whatever folder they come from.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import importlib
import json
import re
import signal
import sys
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import jsonschema
from pydantic import TypeAdapter

from codegen._documents import folder_loader
from codegen.diagnostics import CodegenError
from codegen.driver import ModelSource
from codegen.pipeline import json_schema_for, model_source
from tests._load import load_source
from tests.conformance._judge import verdicts

GENERATION_SECONDS = 30
BUILD_SECONDS = 120
CLAIMED_FORMATS = ("date-time", "date", "time", "ipv4", "ipv6", "json-pointer", "uri",
                   "uri-reference", "regex", "duration", "uuid")  # fmt: skip


@dataclass
class SchemaResult:
    name: str
    refused: str | None = None
    whole: bool = False
    """Built as a JSON value judged by the whole schema (the typed path failed)."""
    seconds: float = 0.0
    timed_out: bool = False
    instances: int = 0
    own: int = 0
    """Of the instances, those from the schema's own tests."""
    false_accepts: list[str] = field(default_factory=list)
    false_rejects: list[str] = field(default_factory=list)
    crash: str | None = None


def _load(code: str, name: str) -> Any:
    return load_source(code, name)


class _TimedOut(BaseException):
    """Past a deadline; a BaseException, so no ``except Exception`` on the way swallows it."""


@contextlib.contextmanager
def _deadline(seconds: int) -> Any:
    def give_up(signum: int, frame: object) -> None:
        raise _TimedOut

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _yaml(text: str) -> Any:
    """YAML as a schema's users write it for a JSON Schema: timestamps stay text (PyYAML's safe
    loader would make dates of them, which no JSON document holds)."""
    yaml: Any = importlib.import_module("yaml")  # only the corpus runner reads YAML
    Loader: Any = type("Loader", (yaml.SafeLoader,), {})
    Loader.yaml_implicit_resolvers = {
        first: [(tag, regex) for tag, regex in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return yaml.load(text, Loader=Loader)  # a SafeLoader


def own_instances(tests: Path, stem: str) -> list[Any]:
    """The schema's own test documents: every file in a folder under ``tests`` named ``stem``."""
    import tomllib

    found: list[Any] = []
    for folder in sorted(p for p in tests.rglob(stem) if p.is_dir()):
        for path in sorted(p for p in folder.iterdir() if p.is_file()):
            text = path.read_text(encoding="utf-8-sig", errors="replace")
            try:
                if path.suffix == ".json":
                    found.append(json.loads(text))
                elif path.suffix in (".yaml", ".yml"):
                    found.append(_yaml(text))
                elif path.suffix == ".toml":
                    found.append(tomllib.loads(text))
            except Exception:  # a test file this reader cannot read is not an instance
                continue
    return found


def _instances(schema: dict[str, Any], count: int, seconds: int) -> list[Any]:
    """What hypothesis-jsonschema generates for the schema within ``seconds``, in a child
    process killed at the deadline: it cannot generate for every schema, nor quickly for some,
    and an alarm does not reach it inside a long C call (one schema's generation ran four
    minutes past a 3 s alarm)."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_generate, args=(schema, count, seconds, send), daemon=True)
    child.start()
    send.close()
    found: list[Any] = []
    if receive.poll(seconds + 5):
        with contextlib.suppress(EOFError):
            found = json.loads(receive.recv())
    child.kill()
    child.join()
    return found


def _generate(schema: dict[str, Any], count: int, seconds: int, send: Any) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis_jsonschema import from_schema

    found: list[Any] = []

    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(from_schema(schema))
    def collect(instance: Any) -> None:
        found.append(instance)

    with contextlib.suppress(Exception, _TimedOut), _deadline(seconds):
        collect()
    send.send(json.dumps(found))


def _mutants(instance: Any, schema: dict[str, Any]) -> list[Any]:
    import random

    from tests.fidelity.mutations import sample, schema_constants

    try:
        mutants = sample(instance, schema_constants(schema), 10, random.Random(0))
    except Exception:
        return []
    return [m.instance for m in mutants]


def _ecma_search(pattern: str, text: str) -> bool:
    """A pattern as ECMA-262 reads it (``\\d`` ASCII, ``.`` stops at line terminators, ``$``
    the end of the text: design.md's oracle traps), by the backtracking matcher, which is
    not the engine the models run (Rust's, on the build step's translation)."""
    from codegen import ecma

    try:
        return ecma.search(pattern, text)
    except (ecma.PatternSyntaxError, ecma.PatternBudgetError):
        return re.search(pattern, text) is not None


def _oracle(document: dict[str, Any]) -> Any:
    """``jsonschema`` with formats, its patterns read as ECMA-262 reads them."""
    cls = jsonschema.validators.validator_for(document)
    dialect = document.get("$schema")
    if isinstance(dialect, str) and dialect.startswith("https://json-schema.org/draft-0"):
        # the build step reads "https://json-schema.org/draft-07/schema" as draft-07;
        # jsonschema knows only the http spelling and took it for 2020-12 (where the keywords
        # beside a $ref apply: 14 "false accepts" on a Discord webhook schema were that)
        plain = "http" + dialect.rstrip("#")[len("https") :] + "#"
        cls = jsonschema.validators.validator_for({"$schema": plain}, default=cls)

    def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Any:
        if isinstance(instance, str) and not _ecma_search(patrn, instance):
            yield jsonschema.ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Any:
        if not isinstance(instance, dict):
            return
        for regex, sub in patterns.items():
            for key, value in instance.items():
                if _ecma_search(regex, key):
                    yield from validator.descend(value, sub, path=key, schema_path=regex)

    def additional_properties(validator: Any, extras: Any, instance: Any, schema: Any) -> Any:
        if not isinstance(instance, dict):
            return
        known = schema.get("properties", {})
        regexes = schema.get("patternProperties", {})
        rest = [
            k for k in instance if k not in known and not any(_ecma_search(r, k) for r in regexes)
        ]
        if extras is False and rest:
            yield jsonschema.ValidationError(f"additional properties {rest!r}")
        elif isinstance(extras, dict):
            for key in rest:
                yield from validator.descend(instance[key], extras, path=key)

    extended = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        cls,
        {
            "pattern": pattern,
            "patternProperties": pattern_properties,
            "additionalProperties": additional_properties,
        },
    )
    # the formats the build step asserts; draft-07 lets any other be an annotation, which is
    # what the models make of them (jsonschema asserts idn/iri formats when a package is there)
    claimed = set(CLAIMED_FORMATS) & set(cls.FORMAT_CHECKER.checkers)
    checker = jsonschema.FormatChecker(formats=claimed)
    for name in ("uri", "uri-reference"):
        if name in checker.checkers:
            # rfc3987's patterns end in Python's $, which also matches before a final newline:
            # "https://a.example/x\n" passed as a URI (no URI holds a line break)
            test, raises = checker.checkers[name]
            checker.checkers[name] = (partial(_no_final_newline, test), raises)
    return extended(_one_dialect(document), format_checker=checker)


def _no_final_newline(test: Any, value: object) -> bool:
    return not (isinstance(value, str) and value.endswith("\n")) and bool(test(value))


def _one_dialect(document: dict[str, Any]) -> dict[str, Any]:
    """The document without the ``$schema`` of its subschemas (a copy). jsonschema gives a
    subschema that names its dialect that dialect's own validator class, so the ECMA-262
    patterns above stopped applying past it: SchemaStore's catalog-info.json declares
    draft-07 in every branch, and ``^\\w+$`` matched CJK text there (Python's ``\\w``), 44
    "false rejects" that were the oracle's. The root's dialect is every subschema's here."""
    from codegen.schema_passes.walk import subschemas

    copied = copy.deepcopy(document)
    for node in subschemas(copied)[1:]:
        node.pop("$schema", None)
    return copied


def check(
    path: Path,
    *,
    count: int,
    seconds: int = GENERATION_SECONDS,
    build_seconds: int = BUILD_SECONDS,
    tests: Path | None = None,
) -> SchemaResult:
    result = SchemaResult(path.name)
    document = json.loads(path.read_text(encoding="utf-8-sig"))
    started = time.monotonic()
    try:
        with _deadline(build_seconds):
            schema, _ = json_schema_for(
                document, source=path.name, strict=False, imports=folder_loader(path.parent)
            )
            code, said = model_source(
                schema, class_name="Root", source=ModelSource(path.name, "0" * 64), strict=False
            )
        result.whole = any("whole schema" in d.message for d in said)
    except _TimedOut:
        result.timed_out = True
        result.seconds = time.monotonic() - started
        return result
    except CodegenError as error:
        result.refused = str(error).splitlines()[0]
        return result
    except Exception as error:  # a crash of the build step is what is counted here
        result.crash = f"build: {error!r}"
        return result
    result.seconds = time.monotonic() - started
    own = own_instances(tests, path.stem) if tests is not None else []
    if count == 0 and not own:
        return result
    try:
        module = _load(code, "corpus_" + "".join(c if c.isalnum() else "_" for c in path.stem))
        adapter: TypeAdapter[Any] = TypeAdapter(module.Root)
    except Exception as error:
        result.crash = f"import: {error!r}"
        return result
    oracle = _oracle(document)
    instances = _instances(document, count, seconds) if count else []
    candidates = [*own, *instances, *(m for i in instances[:5] for m in _mutants(i, document))]
    for number, instance in enumerate(candidates):
        try:
            text = json.dumps(instance)
        except ValueError:
            continue
        result.instances += 1
        result.own += number < len(own)
        expected = oracle.is_valid(instance)
        for mode, got in verdicts(adapter, text):
            if isinstance(got, Exception):
                result.crash = f"validate: {got!r}"
                return result
            if got and not expected:
                reason = next(iter(oracle.iter_errors(instance))).message[:300]
                result.false_accepts.append(f"{mode}: {text} (jsonschema: {reason})")
            elif expected and not got:
                result.false_rejects.append(f"{mode}: {text}")
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folder", type=Path, help="a folder of schemas (searched recursively)")
    parser.add_argument("--instances", type=int, default=20, help="0: build only")
    parser.add_argument(
        "--seconds", type=int, default=GENERATION_SECONDS, help="generation time per schema"
    )
    parser.add_argument(
        "--build-seconds", type=int, default=BUILD_SECONDS, help="build time-out per schema"
    )
    parser.add_argument("--tests", type=Path, help="a folder of the schemas' own test instances")
    args = parser.parse_args(argv)
    results = []
    for path in sorted(p for p in args.folder.rglob("*.json") if p.is_file()):
        r = check(
            path,
            count=args.instances,
            seconds=args.seconds,
            build_seconds=args.build_seconds,
            tests=args.tests,
        )
        results.append(r)
        state = (
            f"REFUSED {r.refused}"
            if r.refused
            else f"CRASH {r.crash}"
            if r.crash
            else f"TIMED OUT after {args.build_seconds} s"
            if r.timed_out
            else "ok (judged whole)"
            if r.whole
            else "ok"
        )
        print(
            f"{r.name}: {state[:300]} ({r.seconds:.1f} s, {r.instances} instances"
            f"{f' ({r.own} its own)' if r.own else ''}, "
            f"{len(r.false_accepts)} false accepts, {len(r.false_rejects)} false rejects)"
        )
        for item in r.false_accepts[:3]:
            print(f"  false accept {item}")
        for item in r.false_rejects[:3]:
            print(f"  false reject {item}")
        sys.stdout.flush()
    refused = sum(1 for r in results if r.refused)
    print(
        f"{len(results)} schemas, {refused} refused ({100 * refused / max(len(results), 1):.1f}%), "
        f"{sum(1 for r in results if r.whole)} judged whole, "
        f"{sum(1 for r in results if r.crash)} crashes, "
        f"{sum(1 for r in results if r.timed_out)} timed out, "
        f"{sum(r.instances for r in results)} instances "
        f"({sum(r.own for r in results)} their own), "
        f"{sum(len(r.false_accepts) for r in results)} false accepts, "
        f"{sum(len(r.false_rejects) for r in results)} false rejects"
    )


if __name__ == "__main__":
    main()
