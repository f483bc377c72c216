"""The package's layers: no module imports one that imports it back, however late.

Every import statement counts, at the top of a module or inside a function (a deferred
import is still a dependency), except those under ``if TYPE_CHECKING`` (types only). A
circle makes a newcomer read both modules to understand either, and breaks when one is
imported first."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).parent.parent / "src"


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    pending: list[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"))]
    while pending:
        node = pending.pop()
        if _type_checking(node):
            continue
        pending.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {module for module in found if module in modules and module != name}


def _circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                circles.append(frozenset(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return circles


def test_no_module_imports_one_that_imports_it_back() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert [sorted(group) for group in _circles(graph)] == []


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [frozenset({"a", "b", "c"})]


def test_the_formats_import_neither_the_registry_nor_the_conversion() -> None:
    modules = _modules()
    for name, path in modules.items():
        if name.startswith("agentruns.formats"):
            assert "agentruns.conversion" not in _imports(name, path, modules), name


def test_the_readers_import_neither_the_batch_engine_nor_the_command() -> None:
    modules = _modules()
    upper = {"agentruns.batch", "agentruns.engine", "agentruns.cli", "agentruns.distributed"}
    for name, path in modules.items():
        if name.startswith("agentruns.transcripts"):
            assert not _imports(name, path, modules) & upper, name


def test_the_pipeline_imports_none_of_its_steps_commands_or_engines() -> None:
    """The loop and its sources know nothing of what runs on them: the steps (statistics,
    tables, traces), the batch functions, the command and Dask import the pipeline, never
    the other way round."""
    modules = _modules()
    above = {
        "agentruns.batch",
        "agentruns.engine",
        "agentruns.cli",
        "agentruns.distributed",
        "agentruns.stats",
        "agentruns.tables",
        "agentruns.otlp",
        "agentruns.show",
    }
    for name, path in modules.items():
        if name.startswith("agentruns.pipeline"):
            found = {
                m
                for m in _imports(name, path, modules)
                if m.split(".")[:2] != ["agentruns", "pipeline"]
            }
            assert not {m for m in found if any(m == a or m.startswith(a + ".") for a in above)}, (
                name
            )


def test_the_readers_do_not_import_the_pipeline() -> None:
    modules = _modules()
    for name, path in modules.items():
        if name.startswith("agentruns.transcripts"):
            found = _imports(name, path, modules)
            assert not {m for m in found if m.startswith("agentruns.pipeline")}, name
