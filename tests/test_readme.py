"""The README's Python examples run as written (from the repository root)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = re.findall(
    r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.DOTALL
)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_example_runs(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    exec(compile(BLOCKS[index], f"README.md python block {index}", "exec"), {})


def test_the_readme_has_python_examples() -> None:
    assert len(BLOCKS) >= 2


# -- console examples -----------------------------------------------------------------------
# A console block is run when every file it reads is in the repository (``runs.jsonl`` and the
# like are the reader's own files): each ``$`` command in a scratch folder that sees the
# repository's tests/, with the output as a terminal shows it (stdout and stderr in the order
# written), compared line by line; ``...`` stands for any lines.

CONSOLE = re.findall(
    r"```console\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.DOTALL
)
_WRITTEN = {"-o", "--rejects", "--losses", ">"}


def _steps(block: str) -> list[tuple[str, list[str]]]:
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line.rstrip())
    return steps


def _reads_only_repository_files(block: str, root: Path) -> bool:
    import shlex

    here = root
    for command, _ in _steps(block):
        words = shlex.split(command)
        if words[:1] == ["cd"]:
            here = here / words[1]
            continue
        for before, word in zip(["", *words], words, strict=False):
            if before in _WRITTEN or word.startswith("-") or "*" in word:
                continue
            if "." in Path(word).name and not (here / word).exists():
                return False
    return True


def _matches(expected: list[str], got: list[str]) -> bool:
    if not expected:
        return not got
    if expected[0] == "...":
        return any(_matches(expected[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and got[0] == expected[0] and _matches(expected[1:], got[1:])


RUNNABLE = [k for k, block in enumerate(CONSOLE) if _reads_only_repository_files(block, ROOT)]


@pytest.mark.parametrize("index", RUNNABLE)
def test_readme_console_example_prints_what_it_says(index: int, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    (tmp_path / "tests").symlink_to(ROOT / "tests")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONUNBUFFERED": "1",
        "COLUMNS": "80",
        "NO_COLOR": "1",
        "TERM": "dumb",
        "TZ": "UTC",
        "AGENTRUNS_CACHE_DIR": str(tmp_path / ".cache"),
    }
    here = tmp_path
    for command, expected in _steps(CONSOLE[index]):
        if command.startswith("cd "):
            here = here / command[3:].strip()
            continue
        done = subprocess.run(
            ["bash", "-c", command + " 2>&1"],
            cwd=here,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        got = [line.rstrip() for line in done.stdout.splitlines()]
        assert _matches(expected, got), f"$ {command}\n" + "\n".join(got)


def test_the_readme_console_examples_that_read_repository_files_are_run() -> None:
    assert len(RUNNABLE) >= 4
