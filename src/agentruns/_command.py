"""The console script's entry point, before the command's libraries are imported.

The command's libraries (click, and rich with its Markdown and syntax highlighting) are the
``cli`` extra, so a service that installs agentruns for its models gets no terminal libraries.
Installed without them, the command says what to install instead of a traceback.
"""

from __future__ import annotations

import sys
from importlib import import_module

EXTRA = "cli"
"""The extra that installs the command's libraries (``pip install 'agentruns[cli]'``)."""

LIBRARIES = ("click", "rich")
"""What the command imports beyond the library (the ``cli`` extra in pyproject.toml)."""

EXIT_MISSING = 2
"""The command's usage-error code: the installation, not an input, is what is wrong."""


def missing() -> list[str]:
    """The command's libraries that cannot be imported (not installed, or broken)."""
    absent = []
    for name in LIBRARIES:
        try:
            import_module(name)
        except ImportError:
            absent.append(name)
    return absent


def run() -> None:
    """``agentruns``: the command, or what to install to have it."""
    absent = missing()
    if absent:
        sys.stderr.write(
            f"agentruns: the command needs {' and '.join(absent)} (the {EXTRA!r} extra): "
            f"pip install 'agentruns[{EXTRA}]'\n"
        )
        sys.exit(EXIT_MISSING)
    from agentruns.cli import run as command

    command()
