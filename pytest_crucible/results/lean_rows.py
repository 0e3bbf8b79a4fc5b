"""Rows read back lean: a `Row` without its long texts, its small values shared with the rows read before it.

What the report, the GUI's pages and `crucible compare` make of a 100,000-row run: the counts, rates and
timings need none of the replies, and json.loads makes a new string for every name and value of every
line, so holding the rows as read would take gigabytes. `LeanRows` is made once per file read and turns
each checked row (a dict from `store.iter_numbered_rows`) into a Row the way `Row.from_dict` does, less
UNREAD_FIELDS. The rows of one run have a handful of field lists, so what to take from a row, what to share
and what to fill in is worked out once per field list (`_Plan`), and the Row is made with the field names
of the class itself (keyword arguments whose names are the very strings of the signature match at once;
json's own strings are compared letter by letter: half the cost of making a Row).

Lean rows are read, never changed: their shared values would change for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import itemgetter
from typing import Any

from pytest_crucible.results.row import ROW_FIELD_ORDER, SCORED, Row, outcome_read

TEXT_FIELDS = ("answer_text", "reasoning", "tool_calls", "answer", "turns", "trace", "grade_details")
# no reader of lean rows looks at these: left out (long, or one per row and never read); those a Row would
# make a new empty value for get one empty value shared by the rows of one read
UNREAD_FIELDS = frozenset((*TEXT_FIELDS, "params", "started_at"))
# names repeated in many rows: one string object each (json.loads makes a new one per row)
SHARED_TEXTS = frozenset(("run_id", "model", "model_id", "provider", "case_id", "category", "difficulty", "family",
                          "case_hash", "kind", "outcome", "reason", "finish_reason", "truncated", "served_model"))
KEYED_DICTS = ("timings", "tokens")  # one per row, the same keys: one string per key name
SHARED_VALUES = ("backend", "tags")  # few distinct values in many rows: one object each (never changed)
# what Row.from_dict fills in for a field a row lacks, where the Row's own default is not it
FROM_DICT_DEFAULTS: Mapping[str, Any] = {"run_id": None, "model": "", "model_id": "", "provider": "", "case_id": "",
                                         "category": "", "difficulty": "", "family": "", "case_hash": "",
                                         "seed": None, "repeat": 1}
_NAMES = {name: name for name in ROW_FIELD_ORDER}  # the class's own strings for its field names


def _getter(names: list[str]) -> Callable[[Mapping[str, Any]], tuple[Any, ...]]:
    """The values of `names` in a mapping, as a tuple (itemgetter gives a bare value for one name)."""
    if len(names) == 1:
        name = names[0]
        return lambda data: (data[name],)
    return itemgetter(*names) if names else (lambda data: ())


class _Plan:
    """What to do with a row of one field list: its fields kept (under the class's names), those shared,
    the defaults of those it lacks."""

    def __init__(self, keys: tuple[str, ...], empties: Mapping[str, Any]):
        kept = [key for key in keys if key in _NAMES and key not in UNREAD_FIELDS]
        shared = [key for key in kept if key in SHARED_TEXTS]
        self.keyed = [(key, _NAMES[key]) for key in KEYED_DICTS if key in kept]
        self.valued = [(key, _NAMES[key]) for key in SHARED_VALUES if key in kept]
        plain = [key for key in kept if key not in SHARED_TEXTS and key not in KEYED_DICTS and key not in SHARED_VALUES]
        self.plain_names = [_NAMES[key] for key in plain]
        self.plain_values = _getter(plain)
        self.shared_names = [_NAMES[key] for key in shared]
        self.shared_values = _getter(shared)
        present = set(keys)
        self.defaults = {_NAMES[name]: value for name, value in {**FROM_DICT_DEFAULTS, **empties}.items()
                         if name not in present or name in UNREAD_FIELDS}
        self.maybe_speed = "kind" in present or "category" in present


class LeanRows:
    """Makes lean Rows of the checked rows of one read (`make`), sharing names and small values among them."""

    def __init__(self) -> None:
        self._plans: dict[tuple[str, ...], _Plan] = {}
        self._shared: dict[Any, Any] = {}
        self._key_names: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._empties: dict[str, Any] = {"params": {}, "tool_calls": [], "turns": [], "tags": []}

    def make(self, data: dict[str, Any]) -> Row:
        """The lean Row of `data` (a row `row_problem` passed): what `Row.from_dict(data)` would be, less
        UNREAD_FIELDS."""
        keys = tuple(data)
        plan = self._plans.get(keys)
        if plan is None:
            plan = self._plans[keys] = _Plan(keys, self._empties)
        share = self._shared.setdefault
        values = dict(zip(plan.plain_names, plan.plain_values(data)))
        texts = plan.shared_values(data)
        values.update(zip(plan.shared_names, map(share, texts, texts)))
        values.update(plan.defaults)
        for key, name in plan.keyed:
            found = data[key]
            values[name] = self._rekeyed(found) if type(found) is dict else found
        for key, name in plan.valued:
            values[name] = self._shared_value(key, data[key])
        if plan.maybe_speed and values.get("outcome") in SCORED:
            values["outcome"] = outcome_read(values)
        return Row(**values)

    def _rekeyed(self, found: dict[str, Any]) -> dict[str, Any]:
        """`found` with the names its keys had in the rows before it (one string per name)."""
        keys = tuple(found)
        names = self._key_names.get(keys)
        if names is None:
            names = self._key_names[keys] = tuple(self._shared.setdefault(key, key) for key in keys)
        return dict(zip(names, found.values()))

    def _shared_value(self, name: str, value: Any) -> Any:
        if not value and type(value) is list:
            return self._empties["tags"]
        try:
            return self._shared.setdefault((name, _frozen(value)), value)
        except TypeError:  # a value that cannot be a key (a nested list): kept as it is
            return value


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(value.items())
    return tuple(value) if isinstance(value, list) else value


__all__ = ["LeanRows", "TEXT_FIELDS", "UNREAD_FIELDS"]
