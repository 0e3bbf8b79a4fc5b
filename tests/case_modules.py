"""Helpers of the tests that reach into a family file: load it as a module, run a stored solver in-process."""

from __future__ import annotations

import contextlib
import importlib.util
import io
from pathlib import Path


def load_module(path: Path):
    """The case file at `path` as a module of its own (not registered in sys.modules)."""
    spec = importlib.util.spec_from_file_location(f"_family_{path.stem}", path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def run_solver(source: str) -> list[str]:
    """The non-blank lines a solver program prints, run in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<solver>", "exec"), {"__name__": "__main__"})
    return [line for line in out.getvalue().splitlines() if line.strip()]
