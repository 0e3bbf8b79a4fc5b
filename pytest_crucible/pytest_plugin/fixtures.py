"""Fixtures of pytest-crucible. Each can be overridden in a user's conftest.py."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from pytest_crucible import sandbox
from pytest_crucible.common.errors import CostCapReached, InfraError, ProviderDown, SandboxError
from pytest_crucible.engine.config import ModelSpec
from pytest_crucible.grading.code import canary
from pytest_crucible.local import LeaseManager, LocalServerError
from pytest_crucible.pytest_plugin.state import SESSION_KEY, item_state, setting_value
from pytest_crucible.suite.case import DEFAULT_MAX_TOKENS


def _infra_error(node: pytest.Item, message: str):
    """Fail the item as an infrastructure error (a pytest ERROR, never a model failure). A case item or a
    user's check that has no row yet gets an error row, so the failure is in rows.jsonl and the report too."""
    state = item_state(node)
    case = (state.case or state.check) if state is not None else None
    if state is not None and case is not None and state.row is None:
        session = node.config.stash[SESSION_KEY]  # an item with a record is a run's item
        model = session.model(state.model_name)
        row = session.begin_row(case, model, state.repeat)
        row.record_responses(state.responses, model)
        state.row = row.settle("error", message)
    pytest.fail(f"infrastructure error (not scored): {message}", pytrace=False)


def _run_session(request):
    session = request.config.stash.get(SESSION_KEY, None)
    if session is None:
        pytest.skip("pytest-crucible is not active: pass --models NAME")
    return session


@pytest.fixture
def crucible_case(request):
    """The Case of the current item."""
    state = item_state(request.node)
    case = state.case if state is not None else None
    if case is None:
        pytest.skip("not a crucible case item")
    return case


@pytest.fixture
def crucible_model(request) -> ModelSpec:
    """The ModelSpec (from models.yaml) the current item asks. A user's test that requests it (directly or
    through crucible_client, crucible_ask, ...) runs once per --models entry, with id `test_x[model]`."""
    session = _run_session(request)
    state = item_state(request.node)
    if state is None:
        pytest.skip("not parametrized over --models (crucible_model is requested through a fixture "
                    "that pytest-crucible does not see)")
    return session.model(state.model_name)


# -- local models (pytest_crucible/lease) -----------------------------------------------------------


def _lease_log(config):
    """Lease messages (waiting for a device, displacing a model) go to the terminal as they happen."""
    def log(message: str) -> None:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        capman = config.pluginmanager.get_plugin("capturemanager")
        if reporter is None or capman is None:
            print(f"crucible: {message}", file=sys.stderr)
            return
        with capman.global_and_fixture_disabled():
            reporter.write_line(f"crucible: {message}")
    return log


@pytest.fixture(scope="session")
def crucible_leases(request):
    """This process's LeaseManager: each local model's server starts on first use and stops at the end
    of the session (also on Ctrl-C, SIGTERM, a crash; SIGKILL through the parent-death signal)."""
    session = request.config.stash.get(SESSION_KEY, None)
    manager = LeaseManager(run_id=session.run_id if session is not None else None,
                           log=_lease_log(request.config),
                           secret_env_names=session.secret_env_names() if session is not None else ())
    if session is not None:  # a launched judge model is leased here too, when the first judged item needs it
        def local_endpoint(model):
            server = manager.server_for(model)
            return server.base_url, server.api_key
        session.local_endpoint = local_endpoint
    yield manager
    manager.close()


@pytest.fixture
def crucible_lease(request, crucible_model, crucible_leases):
    """The running local server (LocalServer: base_url, devices, role, ...) of a model with a launch spec,
    leased once per model per process; None for a model served by a provider."""
    if not crucible_model.launch:
        return None
    try:
        return crucible_leases.server_for(crucible_model)
    except LocalServerError as exc:
        _infra_error(request.node, str(exc))


