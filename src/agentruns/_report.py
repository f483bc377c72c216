"""Problem messages in three shapes: for people (``text``), for programs (``json``, one
object per line) and for GitHub Actions (``github`` workflow commands, which become
annotations on the file and line).

Every message names the file, the line and column of the offending value (found from the
record's text only when there is a problem, see ``_positions``), the JSON pointer and the
format. The JSON shape is documented in README.md and held by a golden test: keys are
``kind``, ``file``, ``line``, ``column``, ``pointer``, ``format``, ``message``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

import click

if TYPE_CHECKING:
    from rich.console import Console

from agentruns._positions import locate
from agentruns._text import printable

OutputFormat = Literal["text", "json", "github"]
OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("text", "json", "github")

Kind = Literal["detected", "invalid", "rejected", "loss", "unreadable"]
"""What a message says: a document's format found, a document invalid, a record not
converted, a value a conversion lost, an input that could not be read."""

_LEVEL: dict[Kind, str] = {
    "detected": "notice",
    "invalid": "error",
    "rejected": "error",
    "loss": "warning",
    "unreadable": "error",
}


def _github_escape(text: str, *, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


_LIVE: list[Console] = []
"""The console of the progress display on screen, if one is (messages go above it)."""


def showing(console: Console | None) -> None:
    """Messages go above ``console``'s live display from now on (None: it has ended)."""
    _LIVE[:] = [] if console is None else [console]


def emit(line: str, *, err: bool) -> None:
    """Print a message line: above the progress display when it shares the screen with it
    (a line written under it would be glued to the spinner), else as it is."""
    if _LIVE and (err or sys.stdout.isatty()):
        from rich.text import Text

        _LIVE[0].print(Text(line), soft_wrap=True)
    else:
        click.echo(line, err=err)


class Reporter:
    """Writes messages in the chosen shape; text and GitHub lines stop after ``limit`` (0:
    no limit), JSON lines never do (a program reading them wants them all)."""

    def __init__(
        self, shape: OutputFormat, limit: int = 0, quiet: bool = False, err: bool = False
    ) -> None:
        self.shape = shape
        self.limit = limit
        self.quiet = quiet
        self.err = err
        self.shown = 0
        self.held_back = 0

    def _emit(self, line: str) -> None:
        if self.shape != "json":
            if self.quiet:
                return
            if self.limit and self.shown >= self.limit:
                self.held_back += 1
                return
        self.shown += 1
        emit(line, err=self.err)

    def note(self, text: str) -> None:
        """A message that is about no single value (a transcript's problem, say), as text."""
        self._emit(printable(text))

    def say(
        self,
        kind: Kind,
        file: str,
        line: int,
        message: str | None,
        *,
        raw: bytes | Callable[[], bytes] | None = None,
        pointer: str | None = None,
        fmt: str | None = None,
    ) -> None:
        """One message; ``raw``, the document it is about (or how to get it: it is read
        only for a message that is written), where its line and column are found."""
        if self.shape != "json":
            # a line held back is counted, nothing of it worked out: finding a value's line
            # and column walks the document's text (50,000 invalid records, 150,000 messages, spent
            # 8 of its 12 seconds placing the messages that were never printed)
            if self.quiet or (self.shape == "github" and kind == "detected"):
                return
            if self.limit and self.shown >= self.limit:
                self.held_back += 1
                return
        column: int | None = None
        if raw is not None and kind != "detected":
            document = raw if isinstance(raw, bytes) else raw()
            lines, column = locate(document, pointer or "", message or "")
            line += lines
        if self.shape == "json":
            entry = {
                "kind": kind,
                "file": file,
                "line": line,
                "column": column,
                "pointer": pointer,
                "format": fmt,
                "message": message,
            }
            self._emit(json.dumps(entry, ensure_ascii=True))
        elif self.shape == "github":
            if kind == "detected":
                return
            where = f"file={_github_escape(file, property_value=True)},line={line}"
            if column is not None:
                where += f",col={column}"
            title = f"agentruns {fmt}" if fmt else "agentruns"
            where += f",title={_github_escape(title, property_value=True)}"
            text = f"{pointer or '/'}: {message}" if pointer is not None else str(message)
            self._emit(f"::{_LEVEL[kind]} {where}::{_github_escape(text)}")
        else:
            self._emit(printable(_text(kind, file, line, column, message, pointer, fmt)))

    def summary(self, where: str) -> str:
        if not self.held_back:
            return ""
        return f"; {self.held_back} more problem lines not printed ({where})"


def _text(
    kind: Kind,
    file: str,
    line: int,
    column: int | None,
    message: str | None,
    pointer: str | None,
    fmt: str | None,
) -> str:
    place = f"{file}:{line}" + (f":{column}" if column is not None else "")
    if kind == "detected":
        return f"{place}: {fmt}"
    if kind == "unreadable":
        return str(message)
    said = f"{pointer or '/'}: {message}" if pointer is not None else f"error: {message}"
    if kind == "rejected":
        return f"{place}: rejected: {said}"
    if kind == "loss":
        return f"{place}: lost: {said}"
    return f"{place}: {said}"
