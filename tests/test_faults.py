"""Fault injection on the installed command: outputs that must not be destroyed, signals, a
full disk, endless input, hostile text. Each test runs ``agentruns`` as a user's shell would."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import resource
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
SCRIPT = str(Path(sys.executable).parent / "agentruns")
PORTABLE = json.dumps(json.loads((FIXTURES / "portable.min.json").read_text()))
CORTEX = json.dumps(json.loads((FIXTURES / "cortex.min.json").read_text()))


def agentruns(
    *args: str, preexec: Callable[[], None] | None = None, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [SCRIPT, *args],
        capture_output=True,
        input=None if stdin is None else stdin.decode("latin-1"),
        text=True,
        preexec_fn=preexec,
        check=False,
        timeout=120,
    )
    assert "Traceback" not in result.stderr + result.stdout
    return result


def records(path: Path, count: int, line: str = PORTABLE) -> Path:
    path.write_text((line + "\n") * count)
    return path


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".partial"))


# -- outputs that are not plain files --------------------------------------------------------


def test_an_output_symlink_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    source = records(tmp_path / "in.jsonl", 3)
    target = tmp_path / "real.jsonl"
    target.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target.name)
    assert agentruns("convert", "--to", "cortex", str(source), "-o", str(link)).returncode == 0
    assert link.is_symlink()
    assert len(target.read_text().splitlines()) == 3


def test_a_dangling_output_symlink_creates_its_target(tmp_path: Path) -> None:
    source = records(tmp_path / "in.jsonl", 2)
    link = tmp_path / "link.jsonl"
    link.symlink_to("made.jsonl")
    assert agentruns("convert", "--to", "cortex", str(source), "-o", str(link)).returncode == 0
    assert link.is_symlink()
    assert len((tmp_path / "made.jsonl").read_text().splitlines()) == 2


def test_an_output_fifo_is_streamed_into_not_replaced(tmp_path: Path) -> None:
    source = records(tmp_path / "in.jsonl", 5)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = agentruns("convert", "--to", "agentrun", str(source), "-o", str(fifo))
    reader.join(timeout=30)
    assert result.returncode == 0
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert len(received[0].splitlines()) == 5  # JSON Lines, as the input
    assert leftovers(tmp_path) == []


def _null_device(directory: Path) -> str:
    """A character device to write to. Our own copy of /dev/null where we may make one (as
    root): a regression must not destroy the machine's; otherwise /dev/null itself, which an
    unprivileged process cannot replace anyway."""
    node = directory / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        return "/dev/null"
    return str(node)


def test_a_character_device_as_output_stays_a_device(tmp_path: Path) -> None:
    device = _null_device(tmp_path)
    before = os.stat(device)
    result = agentruns(
        "convert", "--to", "cortex", str(FIXTURES / "portable.min.json"), "-o", device
    )
    assert result.returncode == 0
    after = os.stat(device)
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert leftovers(tmp_path) == []


# -- outputs that would destroy an input or each other ----------------------------------------


@pytest.mark.parametrize("how", ["same path", "hard link", "symlink"])
def test_an_output_that_is_an_input_is_refused_before_reading(how: str, tmp_path: Path) -> None:
    source = records(tmp_path / "in.jsonl", 3)
    source.write_text(source.read_text() + "not json\n")
    original = source.read_bytes()
    output = tmp_path / "out.jsonl"
    if how == "same path":
        output = source
    elif how == "hard link":
        output.hardlink_to(source)
    else:
        output.symlink_to(source.name)
    result = agentruns("convert", "--to", "cortex", str(source), "-o", str(output))
    assert result.returncode == 2
    assert "is the same file as input" in result.stderr
    assert source.read_bytes() == original
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("option", ["--rejects", "--losses"])
def test_two_outputs_in_one_file_are_refused(option: str, tmp_path: Path) -> None:
    source = records(tmp_path / "in.jsonl", 3)
    out = tmp_path / "out.jsonl"
    result = agentruns("convert", "--to", "cortex", str(source), "-o", str(out), option, str(out))
    assert result.returncode == 2
    assert f"{option} {out} is the same file as -o {out}" in result.stderr
    assert not out.exists()


def test_a_new_output_gets_the_mode_the_umask_gives(tmp_path: Path) -> None:
    source = records(tmp_path / "in.jsonl", 1)
    out = tmp_path / "out.jsonl"

    def umask() -> None:
        os.umask(0o027)

    agentruns("convert", "--to", "cortex", str(source), "-o", str(out), preexec=umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_a_replaced_output_keeps_its_mode(tmp_path: Path) -> None:
    source = records(tmp_path / "in.jsonl", 1)
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")
    out.chmod(0o604)
    assert agentruns("convert", "--to", "cortex", str(source), "-o", str(out)).returncode == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o604
    assert out.read_text() != "old\n"


def test_the_output_is_on_disk_before_it_replaces_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from agentruns.cli import main

    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(handle: int) -> None:
        kind = "folder" if stat.S_ISDIR(os.fstat(handle).st_mode) else "file"
        events.append(f"fsync {kind}")
        real_fsync(handle)

    def replace(a: str, b: str) -> None:
        events.append("rename")
        real_replace(a, b)

    monkeypatch.setattr(os, "fsync", fsync)  # (the module calls os.fsync, os.replace)
    monkeypatch.setattr(os, "replace", replace)
    source = records(tmp_path / "in.jsonl", 1)
    out = tmp_path / "out.jsonl"
    CliRunner().invoke(main, ["convert", "--to", "cortex", str(source), "-o", str(out)])
    assert events == ["fsync file", "rename", "fsync folder"]


# -- a full disk ------------------------------------------------------------------------------


def _small_disk() -> None:
    """A filesystem with 64 KiB left, as the kernel enforces it for this process (EFBIG)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_full_disk_is_an_io_error_that_leaves_nothing_behind(jobs: str, tmp_path: Path) -> None:
    source = records(tmp_path / "in.jsonl", 1500)
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    result = agentruns(
        "convert", "-j", jobs, "--to", "cortex", str(source), "-o", str(out), preexec=_small_disk
    )
    assert result.returncode == 74
    assert f"cannot write {out}: File too large; nothing was left behind" in result.stderr
    assert out.read_text() == "previous\n"
    assert leftovers(tmp_path) == []


