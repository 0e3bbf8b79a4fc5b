"""The package's layout rules, read from its source: no import cycles, a core that never imports pytest, the
layer contract in pyproject.toml (checked with import-linter) and a reason on every import inside a function."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pytest_crucible

PACKAGE = Path(pytest_crucible.__file__).resolve().parent
PYPROJECT = PACKAGE.parent / "pyproject.toml"
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
    assert {"pytest_crucible.engine.item_runner", "pytest_crucible.speed.item_kind", "pytest_crucible.local.displace",
            "pytest_crucible.analysis.run_end", "pytest_crucible.suite.grader_types"} <= set(graph)
    cycles = [cycle for name in sorted(graph) if (cycle := _cycle_from(name, graph))]
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_core_never_imports_pytest():
    modules = _modules()
    offenders = sorted(name for name, path in modules.items() if not name.startswith(PYTEST_FACING)
                       and any(m == "pytest" or m.startswith(("pytest.", "_pytest")) for m in _imports(name, path, modules)))
    assert not offenders


def _lint_imports(root: Path) -> subprocess.CompletedProcess:
    """import-linter on the package under `root`, with the contracts of the pyproject.toml there."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    program = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True))"
    return subprocess.run([sys.executable, "-c", program], check=False, cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)


def _source_checkout() -> Path:
    if not PYPROJECT.is_file():
        pytest.skip("the package under test is installed without its pyproject.toml (the contracts live there)")
    return PACKAGE.parent


def test_the_layer_contracts_hold():
    result = _lint_imports(_source_checkout())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken." in result.stdout


def test_the_layer_contracts_catch_an_import_upwards_and_pytest_in_the_core(tmp_path):
    root = _source_checkout()
    shutil.copy(PYPROJECT, tmp_path / "pyproject.toml")
    shutil.copytree(PACKAGE, tmp_path / "pytest_crucible", ignore=shutil.ignore_patterns("__pycache__"))
    with open(tmp_path / "pytest_crucible" / "common" / "errors.py", "a", encoding="utf-8") as errors:
        errors.write("\nimport pytest_crucible.apps.cli\n")
    with open(tmp_path / "pytest_crucible" / "grading" / "base.py", "a", encoding="utf-8") as base:
        base.write("\nimport pytest\n")
    result = _lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Contracts: 0 kept, 2 broken." in result.stdout
    assert "pytest_crucible.common is not allowed to import pytest_crucible.apps:" in result.stdout
    assert "pytest_crucible.common.errors -> pytest_crucible.apps.cli (l." in result.stdout
    assert "pytest_crucible.grading is not allowed to import pytest:" in result.stdout
    assert "pytest_crucible.grading.base -> pytest (l." in result.stdout
    assert _lint_imports(root).returncode == 0  # the copy was checked, not the package under test


def test_every_import_inside_a_function_says_why_it_is_lazy():
    """An import belongs at the top of its module; one left in a function (an optional package, start-up
    time) carries `# lazy: <why>` on its line. The harness is exempt: it runs inside the sandbox and binds
    what it imports to locals on purpose (see its docstring)."""
    unexplained = []
    for name, path in sorted(_modules().items()):
        if name == "pytest_crucible.sandbox.harness":
            continue
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for function in ast.walk(ast.parse(source)):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    line = lines[node.lineno - 1]
                    reason = line.partition("# lazy:")[2].strip()
                    if not reason:
                        unexplained.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {line.strip()}")
    assert not unexplained, "imports inside functions without a `# lazy: <why>`:\n" + "\n".join(unexplained)


MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80
# The sandbox harness is one function on purpose: its MAC key and guards live only in that one frame's
# locals (it reads no global at run time), so code under test cannot reach them (see harness.py).
SIZE_EXCEPTIONS = {"pytest_crucible.sandbox.harness": "_crucible_harness"}


def _oversized(path: Path, name: str) -> list[str]:
    source = path.read_text(encoding="utf-8")
    found = []
    lines = len(source.splitlines())
    if lines > MAX_MODULE_LINES and name not in SIZE_EXCEPTIONS:
        found.append(f"{name}: {lines} lines")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES and SIZE_EXCEPTIONS.get(name) != node.name:
                found.append(f"{name}.{node.name}: {length} lines")
    return found


def test_no_module_or_function_is_too_long():
    offenders = [o for name, path in sorted(_modules().items()) for o in _oversized(path, name)]
    assert not offenders, f"over {MAX_MODULE_LINES} lines a module or {MAX_FUNCTION_LINES} a function: {offenders}"


def test_the_size_check_catches_a_long_function_and_module(tmp_path):
    long_function = "def f():\n" + "    x = 1\n" * MAX_FUNCTION_LINES
    path = tmp_path / "big.py"
    path.write_text(long_function + "\n" * (MAX_MODULE_LINES - MAX_FUNCTION_LINES), encoding="utf-8")
    assert _oversized(path, "pytest_crucible.big") == ["pytest_crucible.big: 501 lines",
                                                         f"pytest_crucible.big.f: {MAX_FUNCTION_LINES + 1} lines"]
    assert _oversized(path, "pytest_crucible.sandbox.harness") == [
        f"pytest_crucible.sandbox.harness.f: {MAX_FUNCTION_LINES + 1} lines"]
