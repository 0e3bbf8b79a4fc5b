"""Fixtures of pytest-crucible. Each can be overridden in a user's conftest.py."""

from __future__ import annotations

import pytest

from .config import ModelSpec
from .runner import run_case


def _run_session(request):
    from .plugin import SESSION_KEY
    session = request.config.stash.get(SESSION_KEY, None)
    if session is None:
        pytest.skip("pytest-crucible is not active: pass --models NAME")
    return session


@pytest.fixture
def crucible_case(request):
    """The Case of the current item."""
    case = getattr(request.node, "crucible_case", None)
    if case is None:
        pytest.skip("not a crucible case item")
    return case


@pytest.fixture
def crucible_model(request) -> ModelSpec:
    """The ModelSpec (from models.yaml) the current item asks."""
    return _run_session(request).model(request.node.crucible_model_name)


@pytest.fixture
def crucible_endpoint(request, crucible_model):
    """(base_url, api_key) of the model's endpoint: its provider's, or a local server's."""
    provider = crucible_model.provider
    if provider is None:
        pytest.skip(f"model {crucible_model.name} has no provider and local launching is not available")
    return provider.base_url, provider.api_key()


@pytest.fixture
def crucible_client(request, crucible_model, crucible_endpoint):
    """A streaming chat client bound to the current model (one per model and endpoint per process)."""
    base_url, api_key = crucible_endpoint
    return _run_session(request).client_for(crucible_model, base_url, api_key)


@pytest.fixture
def crucible_result(request, crucible_case, crucible_model, crucible_client) -> dict:
    """Ask the model and grade the answer, in setup: an infrastructure failure is a pytest error, not a failure."""
    session = _run_session(request)
    row = run_case(crucible_case, crucible_model, crucible_client,
                   repeat=getattr(request.node, "crucible_repeat", 1), run_id=session.run_id)
    request.node.crucible_row = row
    if row["outcome"] == "error":
        pytest.fail(f"infrastructure error (not scored): {row['reason']}", pytrace=False)
    if row["outcome"] == "skipped":
        pytest.skip(row["reason"])
    return row
