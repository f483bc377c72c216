"""Import a generated module from a file, as a test imports what the build step just wrote."""

from __future__ import annotations

import importlib.util
import itertools
import sys
import tempfile
from pathlib import Path
from types import ModuleType

_SCRATCH = tempfile.TemporaryDirectory(prefix="agentruns-tests-")
"""One folder per test process for the code ``load_source`` loads, removed when the process
exits (the conformance suites load thousands of modules: a folder each stayed behind in the
system's temporary folder, 19,017 after some runs)."""

_NUMBERS = itertools.count()


def load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_source(code: str, name: str) -> ModuleType:
    """``code`` imported as the module ``name``, from a file of its own in the process's
    scratch folder. Each file is new (a number in its name): a module loaded again with
    other code is never read from the byte-code cache of the first one, whose file had the
    same size and time."""
    path = Path(_SCRATCH.name) / f"{name}_{next(_NUMBERS)}.py"
    path.write_text(code, encoding="utf-8")
    return load_module(path, name)
