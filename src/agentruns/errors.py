"""Every error agentruns raises on purpose, under one root.

Catch ``AgentrunsError`` for all of them, or a branch for one kind of trouble. Each keeps the
built-in base it had (``ValueError`` for a bad value, ``ImportError`` for a missing optional
dependency, ``TypeError`` for an object of no known format), so older ``except`` clauses still
hold.

::

    AgentrunsError
    ├── FormatError          no such format, or no format for this model (ValueError, TypeError)
    ├── InputError           an input that cannot be read at all (no such file, a folder)
    ├── OutputError          an output that cannot or must not be written
    ├── ConversionError      a run no record of the target format can hold (ValueError)
    │   └── LossError        strict mode: the conversion would lose values
    ├── RecordError          an imported run that is no valid record of its format (ValueError)
    ├── TranscriptError      a transcript that cannot be read at all (ValueError)
    │   └── DescriptorError  a harness description that cannot be used
    ├── ClusterError         a cluster that cannot finish: no worker left, or workers dying
    └── MissingDependency    an optional extra is not installed (ImportError)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentruns._results import Loss

__all__ = [
    "AgentrunsError",
    "ClusterError",
    "ConversionError",
    "DescriptorError",
    "FormatError",
    "InputError",
    "LossError",
    "MissingDependency",
    "OutputError",
    "RecordError",
    "TranscriptError",
]


class AgentrunsError(Exception):
    """The root of every error agentruns raises on purpose."""


class FormatError(AgentrunsError, ValueError, TypeError):
    """A format name that is not registered, or a model no registered format reads."""


class InputError(AgentrunsError):
    """An input that cannot be read at all (missing, a directory, unreadable)."""


class OutputError(AgentrunsError):
    """An output that cannot or must not be written (refused before any input is read)."""


class ConversionError(AgentrunsError, ValueError):
    """A run that no record of the target format can hold (a value the target's schema
    refuses): says the target, the pointer and why."""


class LossError(ConversionError):
    """Raised in strict mode when a conversion would lose source values."""

    def __init__(self, source: str, target: str, losses: Sequence[Loss]) -> None:
        self.losses = tuple(losses)
        listed = "\n".join(f"  {loss}" for loss in self.losses)
        super().__init__(f"converting {source} to {target} would lose:\n{listed}")


class RecordError(AgentrunsError, ValueError):
    """The run cannot be made a valid record of the format: values missing or not valid."""

    def __init__(self, message: str, problems: tuple[tuple[str, str], ...]) -> None:
        super().__init__(message)
        self.problems = problems


class TranscriptError(AgentrunsError, ValueError):
    """A transcript that cannot be read at all: no such file, no harness recognized, a bad
    descriptor or conversation file."""


class DescriptorError(TranscriptError):
    """A harness description that cannot be used, with where and why."""


class ClusterError(AgentrunsError):
    """A cluster that cannot finish the work: no worker left for longer than the caller
    waits, or a part whose workers kept dying; says which, and nothing is written."""


class MissingDependency(AgentrunsError, ImportError):
    """An optional extra is not installed; the message says how to install it."""
