"""The package's layout rules, read from its source: no import cycles, and a core that never imports pytest."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_crucible

PACKAGE = Path(pytest_crucible.__file__).resolve().parent
PYTEST_FACING = "pytest_crucible.pytest_plugin."  # the package of modules that may import pytest


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("pytest_crucible",) + path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every module of the package (or outside name) that `name` imports, at any depth of its code."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else node.module or ""
            submodules = [f"{base}.{alias.name}" for alias in node.names]
            named = [m for m in submodules if m in modules]
            found.update(named)
            if len(named) < len(submodules):
                found.add(base)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: {m for m in _imports(name, path, modules) if m in modules and m != name}
            for name, path in modules.items()}


def _cycle_from(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    stack, seen = [(start, [start])], set()
    while stack:
        node, path = stack.pop()
        for nxt in graph[node]:
            if nxt == start:
                return path + [start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, path + [nxt]))
    return None


def test_no_module_imports_itself_back():
    graph = _graph()
    assert {"pytest_crucible.engine.item_runner", "pytest_crucible.speed.item_kind", "pytest_crucible.local.displace"} <= set(graph)
    cycles = [cycle for name in sorted(graph) if (cycle := _cycle_from(name, graph))]
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_core_never_imports_pytest():
    modules = _modules()
    offenders = sorted(name for name, path in modules.items() if not name.startswith(PYTEST_FACING)
                       and any(m == "pytest" or m.startswith(("pytest.", "_pytest")) for m in _imports(name, path, modules)))
    assert not offenders
