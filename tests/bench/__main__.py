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
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from agentruns._workers import available_cpus
from agentruns.conversion import convert, format_for
from agentruns.detect import MODELS
from agentruns.io import Raw, parse, validate
from agentruns.schemas import schema_text
from tests.bench.others import jsonschema_rs, python_jsonschema
from tests.bench.records import lines

AGENTRUNS = str(Path(sys.executable).parent / "agentruns")
# Users run with bytecode caching; this sandbox sets PYTHONDONTWRITEBYTECODE, which would
# make every CLI run compile its modules again. Every subprocess here runs without it.
T = TypeVar("T")
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


def _others(name: str, schema_file: Path, path: Path) -> None:
    command = [sys.executable, "-m", "tests.bench.others", name, str(schema_file), str(path)]
    completed = subprocess.run(command, capture_output=True, check=False, env=ENV)
    if completed.returncode != 0:
        raise SystemExit(f"{name} failed:\n{completed.stderr.decode()}")


def bench_validate(workdir: Path, count: int, runs: int) -> None:
    print(f"\n## validate: records/s on {count} seeded records per format (best of {runs})")
    print("end to end, each a process that starts, imports, reads the JSONL file, checks it;")
    print(f"agentruns as installed ({available_cpus()} worker processes) and with --jobs 1:")
    columns = ("format", "bytes/rec", "agentruns", "-j 1", "jsonschema", "jsonschema-rs")
    print("{:<10} {:>9} {:>10} {:>7} {:>11} {:>14}  {:>5} {:>5}".format(*columns, "vs py", "vs rs"))
    for fmt in MODELS:
        path = _write(workdir / f"{fmt}.jsonl", fmt, count)
        schema = workdir / f"{fmt}.schema.json"
        schema.write_text(schema_text(fmt), encoding="utf-8")
        size = path.stat().st_size // count
        ours = count / _best(runs, partial(_cli, "validate", "--quiet", str(path)))
        one = count / _best(runs, partial(_cli, "validate", "--quiet", "-j", "1", str(path)))
        python = count / _best(max(1, runs // 2), partial(_others, "jsonschema", schema, path))
        rust = count / _best(runs, partial(_others, "jsonschema-rs", schema, path))
        row = (fmt, size, ours, one, python, rust, ours / python, ours / rust)
        template = "{:<10} {:>9} {:>10.0f} {:>7.0f} {:>11.0f} {:>14.0f} {:>5.1f}x {:>5.2f}x"
        print(template.format(*row))
    print("\nin-process, us per record (best of 3): where agentruns' time goes")
    header = ("format", "strict parse", "validate", "both", "jsonschema", "jsonschema-rs")
    print("{:<10} {:>12} {:>9} {:>6} {:>11} {:>14}".format(*header))
    for fmt, model in MODELS.items():
        path, schema = workdir / f"{fmt}.jsonl", workdir / f"{fmt}.schema.json"
        lines = path.read_bytes().splitlines()
        raws = [Raw(str(path), n, line) for n, line in enumerate(lines, start=1)]
        parsed = [parse(raw) for raw in raws]
        costs = (
            fmt,
            _per_record(raws, parse),
            _per_record(parsed, partial(validate, model=model)),
            _per_record(raws, partial(_parse_and_validate, model=model)),
            _per_record(lines[: max(1, len(lines) // 5)], python_jsonschema(schema)),
            _per_record(lines, jsonschema_rs(schema)),
        )
        print("{:<10} {:>12.0f} {:>9.0f} {:>6.0f} {:>11.0f} {:>14.0f}".format(*costs))
    print("strict parse: json.loads refusing duplicate keys, NaN and numbers beyond a double;")
    print("jsonschema, jsonschema-rs: json.loads (not strict) + is_valid with formats checked")


def _parse_and_validate(raw: Raw, model: type[BaseModel]) -> object:
    return validate(parse(raw), model)


def _per_record(items: list[T], action: Callable[[T], object]) -> float:
    """Best of 3 in-process passes, microseconds per item."""

    def once() -> None:
        for item in items:
            action(item)

    return _best(3, once) / len(items) * 1e6


def bench_convert(workdir: Path, count: int, runs: int) -> None:
    print(
        f"\n## convert: the CLI end to end vs the pydantic floor ({count} records, best of {runs})"
    )
    print("{:<22} {:>11} {:>6} {:>8} {:>6} {:>6} {:>10} {:>9} {:>9} {:>11}".format(
        "direction", "agentruns s", "-j 1 s", "floor s", "ratio", "-j 1", "in-process",
        "converted", "no-losses", "pair floor",
    ))  # fmt: skip
    for source, model in MODELS.items():
        path = workdir / f"{source}.jsonl"
        if not path.exists():
            _write(path, source, count)
        raw_lines = path.read_bytes().splitlines()
        floor_s = _best(runs, partial(_floor, model, raw_lines))
        records = _records(model, raw_lines)
        for target, to in MODELS.items():
            if target == source:
                continue
            out = workdir / f"{source}-to-{target}.jsonl"
            command = ("convert", "--quiet", "--to", target, str(path), "-o", str(out))
            ours_s = _best(runs, partial(_cli, *command))
            one_s = _best(runs, partial(_cli, *command, "-j", "1"))
            inner_s = _best(runs, partial(_in_process, model, to, raw_lines))
            converted_s = _best(runs, partial(_converted, records, to))
            bare_s = _best(runs, partial(_without_losses, model, to, raw_lines))
            written = out.read_bytes().splitlines()
            pair_s = _best(runs, partial(_pair_floor, model, to, raw_lines, written))
            row = (
                f"{source} -> {target}", ours_s, one_s, floor_s, ours_s / floor_s,
                one_s / floor_s, inner_s / floor_s, converted_s / floor_s, bare_s / floor_s,
                pair_s / floor_s,
            )  # fmt: skip
            template = (
                "{:<22} {:>11.2f} {:>6.2f} {:>8.2f} {:>5.2f}x {:>5.2f}x {:>9.2f}x {:>8.2f}x"
                " {:>8.2f}x {:>10.2f}x"
            )
            print(template.format(*row))
    print(f"agentruns: as installed ({available_cpus()} worker processes); -j 1: one process")
    print("floor: a bare loop of validate_json + model_dump_json on the same lines, in-process")
    print("in-process: agentruns' own loop (strict parse, validate, convert, dump), no CLI")
    print("converted: convert(record, Target) + model_dump_json() of records validated before")
    print("  the clock starts (the issue's measure: what converting costs beyond reading)")
    print("no-losses: a lower bound, the same without loss accounting (strict parse, validate,")
    print("  read, write the target, dump): what any converter with validating constructors pays")
    print("pair floor: validate_json of the source lines, then validate_json + model_dump_json of")
    print("  the target lines written: what any converter pays that reads a valid source and")
    print("  returns a valid target and its JSON (a target larger than its source costs more)")


def _in_process(model: type[BaseModel], to: type[BaseModel], raw_lines: list[bytes]) -> None:
    for n, line in enumerate(raw_lines, start=1):
        record, problems = validate(parse(Raw("bench", n, line)), model)
        assert record is not None, problems
        convert(record, to).target.model_dump_json()


def _records(model: type[BaseModel], raw_lines: list[bytes]) -> list[BaseModel]:
    """The lines read as the command reads them (strict parse, validate), once."""
    records = []
    for n, line in enumerate(raw_lines, start=1):
        record, problems = validate(parse(Raw("bench", n, line)), model)
        assert record is not None, problems
        records.append(record)
    return records


def _converted(records: list[BaseModel], to: type[BaseModel]) -> None:
    for record in records:
        convert(record, to).target.model_dump_json()


def _without_losses(model: type[BaseModel], to: type[BaseModel], raw_lines: list[bytes]) -> None:
    reader, writer = format_for(model), format_for(to)
    for n, line in enumerate(raw_lines, start=1):
        record, problems = validate(parse(Raw("bench", n, line)), model)
        assert record is not None, problems
        writer.write(reader.read(record)).record.model_dump_json()


def _pair_floor(
    model: type[BaseModel], to: type[BaseModel], raw_lines: list[bytes], written: list[bytes]
) -> None:
    for raw in raw_lines:
        model.model_validate_json(raw)
    for line in written:
        to.model_validate_json(line).model_dump_json()


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
    print(f"as installed: the largest of {1 + available_cpus()} processes (main and workers)")
    results: dict[tuple[int, str], int] = {}
    for count in (small, large):
        path = _write(workdir / f"rss-{count}.jsonl", "cortex", count, scale=0.1)
        out = workdir / f"rss-{count}.out.jsonl"
        command = ("convert", "--quiet", "--to", "agentrun", str(path), "-o", str(out))
        for jobs in ("as installed", "-j 1"):
            extra = ("-j", "1") if jobs == "-j 1" else ()
            results[count, jobs] = _peak_rss_kib(*command, *extra)
        mib = path.stat().st_size / 2**20
        figures = ", ".join(
            f"{j} {results[count, j] / 1024:,.1f} MiB" for j in ("as installed", "-j 1")
        )
        print(f"{count:>8} lines ({mib:,.0f} MiB in): peak RSS {figures}")
        path.unlink()
        out.unlink()
    for jobs in ("as installed", "-j 1"):
        print(f"ratio {jobs}: {results[large, jobs] / results[small, jobs]:.2f}x")


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
    print(f"import agentruns (no format's models yet) {ours_ms:7.1f} ms")
    print(f"  = {ours_ms / pydantic_ms:.2f}x import pydantic")
    print(f"  = {ours_ms / one_model_ms:.2f}x import pydantic + one model")
    print(f"  = {ours_ms / names_ms:.2f}x from pydantic import BaseModel, JsonValue, TypeAdapter")
    probe = "import agentruns, sys; print('click' in sys.modules, 'rich' in sys.modules)"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    print(f"click, rich loaded by import agentruns: {loaded}")


def _claude_transcript(path: Path, megabytes: int) -> int:
    """A Claude Code stream of about ``megabytes``: tool calls with 2 KB results and
    messages, in the shape ``claude -p --output-format stream-json`` prints. Returns the
    number of events written."""
    output = "x" * 2000
    target = megabytes << 20
    events = 0
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"type": "system", "subtype": "init", "session_id": "s-1"}) + "\n")
        size = 0
        while size < target:
            use = {
                "type": "tool_use",
                "id": f"t{events}",
                "name": "Bash",
                "input": {"command": f"ls {events}"},
            }
            said = {"type": "text", "text": f"step {events}"}
            answer = {"type": "tool_result", "tool_use_id": f"t{events}", "content": output}
            for line in (
                {"type": "assistant", "message": {"content": [said, use]}},
                {"type": "user", "message": {"content": [answer]}},
            ):
                text = json.dumps(line) + "\n"
                out.write(text)
                size += len(text)
            events += 2
        usage = {"input_tokens": 1, "output_tokens": 2}
        out.write(
            json.dumps(
                {
                    "type": "result",
                    "is_error": False,
                    "result": "done",
                    "duration_ms": 1,
                    "usage": usage,
                }
            )
            + "\n"
        )
    return events + 2


def bench_transcripts(workdir: Path, runs: int) -> None:
    print("\n## import: a Claude Code transcript to a portable record (time, peak RSS)")
    values: tuple[str, ...] = ("--set", "eval_id=e", "--set", "condition=c")
    values += ("--set", "skill_path=null", "--set", "prompt=p", "--set", "files=[]")
    for megabytes in (5, 50):
        path = workdir / f"claude-{megabytes}.jsonl"
        events = _claude_transcript(path, megabytes)
        out = workdir / f"claude-{megabytes}.run.json"
        command = ("import", "--quiet", str(path), "--to", "portable", "-o", str(out), *values)
        seconds = _best(runs, partial(_cli, *command))
        rss = _peak_rss_kib(*command)
        record = out.stat().st_size / 2**20
        print(
            f"{megabytes:>3} MB, {events:,} events: {seconds:6.2f} s, "
            f"{events / seconds:,.0f} events/s, {megabytes / seconds:5.1f} MB/s, "
            f"peak RSS {rss / 1024:,.1f} MiB, record {record:,.1f} MiB"
        )
        path.unlink()
        out.unlink()


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def bench_readers(workdir: Path, runs: int) -> None:
    """Events/s and MB/s of every reader (in process), on the sessions the property tests
    generate, then a folder of 1,000 sessions through the command (time, peak RSS)."""
    from agentruns.transcripts import HARNESSES, load
    from tests.test_transcript_properties import RENDER, Action, Call, Say, _materialize

    print("\n## readers: one generated session each (in process)")
    plan: list[Action] = [
        Call("Bash", {"command": f"ls {i}", "cwd": "/tmp"}, "a.txt\n" * 20)
        if i % 3
        else Say(f"step {i}: " + "x" * 200)
        for i in range(6000)
    ]
    for harness in HARNESSES:
        folder = workdir / f"reader-{harness}"
        folder.mkdir()
        actions = plan if harness in RENDER else plan[:1500]  # a folder: a file per part
        path = _materialize(harness, actions, folder)
        size = _size(path) / 2**20
        seconds = _best(runs, partial(load, path, harness))
        print(
            f"{harness:<20} {len(actions):>6,} events, {size:6.1f} MB: "
            f"{len(actions) / seconds:>9,.0f} events/s, {size / seconds:6.1f} MB/s"
        )
    print("\n## import DIR: 1,000 Claude Code sessions, one record each (time, peak RSS)")
    sample = Path(__file__).parents[1] / "fixtures/upstream/agent-logs/claude-session"
    text = (sample / "spotter-subagent.jsonl").read_text()
    root = workdir / "projects"
    for i in range(1000):
        project = root / f"project-{i % 20:02d}"
        project.mkdir(parents=True, exist_ok=True)
        ident = "491e126e-1e71-469c-ade2-fcc8af567c74"
        (project / f"{i:04d}.jsonl").write_text(text.replace(ident, f"session-{i:04d}"))
    out = workdir / "sessions.jsonl"
    command = ("import", "-q", str(root), "--to", "agentrun", "--set", "agent_id=a", "-o", str(out))
    seconds = _best(1, partial(_cli, *command))
    rss = _peak_rss_kib(*command)
    size = _size(root) / 2**20
    print(
        f"1,000 sessions, {size:,.0f} MB: {seconds:6.2f} s, {1000 / seconds:,.0f} sessions/s, "
        f"{size / seconds:5.1f} MB/s, peak RSS {rss / 1024:,.1f} MiB"
    )


_SPOTTER_DAY = date(2026, 2, 10)
_AGENTCMD_DAY = date(2025, 10, 21)
ONE_DAY = _SPOTTER_DAY - timedelta(days=3)
"""The day the bench's one-day reports ask for: three sessions of a thousand ran on it."""


def claude_history(root: Path, sessions: int) -> int:
    """``sessions`` Claude Code session files under ``root/projects`` (20 projects), each the
    two real sessions of the fixtures resumed as one (about 340 KB), with their own session,
    entry and message ids (ccusage counts a message id once), spread over a year as a
    history is: session ``i`` ran ``i % 365`` days before the samples' own days, and its
    file was last written at the end of its last day. Returns the bytes written."""
    sample = Path(__file__).parents[1] / "fixtures/upstream/agent-logs/claude-session"
    parts = [
        (sample / "spotter-subagent.jsonl").read_text(),
        (sample / "agentcmd-full-session.jsonl").read_text(),
    ]
    ids = ["491e126e-1e71-469c-ade2-fcc8af567c74", "cfa1e878-62b5-4e40-b281-bbf9b250d766"]
    written = 0
    for i in range(sessions):
        project = root / "projects" / f"-work-project-{i % 20:02d}"
        project.mkdir(parents=True, exist_ok=True)
        session = f"00000000-0000-4000-8000-{i:012d}"
        text = "".join(parts)
        for ident in ids:
            text = text.replace(ident, session)
        text = text.replace('"msg_', f'"msg_{i:05d}_').replace('"req_', f'"req_{i:05d}_')
        text = text.replace('"uuid":"', f'"uuid":"{i:05d}-')
        back = timedelta(days=i % 365)
        last = _SPOTTER_DAY - back
        for day, moved in ((_SPOTTER_DAY, last), (_AGENTCMD_DAY, _AGENTCMD_DAY - back)):
            text = text.replace(f'"timestamp":"{day.isoformat()}T', f'"timestamp":"{moved}T')
        path = project / f"{session}.jsonl"
        path.write_text(text)
        end = datetime(last.year, last.month, last.day, 23, 59, 59, tzinfo=UTC).timestamp()
        os.utime(path, (end, end))
        written += len(text.encode())
    return written


def _ccusage() -> list[str] | None:
    """ccusage as installed (on the PATH, or ``$CCUSAGE``), if it is."""
    import shutil

    found = os.environ.get("CCUSAGE") or shutil.which("ccusage")
    return [found] if found else None


def _timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, check=False, env=env)
    if completed.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed:\n{completed.stderr.decode()[-2000:]}")
    return time.perf_counter() - started


def _peer_timed(command: list[str], env: dict[str, str]) -> float | str:
    """A peer's time, or why it is no figure: a peer that exits with an error or says
    nothing did not read the folder (ccusage 20.0.26 from npm has no native build for
    linux-x64: it exits 1 at once, which is no time to compare with)."""
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, check=False, env=env)
    seconds = time.perf_counter() - started
    said = (completed.stderr or completed.stdout).decode(errors="replace").strip()
    if completed.returncode != 0 or not completed.stdout.strip():
        return f"exit {completed.returncode}: {said.splitlines()[-1][:200] if said else '-'}"
    return seconds


