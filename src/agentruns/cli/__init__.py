"""The ``agentruns`` command: detect, validate, convert, import, stats, export, show, schema.

Presentation only: a command turns its options into a run of the record pipeline
(``agentruns.pipeline``: the one loop that reads, handles and accounts for records and
sessions, in worker processes), says what each outcome means and renders one summary; safe
output is ``agentruns._output``. Kept out of ``import agentruns``: services that
only want the models do not pay for click and rich. Exit codes are ``EXIT_*`` (``_exits``, one
table, as README.md gives them).

One module a command (``_detect``, ``_validate``, ``_convert``, ``_import``, ``_stats``,
``_export``, ``_show``, ``_schema``), each registered on the group in ``_app``; what several
share: ``_options`` (the command line), ``_records`` (problems, losses, outputs), ``_sessions``
(which inputs are session files), ``_progress``; ``_run`` and ``_stopping`` end every run with
its exit code.
"""

from __future__ import annotations

# each command module registers its command on the group when imported
from agentruns.cli import (  # noqa: F401
    _convert,
    _detect,
    _export,
    _import,
    _schema,
    _show,
    _stats,
    _validate,
)
from agentruns.cli._app import main
from agentruns.cli._exits import EXIT_INVALID, EXIT_IO, EXIT_OK, EXIT_SOFTWARE, EXIT_USAGE
from agentruns.cli._run import run

__all__ = [
    "EXIT_INVALID",
    "EXIT_IO",
    "EXIT_OK",
    "EXIT_SOFTWARE",
    "EXIT_USAGE",
    "main",
    "run",
]
