"""``agentruns schema``."""

from __future__ import annotations

import click

from agentruns.cli._app import main
from agentruns.cli._options import _EPILOG, _FormatChoice
from agentruns.schemas import schema_text


@main.command(
    "schema",
    epilog=_EPILOG,
    short_help="Print the JSON Schema of a format.",
    help="Print the JSON Schema the models enforce for a format (for agentrun, the "
    "translation of its JSON Structure schema).",
)
@click.argument("format_name", type=_FormatChoice())
@click.option("--source", is_flag=True, help="The vendored original (JSON Structure for agentrun).")
def schema_command(format_name: str, source: bool) -> None:
    text = schema_text(format_name, source=source)
    click.echo(text, nl=not text.endswith("\n"))
