"""Which inputs are session files (folders and files agents keep), not run records."""

from __future__ import annotations

import os
from pathlib import Path

from agentruns._text import printable
from agentruns.batch import read_model
from agentruns.cli._exits import _Usage
from agentruns.errors import AgentrunsError
from agentruns.io import read_records


def _refuse_sessions_as_outputs(folders: list[str], named: dict[str, str]) -> None:
    """An output that is a session inside a folder being imported would replace an input."""
    from agentruns import transcripts as readers

    for option, path in named.items():
        if path == "-" or not os.path.isfile(path):
            continue
        target = Path(path).resolve()
        for folder in folders:
            if Path(folder).resolve() in target.parents:
                try:
                    readers.detect(path)
                except readers.TranscriptError:
                    continue
                raise _Usage(f"{option} {path} is a session in {folder}, an input: not replaced")


def _session_file(name: str) -> str | None:
    """The harness of a file that holds what an agent kept or printed (a session, a
    transcript), not run records: its first document is no valid record and a harness
    recognizes it (a harness's event may share a key with a format: Claude Code's
    ``session_id`` is ATIF's too). Only regular files are looked at (a pipe is read once,
    by the command)."""
    import stat

    if name == "-":
        return None
    try:
        if not stat.S_ISREG(os.stat(name).st_mode):
            return None
        records = read_records(name)
        try:
            first = next(records, None)
        finally:
            records.close()  # the file closed now, not whenever the reader is collected
    except (AgentrunsError, OSError):
        return None
    if first is None:
        return None  # nothing to tell by
    if first.error is None:
        _, model, _ = read_model(first, "auto")
        if model is not None:
            return None  # run records
    # else no JSON document read by its name (JSON Lines named .txt or .data, say): what it
    # holds says whether a harness wrote it; if none did, the command's reading says why
    from agentruns.transcripts import detect

    try:
        return detect(name)
    except Exception:  # no harness reads it (however it fails): records, for the command
        return None


def _split_sessions(inputs: tuple[str, ...]) -> tuple[tuple[str, ...], list[tuple[str, str]]]:
    """The inputs of run records, and the session files among them with their harness."""
    records: list[str] = []
    sessions: list[tuple[str, str]] = []
    for name in inputs:
        harness = _session_file(name)
        if harness is None:
            records.append(name)
        else:
            sessions.append((name, harness))
    return tuple(records), sessions


def _as_sessions(inputs: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The inputs of run records, and those read as sessions, each in order: folders (each
    session in them a run) and the files a harness wrote (a folder of one session)."""
    sessions = [
        name
        for name in inputs
        if name != "-" and (os.path.isdir(name) or _session_file(name) is not None)
    ]
    return [name for name in inputs if name not in sessions], sessions


def _not_records(harness: str, to: str | None = None) -> str:
    """What a command of run records says of a session file given to it (once a file)."""
    making = f"`agentruns import --to {to}`" if to is not None else "`agentruns import`"
    return (
        f"a {harness} file, not run records: {making} makes records of it; "
        "`agentruns show` and `agentruns stats` read it as it is"
    )


def _sessions_among(transcripts: tuple[str, ...], harness: str) -> bool:
    """Whether several transcripts are sessions an agent kept (each a run of its own: a shell
    glob over a folder of sessions), not rounds of one run it printed."""
    if len(transcripts) < 2 or "-" in transcripts:
        return False
    import stat

    from agentruns._harnesses import ROUNDS
    from agentruns.transcripts import detect

    for name in transcripts:
        try:
            if harness == "auto" and not stat.S_ISREG(os.stat(name).st_mode):
                continue  # a pipe is read once, by its run
            found = harness if harness != "auto" else detect(name)
        except Exception:  # however it fails to be read, its own run reports it
            continue
        if found not in ROUNDS and not found.endswith(".toml"):
            return True
    return False


def _refuse_folder(folder: str) -> None:
    """An output folder that cannot be one is a usage error, before any input is read."""
    path = Path(folder)
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if path.exists() and not path.is_dir():
        raise _Usage(f"-o {printable(folder)}: exists and is not a folder")
    if existing is not None and not existing.is_dir():
        raise _Usage(f"-o {printable(folder)}: {printable(str(existing))} is not a folder")
    if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
        raise _Usage(f"-o {printable(folder)}: {printable(str(existing))} cannot be written")
