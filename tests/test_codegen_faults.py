"""The build step under faults: a failure or a signal while it writes leaves every file as
it was (no temporary file, no half-written manifest), and the next run recovers."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import weakref
from contextlib import nullcontext
from pathlib import Path
from types import FrameType

import pytest

from codegen import _files
from codegen.__main__ import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "schemas", tmp_path / "schemas")
    shutil.copytree(
        ROOT / "generated", tmp_path / "generated", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path


def _snapshot(tree: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(tree)): p.read_bytes()
        for p in sorted(tree.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _changed_schema(tree: Path) -> None:
    path = tree / "schemas" / "cortex-run-journal.schema.json"
    schema = json.loads(path.read_text())
    schema["properties"]["review_url"] = {"type": "string"}
    path.write_text(json.dumps(schema, indent=2))


@pytest.mark.parametrize("fault", [KeyboardInterrupt, OSError, _files.Stopped])
@pytest.mark.parametrize("at", [0, 1, 2])
def test_a_fault_while_generate_writes_changes_no_file(
    tree: Path, monkeypatch: pytest.MonkeyPatch, fault: type[BaseException], at: int
) -> None:
    _changed_schema(tree)
    before = _snapshot(tree)
    real = _files._temporary
    made: list[int] = []

    def failing(target: Path, text: str) -> str:
        if len(made) == at:
            raise fault(15) if fault is _files.Stopped else fault()
        made.append(1)
        return real(target, text)

    monkeypatch.setattr(_files, "_temporary", failing)
    args = ["generate", "--schemas", str(tree / "schemas"), "--out", str(tree / "generated")]
    expected = pytest.raises(KeyboardInterrupt) if fault is KeyboardInterrupt else nullcontext()
    with expected:
        main(args)
    assert _snapshot(tree) == before  # not a file changed, no temporary file left
    monkeypatch.setattr(_files, "_temporary", real)
    assert main(args) == 0  # the next run recovers
    assert "review_url" in (tree / "generated" / "agentruns_generated" / "cortex.py").read_text()


@pytest.mark.parametrize("delay", [0.3, 0.8, 1.3, 1.8])
def test_sigterm_during_generate_leaves_no_temporary_file_and_a_readable_manifest(
    tree: Path, delay: float
) -> None:
    _changed_schema(tree)
    args = ["generate", "--schemas", str(tree / "schemas"), "--out", str(tree / "generated")]
    process = subprocess.Popen(
        [sys.executable, "-m", "codegen", *args],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(delay)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    # done, stopped cleaning up, or killed while starting (before writing anything)
    assert process.returncode in (0, 128 + signal.SIGTERM, -signal.SIGTERM), stderr
    assert "Traceback" not in stderr
    assert [p.name for p in tree.rglob("*.tmp")] == []
    json.loads((tree / "schemas" / "manifest.json").read_text())  # whole, never half
    assert main(args) == 0
    assert (
        main(["check", "--schemas", str(tree / "schemas"), "--out", str(tree / "generated")]) == 0
    )


def test_the_manifest_is_replaced_whole(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _changed_schema(tree)
    manifest = tree / "schemas" / "manifest.json"
    before = manifest.read_bytes()

    def full_disk(target: Path, text: str) -> str:
        if target.name == "manifest.json":
            raise OSError(28, os.strerror(28))
        return real(target, text)

    real = _files._temporary
    monkeypatch.setattr(_files, "_temporary", full_disk)
    main(["generate", "--schemas", str(tree / "schemas"), "--out", str(tree / "generated")])
    assert manifest.read_bytes() == before


_SIGNAL_AT_RENAME = """
import os, signal, sys
from codegen import _files
from codegen.__main__ import main

real, count, at = os.replace, [0], int(sys.argv[1])

def replace(source, target):
    if count[0] == at:
        os.kill(os.getpid(), signal.SIGTERM)  # arrives while the renames are under way
    count[0] += 1
    real(source, target)

