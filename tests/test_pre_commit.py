"""The pre-commit hook, run by pre-commit itself on a repository with a good and a bad file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One hook environment for the module (pre-commit builds it once: pip installs us)."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _run(repo: Path, home: Path, *files: str) -> subprocess.CompletedProcess[str]:
    """``pre-commit try-repo`` on this checkout (its working tree, committed or not)."""
    executable = shutil.which("pre-commit")
    assert executable, "pre-commit is a dev dependency"
    hook = "agentruns-validate"
    command = [executable, "try-repo", str(ROOT), hook, "--verbose", "--files", *files]
    env = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    return subprocess.run(
        command, cwd=repo, env=env, capture_output=True, text=True, check=False, timeout=900
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "config", "user.email", "t@example.com")
    _git(tmp_path, "config", "user.name", "t")
    shutil.copy(FIXTURES / "cortex.min.json", tmp_path / "good.json")
    bad = json.loads((FIXTURES / "cortex.min.json").read_text())
    bad["status"] = "dispatching"
    (tmp_path / "bad.json").write_text(json.dumps(bad, indent=2))
    _git(tmp_path, "add", ".")
    return tmp_path


def test_the_hook_passes_a_good_record_and_fails_a_bad_one_naming_its_line(
    repo: Path, pre_commit_home: Path
) -> None:
    good = _run(repo, pre_commit_home, "good.json")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout
    bad = _run(repo, pre_commit_home, "good.json", "bad.json")
    assert bad.returncode == 1
    assert "Failed" in bad.stdout
    assert "bad.json:9:13: /status: Input should be" in bad.stdout
