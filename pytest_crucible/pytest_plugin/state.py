"""What the plugin's modules share: the run's session and an item's record, both kept in pytest's stash."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from pytest_crucible.analysis.run_end import RunEnd
from pytest_crucible.engine.options import SETTINGS
from pytest_crucible.engine.session import RunSession
from pytest_crucible.results.row import Row
from pytest_crucible.suite.case import Case


@dataclass
class ItemState:
    """What the plugin knows of an item that ends in a row: a case item, or a user's check of a model.

    A case item has `case`; a user's check has `check`, a Case describing it (category and difficulty from
    its markers). `row` is set once the outcome is known; `resumed` when it came from the run being resumed
    (not recorded again); `responses` are the answers a check asked for with crucible_ask."""

    model_name: str
    repeat: int = 1
    case: Case | None = None
    check: Case | None = None
    row: Row | None = None
    resumed: bool = False
    responses: list = field(default_factory=list)


SESSION_KEY = pytest.StashKey[RunSession]()
RUN_END_KEY = pytest.StashKey[RunEnd]()  # the run's end on the controller: reports, baseline, gate, summary
INSTALLED_KEY = pytest.StashKey[list]()  # the installed case files this run collects (collection.installed_collection)
ITEM_KEY = pytest.StashKey[ItemState]()


def item_state(node: pytest.Item) -> ItemState | None:
    """The item's record, or None for an item that is no case and no check of a model."""
    return node.stash.get(ITEM_KEY, None)


def setting_value(config: pytest.Config, name: str):
    """A setting of options.py as this run gives it (command line, environment, ini file, default)."""
    setting = SETTINGS[name]
    return setting.resolve(config.getoption(setting.dest), config.getini(setting.dest))
