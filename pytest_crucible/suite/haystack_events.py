"""Answers about events and states spread over a haystack, derived by scanning the document text.

The `expect` modes of the long-context families where the answer is a state that many records change: an
account's balance after transfers in both directions, the event a hall holds on a date after bookings were
moved and cancelled, the first report after a given moment in a log written out of order, each item's value
when sources disagree and a stated rule says which wins, and the most boats moored at once. Each mode refuses
a document it cannot read one way (a tie, a record without its pair). The core imports no pytest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_crucible.suite.haystack_joins import find, number
from pytest_crucible.suite.haystack_records import read_date


def balances(spec: Mapping[str, Any], document: str) -> int:
    """`account`'s balance: its `open` match (groups `account`, `n`) plus every `move` (groups `n`, `src`,
    `dst`) into it, less every move out of it."""
    opened = [number(m.group("n")) for m in find(spec["open"], document) if m.group("account") == spec["account"]]
    if len(opened) != 1:
        raise ValueError(f"{spec['account']} has {len(opened)} opening balances, expected 1")
    balance = opened[0]
    for m in find(spec["move"], document):
        n = number(m.group("n"))
        balance += (n if m.group("dst") == spec["account"] else 0) - (n if m.group("src") == spec["account"] else 0)
    return balance


def schedule_on(spec: Mapping[str, Any], document: str) -> str:
    """The one event held on `on`: each `book` match (groups `event`, `date`) followed through the `move`
    matches (groups `event`, `from`, `to`) that start where it stands, unless a `cancel` match names it."""
    moves: dict[tuple[str, str], str] = {}
    for m in find(spec["move"], document):
        if moves.setdefault((m.group("event"), m.group("from")), m.group("to")) != m.group("to"):
            raise ValueError(f"the {m.group('event')} is moved from {m.group('from')} to two dates")
    cancelled = {m.group("event") for m in find(spec["cancel"], document)}
    held = []
    for m in find(spec["book"], document):
        event, day, seen = m.group("event"), m.group("date"), set()
        while (event, day) in moves:
            if day in seen:
                raise ValueError(f"the moves of the {event} go round in a circle")
            seen.add(day)
            day = moves[event, day]
        if day == spec["on"] and event not in cancelled:
            held.append(event)
    if len(held) != 1:
        raise ValueError(f"{len(held)} events are held on {spec['on']}, expected exactly 1")
    return held[0]


def _minutes(clock: str) -> int:
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def first_after(spec: Mapping[str, Any], document: str) -> str:
    """`who` of the earliest `line` match (groups `time` "HH:MM", `who`) later than the single `event` match."""
    events = find(spec["event"], document)
    if len(events) != 1:
        raise ValueError(f"the event pattern matches {len(events)} times, expected 1")
    start = _minutes(events[0].group("time"))
    later = sorted((_minutes(m.group("time")), m.group("who")) for m in find(spec["line"], document)
                   if _minutes(m.group("time")) > start)
    if not later or (len(later) > 1 and later[0][0] == later[1][0]):
        raise ValueError("no single first line after the event")
    return later[0][1]


def _value(text: str) -> Any:
    return number(text) if text.replace(",", "").isdigit() else text


def ruled_source(spec: Mapping[str, Any], document: str) -> dict[str, Any]:
    """Each of `items`' value from the `pattern` matches (groups `source`, `date`, `item`, `value`): the
    statement of the source ranked first in `rank`, the latest-dated of that source's statements."""
    rank = list(spec["rank"])
    best: dict[str, tuple[int, Any, Any]] = {}
    for m in find(spec["pattern"], document):
        if m.group("source") not in rank:
            raise ValueError(f"{m.group('source')!r} is not a ranked source")
        key = (-rank.index(m.group("source")), read_date(m.group("date")))
        item = m.group("item")
        if item in best and best[item][:2] == key:
            raise ValueError(f"two statements about {item} from one source share a date")
        if item not in best or key > best[item][:2]:
            best[item] = (*key, _value(m.group("value")))
    missing = [i for i in spec["items"] if i not in best]
    if missing:
        raise ValueError(f"no statement about {', '.join(missing)}")
    return {item: best[item][2] for item in spec["items"]}


def peak_overlap(spec: Mapping[str, Any], document: str) -> int:
    """The most keys present at once, each between its `arrive` and its `leave` match (groups `who`, `time`)."""
    arrive = {m.group("who"): _minutes(m.group("time")) for m in find(spec["arrive"], document)}
    leave = {m.group("who"): _minutes(m.group("time")) for m in find(spec["leave"], document)}
    if set(arrive) != set(leave) or any(leave[k] <= arrive[k] for k in arrive):
        raise ValueError("every arrival needs one later departure")
    times = [t for k in arrive for t in (arrive[k], leave[k])]
    if len(set(times)) != len(times):
        raise ValueError("two arrivals or departures share a time")
    present = best = 0
    for _, change in sorted([(t, 1) for t in arrive.values()] + [(t, -1) for t in leave.values()]):
        present += change
        best = max(best, present)
    return best


EVENT_MODES: dict[str, Callable[[Mapping[str, Any], str], Any]] = {
    "balances": balances, "schedule_on": schedule_on, "first_after": first_after, "ruled_source": ruled_source,
    "peak_overlap": peak_overlap,
}
