"""``python -m tests.bench``: throughput, memory and import time, side by side, printed.

Not a test: figures vary with the machine. Everything runs in one sitting on the same seeded
JSONL files, so the ratios are comparable. ``nox -s bench`` runs it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
from pydantic import BaseModel

from agentruns.detect import MODELS
from agentruns.schemas import schema_text
from tests.bench.records import lines

AGENTRUNS = str(Path(sys.executable).parent / "agentruns")
# Users run with bytecode caching; this sandbox sets PYTHONDONTWRITEBYTECODE, which would
# make every CLI run compile its modules again. Every subprocess here runs without it.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _write(path: Path, fmt: str, count: int, seed: int = 0, scale: float = 1.0) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for text in lines(fmt, count, seed, scale):
            out.write(text + "\n")
    return path


def _best(runs: int, action: Callable[[], Any]) -> float:
    """Best wall time of several runs (the least disturbed by the rest of the machine); one
    untimed run first, so the CLI's bytecode cache is written."""
    action()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def _cli(*args: str) -> None:
    completed = subprocess.run([AGENTRUNS, *args], capture_output=True, check=False, env=ENV)
    if completed.returncode != 0:
        raise SystemExit(f"agentruns {' '.join(args)} failed:\n{completed.stderr.decode()}")


def _python_jsonschema(fmt: str) -> Callable[[bytes], bool]:
    schema = json.loads(schema_text(fmt))
    cls = jsonschema.validators.validator_for(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    return lambda raw: bool(validator.is_valid(json.loads(raw)))


def _jsonschema_rs(fmt: str) -> Callable[[bytes], bool]:
    validator = jsonschema_rs.validator_for(json.loads(schema_text(fmt)), validate_formats=True)
    return lambda raw: bool(validator.is_valid(json.loads(raw)))


def _loop(path: Path, check: Callable[[bytes], bool]) -> None:
    with path.open("rb") as stream:
        for raw in stream:
            if not check(raw):
                raise SystemExit(f"a generated record is invalid: {raw[:200]!r}")


def bench_validate(workdir: Path, count: int, runs: int) -> None:
    print(f"\n## validate: records/s on {count} seeded records per format (best of {runs})")
    columns = ("format", "bytes/rec", "agentruns", "jsonschema", "jsonschema-rs", "vs py", "vs rs")
    print("{:<10} {:>9} {:>10} {:>11} {:>14} {:>7} {:>6}".format(*columns))
    for fmt in MODELS:
        path = _write(workdir / f"{fmt}.jsonl", fmt, count)
        size = path.stat().st_size // count
        ours = count / _best(runs, partial(_cli, "validate", "--quiet", str(path)))
        python = count / _best(max(1, runs // 2), partial(_loop, path, _python_jsonschema(fmt)))
        rust = count / _best(runs, partial(_loop, path, _jsonschema_rs(fmt)))
        row = (fmt, size, ours, python, rust, ours / python, ours / rust)
        print("{:<10} {:>9} {:>10.0f} {:>11.0f} {:>14.0f} {:>6.1f}x {:>5.2f}x".format(*row))
    print("agentruns: the CLI end to end (process start, parse, validate);")
    print("the others: in-process loops of json.loads + is_valid (formats checked)")


def bench_convert(workdir: Path, count: int, runs: int) -> None:
    print(
        f"\n## convert: the CLI end to end vs the pydantic floor ({count} records, best of {runs})"
    )
    print("{:<22} {:>11} {:>8} {:>6}".format("direction", "agentruns s", "floor s", "ratio"))
    for source, model in MODELS.items():
        path = workdir / f"{source}.jsonl"
        if not path.exists():
            _write(path, source, count)
        floor_s = _best(runs, partial(_floor, model, path.read_bytes().splitlines()))
        for target in MODELS:
            if target == source:
                continue
            out = workdir / f"{source}-to-{target}.jsonl"
            command = ("convert", "--quiet", "--to", target, str(path), "-o", str(out))
            ours_s = _best(runs, partial(_cli, *command))
            row = (f"{source} -> {target}", ours_s, floor_s, ours_s / floor_s)
            print("{:<22} {:>11.2f} {:>8.2f} {:>5.2f}x".format(*row))
    print("floor: a bare loop of validate_json + model_dump_json on the same lines, in-process")


def _floor(model: type[BaseModel], raw_lines: list[bytes]) -> None:
    for raw in raw_lines:
        model.model_validate_json(raw).model_dump_json()


def _peak_rss_kib(*args: str) -> int:
    completed = subprocess.run(
        ["/usr/bin/time", "-f", "%M", AGENTRUNS, *args],
        capture_output=True,
        text=True,
        check=False,
        env=ENV,
    )
    if completed.returncode != 0:
        raise SystemExit(completed.stderr)
    return int(completed.stderr.strip().splitlines()[-1])


def bench_memory(workdir: Path, small: int, large: int) -> None:
    print(f"\n## memory: peak RSS converting {small} vs {large} JSONL lines (cortex -> agentrun)")
    results = {}
    for count in (small, large):
        path = _write(workdir / f"rss-{count}.jsonl", "cortex", count, scale=0.1)
        out = workdir / f"rss-{count}.out.jsonl"
        results[count] = _peak_rss_kib(
            "convert", "--quiet", "--to", "agentrun", str(path), "-o", str(out)
        )
        mib = path.stat().st_size / 2**20
        print(f"{count:>8} lines ({mib:,.0f} MiB in): peak RSS {results[count] / 1024:,.1f} MiB")
        path.unlink()
        out.unlink()
    print(f"ratio {results[large] / results[small]:.2f}x")


def _import_ms(statement: str, runs: int) -> float:
    """Median import time in fresh interpreters, with bytecode caching on (as users have it:
    this sandbox sets PYTHONDONTWRITEBYTECODE, which would time compilation instead)."""
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"

    def once() -> float:
        completed = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=ENV
        )
        return float(completed.stdout)

    once()  # warm: writes the .pyc files
    return statistics.median([once() for _ in range(runs)]) * 1000


def bench_import(runs: int) -> None:
    print(f"\n## import time (median of {runs} fresh interpreters)")
    pydantic_ms = _import_ms("import pydantic", runs)
    one_model_ms = _import_ms("import pydantic\nclass A(pydantic.BaseModel):\n    x: int", runs)
    names_ms = _import_ms("from pydantic import BaseModel, JsonValue, TypeAdapter", runs)
    ours_ms = _import_ms("import agentruns", runs)
    print(f"import pydantic                          {pydantic_ms:7.1f} ms")
    print(f"import pydantic + define one BaseModel   {one_model_ms:7.1f} ms")
    print(f"from pydantic import BaseModel, JsonValue, TypeAdapter {names_ms:7.1f} ms")
    print(f"import agentruns (models + mappers)      {ours_ms:7.1f} ms")
    print(f"  = {ours_ms / pydantic_ms:.2f}x import pydantic")
    print(f"  = {ours_ms / one_model_ms:.2f}x import pydantic + one model")
    probe = "import agentruns, sys; print('click' in sys.modules, 'rich' in sys.modules)"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    print(f"click, rich loaded by import agentruns: {loaded}")


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench")
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rss-small", type=int, default=10_000)
    parser.add_argument("--rss-large", type=int, default=200_000)
    parser.add_argument(
        "--only", choices=["validate", "convert", "memory", "import"], action="append"
    )
    args = parser.parse_args()
    chosen = set(args.only or ["validate", "convert", "memory", "import"])
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus")
    with tempfile.TemporaryDirectory(prefix="agentruns-bench-") as tmp:
        workdir = Path(tmp)
        if "validate" in chosen:
            bench_validate(workdir, args.records, args.runs)
        if "convert" in chosen:
            bench_convert(workdir, args.records, args.runs)
        if "memory" in chosen:
            bench_memory(workdir, args.rss_small, args.rss_large)
        if "import" in chosen:
            bench_import(11)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