_files.os.replace = replace
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("at", [0, 1, 2])
def test_a_stop_at_any_rename_leaves_no_temporary_file_and_every_file_new(
    tree: Path, at: int
) -> None:
    """The renames are one step: a SIGTERM during them is delivered once all are done."""
    _changed_schema(tree)
    args = ["generate", "--schemas", str(tree / "schemas"), "--out", str(tree / "generated")]
    done = subprocess.run(
        [sys.executable, "-c", _SIGNAL_AT_RENAME, str(at), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert "Traceback" not in done.stderr
    assert [p.name for p in tree.rglob("*.tmp")] == []
    check = ["check", "--schemas", str(tree / "schemas"), "--out", str(tree / "generated")]
    assert main(check) == 0  # all renamed: the set is the new one, whole


def test_generate_keeps_a_files_mode_and_gives_a_new_one_the_umasks(tree: Path) -> None:
    _changed_schema(tree)
    models = tree / "generated" / "agentruns_generated" / "cortex.py"
    models.chmod(0o640)
    new = tree / "elsewhere" / "model.py"
    new.parent.mkdir()
    previous = os.umask(0o022)
    try:
        args = ["generate", "--schemas", str(tree / "schemas"), "--out", str(tree / "generated")]
        assert main(args) == 0
        one = tree / "schemas" / "cortex-run-journal.schema.json"
        assert main(["model", str(one), "--out", str(new)]) == 0
    finally:
        os.umask(previous)
    assert "review_url" in models.read_text()  # rewritten, its mode kept
    assert models.stat().st_mode & 0o777 == 0o640
    assert new.stat().st_mode & 0o777 == 0o644


def _frame_of(name: str, filename: str) -> FrameType:
    """A frame whose code has ``name`` in ``filename`` (compiled there, so the frame is real)."""
    namespace: dict[str, object] = {}
    exec(
        compile(f"def {name}():\n    import sys\n    return sys._getframe()\n", filename, "exec"),
        namespace,
    )
    made = namespace[name]
    assert callable(made)
    frame = made()
    assert isinstance(frame, FrameType)
    return frame


@pytest.mark.parametrize(
    ("name", "filename"),
    [
        ("cb", "<frozen importlib._bootstrap>"),  # a module lock's weakref callback
        ("__del__", "anything.py"),
        ("__call__", weakref.__file__),  # a weakref.finalize callback
    ],
)
def test_a_stop_in_a_callback_whose_exceptions_are_dropped_is_kept_for_the_next_stop_point(
    name: str, filename: str
) -> None:
    """The interpreter prints an exception raised in such a callback as "Exception ignored"
    and goes on: the stop is kept, and raised at the next stop point, before any file is
    written."""
    with pytest.raises(_files.Stopped):
        _stopped_in(name, filename)


def _stopped_in(name: str, filename: str) -> None:
    with _files.stoppable():
        try:
            _files._stop(signal.SIGTERM, _frame_of(name, filename))
        except _files.Stopped:
            raise AssertionError(f"raised in {name}, where it would be dropped") from None
        _files.stop_point()  # (what writing a file does first)


def test_a_stop_elsewhere_raises_at_once() -> None:
    with pytest.raises(_files.Stopped):
        _files._stop(signal.SIGTERM, _frame_of("generate", "codegen/_generate.py"))


def _write_after_a_kept_stop(target: Path) -> None:
    with _files.stoppable():
        _files._stop(signal.SIGTERM, _frame_of("cb", "<frozen importlib._bootstrap>"))
        _files.write_all({target: "x = 1\n"})


def test_a_stop_kept_from_a_callback_writes_no_file(tmp_path: Path) -> None:
    with pytest.raises(_files.Stopped):
        _write_after_a_kept_stop(tmp_path / "a.py")
    assert list(tmp_path.iterdir()) == []


class _ClosesOnCollection:
    """An object whose ``__del__`` calls into other code (closing a file, say): a stop that
    lands there is in a frame the interpreter's drop is not visible from."""

    def __del__(self) -> None:
        _deep_in_a_callback()


def _deep_in_a_callback() -> None:
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(1_000_000):  # the handler runs at the next instruction: in here
        pass
    raise AssertionError("the signal was not handled in the callback")


def _write_after_a_dropped_stop(target: Path) -> None:
    with _files.stoppable():
        _ClosesOnCollection()  # collected at once: the stop lands, and is dropped, in it
        _files.write_all({target: "x = 1\n"})


def test_a_stop_dropped_below_a_callback_is_kept_unprinted_for_the_next_stop_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(_files.Stopped):
        _write_after_a_dropped_stop(tmp_path / "a.py")
    assert "Exception ignored" not in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_what_else_a_callback_drops_is_still_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    reported: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda seen: reported.append(seen.exc_value))

    class Failing:
        def __del__(self) -> None:
            raise ValueError("a finalizer's own failure")

    with _files.stoppable():
        Failing()
    assert [type(error) for error in reported] == [ValueError]


def _makes_a_class_as_a_stop_arrives(args: object) -> int:
    """A build that makes a class whose descriptor is named as SIGTERM arrives (what
    importing datamodel-code-generator's models does at the start of a generate)."""

    class Named:
        def __set_name__(self, owner: type, name: str) -> None:
            _files._stop(signal.SIGTERM, None)

    type("Model", (), {"field": Named()})
    return 0


def test_a_stop_while_a_class_is_made_stops_the_build_as_a_stop(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Python 3.11 raises a RuntimeError caused by the stop, which read as a generator failure
    # (exit 1, "the build step failed on this schema") where the signal stopped it (CI, 0.3 s
    # into a generate)
    monkeypatch.setattr("codegen.__main__._translate", _makes_a_class_as_a_stop_arrives)
    assert main(["translate", "schemas/agent-run.struct.json"]) == 128 + signal.SIGTERM
    assert capsys.readouterr().err == "stopped; nothing half-written was left behind\n"


def _chained(depth: int, stop: BaseException | None, *, as_cause: bool) -> Exception:
    """An error raised while handling (or from) another, ``depth`` levels above ``stop``."""
    below: BaseException | None = stop
    for level in range(depth):
        error = RuntimeError(f"level {level}")
        if as_cause:
            error.__cause__ = below
        else:
            error.__context__ = below
        below = error
    return below if isinstance(below, Exception) else RuntimeError("top")


@pytest.mark.parametrize("as_cause", [True, False])
@pytest.mark.parametrize("depth", [1, 2, 5])
def test_a_stop_anywhere_below_an_error_is_the_stop(depth: int, *, as_cause: bool) -> None:
    stop = _files.Stopped(signal.SIGHUP)
    assert _files.stop_within(_chained(depth, stop, as_cause=as_cause)) is stop


def test_an_error_no_stop_caused_is_not_a_stop() -> None:
    error = _chained(3, ValueError("bad"), as_cause=True)
    looped = RuntimeError("loop")
    looped.__context__ = RuntimeError("back")
    looped.__context__.__context__ = looped  # (the interpreter never makes a cycle; a test can)
    assert _files.stop_within(error) is None
    assert _files.stop_within(looped) is None
