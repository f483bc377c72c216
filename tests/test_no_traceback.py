"""Values a schema allows and environments a user has never cost a traceback or a good record:
integers beyond a table's columns, integers too long to read, file names that are not UTF-8,
terminals that cannot show a record's text, a reader that closes the pipe early."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FIXTURES = Path(__file__).parent / "fixtures"
SCRIPT = str(Path(sys.executable).parent / "agentruns")
PORTABLE: dict[str, Any] = json.loads((FIXTURES / "portable.min.json").read_text())
AGENTRUN: dict[str, Any] = json.loads((FIXTURES / "agentrun.min.json").read_text())


def agentruns(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [SCRIPT, *args],
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
        timeout=120,
        cwd=cwd,
        env={**os.environ, **env},
    )
    assert "Traceback" not in result.stderr + result.stdout
    return result


_BEYOND_INT64 = st.integers(min_value=2**63, max_value=2**400) | st.integers(
    min_value=-(2**400), max_value=-(2**63) - 1
)


def _huge(value: int) -> list[dict[str, Any]]:
    """Valid records, each holding ``value`` where its schema allows any integer."""
    return [PORTABLE | {"total_tokens": value}, PORTABLE | {"duration_ms": value}]


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(_BEYOND_INT64)
def test_export_keeps_a_value_beyond_its_column_exactly_in_the_wide_column(value: int) -> None:
    """Nothing a schema allows is missing from an analysis table: an integer past int64 is
    the row's ``wide_integers`` entry, as exact text, and its int64 column is null."""
    from agentruns.tables import export_lines

    lines = [json.dumps(PORTABLE).encode()]
    lines += [json.dumps(record).encode() for record in _huge(value)]
    lines += [json.dumps(AGENTRUN).encode()]
    exported = export_lines(lines)
    assert exported.runs.num_rows == 4
    assert exported.tally.rejected == 0
    rows = exported.runs.to_pylist()
    assert [row["wide_integers"] for row in rows] == [
        None,
        [("total_tokens", str(value))],
        [("duration_ms", str(value))],
        None,
    ]
    assert rows[1]["total_tokens"] is None
    assert rows[2]["duration_ms"] is None
    assert int(rows[1]["wide_integers"][0][1]) == value


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(_BEYOND_INT64)
def test_statistics_count_a_value_beyond_int64(value: int) -> None:
    from agentruns.io import Raw
    from agentruns.stats import stats_document

    for number, record in enumerate(_huge(value), 1):
        outcome = stats_document(Raw("in.jsonl", number, json.dumps(record).encode()))
        assert outcome.accepted, outcome.problems


