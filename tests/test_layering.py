"""The package's layering, read from the source: no package imports one that imports it back (lazy imports
inside functions count: they are edges all the same), and Dagster is imported only at the edge."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "right_rag_dagster"
DAGSTER_EDGE = {"orchestration"}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path) -> set[str]:
    """Every module this one imports, at the top or inside a function (``if TYPE_CHECKING`` blocks excepted)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.ImportFrom):
                base = package[:len(package) - child.level + 1] if child.level else []
                module = ".".join(base + ([child.module] if child.module else []))
                found.update([module] + [f"{module}.{alias.name}" for alias in child.names])
            elif isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def _layer(module: str) -> str:
    """``right_rag_dagster.pipeline.runner`` -> ``pipeline``; a top-level module is its own layer."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _layer_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        for target in _imports(name, path) & modules.keys():
            if _layer(name) != _layer(target) and target != "right_rag_dagster":
                graph[_layer(name)].add(_layer(target))
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one layer (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def strong(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                strong(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            strong(node)
    return found


def test_no_layer_imports_a_layer_that_imports_it_back():
    graph = _layer_graph()
    assert graph["store"] <= {"core", "errors", "terminal"}, graph["store"]
    assert "cli" not in set().union(*(graph[layer] for layer in graph if layer not in ("cli", "__main__"))), dict(graph)
    assert _cycles(graph) == []


def test_dagster_is_imported_only_at_the_edge():
    offenders = sorted(name for name, path in _modules().items()
                       if _layer(name) not in DAGSTER_EDGE
                       and any(m == "dagster" or m.startswith("dagster.") for m in _imports(name, path)))
    assert offenders == []


def test_the_check_sees_a_circle_when_there_is_one():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


SQL_METHODS = {"execute", "executemany", "sql"}
SQL_OUTSIDE_STORE = {
    "right_rag_dagster.orchestration.storage": "a PRAGMA on Dagster's SQLite run storage, not the DuckDB store",
    "right_rag_dagster.retrieval.stemmer": "stems query words in a private in-memory DuckDB, not the store",
}
"""Modules outside ``store/`` allowed to run SQL, each with the reason."""


def _sql_calls(path: Path) -> int:
    """Calls of ``x.execute(...)``/``x.sql(...)``, and of ``execute(...)`` (``store.sql.execute``)."""
    calls = 0
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            calls += name in SQL_METHODS
    return calls


def test_only_the_store_runs_sql():
    outside = {name for name, path in _modules().items() if _layer(name) != "store" and _sql_calls(path)}
    assert sorted(outside - SQL_OUTSIDE_STORE.keys()) == []
    assert sorted(SQL_OUTSIDE_STORE.keys() - outside) == []  # an entry whose SQL moved is dropped from the list
