"""Shared fixtures of the project's own tests."""

from __future__ import annotations

import pytest

# modules a test imported when it ends, and numpy cannot be loaded twice in one process
from loopback import LoopbackServer

import pytest_crucible.analysis.charts  # noqa: F401  (matplotlib, numpy) loaded before any test: pytester drops the


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
