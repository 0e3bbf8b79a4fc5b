"""A run's rows as the reports read them: the latest row of each item, its long texts only as far as the
page's excerpts need them.

A 100,000-row rows.jsonl is half a gigabyte of replies and reasoning; holding it whole (and a copy per
reader) is what made `crucible report` and the GUI slow and large. `ReportRows.read` reads the file once,
line by line: each row becomes a `Row` without its long texts (the counts, rates and timings need none of
them; results/lean_rows.py), and each reply, reasoning and tool-call list is clipped to its
head and tail (`Clipped`): as long as the per-row excerpt can be, given how many rows are listed so far.
The excerpts' final length is known only at the end (report_html shares a budget between the rows
listed); a row whose clip proves too short (only when a resume replaced rows) is read again by its line.
"""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_crucible.results.lean_rows import TEXT_FIELDS, LeanRows
from pytest_crucible.results.row import Row, latest_rows
from pytest_crucible.results.store import ROWS_FILE, iter_numbered_rows

EXCERPT_BUDGET = 1_500_000      # characters of reply and reasoning text in one page, all rows together
PASSED_BUDGET = EXCERPT_BUDGET // 3  # the passed rows' replies, on top: failures matter more
EXCERPT_MIN, EXCERPT_MAX = 80, 4000  # per row, whatever the budget says (80: the end of a reply)
PAGE_ROWS = 10_000  # failures and errors, and passed answers, each: the first this many by model and case
# report.html's two lists of rows: (budget, least, most characters per row, most rows) of their excerpts
EXCERPT_CAPS = {"problems": (EXCERPT_BUDGET, EXCERPT_MIN, EXCERPT_MAX, PAGE_ROWS),
                "passed": (PASSED_BUDGET, EXCERPT_MIN, EXCERPT_MAX, PAGE_ROWS)}
Item = tuple[str, str, int]  # (model, case id, repeat): what latest_rows keeps one row of
LISTED = {"failed": "problems", "error": "problems", "passed": "passed"}  # outcome -> the page's list


