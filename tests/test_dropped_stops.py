"""A stop the interpreter swallows: a signal whose handler raises in a callback Python runs on
its own (a finalizer, a weakref callback, the worker pool's finalizers) is dropped
there, printed as "Exception ignored" with a traceback. The command keeps it, says nothing of
it, and stops at the next stop point: no traceback, no output, the stop's exit code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_faults import PORTABLE, STOPS, leftovers, records

_SCRIPT = """
import os, signal, sys, weakref
from multiprocessing import util

from agentruns.cli._run import run
from agentruns.pipeline import _outputs

context, number = sys.argv[1], int(sys.argv[2])
del sys.argv[1:3]
held = []
# Ctrl-C as a terminal's process has it, whatever this test's own parent ignores (a shell
# starts a background job with SIGINT ignored)
signal.signal(signal.SIGINT, signal.default_int_handler)


def stop_inside(*_):
    os.kill(os.getpid(), number)
    for _ in range(1_000_000):  # the handler runs at the next instruction: in here
        pass
    sys.exit("the signal was not handled in the callback")


class Holder:
    pass


class Dropping:
    def __del__(self):
        stop_inside()


def arm():
    if context == "__del__":
        Dropping()
    elif context == "weakref.finalize":
        holder = Holder()
        weakref.finalize(holder, stop_inside)
        del holder
    elif context == "weakref callback":
        holder = Holder()
        held.append(weakref.ref(holder, stop_inside))
        del holder
    elif context == "multiprocessing finalizer":
        holder = Holder()
        util.Finalize(holder, stop_inside)
        del holder
    else:
        raise SystemExit(f"no context {context}")


commit = _outputs.Outputs.commit


def armed(self, *args, **kwargs):
    arm()  # the stop lands (and is dropped) just before the outputs would be committed
    return commit(self, *args, **kwargs)


_outputs.Outputs.commit = armed
run()
"""

_CONTEXTS = ["__del__", "weakref.finalize", "weakref callback", "multiprocessing finalizer"]


@pytest.mark.parametrize("context", _CONTEXTS)
@pytest.mark.parametrize(("number", "code", "said"), STOPS)
def test_a_stop_dropped_in_a_callback_stops_the_run_without_a_traceback(
    context: str, number: int, code: int, said: str, tmp_path: Path
) -> None:
    script = tmp_path / "dropping.py"
    script.write_text(_SCRIPT)
    source = records(tmp_path / "in.jsonl", 3, PORTABLE)
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    command = ["convert", "-q", "-j", "1", "--to", "cortex", str(source), "-o", str(out)]
    done = subprocess.run(
        [sys.executable, str(script), context, str(int(number)), *command],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == code, done.stderr
    left = "no output file was written (a previous one is left as it was)"
    assert done.stderr.strip() == f"{said}; {left}"
    assert out.read_text() == "previous\n"
    assert leftovers(tmp_path) == []
