"""JSON value types shared by the build step.

The build step reads and writes plain JSON documents; a precise recursive alias keeps
``mypy --strict`` honest about every place that inspects one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TypeAlias
from urllib.parse import urldefrag, urljoin

Json: TypeAlias = bool | int | float | str | list["Json"] | dict[str, "Json"] | None
JsonObject: TypeAlias = dict[str, Json]


def load_json(path: Path) -> Json:
    """Read a JSON document, refusing duplicate keys (a schema with them is ambiguous)."""

    def _no_duplicates(pairs: list[tuple[str, Json]]) -> JsonObject:
        result: JsonObject = {}
        for key, value in pairs:
            if key in result:
                raise ValueError(f"{path}: duplicate key {key!r}")
            result[key] = value
        return result

    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 (byte {error.start})") from None
    try:
        value: Json = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: line {error.lineno} column {error.colno}: {error.msg}") from None
    except RecursionError:
        raise ValueError(f"{path}: nested too deeply to read") from None
    return value


MAX_DEPTH = 128
"""Deepest JSON nesting the build step reads (about 60 levels of nested schemas): real
schemas stay far below it, and every pass may then recurse without exhausting the stack."""


def too_deep(value: Json, limit: int = MAX_DEPTH) -> str | None:
    """The JSON pointer of the first value nested deeper than ``limit``, if any."""
    stack: list[tuple[Json, int, str]] = [(value, 0, "")]
    while stack:
        node, depth, at = stack.pop()
        if depth > limit:
            return at
        if isinstance(node, dict):
            stack.extend((sub, depth + 1, at + pointer(key)) for key, sub in node.items())
        elif isinstance(node, list):
            stack.extend((sub, depth + 1, at + pointer(i)) for i, sub in enumerate(node))
    return None


def dump_json(value: Json) -> str:
    """Serialise deterministically: stable indentation, keys in schema order, final newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def escape_pointer_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def pointer(*tokens: str | int) -> str:
    """Build a JSON pointer (RFC 6901) from tokens."""
    return "".join("/" + escape_pointer_token(str(token)) for token in tokens)


_INDEX = re.compile(r"0|[1-9][0-9]*")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def resolve_pointer(document: Json, tokens: list[str]) -> Json | None:
    """The value at the JSON pointer ``tokens`` in ``document`` (None: there is none; a
    JSON null there is None too, which no caller resolves to)."""
    target = document
    for token in tokens:
        if isinstance(target, dict) and token in target:
            target = target[token]
        elif isinstance(target, list) and _INDEX.fullmatch(token) and int(token) < len(target):
            target = target[int(token)]
        else:
            return None
    return target


def join_uri(base: str, ref: str) -> str:
    """``ref`` resolved against ``base`` (RFC 3986), for URNs too, which ``urljoin`` leaves
    alone: a fragment replaces the base's, an absolute URI stands as it is."""
    if ref.startswith("#"):
        return urldefrag(base)[0] + ref
    if _SCHEME.match(ref):
        return ref
    return urljoin(base, ref)
