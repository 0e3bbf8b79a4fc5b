"""Shared fixtures of the project's own tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import _pytest.pytester
import pytest
from loopback import LoopbackServer

# (matplotlib, numpy) loaded before any test: pytester drops the modules a test imported when it ends, and
# numpy cannot be loaded twice in one process
import pytest_crucible.analysis.charts  # noqa: F401


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (pyproject's addopts): one worker more than the cores this process may use. A third of
    these tests' time is waiting (llama.cpp servers, sandboxed code, pytest runs in a subprocess, loopback
    replies); the extra worker keeps the cores busy meanwhile."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + 1


def under(module, root: Path) -> bool:
    """Whether a module was loaded from a file (or is a package) under `root`."""
    spec = getattr(module, "__spec__", None)
    places = [spec.origin] if spec is not None and spec.origin else []
    places += list(getattr(module, "__path__", None) or ())
    return any(Path(place).is_relative_to(root) for place in places)


@pytest.fixture(scope="session", autouse=True)
def keep_installed_modules(tmp_path_factory):
    """pytester snapshots sys.modules and, after an in-process run (and after each pytester test), drops
    what was imported since. Here it drops only the modules loaded from the temporary folders (a test
    project's conftest, test files, case files), which a fresh process would not have: the package and
    the libraries a run imports stay loaded. Importing them again in every run costs seconds (httpx2,
    matplotlib, jinja2, hypothesis's summary hook), and a second copy of a module is a second copy of
    its classes."""
    root = tmp_path_factory.getbasetemp().resolve()

    class KeepInstalled(_pytest.pytester.SysModulesSnapshot):
        def __init__(self, preserve=None) -> None:
            super().__init__(preserve=lambda name: (preserve is not None and preserve(name))
                             or not under(sys.modules.get(name), root))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_pytest.pytester, "SysModulesSnapshot", KeepInstalled)
        yield


@pytest.fixture(scope="session", autouse=True)
def shared_case_cache(tmp_path_factory, request):
    """One folder for the generated cases of the built-in suite (python_case_files keeps them), shared by
    every test and xdist worker of the run. pytester points HOME at each test's own folder, so without it
    every run inside a test, and every pytest it starts, would generate every family again (seconds of CPU
    each, about a third of this suite's time). A test about the cache sets CRUCIBLE_CACHE_DIR itself."""
    base = tmp_path_factory.getbasetemp()
    where = base.parent if hasattr(request.config, "workerinput") else base  # the run's folder, above the workers'
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CRUCIBLE_CACHE_DIR", str(where / "crucible-cache"))
        yield


@pytest.fixture(autouse=True)
def inner_runs_without_hypothesis(request, monkeypatch):
    """Every pytest a test starts, in this process or its own, leaves hypothesis's plugin out: its end-of-run
    hook imports all of hypothesis (about 0.8 s of CPU per process started), and no inner run uses it.
    pytester clears PYTEST_ADDOPTS when it is made, so it is made first."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")


@pytest.fixture
def loopback():
    """A running loopback OpenAI-compatible server (see tests/loopback.py), stopped after the test."""
    with LoopbackServer() as server:
        yield server


CHROMIUM = "/usr/bin/chromium"  # Debian's package (.ci/run installs it); never `playwright install`


@pytest.fixture(scope="session")
def chromium():
    """Headless Chromium driven by playwright, shared by the tests of one session."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extra")
    import os
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"{CHROMIUM} not found: apt-get install chromium (.ci/run does)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        yield browser
        browser.close()


class BrowserPage:
    """A fresh page that records console errors, uncaught exceptions and every URL it requested."""

    def __init__(self, browser):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("request", lambda r: self.requests.append(r.url))

    def close(self):
        self.context.close()


@pytest.fixture
def browser_page(chromium):
    page = BrowserPage(chromium)
    yield page
    page.close()