def test_an_integer_too_long_to_read_is_one_rejected_record(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    long = '{"total_tokens": ' + "9" * 5000 + "}"
    path.write_text("\n".join([json.dumps(PORTABLE), long, json.dumps(PORTABLE)]) + "\n")
    for command in (["validate"], ["convert", "--to", "cortex", "-o", str(tmp_path / "o.jsonl")]):
        result = agentruns(*command, str(path))
        assert result.returncode == 1
        said = result.stdout + result.stderr
        assert "runs.jsonl:2:1: " in said
        assert "/: an integer of more than 4300 digits" in said
    assert len((tmp_path / "o.jsonl").read_text().splitlines()) == 2
    stats = agentruns("stats", "--output-format", "json", str(path))
    assert json.loads(stats.stdout)["runs"] == 2


def test_export_of_a_file_whose_name_is_not_utf8(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    name = os.fsdecode(b"caf\xe9.jsonl")
    (tmp_path / name).write_text(json.dumps(PORTABLE) + "\n")
    result = agentruns("export", name, "-o", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    table = pq.read_table(tmp_path / "out" / "runs.parquet")
    assert table.column("source_file").to_pylist() == ["caf\\xe9.jsonl"]


def test_a_record_the_terminal_cannot_show_is_shown_escaped(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(AGENTRUN | {"goal": "héllo → 世界"}))
    result = agentruns("show", str(path), PYTHONIOENCODING="ascii")
    assert result.returncode == 0, result.stderr
    assert "h\\xe9llo \\u2192 \\u4e16\\u754c" in result.stdout


@pytest.mark.parametrize(
    "command",
    [["convert", "--to", "agentrun"], ["convert", "-j", "1", "--to", "agentrun"], ["detect"]],
)
def test_a_reader_that_closes_the_pipe_early_is_no_error(
    command: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text((json.dumps(PORTABLE) + "\n") * 3000)
    process = subprocess.Popen(
        [SCRIPT, *command, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    errors = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141  # 128 + SIGPIPE, as a shell's own tools end
    assert "Traceback" not in errors


def test_show_to_a_reader_that_closes_the_pipe_early(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text((json.dumps(AGENTRUN) + "\n") * 500)
    process = subprocess.Popen([SCRIPT, "show", str(path)], stdout=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.readline()
    process.stdout.close()
    assert process.wait(timeout=120) == 141


def test_a_bug_of_ours_is_one_line_and_its_own_exit_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentruns import cli

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.delenv("AGENTRUNS_TRACEBACK", raising=False)
    monkeypatch.setattr(cli.main, "main", broken)
    with pytest.raises(SystemExit) as ended:
        cli.run()
    assert ended.value.code == cli.EXIT_SOFTWARE
    said = capsys.readouterr().err
    assert said == "internal error (RuntimeError: a bug); please report it\n"


def _nested(depth: int) -> dict[str, Any]:
    value: Any = "x"
    for _ in range(depth):
        value = {"a": value}
    record = json.loads(json.dumps(AGENTRUN))
    record["steps"][0]["input"] = {"d": value}
    return dict(record)


@pytest.mark.parametrize("depth", [255, 300, 2000])
def test_a_value_nested_too_deep_is_rejected_saying_so(depth: int) -> None:
    from agentruns.batch import validate_document
    from agentruns.io import Raw

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))  # to write the document
    outcome = validate_document(Raw("deep.json", 1, json.dumps(_nested(depth)).encode()))
    assert not outcome.accepted
    assert any("nested too deep" in message for _, message in outcome.problems)


@pytest.mark.parametrize("depth", range(240, 255, 2))
def test_a_record_valid_near_the_nesting_limit_converts_and_reports_what_it_cannot_carry(
    depth: int,
) -> None:
    from agentruns.batch import convert_document, validate_document
    from agentruns.io import Raw

    raw = Raw("deep.json", 1, json.dumps(_nested(depth)).encode())
    assert validate_document(raw).accepted
    for to in ("cortex", "portable", "agentrun"):
        outcome = convert_document(raw, to=to, report=True)
        if not outcome.accepted:  # the target's writer cannot go as deep: said, not a crash
            ((_, said),) = outcome.problems
            assert said.startswith(f"the {to} record cannot be written"), said
            continue
        if to == "cortex":  # the step's input has no cortex place: carried, or (too deep) lost
            report = json.loads(outcome.report or b"{}")
            pointers = {loss["pointer"] for loss in report.get("losses", [])}
            assert all(pointer.startswith("/steps/") for pointer in pointers), pointers


def _commands(path: Path, out: Path) -> list[list[str]]:
    """Every command that reads files of records, on ``path``."""
    return [
        ["detect", str(path)],
        ["validate", str(path)],
        *(["convert", "--to", name, str(path), "-o", str(out / f"c.{name}.jsonl")]
          for name in ("agentrun", "atif", "cortex", "portable")),
        ["stats", str(path)],
        ["stats", "--output-format", "json", str(path)],
        ["export", str(path), "-o", str(out / "tables")],
        ["export", "--to", "otlp", str(path), "-o", str(out / "traces.json")],
    ]  # fmt: skip


def test_no_command_fails_on_hostile_records_but_by_its_exit_code(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from agentruns.cli import main
    from tests.test_batch import VALID, hostile

    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.lists(st.tuples(st.sampled_from(sorted(VALID)), hostile), min_size=1, max_size=6))
    def check(plan: list[tuple[str, str]]) -> None:
        lines = [line for name, bad in plan for line in (VALID[name], bad)]
        path = tmp_path / "in.jsonl"
        path.write_bytes(
            b"\n".join(x.encode("utf-8", errors="surrogateescape") for x in lines) + b"\n"
        )
        out = tmp_path / "out"
        out.mkdir(exist_ok=True)
        for args in _commands(path, out):
            result = CliRunner().invoke(main, args)
            assert result.exception is None or isinstance(result.exception, SystemExit), (
                args,
                result.exception,
            )
            assert result.exit_code in (0, 1), (args, result.output[-500:])
            assert "Traceback" not in result.output
        # show reads one record: each valid one, and each hostile one alone
        for name, bad in plan:
            for text in (VALID[name], bad):
                one = tmp_path / "one.json"
                one.write_bytes(text.encode("utf-8", errors="surrogateescape"))
                result = CliRunner().invoke(main, ["show", str(one)])
                assert result.exception is None or isinstance(result.exception, SystemExit)
                assert result.exit_code in (0, 1), result.output[-500:]

    check()


_NOTHING = {
    "an empty JSONL file": lambda folder: _made(folder / "empty.jsonl", b""),
    "an empty JSON file": lambda folder: _made(folder / "empty.json", b""),
    "an empty folder": lambda folder: _folder(folder / "nothing"),
    "a file of blank lines": lambda folder: _made(folder / "blank.jsonl", b"\n \n\t\n"),
    "a file of a bare number": lambda folder: _made(folder / "number.jsonl", b"1\n"),
}


def _made(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def _folder(path: Path) -> str:
    path.mkdir()
    return str(path)


_COMMANDS = {
    "validate": ["validate"],
    "detect": ["detect"],
    "show": ["show"],
    "stats": ["stats"],
    "convert": ["convert", "--to", "atif", "-o", "{out}/converted.jsonl"],
    "export": ["export", "--to", "otlp", "-o", "{out}/traces.json"],
    "import": ["import", "--to", "atif", "-o", "{out}/imported.jsonl"],
}


@pytest.mark.parametrize("command", sorted(_COMMANDS))
@pytest.mark.parametrize("nothing", sorted(_NOTHING))
def test_no_command_fails_in_silence(command: str, nothing: str, tmp_path: Path) -> None:
    """An exit 1 (invalid or unreadable input) always says why: a run of a command that
    found nothing to work on prints what it found (``show`` of an empty file exited 1 with
    no word)."""
    out = tmp_path / "out"
    out.mkdir()
    given_path = _NOTHING[nothing](tmp_path)
    args = [part.format(out=out) for part in _COMMANDS[command]]
    result = agentruns(*args, given_path)
    assert result.returncode in (0, 1), result.stderr
    if result.returncode == 1:
        assert (result.stderr + result.stdout).strip(), f"{command} on {nothing}: exit 1, no word"