def _version(command: list[str]) -> str:
    completed = subprocess.run([*command, "--version"], capture_output=True, check=False)
    said = completed.stdout.decode(errors="replace").strip()
    return said.splitlines()[-1] if completed.returncode == 0 and said else "version unknown"


def bench_sessions(workdir: Path, sessions: int, runs: int = 3) -> None:
    """A Claude Code history read as people read it: ``stats DIR`` (first look, second look
    at the unchanged folder, ``--no-cache``), ``import DIR`` then ``stats`` on its output, and
    ccusage's daily report on the same folder when it is installed. Each the best of
    ``runs`` rounds, the commands interleaved in each (a busy moment of the machine then
    costs every command alike, not the one it fell on)."""
    import shutil

    root = workdir / "claude-home"
    size = claude_history(root, sessions) / 2**20
    folder = str(root / "projects")
    cache = workdir / "cache"
    env = {**ENV, "AGENTRUNS_CACHE_DIR": str(cache), "CLAUDE_CONFIG_DIR": str(root)}
    print(f"\n## sessions: {sessions:,} Claude Code sessions, {size:,.0f} MB, seconds (MB/s)")
    print(f"best of {runs} rounds")
    stats = [AGENTRUNS, "stats", "--output-format", "json", folder]
    day = ONE_DAY.isoformat()
    out = workdir / "sessions.jsonl"
    commands = {
        "agentruns stats DIR, first look": stats,  # (the cache is emptied first)
        "agentruns stats DIR, unchanged": stats,
        "agentruns stats DIR --no-cache": [*stats, "--no-cache"],
        "agentruns stats DIR, one day": [*stats, "--no-cache", "--since", day, "--until", day],
        "agentruns import DIR (atif)": [
            AGENTRUNS, "import", "-q", folder, "--to", "atif", "-o", str(out)
        ],
        "  then stats on its output": [AGENTRUNS, "stats", str(out)],
    }  # fmt: skip
    peers: dict[str, list[str]] = {}
    ccusage = _ccusage()
    if ccusage is not None:
        print(f"ccusage: {' '.join(ccusage)} ({_version(ccusage)})")
        peers = {
            "ccusage daily": [*ccusage, "daily", "--offline"],
            "ccusage daily, one day": [
                *ccusage, "daily", "--offline", "--since", day, "--until", day
            ],
        }  # fmt: skip
    else:
        print(
            "ccusage: not on the PATH (npm install -g ccusage@20.0.24, its native build, or "
            "CCUSAGE=path): not compared"
        )
    times: dict[str, list[float]] = {}
    failed: dict[str, str] = {}
    for _ in range(runs):
        shutil.rmtree(cache, ignore_errors=True)
        for label, command in commands.items():
            times.setdefault(label, []).append(_timed(command, env))
        for label, command in peers.items():
            timed = _peer_timed(command, env)
            if isinstance(timed, str):
                failed[label] = timed
            else:
                times.setdefault(label, []).append(timed)
    for label, why in failed.items():
        print(f"{label}: failed ({why}): not compared")
    rows = [(label, min(seconds)) for label, seconds in times.items() if label not in failed]
    peer = dict(rows).get("ccusage daily")
    for label, seconds in rows:
        ratio = f"  {seconds / peer:5.2f}x ccusage" if peer else ""
        print(f"{label:<36} {seconds:7.2f} s ({size / seconds:7.1f} MB/s){ratio}")
    _session_floor(Path(folder))
    _session_memory(workdir, folder, sessions)


