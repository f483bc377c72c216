"""What a session file says, remembered by the file's identity, so an unchanged history is not
read twice.

One SQLite file (standard library) under the user's cache folder, keyed by path. A file's
identity is its size, modification and change times and inode (and, for a Claude Code session,
those of its ``subagents`` files): any change to the file and the entry is not used. The cache
is a help, never a source of truth: a cache that cannot be opened or written is left alone and
the files are read.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from pydantic_core import to_json

F = TypeVar("F")

FACTS_VERSION = 18
"""Raised when what a reader makes of a file changes: entries of another version are unused."""


def cache_folder() -> Path:
    """``$AGENTRUNS_CACHE_DIR``, else ``$XDG_CACHE_HOME/agentruns``, else ``~/.cache/agentruns``."""
    named = os.environ.get("AGENTRUNS_CACHE_DIR")
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "agentruns"


def identity(path: str, status: os.stat_result) -> str:
    """What must be unchanged for an entry to be used."""
    parts: list[object] = [status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino]
    own = Path(path)
    subagents = own.with_suffix("") / "subagents"
    children: list[Path] = []
    if subagents.is_dir():  # Claude Code keeps a session's subagents beside it (2.1.x)
        children = sorted(subagents.iterdir())
    elif own.suffix == ".jsonl":  # or as agent files naming it, in its folder (2.0.x)
        from agentruns.transcripts._claude_session import agents_beside

        children = [own.parent / name for name in agents_beside(own.parent).get(own.stem, ())]
    for child in children:
        try:
            seen = child.stat()
        except OSError:
            continue
        parts.append([child.name, seen.st_size, seen.st_mtime_ns])
    return json.dumps(parts)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from agentruns._prices import source

    prices = source() or "no prices"  # facts read without the price table have no cost
    try:
        return f"{version('agentruns')}/{FACTS_VERSION}/{prices}"
    except PackageNotFoundError:
        return f"?/{FACTS_VERSION}/{prices}"


class FactsCache(Generic[F]):
    """The facts of each session file read before, by path and identity: each kept as the
    JSON object ``dump`` makes of it, and made again by ``load`` (which may raise
    ``ValueError``, ``TypeError`` or ``KeyError`` for an entry it cannot read)."""

    def __init__(
        self,
        load: Callable[[dict[str, object]], F],
        dump: Callable[[F], dict[str, object]],
        path: Path | None = None,
    ) -> None:
        self._load = load
        self._dump = dump
        self.path = path or cache_folder() / "sessions.sqlite3"
        self._version = _version()
        self._db: sqlite3.Connection | None = None
        self._index: dict[str, tuple[str, str]] | None = None
        """Each entry's path with its identity and version, read in one query when first
        asked (a first look at a history asks about every file: a query each cost 0.1 s a
        thousand files, to find nothing)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=5)
            db.execute(
                "CREATE TABLE IF NOT EXISTS facts "
                "(path TEXT PRIMARY KEY, identity TEXT, version TEXT, facts TEXT)"
            )
            db.commit()
            self._db = db
        except (OSError, sqlite3.Error):
            self._db = None  # no cache: every file is read

    def get(self, path: str, ident: str) -> list[F] | None:
        if self._db is None:
            return None
        if self._index is None:
            try:
                rows = self._db.execute("SELECT path, identity, version FROM facts")
                self._index = {str(p): (str(i), str(v)) for p, i, v in rows}
            except sqlite3.Error:
                self._index = {}
        if self._index.get(path) != (ident, self._version):
            return None  # no entry, or one of a changed file, or of another version
        try:
            row = self._db.execute(
                "SELECT facts FROM facts WHERE path = ? AND identity = ? AND version = ?",
                (path, ident, self._version),
            ).fetchone()
        except sqlite3.Error:
            return None
        if row is None:
            return None
        try:
            return [self._load(value) for value in json.loads(row[0])]
        except (ValueError, TypeError, KeyError):
            return None  # an entry this version cannot read: the file is read again

    def put(self, path: str, ident: str, facts: list[F]) -> None:
        if self._db is None:
            return
        try:
            # pydantic-core's serializer: ``json.dumps`` took 0.2 ms a session's facts, a
            # fifth of a second over a first look at a thousand files
            text = to_json([self._dump(one) for one in facts]).decode()
        except ValueError:  # a value JSON cannot hold: the file is read again next time
            return
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO facts VALUES (?, ?, ?, ?)",
                (path, ident, self._version, text),
            )
        except sqlite3.Error:
            return

    def close(self) -> None:
        db, self._db = self._db, None
        if db is None:
            return
        try:
            db.commit()
        except sqlite3.Error:
            pass
        finally:
            db.close()
