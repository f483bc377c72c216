"""JSON pointers (RFC 6901): the one place a key becomes a pointer token and back.

A leaf module: every loss, derived value, problem and carried place is a pointer, and a key
holding ``/`` or ``~`` must be escaped the same way wherever one is made or read."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["escape", "join", "split", "unescape"]


def escape(token: str) -> str:
    """A key as a pointer token: ``~`` as ``~0``, then ``/`` as ``~1``."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """A pointer token as the key it names (``~1`` first, so ``~01`` stays ``~1``)."""
    return token.replace("~1", "/").replace("~0", "~")


def join(tokens: Iterable[str | int]) -> str:
    """The pointer to a place given by its keys and indexes (``""`` for the whole document)."""
    return "".join("/" + escape(str(token)) for token in tokens)


def split(pointer: str) -> list[str]:
    """The keys and indexes (as text) a pointer names; none for ``""``."""
    if not pointer:
        return []
    return [unescape(token) for token in pointer[1:].split("/")]
