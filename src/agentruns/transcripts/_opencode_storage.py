"""OpenCode's own storage: the JSON tree, and since 1.2 the SQLite database.

The tree (``~/.local/share/opencode/storage``): ``session/<project>/<id>.json`` (the
session), ``message/<session-id>/<id>.json`` (each message: ``role``, ``time``,
``modelID``, ``cost``, ``tokens``), ``part/<message-id>/<id>.json`` (text, tool calls with
their ``state``, step boundaries). The database (``opencode.db``) holds the same objects in
tables ``session``, ``message`` and ``part``, each row's object in its ``data`` column.
Either may hold many sessions: one is named ``<storage or db>#<session-id>`` (what
``sessions`` lists when a folder is imported).

OpenCode counts cache reads and writes and reasoning apart from ``input`` and ``output``: in
the one rule input is input plus both cache counts, output is output plus reasoning.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from pydantic import MISSING

from agentruns._json_text import compact
from agentruns._prices import billed_usd
from agentruns.errors import InputError
from agentruns.io import MAX_RECORD_SIZE
from agentruns.transcripts._stream import JsonObject, epoch_ms
from agentruns.transcripts._summary import Message, Summary, ToolCall
from agentruns_generated._json import JsonValue

_Session = tuple[JsonObject, list[JsonObject], dict[str, list[JsonObject]]]
"""A session's object, its messages in order, and each message's parts in order."""


def looks_like_session(value: JsonObject) -> bool:
    """An object of OpenCode's storage: a session (``session/<project>/<id>.json``), a
    message or a part (a lone file of the tree reads as the session of what it holds)."""
    if not isinstance(value.get("id"), str):
        return False
    time = value.get("time")
    if isinstance(time, dict) and (
        "projectID" in value  # (a session of a tree without a project has none)
        or (isinstance(time.get("created"), int) and ("title" in value or "version" in value))
    ):
        return True
    return isinstance(value.get("sessionID"), str) and (
        isinstance(value.get("messageID"), str) or value.get("role") in ("user", "assistant")
    )


SQLITE = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""


def is_database(path: str) -> bool:
    file = Path(path.partition("#")[0])
    if not file.is_file():
        return False
    with file.open("rb") as stream:
        return stream.read(16) == SQLITE


def storage_root(path: Path) -> Path | None:
    """The ``storage`` folder a path is (or lies in), if it is an OpenCode tree."""
    for candidate in (path, *path.parents):
        if (candidate / "session").is_dir() and (
            (candidate / "message").is_dir() or candidate.name == "storage"
        ):
            return candidate
    return None


def sessions(path: str) -> list[str]:
    """The sessions a storage tree or database holds, each as a name ``read`` takes
    (``InputError`` for a database that cannot be read as OpenCode's)."""
    base = Path(path)
    if is_database(path):
        with _connect(base) as db:
            found = []
            for info in _rows(db, "session", None, base):
                ident = info.get("id")
                if not isinstance(ident, str | int):
                    raise InputError(f"{path}: a session row without an id: not OpenCode's")
                found.append(f"{path}#{ident}")
            return found
    root = storage_root(base)
    if root is None:
        return []
    return [str(file) for file in sorted((root / "session").glob("*/*.json"))]


def read(path: str, summary: Summary) -> None:
    file, _, wanted = path.partition("#")
    if is_database(file):
        found = _from_database(Path(file), wanted or None, summary)
    else:
        found = _from_tree(Path(file), wanted or None, summary)
    if found is not None:
        _session(found, summary)


def _load(file: Path) -> JsonObject | None:
    try:
        if file.stat().st_size > MAX_RECORD_SIZE:
            return None
        value = json.loads(file.read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _from_tree(path: Path, wanted: str | None, summary: Summary) -> _Session | None:
    root = storage_root(path if path.is_dir() else path.parent)
    info: JsonObject | None = None
    if path.is_file():
        info = _load(path)
        if info is not None and "projectID" not in info and isinstance(info.get("sessionID"), str):
            return _lone(info)
    elif root is not None:
        files = sorted((root / "session").glob("*/*.json"))
        chosen = [f for f in files if wanted is None or f.stem == wanted]
        if len(chosen) > 1:
            raise InputError(
                f"{path}: holds {len(chosen)} sessions: import the folder, or name one "
                f"({path}#<session id>)"
            )
        if wanted is not None and not chosen:
            raise InputError(f"{path}#{wanted}: no session {wanted} in this OpenCode tree")
        info = _load(chosen[0]) if chosen else None
    if info is None or not isinstance(info.get("id"), str):
        raise InputError(f"{path}: not an OpenCode session")
    ident = str(info["id"])
    messages: list[JsonObject] = []
    parts: dict[str, list[JsonObject]] = {}
    if root is None:
        summary.problem(0, "no storage tree around the session file: its messages are not read")
        return info, messages, parts
    for file in sorted((root / "message" / ident).glob("*.json")):
        message = _load(file)
        if message is None:
            summary.problem(0, f"{file}: not a JSON object, skipped")
            continue
        messages.append(message)
        mid = message.get("id")
        if isinstance(mid, str):
            parts[mid] = [
                part
                for part in (_load(p) for p in sorted((root / "part" / mid).glob("*.json")))
                if part is not None
            ]
    return info, messages, parts


def _lone(found: JsonObject) -> _Session:
    """A message or part file by itself: the session of what it holds."""
    session: JsonObject = {"id": found["sessionID"]}
    if isinstance(found.get("messageID"), str):  # a part: of an assistant message
        message: JsonObject = {"id": found["messageID"], "role": "assistant"}
        return session, [message], {str(found["messageID"]): [found]}
    return session, [found], {}


READ_SECONDS = 120.0
"""How long reading one database may take: a query that runs past it (a view over an endless
recursive query, say) is interrupted and the database named as unreadable."""


def _connect(file: Path) -> sqlite3.Connection:
    """The database, read-only, with a progress handler: Python runs between SQLite's steps,
    so a stopping signal's handler runs too (a query in C would hold it back), and a read
    past ``READ_SECONDS`` is interrupted."""
    import time

    try:
        db = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise InputError(f"{file}: cannot open the database: {error}") from None
    deadline = time.monotonic() + READ_SECONDS
    db.set_progress_handler(lambda: time.monotonic() > deadline, 1_000)
    return db


def _rows(
    db: sqlite3.Connection, table: str, where: tuple[str, str] | None, file: Path | None = None
) -> Iterator[JsonObject]:
    """The objects of a table: each row's columns, with its ``data`` JSON merged in. Only a
    real table is read (a view may compute without end); a database error is an
    ``InputError`` naming the file."""
    try:
        yield from _table_rows(db, table, where)
    except sqlite3.Error as error:
        reason = "read for too long" if "interrupt" in str(error) else str(error)
        raise InputError(f"{file or 'database'}: cannot read table {table}: {reason}") from None


def _table_rows(
    db: sqlite3.Connection, table: str, where: tuple[str, str] | None
) -> Iterator[JsonObject]:
    kinds = db.execute("SELECT type FROM sqlite_master WHERE name = ?", (table,)).fetchall()
    if not kinds:
        return
    if kinds[0][0] != "table":
        raise sqlite3.DatabaseError(f"{table} is a {kinds[0][0]}, not a table")
    columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
    if not columns:
        return
    # a value past the record limit is not loaded (a tool output of hundreds of MB would
    # exhaust memory): its size is read instead, and the session refused with it
    chosen = ", ".join(
        f"CASE WHEN length({c}) > {MAX_RECORD_SIZE} THEN length({c}) ELSE {c} END"
        if c == "data"
        else c
        for c in columns
    )
    query = f"SELECT {chosen} FROM {table}"
    arguments: tuple[str, ...] = ()
    if where is not None and where[0] in columns:
        query += f" WHERE {where[0]} = ?"
        arguments = (where[1],)
    order = next((c for c in ("time_created", "id") if c in columns), None)
    if order is not None:
        query += f" ORDER BY {order}, id" if order != "id" else " ORDER BY id"
    for row in db.execute(query, arguments):
        values = dict(zip(columns, row, strict=True))
        data = values.pop("data", None)
        if isinstance(data, int) and data > MAX_RECORD_SIZE:  # its length, not loaded
            limit = f"{MAX_RECORD_SIZE:,}-byte record limit"
            raise sqlite3.DataError(f"a row holds {data:,} bytes of data, past the {limit}")
        merged: JsonObject = {
            _camel(k): v for k, v in values.items() if isinstance(v, str | int | float)
        }
        if isinstance(data, str | bytes):
            try:
                parsed = json.loads(data)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                merged.update(parsed)
        yield merged


def _camel(column: str) -> str:
    """``session_id`` is the JSON objects' ``sessionID``."""
    return {"session_id": "sessionID", "message_id": "messageID", "project_id": "projectID"}.get(
        column, column
    )


def _from_database(file: Path, wanted: str | None, summary: Summary) -> _Session | None:
    with _connect(file) as db:
        found = [
            s for s in _rows(db, "session", None, file) if wanted is None or s.get("id") == wanted
        ]
        if len(found) != 1:
            what = "no session" if not found else f"{len(found)} sessions"
            raise InputError(
                f"{file}: holds {what}" + ("" if wanted else f": name one ({file}#<session id>)")
            )
        info = found[0]
        ident = str(info.get("id"))
        messages = list(_rows(db, "message", ("session_id", ident), file))
        parts: dict[str, list[JsonObject]] = {}
        for part in _rows(db, "part", ("session_id", ident), file):
            mid = part.get("messageID")
            if isinstance(mid, str):
                parts.setdefault(mid, []).append(part)
    return info, messages, parts


def _session(found: _Session, summary: Summary) -> None:
    info, messages, parts = found
    ident = info.get("id")
    summary.session_id = ident if isinstance(ident, str) else None
    summary.says_version(info.get("version"))
    times = info.get("time")
    if isinstance(times, dict):
        summary.seen(epoch_ms(times.get("created")))
        summary.seen(epoch_ms(times.get("updated")))
    texts: list[str] = []
    for message in messages:
        _message(message, parts.get(str(message.get("id")), []), summary, texts)
    summary.cost_usd = summary.calls_cost()
    summary.saved(texts)


def _int(value: JsonValue) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _message(
    message: JsonObject, parts: list[JsonObject], summary: Summary, texts: list[str]
) -> None:
    times = message.get("time")
    at = epoch_ms(times.get("created")) if isinstance(times, dict) else None
    summary.seen(at)
    role = message.get("role")
    if role == "user":
        text = "\n".join(
            str(p["text"])
            for p in parts
            if p.get("type") == "text" and isinstance(p.get("text"), str)
        )
        if summary.prompt is None and text.strip():
            summary.prompt = text
        return
    if role != "assistant":
        return
    cost = billed_usd(message.get("cost"))
    tokens = message.get("tokens")
    if not isinstance(tokens, dict) and cost is not None:
        summary.add_usage(at=at, cost=cost)  # a cost without counts: a call of no tokens
    if isinstance(tokens, dict):
        cache = tokens.get("cache")
        read_ = _int(cache.get("read")) if isinstance(cache, dict) else 0
        write = _int(cache.get("write")) if isinstance(cache, dict) else 0
        reasoning = _int(tokens.get("reasoning"))
        model = message.get("modelID")
        summary.add_usage(
            input=_int(tokens.get("input")) + read_ + write,
            output=_int(tokens.get("output")) + reasoning,
            cache_creation=write,
            cache_read=read_,
            reasoning=reasoning,
            model=model if isinstance(model, str) else None,
            at=at,
            cost=cost,
        )
    for part in parts:
        _part(part, summary, texts, at)


def _part(part: JsonObject, summary: Summary, texts: list[str], at: datetime | None) -> None:
    kind = part.get("type")
    if kind == "text":
        text = part.get("text")
        if isinstance(text, str) and text.strip() and not part.get("synthetic"):
            texts.append(text)
            summary.events.append(Message(text, 0, at))
    elif kind == "tool":
        state = part.get("state")
        state = state if isinstance(state, dict) else {}
        times = state.get("time")
        started = epoch_ms(times.get("start")) if isinstance(times, dict) else None
        summary.seen(started)
        summary.seen(epoch_ms(times.get("end")) if isinstance(times, dict) else None)
        output = state.get("output", state.get("error"))
        name = part.get("tool")
        ident = part.get("callID")
        summary.events.append(
            ToolCall(
                name=name if isinstance(name, str) else "?",
                ordinal=summary.next_ordinal(),
                args=state.get("input", MISSING),
                result=None
                if output is None
                else output
                if isinstance(output, str)
                else compact(output),
                call_id=ident if isinstance(ident, str) else None,
                is_error=state.get("status") == "error",
                at=started or at,
            )
        )
    elif isinstance(kind, str) and kind not in ("step-start", "step-finish", "reasoning"):
        summary.skipped[f"part:{kind}"] += 1