# -- signals ----------------------------------------------------------------------------------


def _ours(tag: str) -> list[int]:
    """Processes whose command line names ``tag`` (workers are forks: same command line)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag.encode() in command and state != "Z":
            found.append(int(entry))
    return found


def _wait_for(condition: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _busy_run(tmp_path: Path) -> tuple[subprocess.Popen[str], Path, Path]:
    """A `-j 2` convert caught mid-run: its temporary output exists, its workers are busy."""
    source = records(tmp_path / "busy-input.jsonl", 20_000)
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    process = subprocess.Popen(
        [SCRIPT, "convert", "-q", "-j", "2", "--to", "cortex", str(source), "-o", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for(lambda: bool(leftovers(tmp_path)) and len(_ours(str(source))) >= 3)
    return process, source, out


STOPS = [
    (signal.SIGTERM, 143, "terminated"),
    (signal.SIGHUP, 129, "hung up"),
    (signal.SIGINT, 130, "interrupted"),
]
"""Each stopping signal, the exit code it ends a run with, and the word the run says."""


@pytest.mark.parametrize(("number", "code", "said"), STOPS)
def test_a_stopping_signal_ends_everything_and_leaves_nothing(
    number: int, code: int, said: str, tmp_path: Path
) -> None:
    process, source, out = _busy_run(tmp_path)
    process.send_signal(number)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == code
    assert stderr.strip().startswith(f"{said}; no output file was written")
    assert "Traceback" not in stderr
    assert out.read_text() == "previous\n"
    assert leftovers(tmp_path) == []
    _wait_for(lambda: _ours(str(source)) == [], seconds=5)


def test_workers_do_not_outlive_a_killed_main_process(tmp_path: Path) -> None:
    process, source, out = _busy_run(tmp_path)
    process.kill()
    process.wait(timeout=10)
    _wait_for(lambda: _ours(str(source)) == [], seconds=5)
    assert out.read_text() == "previous\n"  # (a SIGKILL leaves its .partial file: see README)


# -- bounds -----------------------------------------------------------------------------------


def _memory_limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_an_endless_line_is_read_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "endless.jsonl"
    with path.open("wb") as stream:  # 3 GiB without a newline (sparse), then a record
        stream.seek(3 << 30)
        stream.write(b"\n" + CORTEX.encode() + b"\n")
    result = agentruns("validate", "-j", "1", str(path), preexec=_memory_limit)
    assert result.returncode == 1
    assert f"{path}:1:1: /: record larger than the maximum record size" in result.stdout
    assert "2 records: 1 valid, 1 invalid" in result.stderr


def test_standard_input_without_newlines_is_bounded_too() -> None:
    result = agentruns(
        "validate", "--jsonl", "--max-record-size", "1000", "-", stdin=b"\0" * (8 << 20)
    )
    assert result.returncode == 1
    assert "-:1:1: /: record larger than the maximum record size (1000 bytes" in result.stdout


def test_problem_lines_stop_at_the_cap_and_the_rejects_keep_everything(tmp_path: Path) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_text("x\n" * 1000)
    rejects = tmp_path / "rejects.jsonl"
    result = agentruns(
        "convert", "--to", "cortex", str(source), "-o", str(tmp_path / "o.jsonl"),
        "--rejects", str(rejects),
    )  # fmt: skip
    assert len(result.stderr.splitlines()) == 101  # 100 problems and the summary
    assert "900 more problem lines not printed" in result.stderr
    assert len(rejects.read_text().splitlines()) == 1000
    validated = agentruns("validate", "--max-errors", "5", str(source))
    assert len(validated.stdout.splitlines()) == 5
    assert "995 more problem lines not printed" in validated.stderr


def test_text_from_a_record_cannot_forge_a_message_line(tmp_path: Path) -> None:
    document = json.loads(CORTEX)
    document["x\n/tmp/forged.jsonl:1: /: all good"] = 1  # the root forbids extras
    path = tmp_path / "run.json"
    path.write_text(json.dumps(document))
    result = agentruns("validate", str(path))
    guess, extra = result.stdout.splitlines()  # the format guessed, then the problem
    assert guess.startswith(f"{path}:1:1: /: has every property cortex requires")
    key = "/x\\n~1tmp~1forged.jsonl:1: ~1: all good: Extra inputs"
    assert re.match(rf"{re.escape(str(path))}:1:\d+: {re.escape(key)}", extra)


def test_show_escapes_terminal_control_sequences(tmp_path: Path) -> None:
    document = json.loads(CORTEX)
    document["run_id"] = "R-\x1b]0;owned\x07-\x1b[31mred"
    document["events"][1]["message"] = "[bold]not markup[/bold]\x1b[2J"
    path = tmp_path / "run.json"
    path.write_text(json.dumps(document))
    result = agentruns("show", str(path))
    assert result.returncode == 0
    assert "\x1b" not in result.stdout
    assert "\x07" not in result.stdout
    assert "R-\\x1b]0;owned\\x07-\\x1b[31mred" in result.stdout
    assert "[bold]not" in result.stdout  # (the table wraps the cell)
    assert "markup[/bold]\\x1b[2J" in result.stdout


def test_show_reports_a_bad_run_and_shows_the_good_ones(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(CORTEX + "\n" + '{"run_id": "\\ud800"}\n' + PORTABLE + "\n")
    result = agentruns("show", str(path))
    assert result.returncode == 1
    assert result.stdout.count("timeline") == 2
    assert f"{path}:2: /: string holds an unpaired UTF-16 surrogate" in result.stderr


# -- records that crashed a whole batch ---------------------------------------------------------


def _crashers() -> list[str]:
    """The three shapes that once raised mid-batch: a carry payload of another version, cortex
    event extras named like declared step fields, an escaped lone surrogate."""
    agentrun = json.loads((FIXTURES / "agentrun.min.json").read_text())
    agentrun["x-agentruns-carry"] = {"version": 99}
    cortex = json.loads(CORTEX)
    cortex["events"][0].update({"name": "n", "input": 1, "index": "i", "duration_ms": None})
    return [json.dumps(agentrun), json.dumps(cortex), '{"run_id": "\\ud800"}']


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("to", ["portable", "cortex", "agentrun"])
def test_records_that_once_crashed_a_batch_cost_no_other_record(
    to: str, jobs: str, tmp_path: Path
) -> None:
    lines = [PORTABLE, CORTEX] * 40
    lines[40:40] = _crashers()
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    result = agentruns("convert", "-j", jobs, "--to", to, str(source), "-o", str(out))
    assert "83 records in: 82 converted, 1 rejected" in result.stderr
    assert f"{source}:43:1: rejected: /: string holds an unpaired UTF-16 surrogate" in result.stderr
    assert len(out.read_text().splitlines()) == 82


def _varied_records(path: Path, count: int) -> Path:
    """Portable records that do not compress away (each says something else)."""
    document = json.loads(PORTABLE)
    with path.open("w") as out:
        for number in range(count):
            noise = hashlib.sha256(str(number).encode()).hexdigest() * 4
            out.write(json.dumps(dict(document, eval_id=f"e{number}", final_message=noise)) + "\n")
    return path


@pytest.mark.parametrize("nested", ["tables", "made/for/tables"])
def test_a_full_disk_during_an_export_leaves_no_table_and_no_folder(
    nested: str, tmp_path: Path
) -> None:
    source = _varied_records(tmp_path / "in.jsonl", 3000)
    folder = tmp_path / nested
    result = agentruns("export", str(source), "-o", str(folder), preexec=_small_disk)
    assert result.returncode == 74
    assert "File too large" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]  # no folder it made


@pytest.mark.parametrize("taken", ["file", "file/below"])
def test_an_export_into_what_cannot_be_a_folder_is_refused_before_reading(
    taken: str, tmp_path: Path
) -> None:
    (tmp_path / "file").write_text("mine\n")
    result = agentruns("export", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / taken))
    assert result.returncode == 2
    assert "no such file" not in result.stderr  # refused before any input was looked at
    assert (tmp_path / "file").read_text() == "mine\n"


def test_a_full_disk_during_an_export_keeps_the_previous_tables(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    small = records(tmp_path / "small.jsonl", 2)
    assert agentruns("export", str(small), "-o", str(folder)).returncode == 0
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    source = _varied_records(tmp_path / "in.jsonl", 3000)
    result = agentruns("export", str(source), "-o", str(folder), preexec=_small_disk)
    assert result.returncode == 74
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_a_full_disk_during_an_import_leaves_nothing_behind(tmp_path: Path) -> None:
    lines = [json.dumps({"type": "system", "subtype": "init", "session_id": "s"})]
    for number in range(400):
        use = {"type": "tool_use", "id": f"t{number}", "name": "Bash", "input": {"n": number}}
        answer = {"type": "tool_result", "tool_use_id": f"t{number}", "content": "x" * 500}
        lines += [
            json.dumps({"type": "assistant", "message": {"content": [use]}}),
            json.dumps({"type": "user", "message": {"content": [answer]}}),
        ]
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("\n".join(lines) + "\n")
    out = tmp_path / "run.json"
    out.write_text("previous\n")
    values = ["--set", "eval_id=e", "--set", "condition=c", "--set", "skill_path=null"]
    values += ["--set", "prompt=p", "--set", "files=[]", "--set", "final_message=done"]
    args = ["import", str(transcript), "--to", "portable", "-o", str(out), *values]
    result = agentruns(*args, preexec=_small_disk)
    assert result.returncode == 74
    assert out.read_text() == "previous\n"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_a_stopping_signal_mid_export_leaves_no_table_and_no_folder(
    number: int, tmp_path: Path
) -> None:
    source = _varied_records(tmp_path / "in.jsonl", 80_000)  # seconds of work
    folder = tmp_path / "tables"
    process = subprocess.Popen(
        [SCRIPT, "export", str(source), "-o", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for(lambda: folder.exists() and any(folder.iterdir()))
    process.send_signal(number)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == (143 if number == signal.SIGTERM else 130)
    assert "Traceback" not in stderr
    assert not folder.exists()


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_stop_whose_exception_was_swallowed_still_stops_the_run_before_any_commit(
    number: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python swallows an exception raised in a finalizer or an at-fork handler ("Exception
    ignored"): the stop is remembered, and the next commit point raises it again."""
    from agentruns.cli import _stopping
    from agentruns.cli._exits import _Stopped

    monkeypatch.setattr(_stopping, "_stop_requested", [])
    _stopping._stop_point()  # nothing asked: nothing raised
    handler = _stopping._interrupt if number == signal.SIGINT else _stopping._raise_stopped
    with contextlib.suppress(BaseException):  # the first raising, swallowed
        handler(number, None)
    expected: type[BaseException] = KeyboardInterrupt if number == signal.SIGINT else _Stopped
    with pytest.raises(expected):
        _stopping._stop_point()
    for stopping in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(stopping, signal.SIG_DFL)


