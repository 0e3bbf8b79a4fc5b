"""Shared fixtures of the project's own tests."""

from __future__ import annotations

import pytest

from loopback import LoopbackServer


@pytest.fixture
def loopback():
    """A running loopback OpenAI-compatible server (see tests/loopback.py), stopped after the test."""
    with LoopbackServer() as server:
        yield server