@pytest.fixture
def crucible_endpoint(request, crucible_model, crucible_lease):
    """(base_url, api_key) of the model's endpoint: a leased local server's, or its provider's."""
    if crucible_lease is not None:
        return crucible_lease.base_url, crucible_lease.api_key
    provider = crucible_model.provider
    if provider is None:
        pytest.skip(f"model {crucible_model.name} has neither a provider nor a launch spec")
    return provider.base_url, provider.api_key()


@pytest.fixture
def crucible_client(request, crucible_model, crucible_endpoint):
    """A streaming chat client bound to the current model (one per model and endpoint per process)."""
    base_url, api_key = crucible_endpoint
    return _run_session(request).client_for(crucible_model, base_url, api_key)


@pytest.fixture
def crucible_ask(request, crucible_model, crucible_client):
    """`ask(prompt_or_messages, *, max_tokens=None, **params) -> Response`: one request to the current
    model, for a user's own check. Its row (rows.jsonl, the report) carries the last answer, each ask's
    timings and tokens (`turns`), and tokens and cost of every ask; an endpoint failure is an
    infrastructure error, not a failed check, and a request the cost cap refuses, or one to a provider that
    is down, skips the check."""
    state = item_state(request.node)
    assert state is not None  # crucible_model skipped an item without a record
    asked: list = []
    state.responses = asked

    def ask(prompt, *, max_tokens: int | None = None, **params):
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt)
        budget = max_tokens or DEFAULT_MAX_TOKENS
        if crucible_model.max_tokens:  # the model's cap applies to checks as to cases
            budget = min(budget, crucible_model.max_tokens)
        try:
            response = crucible_client.chat(messages, max_tokens=budget, params={**crucible_model.params, **params},
                                            reasoning_budget=crucible_model.reasoning_budget)
        except InfraError as exc:
            _infra_error(request.node, str(exc))
        except (CostCapReached, ProviderDown) as exc:
            pytest.skip(str(exc))
        response.max_tokens = response.max_tokens or budget
        asked.append(response)
        return response
    return ask


@pytest.fixture
def crucible_result(request, crucible_case, crucible_model):
    """The item's finished Row (pytest_crucible.results.row): the model asked and the answer graded, in setup.
    An infrastructure failure is a pytest error, not a failure. An item a resumed run already finished
    gets its old row, and no client (a local model's server is not started for it)."""
    return settle_case_item(request.node, _run_session(request), crucible_model,
                            lambda: request.getfixturevalue("crucible_client"))


def settle_case_item(node: pytest.Item, session, model: ModelSpec, client: Callable[[], object]):
    """Ask and grade a case item (`client()` gives its client, asked only when the item is to be asked) and
    keep its row: crucible_result's work, and a directly run case item's setup (case_protocol.py). An error
    row fails the item as an infrastructure error, a skipped row skips it."""
    state = item_state(node)
    assert state is not None and state.case is not None  # a case item's record holds its case
    row = session.finished_row(state.case, model, state.repeat)
    state.resumed = row is not None
    if row is None:
        row = session.run_item(state.case, model, client(), repeat=state.repeat, key=node.nodeid)
    state.row = row
    if row.outcome == "error":
        _infra_error(node, row.reason)
    if row.outcome == "skipped":
        pytest.skip(row.reason)
    return row


@pytest.fixture
def crucible_sandbox(request):
    """The bubblewrap sandbox this process grades code in (canary checked), for tests that run code.
    Skips when there is none: no bwrap and no --crucible-allow-unsandboxed."""
    session = request.config.stash.get(SESSION_KEY, None)
    allow = (session.settings.allow_unsandboxed if session is not None
             else setting_value(request.config, "allow_unsandboxed"))
    reason = sandbox.unavailable_reason(allow)
    if reason:
        pytest.skip(reason)
    box = sandbox.get_sandbox(allow)
    try:
        canary(box)
    except SandboxError as exc:
        _infra_error(request.node, str(exc))
    return box
