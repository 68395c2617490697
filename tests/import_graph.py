"""The import graph of a package, read from its source (every import, at any depth)."""

from __future__ import annotations

import ast
from pathlib import Path


def module_name(path: Path, root: Path, package: str) -> str:
    """``package.sub.mod`` for ``root/sub/mod.py`` (``package.sub`` for its ``__init__``)."""
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((package, *parts))


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the modules of ``package`` it imports, module-level or inside functions.

    ``from a.b import c`` counts as importing ``a.b.c`` when that is a module, else ``a.b``.
    """
    paths = {module_name(p, root, package): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    targets.add(sub if sub in paths else node.module)
            elif isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
        graph[name] = {t for t in targets if t in paths and t != name}
    return graph


def import_cycles(root: Path, package: str) -> list[list[str]]:
    """The strongly connected groups of more than one module (each one an import cycle)."""
    graph = import_graph(root, package)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = [stack.pop()]
            while group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                cycles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles
