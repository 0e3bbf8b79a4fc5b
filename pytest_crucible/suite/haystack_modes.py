"""Every `expect` mode that combines many records of a haystack, by name (used by suite/haystack.py).

haystack_records.py holds the first modes (distinct sums, a join and group-by, dates, corrections, changes,
aliases, absence, day offsets); haystack_joins.py, haystack_events.py and haystack_tallies.py the later ones.
The core imports no pytest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_crucible.suite import haystack_records
from pytest_crucible.suite.haystack_events import EVENT_MODES
from pytest_crucible.suite.haystack_joins import JOIN_MODES
from pytest_crucible.suite.haystack_tallies import TALLY_MODES

MODES: dict[str, Callable[[Mapping[str, Any], str], Any]] = {
    **haystack_records.MODES, **JOIN_MODES, **EVENT_MODES, **TALLY_MODES,
}


def record_answer(expect: Mapping[str, Any], document: str) -> Any:
    """The answer of the one MODES key `expect` holds, or None when it holds none."""
    for mode, derive in MODES.items():
        if mode in expect:
            return derive(expect[mode], document)
    return None
