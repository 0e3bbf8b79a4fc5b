"""Answers over many records of a haystack, derived by scanning the document text.

The `expect` modes of suite/haystack.py that read several kinds of record and combine them: distinct
records with retractions, a join and group-by, dates written in several formats, the current value of
corrected facts, a value replayed through its changes, people under aliases, the one listed item never
recorded, and day offsets along a path of relations. Each mode refuses a document it cannot read one way
(a tie, a conflicting duplicate, a missing or ambiguous path) instead of guessing, so a generator bug shows
as a verify problem. The core imports no pytest.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
# The date formats a record may use: "14 March 2019", "March 14, 2019", "2019-03-14", "the 14th of March 2019".
_DATE_FORMATS = (
    (re.compile(r"(?P<d>\d{1,2}) (?P<m>[A-Za-z]+) (?P<y>\d{4})"), False),
    (re.compile(r"(?P<m>[A-Za-z]+) (?P<d>\d{1,2}), (?P<y>\d{4})"), False),
    (re.compile(r"(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})"), True),
    (re.compile(r"the (?P<d>\d{1,2})(?:st|nd|rd|th) of (?P<m>[A-Za-z]+),? (?P<y>\d{4})"), False),
)


def read_date(text: str) -> date:
    """A date in one of the record formats above; ValueError otherwise."""
    for form, numeric_month in _DATE_FORMATS:
        m = form.fullmatch(text.strip())
        if m and (numeric_month or m.group("m").lower() in _MONTHS):
            month = int(m.group("m")) if numeric_month else _MONTHS.index(m.group("m").lower()) + 1
            return date(int(m.group("y")), month, int(m.group("d")))
    raise ValueError(f"{text!r} is not a date in a known format")


def _find(pattern: str, document: str) -> list[re.Match]:
    try:
        return list(re.finditer(pattern, document))
    except re.error as exc:
        raise ValueError(f"pattern {pattern!r} does not compile: {exc}") from None


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _unique_best(scores: Mapping[str, int], what: str) -> str:
    best = max(scores.values())
    winners = [k for k, v in scores.items() if v == best]
    if len(winners) != 1:
        raise ValueError(f"{len(winners)} {what} tie at {best}")
    return winners[0]


def sum_distinct(spec: Mapping[str, Any], document: str) -> int:
    """Sum of `n` over distinct `id`s of `pattern`, leaving out every id `void` names (a repeated id must
    repeat its number; a void may name a record the pattern leaves out)."""
    records: dict[str, int] = {}
    for m in _find(spec["pattern"], document):
        n = _number(m.group("n"))
        if records.setdefault(m.group("id"), n) != n:
            raise ValueError(f"record {m.group('id')} appears with two numbers")
    voided = {m.group("id") for m in _find(spec["void"], document)} if spec.get("void") else set()
    return sum(n for key, n in records.items() if key not in voided)


def group_max(spec: Mapping[str, Any], document: str) -> str:
    """The `group` whose members' `n` (from `value` matches) add up to the most; `member` matches link a
    member to its group (each member to exactly one)."""
    group_of: dict[str, str] = {}
    for m in _find(spec["member"], document):
        if group_of.setdefault(m.group("member"), m.group("group")) != m.group("group"):
            raise ValueError(f"{m.group('member')} is linked to two groups")
    totals = dict.fromkeys(group_of.values(), 0)
    for m in _find(spec["value"], document):
        if m.group("member") not in group_of:
            raise ValueError(f"{m.group('member')} has a value but no group")
        totals[group_of[m.group("member")]] += _number(m.group("n"))
    return _unique_best(totals, "groups")


def nth_dated(spec: Mapping[str, Any], document: str) -> str:
    """The `value` of the k-th earliest match of `pattern` (k from 1), its `date` group read in any format."""
    dated = sorted((read_date(m.group("date")), m.group("value")) for m in _find(spec["pattern"], document))
    k = int(spec["k"])
    if not 1 <= k <= len(dated):
        raise ValueError(f"k={k}, but the pattern matches {len(dated)} dated records")
    days = [d for d, _ in dated]
    if len(set(days)) != len(days):
        raise ValueError("two dated records share a date")
    return dated[k - 1][1]


_PICKS: dict[str, Callable[[dict[str, int]], Any]] = {
    "max": lambda current: max(current.values()),
    "min": lambda current: min(current.values()),
    "sum": lambda current: sum(current.values()),
    "argmax": lambda current: _unique_best(current, "keys"),
}


def current(spec: Mapping[str, Any], document: str) -> Any:
    """Each `key`'s value from its last match of `pattern` in document order (a later statement corrects an
    earlier one), then `pick` (max, min, sum or argmax) over the keys."""
    values: dict[str, int] = {}
    for m in _find(spec["pattern"], document):
        values[m.group("key")] = _number(m.group("value"))
    if not values:
        raise ValueError("the pattern of expect.current matches nothing")
    return _PICKS[spec.get("pick", "max")](values)


def running(spec: Mapping[str, Any], document: str) -> int:
    """A value replayed in document order: `set` matches set it to `n`, `add` / `sub` matches change it by `n`;
    the first change must be a set."""
    changes = [(m.start(), op, _number(m.group("n"))) for op in ("set", "add", "sub") if spec.get(op)
               for m in _find(spec[op], document)]
    changes.sort()
    if not changes or changes[0][1] != "set":
        raise ValueError("expect.running needs a set before any change")
    value = 0
    for _, op, n in changes:
        value = n if op == "set" else value + n if op == "add" else value - n
    return value


def distinct_people(spec: Mapping[str, Any], document: str) -> int:
    """How many different people the `mention` matches (group `who`) name, when `alias` matches (groups
    `name`, `alias`) say two names are one person."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    for m in _find(spec["alias"], document):
        parent[root(m.group("alias"))] = root(m.group("name"))
    return len({root(m.group("who")) for m in _find(spec["mention"], document)})


def absent(spec: Mapping[str, Any], document: str) -> str:
    """The one item of `among` that `pattern` (with `<X>` for the item) never matches."""
    missing = [item for item in spec["among"] if not _find(spec["pattern"].replace("<X>", re.escape(item)), document)]
    if len(missing) != 1:
        raise ValueError(f"{len(missing)} listed items are never matched ({', '.join(missing)}), expected exactly 1")
    return missing[0]


def offset_path(spec: Mapping[str, Any], document: str) -> int:
    """Days from `from` to `to` along `relation` matches ("<a> ... <n> days <dir: after|before> ... <b>"),
    each read both ways; the relations must give every event one offset."""
    edges: dict[str, list[tuple[str, int]]] = {}
    for m in _find(spec["relation"], document):
        days = _number(m.group("n")) * (1 if m.group("dir") == "after" else -1)  # a = b + days
        edges.setdefault(m.group("b"), []).append((m.group("a"), days))
        edges.setdefault(m.group("a"), []).append((m.group("b"), -days))
    offsets = {spec["from"]: 0}
    frontier = [spec["from"]]
    while frontier:
        here = frontier.pop()
        for there, days in edges.get(here, []):
            if there in offsets and offsets[there] != offsets[here] + days:
                raise ValueError(f"the relations give {there} two offsets")
            if there not in offsets:
                offsets[there] = offsets[here] + days
                frontier.append(there)
    if spec["to"] not in offsets:
        raise ValueError(f"no chain of relations links {spec['from']} to {spec['to']}")
    return offsets[spec["to"]]


MODES: dict[str, Callable[[Mapping[str, Any], str], Any]] = {
    "sum_distinct": sum_distinct, "group_max": group_max, "nth_dated": nth_dated, "current": current,
    "running": running, "distinct_people": distinct_people, "absent": absent, "offset_path": offset_path,
}


def record_answer(expect: Mapping[str, Any], document: str) -> Any:
    """The answer of the one MODES key `expect` holds, or None when it holds none."""
    for mode, derive in MODES.items():
        if mode in expect:
            return derive(expect[mode], document)
    return None
