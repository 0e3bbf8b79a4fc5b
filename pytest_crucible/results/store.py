"""Append-only result rows (JSONL), one per item, flushed as the item ends; the run folder a resume continues."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from pytest_crucible.common.errors import CrucibleError, InputError
from pytest_crucible.common.filelocks import exclusive

if TYPE_CHECKING:
    from pytest_crucible.results.row import Row

ROWS_FILE = "rows.jsonl"
META_FILE = "meta.json"  # the run's settings and models, written as the run starts
HTML_FILE = "report.html"


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(2)


LOCK_FILE, HOLDER_FILE = ".writer.lock", ".writer.pid"


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

    def __init__(self, out_dir: str | os.PathLike[str], run_id: str | None = None, lock: FileLock | None = None):
        self.run_id = run_id or new_run_id()
        self.out_dir = Path(out_dir)
        self.run_dir = self.out_dir / self.run_id
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._lock = lock if lock is not None else hold_run_dir(self.run_dir)
        self.rows_path = self.run_dir / ROWS_FILE
        self._file = open(self.rows_path, "a+b")  # noqa: SIM115 (open for the run's life; close() closes it)
        self._end_torn_line()
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
        tmp.write_text(json.dumps(meta, indent=2, default=str) + "\n", encoding="utf-8")
        os.replace(tmp, self.run_dir / META_FILE)

    def _end_torn_line(self) -> None:
        """A run killed mid-write left half a line: end it, so the next row starts on a line of its own
        (readers skip the torn one)."""
        self._file.seek(0, os.SEEK_END)
        if self._file.tell():
            self._file.seek(-1, os.SEEK_END)
            if self._file.read(1) != b"\n":
                self._file.write(b"\n")

    def append(self, row: Row) -> None:
        """Append one row (a row.Row) and sync it to disk."""
        self._file.write((json.dumps(row.to_dict(), ensure_ascii=False, default=str) + "\n").encode("utf-8"))
        self._file.flush()
        os.fsync(self._file.fileno())  # a crash must not lose an item that already ended

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()
        if self._lock.is_locked:
            self._lock.release()


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


def read_rows(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Rows of a run; a half-written last line (the run crashed mid-write) is ignored."""
    return list(iter_rows(path))


def iter_rows(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The rows of a run one at a time, as `read_rows` reads them: a reader that keeps only what it makes
    of each row (`crucible compare`: Row objects) never holds every parsed line at once."""
    path = Path(path)
    if path.is_dir():
        path = path / ROWS_FILE
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                row: dict[str, Any] = json.loads(line)
                yield row
            except json.JSONDecodeError:
                continue


def read_meta(run_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The meta a run wrote as it started, or None (a run of an older version)."""
    path = Path(run_dir) / META_FILE
    meta: dict[str, Any] | None = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    return meta


def run_meta(run_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """A run's meta: meta.json (written as it started, so there after a crash), else the meta in its
    report.json (older versions), else just its id."""
    run_dir = Path(run_dir)
    meta = read_meta(run_dir)
    if meta is None and (run_dir / "report.json").is_file():
        meta = json.loads((run_dir / "report.json").read_text(encoding="utf-8")).get("meta")
    return meta or {"run_id": run_dir.resolve().name}
