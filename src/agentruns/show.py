"""A run as a person wants to read it, for any format: header, then a timeline (rich).

Every string from the record is shown as plain text (never rich markup) with control
characters escaped: a record must not be able to drive the terminal it is shown on.
"""

from __future__ import annotations

import json
from datetime import datetime

from pydantic import MISSING, BaseModel, JsonValue
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from agentruns._text import printable
from agentruns.canonical import Run, RunStep
from agentruns.conversion import to_canonical
from agentruns.derivations import (
    Derivation,
    derive_duration_ms,
    derive_status,
    derive_total_tokens,
)
from agentruns_generated._json import date_time_text

__all__ = [
    "header",
    "render",
    "render_run",
    "timeline",
]


def _text(value: object) -> Text:
    if value is MISSING or value is None:
        return Text("-")
    if isinstance(value, datetime):  # as the record writes it
        return Text(date_time_text(value))
    return Text(printable(str(value)))


def _brief(value: JsonValue | MISSING, width: int = 60) -> str:
    if value is MISSING:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def header(run: Run, fmt: str) -> Table:
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    rows: list[tuple[str, object]] = [
        ("format", fmt),
        ("run", run.run_id if run.run_id is not MISSING else run.eval_id),
        ("agent", run.agent_id),
        ("status", _status(run)),
        ("goal", _brief(run.goal, 100) or MISSING),
        ("started", run.started_at),
        ("ended", run.ended_at),
        ("duration ms", _derived(run.duration_ms, derive_duration_ms(run))),
        ("tokens", _tokens(run)),
        ("cost usd", run.cost_usd),
    ]
    for label, value in rows:
        if value is not MISSING:
            table.add_row(Text(label), _text(value))
    return table


def _derived(recorded: object, derivation: Derivation[object] | None) -> object:
    """What the record says; else the derived value, marked so a reader knows it is."""
    if recorded is not MISSING or derivation is None:
        return recorded
    return f"{derivation.value} (derived: {derivation.reason})"


def _status(run: Run) -> object:
    return _derived(run.status, derive_status(run))


def _tokens(run: Run) -> object:
    if run.total_tokens is not MISSING or derive_total_tokens(run) is not None:
        return _derived(run.total_tokens, derive_total_tokens(run))
    if isinstance(run.input_tokens, int) or isinstance(run.output_tokens, int):
        return f"{_text(run.input_tokens)} in / {_text(run.output_tokens)} out"
    return MISSING


def timeline(steps: tuple[RunStep, ...], started: object = None, width: int = 80) -> Table:
    """One line a step, to fit ``width`` columns: the time of day (the date too when the
    step is on another day than the run began), the kind, the name (a failed step's status
    beside it) and its text on one line, cut to what is left of the width."""
    if not isinstance(started, datetime):
        started = next((s.started_at for s in steps if isinstance(s.started_at, datetime)), None)
    day = started.date() if isinstance(started, datetime) else None
    rows: list[tuple[Text, Text, Text, Text, str]] = []
    for position, step in enumerate(steps):
        detail = (
            step.message
            if isinstance(step.message, str)
            else _brief(step.input) or _brief(step.output)
        )
        if isinstance(step.activity, str) and not detail:
            detail = _brief(step.activity)
        name = _text(step.name)
        if isinstance(step.status, str) and step.status not in _FINE:
            name.append(f" ({printable(step.status)})", style="bold red")
        name.truncate(_NAME, overflow="ellipsis")
        rows.append(
            (
                _text(step.index if step.index is not MISSING else position),
                _moment(step.started_at, day),
                _text(step.kind),
                name,
                printable(" ".join((detail or "").split())),
            )
        )
    used = sum(max((len(row[i]) for row in rows), default=1) for i in range(4))
    left = max(_LEAST, width - used - 16)  # the columns' padding, the table's edges
    table = Table(title="timeline", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False)
    for column in ("#", "at", "kind", "name"):
        table.add_column(column, no_wrap=True, justify="right" if column == "#" else "left")
    table.add_column("detail", no_wrap=True, overflow="ellipsis")
    for index, at, kind, name, detail in rows:
        table.add_row(index, at, kind, name, Text(_cut(detail, left)))
    return table


_NAME = 24
"""The widest a step's name is shown."""
_LEAST = 20
"""The narrowest the detail column gets (a narrow terminal wraps the line instead)."""


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


_FINE = frozenset({"ok", "success", "succeeded", "completed", "done"})
"""Step statuses that say nothing went wrong (not marked)."""


def _moment(at: object, day: object) -> Text:
    """A step's time of day, in the offset the record gives it; with its date when it is not
    the day the run began."""
    if not isinstance(at, datetime):
        return Text("-")
    shown = at.strftime("%H:%M:%S") if at.date() == day else at.strftime("%Y-%m-%d %H:%M:%S")
    return Text(shown)


class _Console(Console):
    def on_broken_pipe(self) -> None:
        # rich exits 1 (the command's code for invalid input); a closed pipe is not that
        self.quiet = True
        raise BrokenPipeError


def render(record: BaseModel, fmt: str, console: Console | None = None) -> None:
    render_run(to_canonical(record), fmt, console)


def render_run(run: Run, fmt: str, console: Console | None = None) -> None:
    """A run (a record's, or a session file's) as a header and a timeline."""
    console = console or _Console()
    console.print(header(run, fmt))
    steps = run.steps if isinstance(run.steps, tuple) else ()
    if steps:
        console.print(timeline(steps, run.started_at, console.width))
    else:
        console.print("(no steps recorded)")
