"""Asking ahead: a provider's `concurrency` requests stay in flight while pytest runs items one at a time,
with or without xdist (whose workers then share the run's id and are kept a queue deep enough)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from pytest_crucible.engine.item_kinds import kind_for
from pytest_crucible.engine.scheduler import Upcoming
from pytest_crucible.engine.session import RunSession
from pytest_crucible.pytest_plugin import compat
from pytest_crucible.pytest_plugin.state import item_state

FIXTURES_MODULE = "pytest_crucible.pytest_plugin.fixtures"
# the fixtures an item is asked through: a conftest overriding any of them answers with its own client
ASKING_FIXTURES = ("crucible_result", "crucible_client", "crucible_endpoint", "crucible_lease")
SCAN = 512   # how far past the current item the asking looks (Prefetcher.advance's `scan`)


class XdistHooks:
    """Registered only when xdist is loaded: workers share the controller's run id (and what else a
    run's processes share); with provider-backed models each worker is kept a queue deep enough to ask
    its providers' `concurrency` requests ahead."""

    def __init__(self, session: RunSession):
        self.session = session

    def pytest_xdist_make_scheduler(self, config: pytest.Config, log):
        lookahead = self.session.lookahead()
        if config.getoption("dist", None) != "load" or not lookahead:
            return None
        return _ask_ahead_scheduling(config, log, lookahead)

    def pytest_configure_node(self, node) -> None:
        node.workerinput["crucible_run_id"] = self.session.run_id
        node.workerinput["crucible_invocation"] = self.session.invocation
        if self.session.finished or self.session.flags.get("resumed"):
            assert self.session.run_id is not None  # the controller names the run (or resumes one)
            node.workerinput["crucible_resume_dir"] = str(self.session.out_dir / self.session.run_id)


def _ask_ahead_scheduling(config: pytest.Config, log, lookahead: int):
    """xdist's LoadScheduling (same order, same chunks of consecutive items), except that every worker
    is kept `lookahead` items queued while items are left: with LoadScheduling's own shrinking refills
    a worker knows too few of its next items to keep its providers busy near the end of a run. Near the
    end, a worker is sent no more than its part of what is left (queued and pending, split evenly)."""
    from xdist.scheduler import LoadScheduling  # lazy: ~20 ms; only runs with xdist workers schedule

    class AskAheadScheduling(LoadScheduling):
        def schedule(self) -> None:
            first = self.collection is None
            super().schedule()
            if first and self.collection:
                for node in self.nodes:
                    self.check_schedule(node)

        def check_schedule(self, node, duration: float = 0) -> None:
            if node.shutting_down:
                return
            if not self.pending:
                node.shutdown()
                return
            queued = len(self.node2pending[node])
            # near the end no worker takes more than its part of what is left: a worker with a longer queue
            # would still be asking when the others had nothing left to ask
            left = len(self.pending) + sum(len(p) for p in self.node2pending.values())
            missing = min(lookahead, -(-left // max(1, len(self.nodes)))) - queued
            if missing > 0 and not compat.send_tests(self, node, missing):
                super().check_schedule(node, duration)

    return AskAheadScheduling(config, log)


class AskAhead:
    """Registered when a run has provider-backed models: before each item runs, the items after it are
    asked ahead (scheduler.Prefetcher), so a provider's `concurrency` requests stay in flight with no
    -n at all. What comes next is pytest's own list (selection, --lf, -k, -m already applied), or under
    xdist the worker's queue of items the controller sent it; -x stops the asking."""

    def __init__(self, session: RunSession, config: pytest.Config):
        self.session, self.config = session, config
        self._entries: dict[str, Upcoming] = {}
        self._positions: dict[str, int] | None = None   # node id -> position in the session's items
        self._settled: set[int] = set()   # positions the prefetcher will never send (Prefetcher.settled)
        self._cursor = 0   # without xdist: every position before it is settled
        self._worker_queue = compat.xdist_worker_queue(config)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        prefetcher = self.session.prefetch()
        if item.session.shouldstop or item.session.shouldfail:
            prefetcher.stop()
            return
        items = item.session.items
        if self._positions is None:
            self._positions = {it.nodeid: i for i, it in enumerate(items)}
        # the next SCAN positions, less those settled before (a set lookup in C: no Python call per item)
        indices = itertools.filterfalse(self._settled.__contains__,
                                        itertools.islice(self._upcoming(item, nextitem, len(items)), SCAN))
        prefetcher.advance(self._entries_of(indices, items, prefetcher))
        while self._cursor in self._settled:
            self._cursor += 1

    def pytest_sessionfinish(self) -> None:
        if self.session.prefetcher is not None:
            self.session.prefetcher.stop()

    def _entries_of(self, indices: Iterator[int], items: list[pytest.Item], prefetcher) -> Iterator[Upcoming]:
        """The entries at `indices`; each the prefetcher has settled is remembered, and never passed again."""
        for index in indices:
            entry = self._entry(items[index])
            yield entry
            if prefetcher.settled(entry):
                self._settled.add(index)

    def _upcoming(self, item: pytest.Item, nextitem: pytest.Item | None, end: int) -> Iterator[int]:
        """Positions in the session's items of what comes next, the current item first."""
        assert self._positions is not None  # set before the first call
        position = self._positions.get(item.nodeid, end)
        if self._worker_queue is None:
            # positions from the current one to the cursor are settled: start past them, as far ahead
            yield from itertools.islice(range(max(position, self._cursor), end), max(0, position + SCAN - self._cursor))
            return
        following = self._positions.get(nextitem.nodeid, end) if nextitem is not None else end
        yield from (i for i in (position, following) if i < end)
        if self.config.getoption("dist", None) == "worksteal":
            return  # another worker may steal queued items: asking them here would ask them twice
        yield from compat.queued_indices(self._worker_queue)

    def _entry(self, item: pytest.Item) -> Upcoming:
        entry = self._entries.get(item.nodeid)
        if entry is None:
            state = item_state(item)
            if state is not None and state.case is not None:
                session, case, repeat = self.session, state.case, state.repeat
                model = session.model(state.model_name)
                lane = session.ahead_lane(model) if asks_through_plugin(item) else None
                entry = Upcoming(item.nodeid, lane, kind_for(case, session.settings).exclusive,
                                 lambda: session.start_ahead(case, model, repeat))
            else:
                entry = Upcoming(item.nodeid, None, False, lambda: None)
            self._entries[item.nodeid] = entry
        return entry


def asks_through_plugin(item: pytest.Item) -> bool:
    """Whether the item asks through this plugin's own fixtures (a conftest may override them: then
    its own client answers, and nothing may be asked ahead for it)."""
    return all(compat.fixture_module(item, name) == FIXTURES_MODULE for name in ASKING_FIXTURES)
