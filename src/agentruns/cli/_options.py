"""What several commands share on their command line: the format choice (registered
formats, plugins included, read when first needed), the batch options, the help texts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from agentruns._report import OUTPUT_FORMATS
from agentruns._text import printable
from agentruns.detect import MODELS
from agentruns.io import MAX_RECORD_SIZE


def _load_plugin_formats() -> None:
    """Register the formats other packages offer (entry point group ``agentruns.formats``:
    a ``Format`` instance each), so an adapter reaches every command by its name."""
    from importlib.metadata import entry_points

    from agentruns.conversion import Format, register

    for point in entry_points(group="agentruns.formats"):
        try:
            offered = point.load()
        except Exception as error:  # a broken plugin must not break the command
            click.echo(
                printable(f"warning: format plugin {point.name!r} did not load: {error}"), err=True
            )
            continue
        if isinstance(offered, Format):
            register(offered)
        else:
            click.echo(
                printable(f"warning: format plugin {point.name!r} is not a Format instance"),
                err=True,
            )


_PLUGINS: list[bool] = []


def _with_plugins() -> None:
    """The plugins registered, once per process, when a command first needs the formats."""
    if not _PLUGINS:
        _PLUGINS.append(True)
        _load_plugin_formats()


def _format_names() -> list[str]:
    """Every registered format's name, plugins included (loading the formats: a command
    that reads only session files never calls it)."""
    _with_plugins()
    return sorted(MODELS)


class _FormatChoice(click.Choice[str]):
    """A registered format's name (or ``auto``), the formats read when first needed: naming
    the choices when the command is built would load every format's models at start-up."""

    def __init__(self, *, auto: bool = False) -> None:
        super().__init__((), case_sensitive=True)
        self._auto = auto

    @property
    def choices(self) -> tuple[str, ...]:
        names = tuple(_format_names())
        return ("auto", *names) if self._auto else names

    @choices.setter
    def choices(self, value: tuple[str, ...]) -> None:
        pass  # the registry is the one list

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if self._auto and value == "auto":
            return "auto"  # the default of every reading command: no format loaded for it
        return super().convert(value, param, ctx)


_EPILOG = (
    "Exit codes: 0 ok; 1 invalid or unreadable input; 2 usage error (bad options, a refused "
    "output); 70 a bug of ours; 74 an output could not be written (disk full); 129/130/143 "
    "stopped by SIGHUP/Ctrl-C/SIGTERM (no output file written); 141 the reader of stdout left."
)
_COMPLETION = (
    'Shell completion: eval "$(_AGENTRUNS_COMPLETE=bash_source agentruns)" in ~/.bashrc '
    "(zsh_source, fish_source for zsh and fish)."
)

_MAX_ERRORS_HELP = "Print at most N problem lines (then a count); 0 = all. [default: 100]"


_JOBS_HELP = (
    "Worker processes for JSONL input [default: one per available CPU; at most that]; 1 = "
    "none, all in this process. Output and messages are the same and in the same order."
)


def _batch_options(function: Callable[..., None]) -> Callable[..., None]:
    for option in (
        click.option(
            "--max-errors", type=click.IntRange(min=0), default=100, help=_MAX_ERRORS_HELP
        ),
        click.option(
            "--max-record-size",
            type=click.IntRange(min=1),
            default=MAX_RECORD_SIZE,
            show_default=True,
            help="Largest record (a JSONL line or a JSON file) read, in bytes; a larger one "
            "is rejected unread and reading goes on.",
        ),
        click.option("--jobs", "-j", type=click.IntRange(min=1), help=_JOBS_HELP),
    ):
        function = option(function)
    return function


def _output_format(function: Callable[..., None]) -> Callable[..., None]:
    return click.option(
        "--output-format",
        "shape",
        type=click.Choice(OUTPUT_FORMATS),
        default="text",
        show_default=True,
        help="Messages for people (text), programs (json: one object per line) or GitHub "
        "Actions (github: annotations).",
    )(function)


_jsonl_option = click.option(
    "--jsonl",
    is_flag=True,
    help="Read every input as JSON Lines (default: by extension, and a .json file whose "
    "first line is a whole record and is followed by more is lines).",
)
_rejects_option = click.option(
    "--rejects", help="Write rejected records here (JSONL: the original text and the error)."
)


def _format_option(what: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``--format auto|portable|...``, one definition for every command that reads records."""
    return click.option(
        "--format",
        "fmt",
        type=_FormatChoice(auto=True),
        default="auto",
        show_default=True,
        help=what,
    )


def _harness_help() -> str:
    """Every built-in harness, from the one list of them (``agentruns.transcripts``)."""
    from typing import get_args

    from agentruns._harnesses import HarnessName  # no reader is imported: names only

    names = ", ".join(get_args(HarnessName))
    return (
        f"The harness that wrote the transcripts: {names}; auto (recognized from what the "
        "file holds), or an eval-magic harness descriptor (FILE.toml)."
    )