def test_workers_are_forked_with_the_stopping_signals_held() -> None:
    """A signal that arrives while workers are forked waits until they are up."""
    from agentruns import _workers

    with _workers._stopping_signals_held():
        held = signal.pthread_sigmask(signal.SIG_BLOCK, set())
        assert {signal.SIGINT, signal.SIGTERM, signal.SIGHUP} <= set(held)
    assert signal.SIGTERM not in signal.pthread_sigmask(signal.SIG_BLOCK, set())


def test_workers_killed_while_sending_a_result_leave_nothing_for_exit_to_wait_for(
    tmp_path: Path,
) -> None:
    """A run that stops early (an output that fails, a full disk) kills its workers; one killed
    halfway through sending a result left the pool's manager reading the rest of it, and the
    process waited for it at exit for ever (1 export in 15 on a full disk)."""
    script = tmp_path / "stop_early.py"
    script.write_text(
        "import time\n"
        "from agentruns._workers import OrderedMap\n"
        "def big(n: int) -> bytes:\n"
        "    return b'x' * (64 << 20)  # far more than a pipe holds: a send takes a while\n"
        "results = OrderedMap(big, range(40), 2, chunk=1)\n"
        "next(iter(results))\n"
        "time.sleep(0.5)  # the workers are sending the next results now\n"
        "results.close()\n"
    )
    completed = subprocess.run([sys.executable, str(script)], timeout=60, check=False)
    assert completed.returncode == 0


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_while_a_class_is_made_ends_the_run_as_the_stop_not_as_a_bug(
    number: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A signal that lands while a class is made (a lazy import of the models, at the start
    of a command) raises the stop in a descriptor's ``__set_name__``, which Python 3.11 turns
    into a RuntimeError: the run ended as a bug (exit 70, "please report it")."""
    from agentruns.cli import _run, _stopping

    def make_a_class_as_the_signal_arrives(**_: object) -> int:
        class Named:
            def __set_name__(self, owner: type, name: str) -> None:
                _stopping._raise_stopped(number, None)

        type("Model", (), {"field": Named()})
        return 0

    monkeypatch.setattr(_stopping, "_stop_requested", [])
    monkeypatch.setattr("agentruns.cli._run.main.main", make_a_class_as_the_signal_arrives)
    try:
        with pytest.raises(SystemExit) as ended:
            _run.run()
    finally:
        for stopping in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(
                stopping,
                signal.default_int_handler if stopping == signal.SIGINT else signal.SIG_DFL,
            )
    assert ended.value.code == 128 + number
    assert "no output file was written" in capsys.readouterr().err
