"""Diagnostics: what the build step assumed or refused, and where.

Every translation or normalisation that cannot follow the input literally records a
diagnostic naming the file and the JSON pointer, so a maintainer reading the build output
knows exactly which part of a schema was interpreted, and ``--strict`` can refuse it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Severity(enum.Enum):
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True)
class Diagnostic:
    source: str
    pointer: str
    message: str
    severity: Severity = Severity.WARNING

    def __str__(self) -> str:
        where = self.pointer or "/"
        return f"{self.source}: {where}: {self.severity.value}: {self.message}"


class CodegenError(Exception):
    """A schema the build step cannot turn into models; carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(str(d) for d in diagnostics))


@dataclass
class DiagnosticSink:
    """Collects diagnostics for one source file."""

    source: str
    items: list[Diagnostic] = field(default_factory=list)

    def warn(self, pointer: str, message: str) -> None:
        self.items.append(Diagnostic(self.source, pointer, message, Severity.WARNING))

    def error(self, pointer: str, message: str) -> None:
        self.items.append(Diagnostic(self.source, pointer, message, Severity.ERROR))

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity is Severity.ERROR]

    def raise_if(self, *, strict: bool) -> None:
        """Raise when there are errors, or any diagnostic at all in strict mode."""
        failing = self.items if strict else self.errors
        if failing:
            raise CodegenError(
                [Diagnostic(d.source, d.pointer, d.message, Severity.ERROR) for d in failing]
            )
