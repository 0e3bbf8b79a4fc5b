"""Append-only result rows (JSONL), one per item, written as the item ends; the run folder a resume continues.

What a crash can lose: each row is handed to the operating system (one `write`) before its item's report is
done, so a killed or crashed process (SIGKILL, a segfault, the OOM killer) loses no row. The rows are synced
to the disk (`fsync`) on a thread of their own at most SYNC_INTERVAL_S after they were written, so a crash of
the machine itself (power, kernel) loses at most the rows of the last SYNC_INTERVAL_S plus one sync's time;
a line torn there is skipped by the readers, and `--crucible-resume` asks those items again.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable, Container, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from pytest_crucible.common.errors import CrucibleError, InputError
from pytest_crucible.common.filelocks import exclusive
from pytest_crucible.common.numbers import dumps_finite
from pytest_crucible.results.row import row_problem

if TYPE_CHECKING:
    from pytest_crucible.results.row import Row

ROWS_FILE = "rows.jsonl"
META_FILE = "meta.json"  # the run's settings and models, written as the run starts
HTML_FILE = "report.html"


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


LOCK_FILE, HOLDER_FILE = ".writer.lock", ".writer.pid"
SYNC_INTERVAL_S = 0.1  # rows reach the disk at most this long after they were written (see the docstring)


class RunBusy(InputError):
    """A run folder another live process is writing."""


def hold_run_dir(run_dir: Path) -> FileLock:
    """The lock that makes this process the one writer of a run folder (a held filelock.FileLock), or
    RunBusy naming the process that holds it. The kernel frees it when its holder dies however it dies,
    so a stale lock (a killed run) is taken over. Raises RunBusy."""
    run_dir = Path(run_dir).resolve()  # one lock file, whichever path (`latest`, a symlink) led here
    lock = exclusive(run_dir / LOCK_FILE)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        try:
            holder = (run_dir / HOLDER_FILE).read_text(encoding="utf-8").strip()
        except OSError:
            holder = "?"
        raise RunBusy(f"run {run_dir.name} is still being written by process {holder} (a live pytest): "
                         "wait for it to end, or stop it, before resuming it") from None
    (run_dir / HOLDER_FILE).write_text(f"{os.getpid()}\n", encoding="utf-8")
    return lock


class RunStore:
    """One run's folder: `<out>/<run-id>/rows.jsonl`, with `<out>/latest` pointing at it. The store holds the
    folder's writer lock (`hold_run_dir`; or takes over `lock`, one its session already holds) until closed."""

    def __init__(self, out_dir: str | os.PathLike[str], run_id: str | None = None, lock: FileLock | None = None,
                 sync_interval_s: float = SYNC_INTERVAL_S):
        self.run_id = run_id or new_run_id()
        self.out_dir = Path(out_dir)
        self.run_dir = self.out_dir / self.run_id
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._lock = lock if lock is not None else hold_run_dir(self.run_dir)
        self.rows_path = self.run_dir / ROWS_FILE
        self._file = open(self.rows_path, "a+b")  # noqa: SIM115 (open for the run's life; close() closes it)
        self._end_torn_line()
        self._syncer = Syncer(self._file.fileno(), sync_interval_s)
        self.meta: dict[str, Any] = {"run_id": self.run_id}
        self._point_latest()

    def _point_latest(self) -> None:
        latest = self.out_dir / "latest"
        tmp = self.out_dir / f".latest-{os.getpid()}"
        try:
            if tmp.is_symlink() or tmp.exists():
                tmp.unlink()
            tmp.symlink_to(self.run_id, target_is_directory=True)
            os.replace(tmp, latest)  # atomic: a reader never sees a missing `latest`
        except OSError:
            # Filesystems without symlinks get a text file naming the run.
            (self.out_dir / "latest.txt").write_text(self.run_id + "\n", encoding="utf-8")

    def write_meta(self, meta: dict[str, Any]) -> None:
        self.meta = meta
        tmp = self.run_dir / f".{META_FILE}.tmp"
        tmp.write_text(dumps_finite(meta, indent=2, default=str) + "\n", encoding="utf-8")
        os.replace(tmp, self.run_dir / META_FILE)

    def _end_torn_line(self) -> None:
        """A run killed mid-write left half a line: end it, so the next row starts on a line of its own
        (readers skip the torn one)."""
        self._file.seek(0, os.SEEK_END)
        if self._file.tell():
            self._file.seek(-1, os.SEEK_END)
            if self._file.read(1) != b"\n":
                self._file.write(b"\n")

    def append(self, row: Row, data: dict[str, Any] | None = None) -> None:
        """Append one row (a row.Row): written at once, synced within the sync interval (see the module
        docstring). `data`: the row's `to_dict()`, when the caller has it already (no second copy)."""
        self._file.write(row_line(data if data is not None else row.to_dict()))
        self._file.flush()  # to the operating system now: a killed process loses nothing
        self._syncer.written()

    def close(self) -> None:
        if not self._file.closed:
            self._syncer.close()
            self._file.close()
        if self._lock.is_locked:
            self._lock.release()


def row_line(data: dict[str, Any]) -> bytes:
    """A row's line in rows.jsonl: JSON, NaN and infinity as null (the common case, with none, in one pass)."""
    try:
        text = json.dumps(data, ensure_ascii=False, default=str, allow_nan=False)
    except ValueError:
        text = dumps_finite(data, ensure_ascii=False, default=str)
    return (text + "\n").encode("utf-8")


