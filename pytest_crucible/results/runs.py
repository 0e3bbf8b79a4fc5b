"""The runs in a results folder, as `crucible gui` lists and follows them (reads only, never writes).

A run folder is a child of the results folder holding rows.jsonl. Its state: `finished` once report.json
is at least as new as rows.jsonl, `running` while the process named in its meta is alive on this host
(or, with no pid to ask, while rows.jsonl changed in the last RECENT_S seconds), else `incomplete` (it
stopped before writing its report).
"""

from __future__ import annotations

import json
import os
import platform
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pytest_crucible.results.row import MEASURED, OUTCOMES, outcome_read
from pytest_crucible.results.store import ROWS_FILE, damaged_lines_message, parse_row_line, run_meta

REPORT_FILE = "report.json"
RECENT_S = 120
RUN_ID_TIME = re.compile(r"^(\d{8}-\d{6})")


@dataclass
class RunSummary:
    """One line of the run list."""
    run_id: str
    path: Path
    started: str
    models: list[str]
    profile: str
    state: str
    counts: dict[str, int] = field(default_factory=dict)  # passed, failed, error, skipped, measured
    linked: bool = True  # False: the folder's name cannot be put in a URL
    started_ts: float = 0.0  # the start as a timestamp: the list's order
    damage: str = ""  # what is wrong with the folder (skipped rows, a corrupt meta.json, an odd name); "" if whole
    counting: bool = False  # the counts are those of the rows read so far: the rest is being counted

    @property
    def rate(self) -> float | None:
        n = self.counts.get("passed", 0) + self.counts.get("failed", 0)
        return self.counts.get("passed", 0) / n if n else None


def run_state(run_dir: Path, meta: dict[str, Any]) -> str:
    rows, report = run_dir / ROWS_FILE, run_dir / REPORT_FILE
    rows_mtime = rows.stat().st_mtime
    if report.is_file() and report.stat().st_mtime >= rows_mtime:
        return "finished"
    pid, host = meta.get("pid"), meta.get("host")
    if isinstance(pid, int) and pid > 0 and host == platform.node():
        return "running" if _alive(pid) else "incomplete"
    return "running" if time.time() - rows_mtime < RECENT_S else "incomplete"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def _start_time(run_dir: Path, meta: dict[str, Any]) -> datetime:
    """When the run started: meta.json's `started_at`, else the time in a run id's name, else rows.jsonl's
    modification time (a copied folder has a new one, so it comes last)."""
    for text, fmt in ((meta.get("started_at"), "%Y-%m-%dT%H:%M:%SZ"),
                      (m.group(1) if (m := RUN_ID_TIME.match(run_dir.name)) else None, "%Y%m%d-%H%M%S")):
        try:  # a name can look like a run id's time without being one (20261399-...)
            if isinstance(text, str):
                return datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            pass
    return datetime.fromtimestamp((run_dir / ROWS_FILE).stat().st_mtime, tz=UTC)


Item = tuple[str, str, int]  # (model, case id, repeat): what latest_rows keeps one row of
COUNT_BUDGET_S = 0.5  # the GUI's run list counts a run's rows this long, then goes on counting in the background


