"""Every lock pytest-crucible takes across processes, in one place.

All of them are OS file locks, freed by the kernel when the process holding them dies however it dies,
so xdist workers, two runs and `crucible status` on one machine agree:

    exclusive(path)           one holder (filelock): device leases, the cost ledger, calibration
    shared_or_exclusive(...)  a fair reader/writer lock: an endpoint's speed item (exclusive) against
                              the accuracy items of a local endpoint (shared)
    SharedHold(path)          one process's shared hold of such a lock, joined by its callers
    SlotPool(name, size)      `size` numbered exclusive locks: a provider's requests in flight

Lock files live under `lock_root()`: $CRUCIBLE_LOCK_DIR, else `locks/` in the user cache dir. Device
leases keep their own lease directory (records, history, server logs; $CRUCIBLE_LEASE_DIR) and take
their locks there through `exclusive()`.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from filelock import FileLock, Timeout
from platformdirs import user_cache_dir

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCK_DIR_ENV = "CRUCIBLE_LOCK_DIR"
EXCLUSIVE, SHARED = "exclusive", "shared"
RECENT = 4  # SlotPool.try_take: how many of the slots this process gave back last it tries first


def lock_root() -> Path:
    explicit = os.environ.get(LOCK_DIR_ENV)
    path = Path(explicit) if explicit else Path(user_cache_dir("pytest-crucible")) / "locks"
    path.mkdir(parents=True, exist_ok=True)
    return path


def lock_file(kind: str, key: str) -> Path:
    """The lock file for `key` (often a URL) of one kind of lock: a readable prefix and a hash."""
    readable = re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-")[:40]
    digest = hashlib.sha256(f"{kind}:{key}".encode()).hexdigest()[:12]
    return lock_root() / f"{kind}-{readable}-{digest}.lock"


def exclusive(path: str | os.PathLike[str], timeout: float = -1) -> FileLock:
    """An exclusive lock on `path` (a context manager; `acquire(timeout=0)` tries once). Two instances in
    one process exclude each other like two processes do; one instance is reentrant for every thread
    (any thread may release it), so threads sharing one guard it with a thread lock of their own."""
    return FileLock(str(path), timeout=timeout, mode=0o666, thread_local=False)


@contextmanager
def shared_or_exclusive(path: Path, mode: str) -> Iterator[float]:
    """Hold `path` in `mode` (EXCLUSIVE or SHARED); yields the seconds waited.

    POSIX `flock` gives both modes. A second "gate" file makes it fair: every taker passes the gate
    exclusively on the way in, and an exclusive taker keeps it until it holds the lock, so a steady
    stream of shared takers cannot starve it. Without `fcntl` (Windows) both modes are one exclusive
    lock: safe, only less parallel."""
    if mode not in (EXCLUSIVE, SHARED):
        raise ValueError(f"lock mode must be {EXCLUSIVE!r} or {SHARED!r}, got {mode!r}")
    started = time.perf_counter()
    if fcntl is None:  # pragma: no cover - Windows
        with exclusive(path):
            yield time.perf_counter() - started
        return
    with open(path.with_suffix(".gate"), "a+b") as gate, open(path, "a+b") as lock:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if mode == EXCLUSIVE else fcntl.LOCK_SH)
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield time.perf_counter() - started
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


class SharedHold:
    """A process's SHARED hold of one `shared_or_exclusive` lock, joined by each `held()` while no exclusive
    taker waits at the gate: one lock call per caller (a try of the gate) instead of opening both files,
    three lock calls and closing them, which at hundreds of requests a second against a local server was a
    tenth of a run's time (benchmarks/concurrency.py's docstring). A caller that finds the gate taken takes
    the lock the fair way, so an exclusive taker still gets it as soon as the hold's callers are done."""

    def __init__(self, path: Path):
        self.path = path
        self._mutex = threading.Lock()
        self._count = 0
        self._files: tuple[BinaryIO, BinaryIO] | None = None   # (gate, lock) of the hold, while callers hold it

    @contextmanager
    def held(self) -> Iterator[float]:
        """Hold the lock SHARED; yields the seconds waited."""
        started = time.perf_counter()
        if fcntl is None:  # pragma: no cover - Windows
            with shared_or_exclusive(self.path, SHARED) as waited:
                yield waited
            return
        if not self._join():
            self._take()
        try:
            yield time.perf_counter() - started
        finally:
            self._leave()

    def _join(self) -> bool:
        with self._mutex:
            if not self._count:
                return False
            assert self._files is not None  # held while counted
            gate = self._files[0]
            try:
                fcntl.flock(gate, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False  # an exclusive taker waits at the gate: join the queue behind it
            fcntl.flock(gate, fcntl.LOCK_UN)
            self._count += 1
            return True

    def _take(self) -> None:
        """The fair way (as shared_or_exclusive): through the gate, then SHARED; the hold, or joined to one."""
        files = open(self.path.with_suffix(".gate"), "a+b"), open(self.path, "a+b")  # noqa: SIM115
        kept = False
        try:
            gate, lock = files
            fcntl.flock(gate, fcntl.LOCK_EX)
            try:
                fcntl.flock(lock, fcntl.LOCK_SH)
            finally:
                fcntl.flock(gate, fcntl.LOCK_UN)
            with self._mutex:
                self._count += 1
                if self._count == 1:
                    self._files, kept = files, True
        finally:  # not the hold (one was made meanwhile, or the wait failed): this caller's own files go
            if not kept:
                for handle in reversed(files):
                    handle.close()

    def _leave(self) -> None:
        with self._mutex:
            self._count -= 1
            if self._count:
                return
            assert self._files is not None  # held while counted
            (gate, lock), self._files = self._files, None
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()
        gate.close()


class SlotPool:
    """`size` slots shared by every process that opens the pool of the same name: a slot is an
    exclusive file lock, so a process that dies gives its slots back at once. A slot's lock is made the
    first time the slot is tried: a pool costs what it uses, not what its size allows."""

    def __init__(self, name: str, size: int, *, share: int | None = None, index: int = 0):
        self.name, self.size = name, size
        # When a run's processes split the slots, each gets a block of `share` and tries its own block
        # first: slots do not wander between processes, so the next free one is found at the first try.
        self.block = min(share or size, size)
        start = index * self.block
        self.home = range(start, min(start + self.block, size))
        self._locks: dict[int, FileLock] = {}
        self._held: set[int] = set()
        # slots this process gave back, the latest last: tried first, as another process rarely took one
        # (scanning from 0 would try every slot another process holds, one lock call each, per request)
        self._returned: dict[int, None] = {}
        self._mutex = threading.Lock()

    def _lock(self, index: int) -> FileLock:
        lock = self._locks.get(index)
        if lock is None:
            lock = self._locks[index] = exclusive(lock_file(f"slot{index}", self.name))
        return lock

    def try_take(self, within: int | None = None, *, scan: bool = True) -> int | None:
        """A free slot among the first `within` of each block (all by default), taken; None when every one
        is held. The RECENT slots of its own block this process gave back last are tried first (a slot it
        borrowed from another block goes back to that block's process), then its block's; with `scan`, every
        block's (one lock call each, for slots another process holds: the caller scans rarely)."""
        within = min(within or self.block, self.block)

        def usable(index: int) -> bool:
            return index % self.block < within
        with self._mutex:
            mine = (i for i in reversed(self._returned) if i in self.home and usable(i))  # not a borrowed one
            returned = itertools.islice(mine, RECENT)
            home = itertools.islice(self.home, within)
            others = (i for i in range(self.size) if usable(i) and i not in self.home) if scan else ()
            for index in itertools.chain(returned, home, others):
                if index in self._held:
                    continue
                try:
                    self._lock(index).acquire(timeout=0)
                except Timeout:
                    continue
                self._held.add(index)
                self._returned.pop(index, None)
                return index
        return None

    def give_back(self, index: int) -> None:
        with self._mutex:
            self._held.discard(index)
            self._locks[index].release()
            self._returned[index] = None

    @property
    def held(self) -> int:
        """Slots this process holds."""
        return len(self._held)
