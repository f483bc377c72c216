"""A folder of sessions never hangs the walk and never hides a file: what is no regular file, what
cannot be opened and a database that cannot be read as OpenCode's are each named, the exit
says so, and every good session beside them is still written."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agentruns.errors import InputError
from agentruns.transcripts import _opencode_storage, sessions
from tests.test_session_import import LOGS, _database

SESSION = LOGS / "claude-session" / "spotter-short.jsonl"


def _import(folder: Path, *more: str) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own, under a deadline: a hang fails the test."""
    command = [sys.executable, "-m", "agentruns", "import", str(folder), "--to", "atif", *more]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def _folder_with(tmp_path: Path) -> Path:
    folder = tmp_path / "projects"
    folder.mkdir()
    shutil.copy(SESSION, folder / "good.jsonl")
    return folder


def _written(result: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def test_a_fifo_named_like_a_session_is_named_not_opened(tmp_path: Path) -> None:
    folder = _folder_with(tmp_path)
    os.mkfifo(folder / "pipe.jsonl")
    result = _import(folder)
    assert result.returncode == 1, result.stderr
    assert f"{folder / 'pipe.jsonl'}: unreadable: not a regular file" in result.stderr
    assert len(_written(result)) == 1


def test_a_link_to_an_endless_device_is_named_not_read(tmp_path: Path) -> None:
    folder = _folder_with(tmp_path)
    (folder / "zero.jsonl").symlink_to("/dev/zero")
    result = _import(folder)
    assert result.returncode == 1, result.stderr
    assert f"{folder / 'zero.jsonl'}: unreadable: not a regular file" in result.stderr
    assert len(_written(result)) == 1


def test_a_dangling_link_is_named_as_unreadable(tmp_path: Path) -> None:
    folder = _folder_with(tmp_path)
    (folder / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    result = _import(folder)
    assert result.returncode == 1, result.stderr
    assert f"{folder / 'gone.jsonl'}: unreadable: No such file or directory" in result.stderr
    assert len(_written(result)) == 1


def test_a_file_that_cannot_be_read_is_counted_as_unreadable_not_as_a_run(
    tmp_path: Path,
) -> None:
    """The summary counts runs and, apart, the files of the folder it could not read (they
    were counted as rejected runs: "3 runs ... 2 rejected" for one session and two such
    files)."""
    folder = _folder_with(tmp_path)
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "zero.jsonl").symlink_to("/dev/zero")
    result = _import(folder)
    assert result.returncode == 1, result.stderr
    assert "1 run from 1 input: 1 written as atif, 0 rejected; 2 files unreadable" in (
        result.stderr
    )


def test_the_library_walk_hands_every_unreadable_file_to_the_caller(tmp_path: Path) -> None:
    folder = _folder_with(tmp_path)
    os.mkfifo(folder / "a.jsonl")
    (folder / "b.ndjson").symlink_to("/dev/zero")
    named: list[str] = []
    found = [path for path, _ in sessions(folder, lambda path, why: named.append(path))]
    assert found == [str(folder / "good.jsonl")]
    assert named == [str(folder / "a.jsonl"), str(folder / "b.ndjson")]


def _endless_view_database(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.execute(
        "CREATE VIEW session AS WITH RECURSIVE r(id) AS "
        "(SELECT 1 UNION ALL SELECT id + 1 FROM r) SELECT id, 'p' AS project_id FROM r"
    )
    db.commit()
    db.close()
    return path


def test_a_database_whose_session_is_a_view_is_named_and_not_queried(tmp_path: Path) -> None:
    folder = _folder_with(tmp_path)
    _endless_view_database(folder / "opencode.db")
    result = _import(folder)
    assert result.returncode == 1, result.stderr
    assert "opencode.db: unreadable" in result.stderr
    assert "session is a view, not a table" in result.stderr
    assert len(_written(result)) == 1


def test_a_database_without_session_ids_is_named_and_the_others_are_written(
    tmp_path: Path,
) -> None:
    folder = _folder_with(tmp_path)
    db = sqlite3.connect(folder / "opencode.db")
    db.execute("CREATE TABLE session (project_id TEXT, data TEXT)")
    db.execute("INSERT INTO session VALUES ('p', '{}')")
    db.commit()
    db.close()
    (folder / "other").mkdir()
    _database(folder / "other" / "opencode.db")
    result = _import(folder)
    assert result.returncode == 1, result.stderr
    assert "a session row without an id" in result.stderr
    assert len(_written(result)) == 3  # the Claude session and the two of the good database


def test_a_database_read_past_its_deadline_is_an_input_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _database(tmp_path / "opencode.db")
    db = sqlite3.connect(path)  # enough rows for SQLite to call the progress handler
    db.executemany(
        "INSERT INTO session VALUES (?, 'p', 1, '{}')", [(f"s{n}",) for n in range(5000)]
    )
    db.commit()
    db.close()
    monkeypatch.setattr(_opencode_storage, "READ_SECONDS", -1.0)
    with pytest.raises(InputError, match="read for too long"):
        _opencode_storage.sessions(str(path))


def test_a_row_past_the_record_limit_is_refused_without_being_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _database(tmp_path / "opencode.db")
    monkeypatch.setattr(_opencode_storage, "MAX_RECORD_SIZE", 20)
    with pytest.raises(InputError, match="past the 20-byte record limit"):
        _opencode_storage.sessions(str(path))
