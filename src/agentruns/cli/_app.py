"""The ``agentruns`` group every command is registered on."""

from __future__ import annotations

import click

from agentruns._depth import make_room
from agentruns.cli._exits import _PipeClosed
from agentruns.cli._options import _COMPLETION, _EPILOG, _with_plugins


class _Commands(click.Group):
    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # the formats registered when the help is shown (plugins too), not at import
        from agentruns.conversion import models_by_name

        names = ", ".join(sorted(models_by_name()))
        self.help = f"Typed AI agent run records: {names}; and the session files agents keep."
        super().format_help_text(ctx, formatter)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as error:
            raise _PipeClosed from error


@click.group(
    cls=_Commands,
    epilog=f"{_EPILOG}\n\n{_COMPLETION}",
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(package_name="agentruns")
def main() -> None:
    """The command line: one subcommand per job (its --help says how)."""
    make_room()  # what the models validate, every command follows (agentruns._depth)
    _with_plugins()
