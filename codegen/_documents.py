"""Documents beside a schema, which it may name: by ``$id`` or by file name.

The build step never fetches anything; what a schema names outside itself (a JSON Structure
``$import``, a JSON Schema ``$ref`` to another file) is looked up among the JSON files of the
schema's own folder, read once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from codegen._json import Json

MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
"""A file beside the schema larger than this is not read as a document it may name."""

Loader = Callable[[str], Json | None]
"""An imported URI -> its document, or None when there is no such local document."""


def folder_loader(folder: Path) -> Loader:
    """Documents of ``folder`` by their ``$id``, or by file name (read once, on first use)."""
    found: dict[str, Json] = {}
    loaded = False

    def load(uri: str) -> Json | None:
        nonlocal loaded
        if not loaded:
            loaded = True
            for path in sorted(folder.glob("*.json")):
                try:
                    # a FIFO or a device would block or never end; a huge file is no schema
                    if not path.is_file() or path.stat().st_size > MAX_DOCUMENT_BYTES:
                        continue
                    document = json.loads(path.read_text(encoding="utf-8"))
                except (OSError, ValueError, RecursionError):
                    continue
                found.setdefault(path.name, document)
                if isinstance(document, dict) and isinstance(document.get("$id"), str):
                    found.setdefault(document["$id"], document)
        name = uri.rstrip("#").rsplit("/", 1)[-1]
        return found.get(uri.rstrip("#"), found.get(name))

    return load
