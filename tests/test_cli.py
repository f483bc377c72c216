"""The ``agentruns`` command, and a corpus of hostile inputs: no traceback, a useful error,
no valid record lost."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from agentruns.cli import main, run
from agentruns.conversion import Conversion, convert
from agentruns.formats import BUILT_IN

FIXTURES = Path(__file__).parent / "fixtures"
PORTABLE = (FIXTURES / "portable.min.json").read_text()
CORTEX = (FIXTURES / "cortex.min.json").read_text()
AGENTRUN = (FIXTURES / "agentrun.min.json").read_text()


def line(text: str) -> str:
    return json.dumps(json.loads(text))


BUILT_IN_NAMES = sorted(fmt.name for fmt in BUILT_IN)
"""The formats a fresh process knows (tests may register more in this one)."""


def invoke(*args: str, stdin: str | bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


def write(path: Path, data: str | bytes) -> Path:
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """Three valid records of three formats and one invalid one, as JSONL."""
    bad = json.loads(CORTEX)
    bad["status"] = "dispatching"
    lines = [line(PORTABLE), line(CORTEX), json.dumps(bad), line(AGENTRUN)]
    return write(tmp_path / "runs.jsonl", "\n".join(lines) + "\n")


# -- detect ------------------------------------------------------------------------------


def test_detect_names_the_format_of_each_line(mixed: Path) -> None:
    result = invoke("detect", str(mixed))
    assert result.output.splitlines() == [
        f"{mixed}:1: portable",
        f"{mixed}:2: cortex",
        f"{mixed}:3: cortex",
        f"{mixed}:4: agentrun",
    ]
    assert result.exit_code == 0


def test_detect_explains_an_incomplete_document_by_the_format_it_is_most_like(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path / "odd.json", '{"run_id": "x", "worktree_path": "/w", "status": "running"}'
    )
    result = invoke("detect", str(path))
    assert result.exit_code == 1
    assert "most like cortex, which requires kind, schema_version, started_at" in result.output


def test_detect_rejects_a_document_with_nothing_of_any_format(tmp_path: Path) -> None:
    path = write(tmp_path / "odd.json", '{"hello": "world"}')
    assert "unknown format: no property of any known format" in invoke("detect", str(path)).output


def test_validate_reports_an_incomplete_record_against_the_format_it_is_most_like(
    mixed: Path,
) -> None:
    data = json.loads(CORTEX)
    del data["kind"]
    path = write(mixed.parent / "incomplete.json", json.dumps(data))
    result = invoke("validate", str(path))
    assert f"{path}:1:1: /: not a complete record of any format; most like cortex" in result.stdout
    assert f"{path}:1:1: /kind: Field required" in result.stdout  # at the object


# -- validate ----------------------------------------------------------------------------


def test_validate_reports_file_line_pointer_and_message(mixed: Path) -> None:
    result = invoke("validate", str(mixed))
    assert result.exit_code == 1
    column = mixed.read_text().splitlines()[2].index('"dispatching"') + 1
    assert f"{mixed}:3:{column}: /status: Input should be" in result.stdout
    assert "4 records: 3 valid, 1 invalid" in result.stderr


def test_validate_exits_0_when_every_record_is_valid(tmp_path: Path) -> None:
    path = write(tmp_path / "ok.json", AGENTRUN)
    assert invoke("validate", str(path)).exit_code == 0


def test_validate_with_a_forced_format_reports_against_that_format(tmp_path: Path) -> None:
    path = write(tmp_path / "run.json", AGENTRUN)
    result = invoke("validate", "--format", "cortex", str(path))
    assert result.exit_code == 1
    assert "/schema_version: Field required" in result.stdout


def test_validate_pointers_skip_union_tags(tmp_path: Path) -> None:
    data = json.loads(PORTABLE)
    data["conversation"]["events"][0]["round"] = 0
    path = write(tmp_path / "run.json", json.dumps(data))
    result = invoke("validate", str(path))
    assert (
        "/conversation/events/0/round: Input should be greater than or equal to 1" in result.stdout
    )


def test_validate_reads_standard_input(tmp_path: Path) -> None:
    result = invoke("validate", "--jsonl", "-", stdin=line(CORTEX) + "\n")
    assert result.exit_code == 0
    assert "1 record: 1 valid" in result.stderr


# -- convert -----------------------------------------------------------------------------


def test_convert_streams_jsonl_and_accounts_for_every_record(mixed: Path, tmp_path: Path) -> None:
    out, rejects = tmp_path / "out.jsonl", tmp_path / "rejects.jsonl"
    result = invoke(
        "convert", "--to", "agentrun", str(mixed), "-o", str(out), "--rejects", str(rejects)
    )
    assert result.exit_code == 1  # one record was invalid
    assert "4 records in: 3 converted, 1 rejected" in result.stderr
    assert len(out.read_text().splitlines()) == 3
    (rejected,) = [json.loads(x) for x in rejects.read_text().splitlines()]
    assert rejected["line"] == 3
    assert "/status" in rejected["error"]
    assert json.loads(rejected["record"])["status"] == "dispatching"  # verbatim


def test_convert_json_to_json_writes_one_document(tmp_path: Path) -> None:
    source = write(tmp_path / "run.json", PORTABLE)
    out = tmp_path / "run.agentrun.json"
    assert invoke("convert", "--to", "agentrun", str(source), "-o", str(out)).exit_code == 0
    document = json.loads(out.read_text())
    assert document["goal"] == json.loads(PORTABLE)["prompt"]


def test_convert_says_how_many_values_it_made_and_where_they_are_listed(tmp_path: Path) -> None:
    """Two embedded trajectories with one id: ATIF needs them unique, so the second is renamed,
    which is said (a value the conversion made), not only in a losses file nobody asked for."""
    document = json.loads((FIXTURES / "atif.min.json").read_text())
    document["subagent_trajectories"].append(document["subagent_trajectories"][0])
    source = write(tmp_path / "run.json", json.dumps(document))
    carried = tmp_path / "run.agentrun.json"
    assert invoke("convert", "--to", "agentrun", str(source), "-o", str(carried)).exit_code == 0
    result = invoke("convert", "--to", "atif", str(carried), "-o", str(tmp_path / "a.json"))
    assert result.exit_code == 0
    assert "1 with values the conversion made (1); --losses FILE lists them" in result.stderr


def test_convert_writes_losses_in_full_on_request(tmp_path: Path) -> None:
    source = write(tmp_path / "run.json", AGENTRUN)
    losses = tmp_path / "losses.jsonl"
    result = invoke(
        "convert",
        "--to",
        "portable",
        str(source),
        "-o",
        str(tmp_path / "p.json"),
        "--losses",
        str(losses),
    )
    assert result.exit_code == 0
    assert "1 converted with losses" in result.stderr
    (entry,) = [json.loads(x) for x in losses.read_text().splitlines()]
    assert {"pointer": "/trace_url", "reason": "portable has no place for trace_url"} in entry[
        "losses"
    ]


def test_convert_strict_rejects_a_record_that_would_lose_data(tmp_path: Path) -> None:
    source = write(tmp_path / "run.json", AGENTRUN)
    result = invoke(
        "convert", "--strict", "--to", "portable", str(source), "-o", str(tmp_path / "p.json")
    )
    assert result.exit_code == 1
    assert "would lose" in result.stderr
    assert not (tmp_path / "p.json").exists()


def test_convert_to_stdout(tmp_path: Path) -> None:
    source = write(tmp_path / "run.json", CORTEX)
    result = invoke("convert", "--to", "agentrun", str(source))
    assert json.loads(result.stdout)["run_id"] == "R-T-DOC-007"


def test_convert_never_leaves_a_half_written_output(tmp_path: Path) -> None:
    source = write(tmp_path / "two.json", PORTABLE)
    out = write(tmp_path / "out.json", "previous content\n")
    # two inputs into one JSON document is a usage error, found after the first was written
    result = CliRunner().invoke(
        main, ["convert", "--to", "cortex", str(source), str(source), "-o", str(out)]
    )
    assert result.exit_code == 2
    assert out.read_text() == "previous content\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


@pytest.fixture
def many(tmp_path: Path) -> Path:
    """Enough records for worker processes: valid records of each format, every tenth invalid,
    one not JSON, some with losses on the way to portable, a BOM, CRLF line ends, blank lines,
    and a last line cut short."""
    bad = json.loads(CORTEX)
    bad["status"] = "dispatching"
    lines = []
    for number in range(150):
        lines.append([line(PORTABLE), line(CORTEX), line(AGENTRUN)][number % 3])
        if number % 10 == 0:
            lines.append(json.dumps(bad))
    lines.insert(77, '{"not": json')
    lines[100:100] = ["", "   "]
    text = "\ufeff" + "\r\n".join(lines[:50]) + "\r\n" + "\n".join(lines[50:]) + "\n"
    return write(tmp_path / "many.jsonl", text + line(PORTABLE)[:-30])


def test_validate_with_workers_says_exactly_what_one_process_says(many: Path) -> None:
    one = invoke("validate", "--jobs", "1", str(many))
    two = invoke("validate", "--jobs", "2", str(many))
    assert (two.exit_code, two.stdout, two.stderr) == (one.exit_code, one.stdout, one.stderr)
    assert one.stderr.startswith("167 records: 150 valid, 17 invalid")
    assert re.search(rf"{re.escape(str(many))}:78:\d+: /: not valid JSON", one.stdout)
    # the cut-short last line
    assert re.search(rf"{re.escape(str(many))}:169:\d+: /: not valid JSON", one.stdout)


def _convert_many(many: Path, directory: Path, jobs: str) -> tuple[str, bytes, bytes, bytes]:
    """Summary, output, rejects and losses of converting ``many`` to portable."""
    out, rejects, losses = (directory / f"{name}{jobs}.jsonl" for name in ("o", "r", "l"))
    result = invoke(
        "convert", "-q", "-j", jobs, "--to", "portable", str(many), "-o", str(out),
        "--rejects", str(rejects), "--losses", str(losses),
    )  # fmt: skip
    assert result.exit_code == 1  # some records were rejected
    return result.stderr, out.read_bytes(), rejects.read_bytes(), losses.read_bytes()


def test_convert_with_workers_writes_exactly_what_one_process_writes(
    many: Path, tmp_path: Path
) -> None:
    one = _convert_many(many, tmp_path, "1")
    assert _convert_many(many, tmp_path, "2") == one
    summary, out, rejects, losses = one
    assert summary.startswith("167 records in: 150 converted, 17 rejected")
    assert len(out.splitlines()) == 150
    assert len(rejects.splitlines()) == 17
    assert [json.loads(x)["line"] for x in losses.splitlines()][:3] == [3, 4, 6]


# -- show and schema ---------------------------------------------------------------------


@pytest.mark.parametrize("fixture", ["portable", "cortex", "agentrun"])
def test_show_prints_a_header_and_a_timeline_for_every_format(fixture: str) -> None:
    result = invoke("show", str(FIXTURES / f"{fixture}.min.json"))
    assert result.exit_code == 0
    first = result.stdout.splitlines()[0].split()
    assert first == ["format", fixture]
    assert "timeline" in result.stdout


def test_schema_prints_the_enforced_schema_and_the_source() -> None:
    translated = json.loads(invoke("schema", "agentrun").stdout)
    assert translated["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    source = json.loads(invoke("schema", "agentrun", "--source").stdout)
    assert source["$schema"].startswith("https://json-structure.org/")


def test_usage_errors_exit_2() -> None:
    assert CliRunner().invoke(main, ["convert", "--to", "nowhere", "x.json"]).exit_code == 2


# -- hostile inputs ------------------------------------------------------------------------

HOSTILE: dict[str, tuple[bytes, str]] = {
    "malformed JSON": (b'{"run_id": "x",,}', "not valid JSON"),
    "invalid UTF-8": (b'{"run_id": "\xff\xfe"}', "invalid UTF-8 at byte"),
    "NaN": (b'{"total_tokens": NaN}', "NaN is not a JSON number"),
    "Infinity": (b'{"total_tokens": -Infinity}', "-Infinity is not a JSON number"),
    "1e400": (b'{"total_tokens": 1e400}', "too large for a double"),
    "duplicate keys": (b'{"run_id": "a", "run_id": "b"}', "duplicate key 'run_id'"),
    "deep nesting": (b"[" * 100_000 + b"]" * 100_000, "nesting too deep"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_line_is_an_error_and_its_neighbours_survive(name: str, tmp_path: Path) -> None:
    data, expected = HOSTILE[name]
    path = write(
        tmp_path / "in.jsonl",
        line(CORTEX).encode() + b"\n" + data + b"\n" + line(AGENTRUN).encode() + b"\n",
    )
    out = tmp_path / "out.jsonl"
    result = invoke("convert", "--to", "portable", str(path), "-o", str(out))
    assert re.search(rf"{re.escape(str(path))}:2:\d+: rejected: ", result.stderr)
    assert expected in result.stderr
    assert "3 records in: 2 converted, 1 rejected" in result.stderr
    assert len(out.read_text().splitlines()) == 2


def test_a_truncated_last_line_is_rejected_and_the_rest_converted(tmp_path: Path) -> None:
    path = write(tmp_path / "in.jsonl", line(CORTEX) + "\n" + line(AGENTRUN)[:50])
    result = invoke("validate", str(path))
    assert f"{path}:2:44: /: not valid JSON at column 44" in result.stdout
    assert "2 records: 1 valid, 1 invalid" in result.stderr


def test_a_bom_crlf_line_ends_and_blank_lines_are_read(tmp_path: Path) -> None:
    data = (
        b"\xef\xbb\xbf"
        + line(CORTEX).encode()
        + b"\r\n\r\n   \r\n"
        + line(AGENTRUN).encode()
        + b"\r\n"
    )
    path = write(tmp_path / "in.jsonl", data)
    result = invoke("validate", str(path))
    assert result.exit_code == 0
    assert "2 records: 2 valid" in result.stderr


def test_a_bom_in_a_json_document_is_read(tmp_path: Path) -> None:
    path = write(tmp_path / "run.json", b"\xef\xbb\xbf" + PORTABLE.encode())
    assert invoke("validate", str(path)).exit_code == 0


def test_a_50_mb_string_is_read_and_reported_without_trouble(tmp_path: Path) -> None:
    data = json.loads(AGENTRUN)
    data["goal"] = "x" * 50_000_000
    path = write(tmp_path / "big.jsonl", json.dumps(data) + "\n" + line(CORTEX) + "\n")
    result = invoke("validate", str(path))
    assert result.exit_code == 0
    assert "2 records: 2 valid" in result.stderr


def test_an_empty_file_is_an_error_for_json_and_zero_records_for_jsonl(tmp_path: Path) -> None:
    empty_json = write(tmp_path / "empty.json", "")
    result = invoke("validate", str(empty_json))
    assert result.exit_code == 1
    assert "empty document" in result.stdout
    empty_jsonl = write(tmp_path / "empty.jsonl", "")
    result = invoke("validate", str(empty_jsonl))
    assert result.exit_code == 0
    assert "0 records" in result.stderr


@given(
    blank=st.lists(st.sampled_from(["", " ", "\t", "\r", "  \t "]), max_size=6).map(
        lambda lines: "".join(f"{line}\n" for line in lines)
    ),
    bom=st.booleans(),
)
@settings(max_examples=25, deadline=None)
def test_standard_input_of_blank_lines_or_nothing_is_zero_records(blank: str, bom: bool) -> None:
    """What a pipe gives when the command before it found nothing (``grep ... | agentruns
    validate -``): no record, as an empty .jsonl file, not an empty document."""
    given_in = ("\ufeff" if bom else "") + blank
    for command in (["validate", "-"], ["detect", "-"], ["convert", "--to", "atif", "-"]):
        result = invoke(*command, stdin=given_in)
        assert result.exit_code == 0, (command, result.output)
        assert "empty document" not in result.output
    stats = invoke("stats", "--output-format", "json", "-", stdin=given_in)
    assert json.loads(stats.stdout)["runs"] == 0


def test_standard_input_that_is_one_document_over_lines_is_still_one_document() -> None:
    spread = json.dumps(json.loads(CORTEX), indent=2)
    result = invoke("validate", "-", stdin="\n\n" + spread)
    assert result.exit_code == 0
    assert "1 record: 1 valid" in result.stderr


def test_a_directory_or_missing_file_as_input_is_reported(tmp_path: Path) -> None:
    result = invoke("validate", str(tmp_path), str(tmp_path / "absent.json"))
    assert result.exit_code == 1
    assert "is a directory" in result.stderr
    assert "no such file" in result.stderr


def test_an_unwritable_output_path_is_a_usage_error(tmp_path: Path) -> None:
    source = write(tmp_path / "run.json", PORTABLE)
    result = CliRunner().invoke(
        main,
        ["convert", "--to", "cortex", str(source), "-o", str(tmp_path / "no" / "dir" / "out.json")],
    )
    assert result.exit_code == 2
    assert "does not exist" in result.output


def test_an_output_path_that_is_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    source = write(tmp_path / "run.json", PORTABLE)
    target = tmp_path / "out"
    target.mkdir()
    result = CliRunner().invoke(main, ["convert", "--to", "cortex", str(source), "-o", str(target)])
    assert result.exit_code == 2
    assert "is a directory" in result.output
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


def test_the_installed_console_script_reports_without_traceback(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.json", b'{"run_id": \xff}')
    script = Path(sys.executable).parent / "agentruns"
    completed = subprocess.run(
        [str(script), "validate", str(path)], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 1
    assert "Traceback" not in completed.stderr + completed.stdout
    assert "invalid UTF-8" in completed.stdout


def test_an_interrupted_convert_exits_130_and_leaves_the_previous_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path / "runs.jsonl", line(PORTABLE) + "\n" + line(PORTABLE) + "\n")
    out = write(tmp_path / "out.jsonl", "previous content\n")
    calls = 0

    def convert_then_interrupt(
        record: BaseModel, to: type[BaseModel], *, strict: bool = False
    ) -> Conversion[BaseModel]:
        nonlocal calls
        calls += 1
        if calls == 2:  # Ctrl-C while the second record is converted
            raise KeyboardInterrupt
        return convert(record, to, strict=strict)

    monkeypatch.setattr("agentruns.batch.convert", convert_then_interrupt)
    command = ["agentruns", "convert", "--to", "cortex", str(source), "-o", str(out)]
    monkeypatch.setattr(sys, "argv", command)
    with pytest.raises(SystemExit) as stopped:
        run()
    assert stopped.value.code == 130
    assert "interrupted" in capsys.readouterr().err
    assert out.read_text() == "previous content\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


def _run_with_stderr(tmp_path: Path, *args: str, terminal: bool) -> str:
    """Run the installed command with stderr on a pseudo-terminal (or a pipe); return stderr."""
    import pty

    script = str(Path(sys.executable).parent / "agentruns")
    if not terminal:
        return subprocess.run([script, *args], capture_output=True, text=True, check=False).stderr
    leader, follower = pty.openpty()
    process = subprocess.Popen([script, *args], stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait()
    os.close(leader)
    return b"".join(chunks).decode("utf-8", errors="replace")


def test_progress_is_shown_on_a_terminal_and_silent_when_piped(mixed: Path, tmp_path: Path) -> None:
    out = str(tmp_path / "out.jsonl")
    on_terminal = _run_with_stderr(
        tmp_path, "convert", "--to", "agentrun", str(mixed), "-o", out, terminal=True
    )
    piped = _run_with_stderr(
        tmp_path, "convert", "--to", "agentrun", str(mixed), "-o", out, terminal=False
    )
    assert "converted 4 records" in on_terminal
    assert "converted 4 records" not in piped
    assert "4 records in: 3 converted, 1 rejected" in piped
    quiet = _run_with_stderr(
        tmp_path, "convert", "-q", "--to", "agentrun", str(mixed), "-o", out, terminal=True
    )
    assert "converted 4 records" not in quiet


# -- help, completion, standard input ---------------------------------------------------


def test_detect_and_validate_read_standard_input_when_given_no_file() -> None:
    detected = invoke("detect", stdin=CORTEX)
    assert detected.stdout == "-:1: cortex\n"
    validated = invoke("validate", stdin=CORTEX)
    assert validated.exit_code == 0
    assert validated.stderr.startswith("1 record: 1 valid, 0 invalid")


def test_the_command_list_shows_every_description_whole() -> None:
    listing = invoke("--help").stdout.split("Commands:")[1]
    assert "..." not in listing
    for name in ("convert", "detect", "import", "schema", "show", "validate"):
        assert f"  {name} " in listing


def test_import_help_names_every_harness_and_lists_none_of_its_own() -> None:
    from typing import get_args

    from agentruns._harnesses import HarnessName

    # wide enough that no name is cut at its hyphen
    shown = (
        CliRunner()
        .invoke(main, ["import", "--help"], terminal_width=1000, max_content_width=1000)
        .output
    )
    for name in get_args(HarnessName):
        assert re.search(rf"(?<![-\w]){re.escape(name)}(?![-\w])", shown), name
    description = shown.partition("Options:")[0]
    assert "Claude Code" not in description  # the list is --harness's, from the one table


def test_schema_help_lists_the_formats_and_every_option_has_a_description() -> None:
    usage = invoke("schema", "--help").stdout.splitlines()[0]
    listed = usage.partition("{")[2].partition("}")[0].split("|")
    assert set(BUILT_IN_NAMES) <= set(listed)
    for name, command in main.commands.items():
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.opts[0]} has no description"


def test_shell_completion_completes_commands_and_formats() -> None:
    env = {**os.environ, "_AGENTRUNS_COMPLETE": "bash_complete", "COMP_CWORD": "2"}
    env["COMP_WORDS"] = "agentruns schema "
    completed = subprocess.run(["agentruns"], env=env, capture_output=True, text=True, check=False)
    assert completed.stdout.split() == [f"plain,{name}" for name in BUILT_IN_NAMES]


def test_the_progress_display_on_a_terminal_shows_bytes_rate_and_time_left_and_messages_above_it(
    tmp_path: Path,
) -> None:
    import os
    import pty
    import subprocess
    import sys

    document = json.loads((FIXTURES / "cortex.min.json").read_text())
    bad = dict(document, status="nope")
    lines = [json.dumps(bad if n % 500 == 0 else document) for n in range(6000)]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    screen, terminal = pty.openpty()
    script = str(Path(sys.executable).parent / "agentruns")
    process = subprocess.Popen(
        [script, "validate", "-j", "1", str(path)], stdout=terminal, stderr=terminal
    )
    os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(screen, 1 << 16)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        shown += chunk
    assert process.wait(timeout=120) == 1
    text = shown.decode(errors="replace")
    assert "MB" in text  # bytes read of the total
    assert "MB/s" in text
    messages = [line for line in text.split("\n") if "mixed.jsonl:" in line]
    assert len(messages) == 2 * 12
    for line in messages:  # each message starts a line of its own, never after the display
        assert line.rsplit("\r\x1b[2K", 1)[-1].startswith(str(path)), repr(line)


def test_no_progress_display_on_a_pipe(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "runs.jsonl"
    path.write_text(
        (json.dumps(json.loads((FIXTURES / "cortex.min.json").read_text())) + "\n") * 100
    )
    script = str(Path(sys.executable).parent / "agentruns")
    done = subprocess.run([script, "validate", str(path)], capture_output=True, check=False)
    assert done.stderr == b"100 records: 100 valid, 0 invalid (cortex 100)\n"


def test_the_help_names_every_registered_format() -> None:
    from agentruns.conversion import models_by_name

    shown = " ".join(CliRunner().invoke(main, ["--help"]).output.split())
    for name in models_by_name():
        assert name in shown