@dataclass
class _RowsCounted:
    """What one rows.jsonl said up to `offset` (the end of its last whole line): each item's latest outcome,
    the outcomes counted over those, the models, and the damaged lines."""
    offset: int = 0
    lines: int = 0
    latest: dict[Item, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: {o: 0 for o in OUTCOMES})
    models: set[str] = field(default_factory=set)
    skipped: list[tuple[int, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)  # held while counting
    counting: bool = False  # a background thread is counting on

    def read_on(self, path: Path, deadline: float | None = None) -> tuple[bytes, int, bool]:
        """Count the whole lines appended since the last call, until `deadline` (time.monotonic) if given;
        (the unfinished line after them, its number, whether the file was read to its end)."""
        with open(path, "rb") as fh:
            fh.seek(self.offset)
            for raw in fh:
                if not raw.endswith(b"\n"):  # a line not ended yet (being written, or torn by a crash)
                    return raw, self.lines + 1, True
                self.lines += 1
                self.offset += len(raw)
                self.count(raw, self.lines)
                if deadline is not None and not self.lines % 256 and time.monotonic() > deadline:
                    return b"", self.lines + 1, False
        return b"", self.lines + 1, True

    def count(self, raw: bytes, number: int) -> None:
        found = _count_line(raw, number, self.latest, self.counts, self.models, self.skipped)
        if found is not None:
            self.latest[found[0]] = found[1]

    def finish(self, path: Path) -> None:
        """Count the rest of the file (a background thread's work), then let listings count again."""
        try:
            self.read_on(path)
        except OSError:
            pass  # removed or unreadable meanwhile: the next listing says so
        finally:
            self.counting = False
            self.lock.release()


class RunCounts:
    """Outcome counts and models of the runs in a results folder, kept between listings (`crucible gui`
    holds one): a finished run's from its report.json, read again only when that file changes; another
    run's from its rows, each listing reading only the lines appended since the one before.

    `budget_s`: how long one listing counts a run's rows (a 100,000-row run without a report takes seconds);
    past it the listing shows what was counted so far (`RunSummary.counting`) and a thread counts the
    rest for the next one. None: every listing counts to the end."""

    def __init__(self, budget_s: float | None = None) -> None:
        self.budget_s = budget_s
        self._reports: dict[Path, tuple[tuple[int, int], tuple[dict[str, int], list[str]]]] = {}
        self._rows: dict[Path, _RowsCounted] = {}
        self._lock = threading.Lock()

    def from_report(self, run_dir: Path) -> tuple[dict[str, int], list[str]] | None:
        path = run_dir / REPORT_FILE
        try:
            stat = path.stat()
        except OSError:  # removed since the run's state was read
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._reports.get(run_dir)
            if cached and cached[0] == stamp:
                return cached[1]
        found = _report_counts(path)
        if found is not None:
            with self._lock:
                self._reports[run_dir] = (stamp, found)
        return found

    def from_rows(self, run_dir: Path, warn: Callable[[str], None]) -> tuple[dict[str, int], list[str], bool]:
        """(outcome counts, models, whether they are counts so far: the rest is being counted)."""
        path = run_dir / ROWS_FILE
        with self._lock:
            counted = self._rows.get(run_dir)
            if counted is None or (not counted.counting and path.stat().st_size < counted.offset):
                counted = self._rows[run_dir] = _RowsCounted()  # new, or rewritten shorter: start over
        if not counted.lock.acquire(blocking=False):  # a thread is counting it: what it has so far
            return dict(counted.counts), sorted(set(counted.models)), True
        try:
            deadline = None if self.budget_s is None else time.monotonic() + self.budget_s
            tail, number, done = counted.read_on(path, deadline)
            counts, models, skipped = dict(counted.counts), set(counted.models), list(counted.skipped)
        except BaseException:
            counted.lock.release()
            raise
        if not done:  # the lock passes to the thread, which releases it when the file is counted
            counted.counting = True
            threading.Thread(target=counted.finish, args=(path,), name="crucible-run-count", daemon=True).start()
        else:
            counted.lock.release()
        if tail.strip():  # a line not ended yet (being written, or torn by a crash): read as iter_rows does
            _count_line(tail, number, counted.latest, counts, models, skipped)  # into copies: read again next time
        if skipped:
            warn(damaged_lines_message(path, skipped))
        return counts, sorted(models), not done


def _count_line(raw: bytes, number: int, latest: dict[Item, str], counts: dict[str, int], models: set[str],
                skipped: list[tuple[int, str]]) -> tuple[Item, str] | None:
    """Count one line into `counts` and `models` (its item's earlier row, in `latest`, counted out) or its
    damage into `skipped`; (the item, its outcome) when it is a row."""
    data, problem = parse_row_line(raw)
    if problem:
        skipped.append((number, problem))
    if data is None:
        return None
    # as latest_rows reads it: the item's latest row, a speed row's old outcomes renamed
    model = data["model"]
    item = (model, data["case_id"], data.get("repeat", 1))
    outcome = outcome_read(data)
    old = latest.get(item)
    if old is not None:
        counts[old] -= 1
    counts[outcome] += 1
    models.add(model)
    return item, outcome


def _report_counts(path: Path) -> tuple[dict[str, int], list[str]] | None:
    """Outcome counts and models from a report.json; None for a report from another version."""
    try:
        reported = json.loads(path.read_text(encoding="utf-8"))["models"]
        counts = {o: 0 for o in OUTCOMES}
        for m in reported.values():
            for tally in m["categories"].values():
                counts["passed"] += tally["passed"]
                counts["failed"] += tally["failed"]
                counts["error"] += tally["errors"]
                counts["skipped"] += tally.get("skipped", 0)
                counts[MEASURED] += tally.get(MEASURED, 0)
        return counts, sorted(reported)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # ValueError: not JSON, not UTF-8
        return None


def _counts(run_dir: Path, state: str, warn: Callable[[str], None],
            cache: RunCounts) -> tuple[dict[str, int], list[str], bool]:
    """Outcome counts and models: from report.json when the run finished, else from the rows so far; and
    whether the rows are still being counted."""
    found = cache.from_report(run_dir) if state == "finished" else None
    return (*found, False) if found is not None else cache.from_rows(run_dir, warn)


def is_run_dir(path: Path) -> bool:
    return (path / ROWS_FILE).is_file()


def list_runs(results_dir: Path, counts: RunCounts | None = None) -> list[RunSummary]:
    """Every run folder under `results_dir`, newest first (`latest` is a pointer, not a run). A damaged
    folder is listed with what is wrong (`damage`), never left out and never an exception. `counts`: what
    earlier listings counted (without it every run is counted afresh)."""
    counts = counts or RunCounts()
    out = []
    for child in Path(results_dir).iterdir() if Path(results_dir).is_dir() else ():
        if child.name == "latest" or child.is_symlink() or not child.is_dir() or not is_run_dir(child):
            continue
        try:
            summary = _summary(child, counts)
        except OSError as exc:  # removed or unreadable while listing
            summary = RunSummary(run_id=child.name, path=child, started="?", models=[], profile="?",
                                 state="damaged", damage=f"unreadable: {exc.strerror or exc}")
        if not _printable_name(child.name):  # no URL can name it: shown, not linked
            summary.run_id = child.name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            summary.linked = False
            summary.damage = "; ".join(filter(None, ["folder name is not UTF-8: rename it to open the run",
                                                     summary.damage]))
        out.append(summary)
    out.sort(key=_listing_order, reverse=True)
    return out


def _summary(child: Path, cache: RunCounts) -> RunSummary:
    problems: list[str] = []

    def warn(message: str) -> None:
        problems.append(message.split(f"{child}/", 1)[-1])

    meta = run_meta(child, warn=warn)
    state = run_state(child, meta)
    counts, models, counting = _counts(child, state, warn, cache)
    meta_models = [str(m) for m in meta.get("models") or []] if isinstance(meta.get("models"), list) else []
    start = _start_time(child, meta)
    return RunSummary(run_id=child.name, path=child, started=start.strftime("%Y-%m-%d %H:%M UTC"),
                      started_ts=start.timestamp(), models=meta_models or models,
                      profile=str(meta.get("profile") or "full"), state=state, counts=counts,
                      damage="; ".join(problems), counting=counting)


def _printable_name(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # a byte that is not UTF-8, kept by the filesystem encoding as a surrogate
        return False
    return True


def _listing_order(run: RunSummary) -> tuple[float, str]:
    return run.started_ts, run.run_id


def find_run(results_dir: Path, run_id: str) -> Path | None:
    """The run folder named `run_id` directly under `results_dir`, or None: a name, never a path."""
    if not run_id or run_id in (".", "..") or "/" in run_id or "\\" in run_id or run_id == "latest":
        return None
    path = Path(results_dir) / run_id
    return path if path.is_dir() and not path.is_symlink() and is_run_dir(path) else None


def read_new_rows(path: Path, offset: int, max_bytes: int = 1 << 20) -> list[tuple[int, dict[str, Any]]]:
    """Rows appended to a rows.jsonl since byte `offset`, each with the offset just past its line (where
    the next read starts). A line still being written is left for the next call; a torn line (a crash)
    is skipped."""
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            data = fh.read(max_bytes)
            while data and b"\n" not in data:  # one line longer than max_bytes: read on to its end
                more = fh.read(max_bytes)
                if not more:
                    break
                data += more
    except FileNotFoundError:
        return []
    out = []
    start = 0
    while (end := data.find(b"\n", start)) >= 0:
        try:
            out.append((offset + end + 1, json.loads(data[start:end])))
        except (json.JSONDecodeError, UnicodeDecodeError):
            pass
        start = end + 1
    return out
