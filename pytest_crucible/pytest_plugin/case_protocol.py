"""A case item's runtest protocol without pytest's per-phase machinery, where nothing needs it.

pytest runs an item in three phases (setup, call, teardown), each through hooks that set up fixtures,
capture output and logging, and evaluate skip marks: on a fast provider that is most of what the
controlling thread spends per item, and each captured phase swaps file descriptors, which waits for the
GIL behind the threads that ask (benchmarks/concurrency.py's docstring). A case item asked through this
plugin's own fixtures runs no user code: its setup asks and grades (`settle_case_item`, crucible_result's
work) and its call reads the verdict. `CaseProtocol` runs such an item directly and makes the same three
reports, through pytest_runtest_makereport and pytest_runtest_logreport between logstart and logfinish: the
terminal, junit XML, xdist, -x, --lf and every report hook see what they always see.

An item takes pytest's full protocol whenever something could expect it:
- a fixture of its closure is not this plugin's (a conftest overriding one, an autouse fixture);
- a marker that acts in setup is on it (skip, skipif, xfail, usefixtures);
- a conftest.py implements a phase hook (pytest_runtest_setup, _call or _teardown);
- a plugin other than pytest's runner implements pytest_runtest_protocol itself (wrappers still wrap);
- --pdb, --setup-show, --setup-only or --setup-plan;
- its model is served by a local server (leases), or the run's judge is.
Installed plugins' phase hooks (pytest-benchmark's setup, hypothesis' call) act on test functions and
fixtures; a direct case item has neither, and they are not called for it.

The last item of a collector (and of a run, or of an xdist worker's share) takes the full protocol: its
teardown tears down what earlier items set up, as pytest's next setup expects.
"""

from __future__ import annotations

import pytest

from pytest_crucible.engine.session import RunSession
from pytest_crucible.pytest_plugin import compat
from pytest_crucible.pytest_plugin.ask_ahead import FIXTURES_MODULE, asks_through_plugin
from pytest_crucible.pytest_plugin.collection import CaseItem, run_crucible_case
from pytest_crucible.pytest_plugin.fixtures import settle_case_item
from pytest_crucible.pytest_plugin.state import item_state

PHASE_HOOKS = ("pytest_runtest_setup", "pytest_runtest_call", "pytest_runtest_teardown")
SETUP_MARKERS = ("skip", "skipif", "xfail", "usefixtures")
FULL_PROTOCOL_OPTIONS = ("usepdb", "setupshow", "setuponly", "setupplan")
PYTEST_RUNNER = "_pytest.runner"
THIS_PACKAGE = "pytest_crucible."


class CaseProtocol:
    """Registered with a run's session: runs each case item that qualifies (module docstring) directly."""

    def __init__(self, session: RunSession, config: pytest.Config):
        self.session = session
        self.enabled = not any(config.getoption(name, False) for name in FULL_PROTOCOL_OPTIONS) and \
            _judge_not_local(session)
        self._by_parent: dict[int, bool] = {}  # a collector's items share their fixtures and hooks

    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        # the next item of the same collector runs directly too: pytest's setup state (what it set up for
        # earlier items, torn down as the next item needs) stays as the item found it
        if nextitem is None or nextitem.parent is not item.parent or not (self.direct(item) and self.direct(nextitem)):
            return None
        assert isinstance(item, CaseItem)  # direct() holds only for case items
        ihook = item.ihook
        ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        state = item_state(item)
        assert state is not None  # a case item's record is made with it
        model = self.session.model(state.model_name)
        setup = _phase(item, "setup", lambda: _settle(item, self.session, model))
        if setup.passed:
            row = state.row
            assert row is not None  # a passed setup settled the row
            _phase(item, "call", lambda: run_crucible_case(row))
        _phase(item, "teardown", lambda: None)
        ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    def direct(self, item: pytest.Item) -> bool:
        """Whether `item` runs directly (the module docstring says when)."""
        if not self.enabled or not isinstance(item, CaseItem):
            return False
        state = item_state(item)
        if state is None or self.session.ahead_lane(self.session.model(state.model_name)) is None:
            return False
        if any(marker.name in SETUP_MARKERS for marker in item.iter_markers()):
            return False
        parent = id(item.parent)
        if parent not in self._by_parent:
            self._by_parent[parent] = _plain_fixtures(item) and _plain_hooks(item)
        return self._by_parent[parent]


def _settle(item: CaseItem, session: RunSession, model) -> None:
    """The setup phase: crucible_result's work; a skip names the item's line, as a fixture's skip does."""
    try:
        settle_case_item(item, session, model, lambda: session.client_for(model))
    except pytest.skip.Exception as skip:
        compat.skip_at_item_location(skip)
        raise


def _phase(item: CaseItem, when, func) -> pytest.TestReport:
    """One phase as pytest's runner reports it: `func` called, its report made and logged."""
    call = pytest.CallInfo.from_call(func, when=when, reraise=(pytest.exit.Exception, KeyboardInterrupt))
    report = item.ihook.pytest_runtest_makereport(item=item, call=call)
    item.ihook.pytest_runtest_logreport(report=report)
    return report


def _plain_fixtures(item: CaseItem) -> bool:
    """Every fixture the item gets is this plugin's (none overridden, no autouse fixture), the one it asks
    through included."""
    return asks_through_plugin(item) and all(
        name == "request" or compat.fixture_module(item, name) == FIXTURES_MODULE for name in item.fixturenames)


def _plain_hooks(item: CaseItem) -> bool:
    """No conftest.py implements a phase hook for the item, and no plugin but pytest's runner the protocol."""
    for name in PHASE_HOOKS:
        if any(_module_of(impl.plugin).endswith("conftest") for impl in getattr(item.ihook, name).get_hookimpls()):
            return False
    return all(impl.hookwrapper or impl.wrapper or _module_of(impl.plugin) == PYTEST_RUNNER
               or _module_of(impl.plugin).startswith(THIS_PACKAGE)
               for impl in item.ihook.pytest_runtest_protocol.get_hookimpls())


def _module_of(plugin) -> str:
    return getattr(plugin, "__name__", None) or type(plugin).__module__


def _judge_not_local(session: RunSession) -> bool:
    judge = session.settings.judge
    return judge is None or not judge.model.launch