class Syncer:
    """Syncs a file to the disk on a thread of its own, at most once per `interval` seconds and only after
    something was written: the writer never waits for the disk. `interval` 0: each write is synced before
    `written` returns."""

    def __init__(self, fd: int, interval: float):
        self.fd, self.interval = fd, interval
        self._pending = threading.Event()
        self._closed = False
        self._thread: threading.Thread | None = None

    def written(self) -> None:
        if self.interval <= 0:
            os.fsync(self.fd)
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="crucible-rows-sync", daemon=True)
            self._thread.start()
        self._pending.set()

    def _run(self) -> None:
        while True:
            self._pending.wait()
            if self._closed:
                return
            self._pending.clear()
            try:
                os.fsync(self.fd)
            except OSError:
                pass  # the disk refused: close() syncs again, and raises it there
            time.sleep(self.interval)  # what is written meanwhile waits for the next sync

    def close(self) -> None:
        """Stop the thread; the last rows are synced here."""
        self._closed = True
        self._pending.set()
        if self._thread is not None:
            self._thread.join()
        os.fsync(self.fd)


def resolve_run_dir(out_dir: str | os.PathLike[str], given: str) -> Path:
    """The run folder to resume: `latest` under `out_dir` (the default), or a run folder given by path."""
    out_dir = Path(out_dir)
    if given == "latest":
        latest = out_dir / "latest"
        if latest.is_dir():
            path = latest.resolve()
        elif (out_dir / "latest.txt").is_file():
            path = out_dir / (out_dir / "latest.txt").read_text(encoding="utf-8").strip()
        else:
            raise CrucibleError(f"--crucible-resume: no run to continue in {out_dir} (no {latest}); "
                                "name one with --crucible-resume RUN_DIR")
    else:
        path = Path(given).resolve()
    if not (path / ROWS_FILE).is_file():
        raise CrucibleError(f"--crucible-resume: {path} is not a run folder (no {ROWS_FILE} in it)")
    return path


def read_rows(path: str | os.PathLike[str], *, warn: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Rows of a run; damaged lines (see `iter_rows`) are skipped and said once on stderr."""
    return list(iter_rows(path, warn=warn))


def iter_rows(path: str | os.PathLike[str], *,
              warn: Callable[[str], None] | None = None) -> Iterator[dict[str, Any]]:
    """The rows of a run one at a time, as `read_rows` reads them: a reader that keeps only what it makes
    of each row (`crucible compare`: Row objects) never holds every parsed line at once.

    A full disk or a kill tears a write anywhere (inside a multi-byte character too), so a line that is not
    UTF-8, not JSON or not shaped like a row is skipped, never raised: every good row is kept, and once the
    file is read `warn` (default: a line on stderr) names the file and the skipped lines."""
    for _, row in iter_numbered_rows(path, warn=warn):
        yield row


def iter_numbered_rows(path: str | os.PathLike[str], *, warn: Callable[[str], None] | None = None,
                       only: Container[int] | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, row) for each row `iter_rows` yields; `only`: the line numbers to read (the other
    lines are neither parsed nor checked)."""
    path = Path(path)
    if path.is_dir():
        path = path / ROWS_FILE
    skipped: list[tuple[int, str]] = []
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if only is not None and number not in only:
                continue
            row, problem = parse_row_line(raw)
            if problem:
                skipped.append((number, problem))
            elif row is not None:
                yield number, row
    if skipped:
        (warn or _warn_stderr)(damaged_lines_message(path, skipped))


def parse_row_line(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """(row, None), (None, why the line is skipped) or (None, None) for a blank line."""
    if not raw or raw.isspace():  # blank (as `not raw.strip()`, without copying the line)
        return None, None
    torn = "" if raw.endswith(b"\n") else " (torn: the file ends inside it)"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, "not UTF-8" + torn
    try:
        data = _ROW_DECODER.decode(text)
    except (ValueError, RecursionError):
        return None, "not JSON" + torn
    problem = row_problem(data)
    return (None, problem + torn) if problem else (data, None)


def _null(_: str) -> None:
    return None


# NaN, Infinity: not JSON, read as null. One decoder for every line (json.loads with an option makes one a call)
_ROW_DECODER = json.JSONDecoder(parse_constant=_null)


def damaged_lines_message(path: Path, skipped: list[tuple[int, str]], shown: int = 5) -> str:
    listed = "; ".join(f"line {n}: {why}" for n, why in skipped[:shown])
    more = f"; and {len(skipped) - shown} more" if len(skipped) > shown else ""
    return (f"crucible: warning: {path}: skipped {len(skipped)} damaged line(s), every other row kept "
            f"({listed}{more})")


def _warn_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def read_meta(run_dir: str | os.PathLike[str], *, warn: Callable[[str], None] | None = None) -> dict[str, Any] | None:
    """The meta a run wrote as it started, or None (a run of an older version, or a damaged meta.json:
    `warn`, default stderr, says so)."""
    return _read_json_object(Path(run_dir) / META_FILE, warn)


def run_meta(run_dir: str | os.PathLike[str], *, warn: Callable[[str], None] | None = None) -> dict[str, Any]:
    """A run's meta: meta.json (written as it started, so there after a crash), else the meta in its
    report.json (older versions), else just its id."""
    run_dir = Path(run_dir)
    meta = read_meta(run_dir, warn=warn)
    if meta is None:
        report = _read_json_object(run_dir / "report.json", warn)
        meta = report.get("meta") if report else None
    return meta if isinstance(meta, dict) and meta else {"run_id": run_dir.resolve().name}


def _read_json_object(path: Path, warn: Callable[[str], None] | None) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        (warn or _warn_stderr)(f"crucible: warning: {path}: damaged, ignored ({type(exc).__name__})")
        return None
    if not isinstance(data, dict):
        (warn or _warn_stderr)(f"crucible: warning: {path}: damaged, ignored (not a JSON object)")
        return None
    return data