@dataclass(slots=True)
class Clipped:
    """A text kept as far as an excerpt of at most `cap` characters needs: whole when that short, else
    its first cap // 3 and last `cap` characters, and its length."""
    head: str
    tail: str
    length: int
    cap: int

    @classmethod
    def of(cls, text: str, cap: int) -> Clipped:
        if len(text) <= cap:
            return cls(text, text, len(text), cap)  # one string, both ends
        return cls(text[:cap // 3], text[len(text) - cap:], len(text), cap)

    def cut(self, limit: int, keep: str = "both") -> str:
        """The text cut to about `limit` (<= cap) characters with a note of how many were left out: the
        tail alone (`tail`), or a third from the head and the rest from the tail (`both`)."""
        if self.length <= limit:
            return self.head
        note = f"[... {self.length - limit:,} characters cut ...]"
        if keep == "tail":
            return f"{note}\n{self.tail[len(self.tail) - limit:]}"
        head = limit // 3
        return f"{self.head[:head]}\n{note}\n{self.tail[len(self.tail) - (limit - head):]}"


def excerpt(text: str, limit: int, keep: str = "both") -> str:
    """`text` cut as `Clipped.cut` cuts it."""
    return Clipped.of(text or "", limit).cut(limit, keep)


def answer_text(answer: Any) -> str:
    if answer is None:
        return ""
    if type(answer) is int:  # most graded answers: json.dumps would say the same, much slower
        return str(answer)
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False, default=str)


@dataclass(slots=True)
class RowTexts:
    """What the page lists of a row's long texts, clipped for excerpts of up to `cap` characters."""
    reply: Clipped
    reasoning: Clipped
    tool_calls: Clipped
    answer: str  # cut to 200 characters
    turns: int
    cap: int

    @classmethod
    def of(cls, source: Mapping[str, Any], cap: int) -> RowTexts:
        calls = source.get("tool_calls")
        return cls(_clip(source.get("answer_text"), cap), _clip(source.get("reasoning"), cap),
                   _clip(json.dumps(calls, ensure_ascii=False, default=str) if calls else "", cap),
                   excerpt(answer_text(source.get("answer")), 200), len(source.get("turns") or []), cap)


NO_TEXT = Clipped("", "", 0, 0)  # every empty text: one object


def _clip(text: str | None, cap: int) -> Clipped:
    return Clipped.of(text, cap) if text else NO_TEXT


def excerpt_cap(budget: int, listed: int, low: int, high: int) -> int:
    """Characters per listed row when `listed` rows share `budget`, within [low, high]."""
    return max(low, min(high, budget // max(1, listed)))


class ReportRows:
    """The latest rows of a run and their texts: read from a rows.jsonl (`read`) or held in memory (`of`)."""

    def __init__(self, rows: list[Row], texts: Callable[[list[Row], int], list[RowTexts]]):
        self.rows = rows
        self._texts = texts

    @classmethod
    def of(cls, rows: Iterable[Row | Mapping[str, Any]]) -> ReportRows:
        """Rows held whole (a run as it ends, a test's rows): their texts are read from them as asked."""
        latest = latest_rows(rows)

        def texts(listed: list[Row], cap: int) -> list[RowTexts]:
            return [RowTexts.of({name: getattr(row, name) for name in TEXT_FIELDS}, cap) for row in listed]

        return cls(latest, texts)

    @classmethod
    def read(cls, path: str | os.PathLike[str], *, warn: Callable[[str], None] | None = None,
             caps: Mapping[str, tuple[int, int, int, int]] | None = None) -> ReportRows:
        """The rows of a run folder or rows.jsonl, read once (damaged lines skipped, as `iter_rows` does).
        `caps`: per list (`LISTED`'s values) the (budget, low, high, rows) of the excerpts (report.html's)."""
        path = Path(path)
        path = path / ROWS_FILE if path.is_dir() else path
        reader = _Reader(EXCERPT_CAPS if caps is None else caps)
        with collector_paused():
            for number, data in iter_numbered_rows(path, warn=warn):
                reader.add(number, data)
        lines, clipped = reader.lines, reader.texts

        def texts(listed: list[Row], cap: int) -> list[RowTexts]:
            items = [(row.model, row.case_id, row.repeat) for row in listed]
            short = {lines[item]: item for item in items if item not in clipped or clipped[item].cap < cap}
            for number, data in iter_numbered_rows(path, only=short, warn=lambda _: None) if short else ():
                clipped[short[number]] = RowTexts.of(data, cap)  # clipped too short: read again
            return [clipped[item] for item in items]

        return cls(list(reader.latest.values()), texts)

    def texts(self, listed: list[Row], cap: int) -> list[RowTexts]:
        """The texts of `listed` (rows of this run), clipped for excerpts of up to `cap` characters."""
        return self._texts(listed, cap)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector held off while rows are read and reported on: rows make no reference
    cycles, and it would walk every row kept so far again and again (a third of the read's time at
    100,000 rows). Refcounting still frees each line's texts as it goes; what cycles the charts make are
    collected once it is back on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _Reader:
    """One pass over a run's lines: latest rows kept lean, texts clipped as the counts so far allow, and
    only for rows a list can still show: past twice a list's `rows` with texts, those after the first `rows`
    (by model, case and repeat, the page's order) are dropped, and later rows after them get none (a row
    that a resume's replacements bring back into the list is read again by its line)."""

    def __init__(self, caps: Mapping[str, tuple[int, int, int, int]]):
        self.caps = caps
        self.latest: dict[Item, Row] = {}
        self.lines: dict[Item, int] = {}
        self.texts: dict[Item, RowTexts] = {}
        self.seen = {name: 0 for name in caps}  # rows read so far per list, replaced ones too
        self.held: dict[str, set[Item]] = {name: set() for name in caps}  # the items with texts, per list
        self.listed_in: dict[Item, str] = {}  # the list an item with texts is in
        self.last: dict[str, Item | None] = {name: None for name in caps}  # rows after it are never listed
        self.lean = LeanRows()

    def add(self, number: int, data: dict[str, Any]) -> None:
        row = self.lean.make(data)
        item = (row.model, row.case_id, row.repeat)
        self.latest.pop(item, None)  # re-inserted: the order is that of the latest rows, as latest_rows keeps it
        self.latest[item] = row
        self.lines[item] = number
        if self.texts.pop(item, None) is not None:
            self.held[self.listed_in.pop(item)].discard(item)
        listed = LISTED.get(row.outcome or "") if row.category != "speed" else None
        if listed is None or listed not in self.caps:
            return
        self.seen[listed] += 1
        budget, low, high, most = self.caps[listed]
        last = self.last[listed]
        if last is not None and item > last:
            return
        self.texts[item] = RowTexts.of(data, excerpt_cap(budget, min(most, self.seen[listed]), low, high))
        self.listed_in[item] = listed
        held = self.held[listed]
        held.add(item)
        if most and len(held) >= 2 * most:
            self._keep_first(listed, most)

    def _keep_first(self, listed: str, most: int) -> None:
        """Keep the texts of the list's first `most` rows, in the page's order."""
        first = sorted(self.held[listed])
        for item in first[most:]:
            del self.texts[item]
            del self.listed_in[item]
        self.held[listed] = set(first[:most])
        self.last[listed] = first[most - 1]


def lean_rows(path: str | os.PathLike[str], *, warn: Callable[[str], None] | None = None) -> list[Row]:
    """Every row of a run folder or rows.jsonl (replaced ones too), lean as ReportRows keeps them: what
    `crucible compare` pairs."""
    lean = LeanRows()
    with collector_paused():
        return [lean.make(data) for _, data in iter_numbered_rows(path, warn=warn)]


__all__ = ["Clipped", "ReportRows", "RowTexts", "collector_paused", "excerpt", "excerpt_cap", "lean_rows"]
