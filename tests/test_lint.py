"""The package passes ruff and mypy as pyproject.toml configures them ([tool.ruff], [tool.mypy]: strict for
common, results, analysis.stats / compare / json_shapes; checked bodies everywhere else)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*command: str, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_ruff_finds_nothing():
    pytest.importorskip("ruff", reason="ruff is in the dev extra")
    done = run(sys.executable, "-m", "ruff", "check", "--no-cache", "pytest_crucible", timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing():
    pytest.importorskip("mypy", reason="mypy is in the dev extra")
    # no cache: a cache written by another checkout (or another version) must not answer for this one
    done = run(sys.executable, "-m", "mypy", "--cache-dir", "/dev/null", timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