def _session_memory(workdir: Path, folder: str, sessions: int) -> None:
    """Peak RSS of ``stats DIR`` on a quarter of the history and on all of it: a history
    is read a session at a time, so the peak must not grow with the folder."""
    quarter = workdir / "claude-quarter"
    small = max(sessions // 4, 1)
    claude_history(quarter, small)
    low, high = (
        _peak_rss_kib("stats", "--no-cache", "--output-format", "json", path) / 1024
        for path in (str(quarter / "projects"), folder)
    )
    large = sessions
    print(
        f"peak RSS of stats DIR --no-cache (the largest of its processes): {small:,} sessions "
        f"{low:,.1f} MiB, {large:,} sessions {high:,.1f} MiB ({high / low:.2f}x)"
    )


def _session_floor(folder: Path, files: int = 200) -> None:
    """Where a session file's time goes, in this process: pydantic-core's parse of its lines
    alone (the floor any reader on it pays) against the whole reading into a run's facts."""
    from pydantic_core import from_json

    from agentruns.stats import _session_facts

    names = sorted(str(path) for path in folder.rglob("*.jsonl"))[:files]
    texts = [Path(name).read_bytes() for name in names]

    def parse() -> None:
        for text in texts:
            for line in text.split(b"\n"):
                if line:
                    from_json(line, allow_inf_nan=False, cache_strings="keys")

    def read() -> None:
        for name in names:
            _session_facts((name, None))

    floor = _best(3, parse) / len(names) * 1000
    whole = _best(3, read) / len(names) * 1000
    print(
        f"per session file, one process ({len(names)} files): parse alone {floor:.2f} ms, "
        f"read into facts {whole:.2f} ms ({whole / floor:.2f}x the parse)"
    )


def bench_stats(workdir: Path, small: int, large: int) -> None:
    print(f"\n## stats: peak RSS over {small} vs {large} JSONL lines (mixed formats)")
    results: dict[int, int] = {}
    for count in (small, large):
        path = workdir / f"stats-{count}.jsonl"
        with path.open("wb") as out:
            for fmt in ("portable", "cortex", "agentrun"):
                part = _write(workdir / f"stats-{fmt}.jsonl", fmt, count // 3, scale=0.1)
                out.write(part.read_bytes())
                part.unlink()
        results[count] = _peak_rss_kib("stats", "--output-format", "json", str(path))
        print(f"{count:>8} lines: peak RSS {results[count] / 1024:,.1f} MiB (largest process)")
        path.unlink()
    print(f"ratio: {results[large] / results[small]:.2f}x")


def bench_dask(workdir: Path, count: int, runs: int) -> None:
    """Records/s of convert on a local Dask cluster (2 worker processes) beside the CLI."""
    from distributed import Client, LocalCluster

    from agentruns.distributed import convert_files

    print(f"\n## convert on Dask (local cluster, 2 worker processes) vs the CLI ({count} records)")
    path = _write(workdir / "dask.jsonl", "cortex", count)
    out = workdir / "dask-out.jsonl"
    cli = _best(runs, partial(_cli, "convert", "-q", "--to", "agentrun", str(path), "-o", str(out)))
    cli_one = _best(
        runs,
        partial(_cli, "convert", "-q", "-j", "1", "--to", "agentrun", str(path), "-o", str(out)),
    )
    cluster = LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with cluster, Client(cluster) as client:  # type: ignore[no-untyped-call]
        size = max(1, path.stat().st_size // 8)
        dask = _best(
            runs, partial(convert_files, client, [str(path)], "agentrun", str(out), part_bytes=size)
        )
    for label, seconds in (
        ("CLI (as installed)", cli),
        ("CLI -j 1", cli_one),
        ("Dask, 2 workers", dask),
    ):
        print(f"{label:<20} {seconds:6.2f} s  {count / seconds:10,.0f} records/s")
    path.unlink()
    out.unlink()


def _seconds(command: list[str], limit: float) -> float | None:
    """Wall time of one process, or None when it failed or ran past ``limit``."""
    started = time.perf_counter()
    try:
        completed = subprocess.run(
            command, capture_output=True, check=False, env=ENV, timeout=limit
        )
    except subprocess.TimeoutExpired:
        return None
    return time.perf_counter() - started if completed.returncode == 0 else None


def bench_build(workdir: Path, corpus: Path | None, limit: float) -> None:
    """The build step beside plain datamodel-code-generator, schema by schema: each a process
    that starts, reads the schema and writes a module (ours: ``python -m codegen model``;
    plain: ``datamodel-codegen`` with pydantic v2 models and its default formatting)."""
    folder = corpus or Path(__file__).resolve().parents[2] / "schemas"
    schemas = sorted(p for p in folder.rglob("*.json") if p.name != "manifest.json")
    print(
        f"\n## build: seconds per schema, {len(schemas)} schemas in {folder} (limit {limit:.0f} s)"
    )
    print(f"{'schema':<40} {'KB':>6} {'ours':>8} {'plain':>8} {'ratio':>7}")
    plain_tool = str(Path(sys.executable).parent / "datamodel-codegen")
    ratios: list[float] = []
    totals = [0.0, 0.0]
    for schema in schemas:
        ours = _seconds(
            [sys.executable, "-m", "codegen", "model", str(schema), "--out", str(workdir / "o.py")],
            limit,
        )
        plain = None
        if not schema.name.endswith(".struct.json"):  # plain reads no JSON Structure
            plain = _seconds(
                [plain_tool, "--input", str(schema), "--input-file-type", "jsonschema",
                 "--output-model-type", "pydantic_v2.BaseModel", "--output", str(workdir / "p.py")],
                limit,
            )  # fmt: skip
        ratio = ""
        if ours is not None and plain is not None:
            ratios.append(ours / plain)
            totals[0] += ours
            totals[1] += plain
            ratio = f"{ours / plain:6.2f}x"
        shown = [f"{s:8.2f}" if s is not None else f"{'-':>8}" for s in (ours, plain)]
        size = schema.stat().st_size // 1024
        print(f"{schema.name[:40]:<40} {size:>6} {shown[0]} {shown[1]} {ratio:>7}")
    if ratios:
        print(
            f"both built: {len(ratios)}; median ratio {statistics.median(ratios):.2f}x, "
            f"worst {max(ratios):.2f}x; total {totals[0]:.1f} s vs {totals[1]:.1f} s"
        )
    print("'-': refused, failed or past the limit (ours refuses what it cannot make exact)")


SECTIONS = (
    "validate",
    "convert",
    "memory",
    "import",
    "transcripts",
    "readers",
    "sessions",
    "stats",
    "dask",
    "build",
)
"""What the bench can run (``--only``), all of them by default."""


def _compile_bytecode() -> None:
    """Compile the package's bytecode before any command is timed, as installing it does: an
    editable install under ``PYTHONDONTWRITEBYTECODE`` (as some CI machines set) would
    compile two dozen modules again in every process timed, about 0.1 s each time, which
    no installed copy pays and no peer is charged."""
    import compileall

    import agentruns
    import agentruns_generated

    for package in (agentruns, agentruns_generated):
        for folder in package.__path__:
            compileall.compile_dir(folder, quiet=1)
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("bytecode compiled before timing (PYTHONDONTWRITEBYTECODE is set)")


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench")
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rss-small", type=int, default=10_000)
    parser.add_argument("--rss-large", type=int, default=200_000)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--only", choices=SECTIONS, action="append")
    parser.add_argument(
        "--corpus", type=Path, help="a folder of schemas for the build section (default: schemas/)"
    )
    parser.add_argument("--build-limit", type=float, default=600.0, help="seconds per build")
    args = parser.parse_args()
    chosen = set(args.only or SECTIONS)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus")
    _compile_bytecode()
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
        if "transcripts" in chosen:
            bench_transcripts(workdir, args.runs)
        if "readers" in chosen:
            bench_readers(workdir, args.runs)
        if "sessions" in chosen:
            bench_sessions(workdir, args.sessions, args.runs)
        if "stats" in chosen:
            bench_stats(workdir, args.rss_small, args.rss_large)
        if "dask" in chosen:
            bench_dask(workdir, args.records, args.runs)
        if "build" in chosen:
            bench_build(workdir, args.corpus, args.build_limit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
