"""The helper that imports generated code in tests: nothing left behind, nothing stale."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._load import load_source

ROOT = Path(__file__).resolve().parents[1]


def test_a_module_loaded_again_with_other_code_of_the_same_size_is_the_new_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as on a machine that caches it
    first = load_source("VALUE = 1\n", "load_source_twice")
    second = load_source("VALUE = 2\n", "load_source_twice")
    assert (first.VALUE, second.VALUE) == (1, 2)


def test_the_loaded_sources_folder_is_removed_when_the_process_exits() -> None:
    script = (
        "from tests._load import _SCRATCH, load_source\n"
        "print(_SCRATCH.name)\n"
        "assert load_source('VALUE = 3\\n', 'left_behind').VALUE == 3\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    folder = Path(done.stdout.strip())
    assert folder.name.startswith("agentruns-tests-")
    assert not folder.exists()
