"""Developer sessions. `python -m nox` runs the CI set: check, lint, typecheck, tests."""

from __future__ import annotations

import nox

nox.options.sessions = ["check", "lint", "typecheck", "tests"]
nox.options.reuse_venv = "yes"
nox.options.error_on_missing_interpreters = True

PYTHON = "3.11"


def _install(session: nox.Session, extras: str) -> None:
    session.install("-e", f".[{extras}]")


@nox.session(python=PYTHON)
def generate(session: nox.Session) -> None:
    """Regenerate generated/ from schemas/ (and record changed schema hashes)."""
    _install(session, "codegen")
    session.run("python", "-m", "codegen", "generate", *session.posargs)


@nox.session(python=PYTHON)
def check(session: nox.Session) -> None:
    """Fail with a diff when generated/ is not what schemas/ produce."""
    _install(session, "codegen")
    session.run("python", "-m", "codegen", "check")


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    session.install("ruff==0.17.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy --strict over hand-written code, build step, generated models and tests."""
    _install(session, "dev")
    session.run("mypy", "src", "codegen", "generated", "tests", "noxfile.py")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    _install(session, "dev")
    session.run("pytest", *session.posargs)


@nox.session(python=PYTHON)
def fidelity(session: nox.Session) -> None:
    """Print the differential fidelity report (`-- --profile long` for the long run)."""
    _install(session, "dev")
    session.run("python", "-m", "tests.fidelity", *session.posargs)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Print the benchmarks (validate, convert, memory, import); `-- --records N` to size."""
    _install(session, "dev")
    session.run("python", "-m", "tests.bench", *session.posargs)
