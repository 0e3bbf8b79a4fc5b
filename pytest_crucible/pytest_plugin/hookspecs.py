"""Hooks pytest-crucible calls, for a conftest.py or another plugin to implement (README: Extending)."""

from __future__ import annotations

import pytest


@pytest.hookspec
def pytest_crucible_row_recorded(config: pytest.Config, item: pytest.Item | None, report: pytest.TestReport,
                                 row) -> None:
    """An item's row (pytest_crucible.results.row.Row) was appended to this run's rows.jsonl.

    Called on the process that records rows: the controlling one, also under xdist, where the item itself
    lives on a worker and `item` is None (`report.nodeid` names it). Not called for a row that a resumed
    run already had."""


@pytest.hookspec
def pytest_crucible_client_made(config: pytest.Config, model, client) -> None:
    """A model's chat client was made in this process (once per model and endpoint, workers included;
    a judge model's too). `model` is its ModelSpec, `client` what the crucible_client fixture returns
    (`chat(messages, ...)`, `close()`); an implementation may keep it, e.g. to count requests. Called on
    the thread that first needs the client: pytest's, or for a judge one of the threads that ask ahead."""
