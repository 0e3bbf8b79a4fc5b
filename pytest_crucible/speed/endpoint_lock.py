"""Keep speed measurements of one endpoint apart from everything else that loads it, across processes.

A lock file per endpoint (in a folder shared by every process on the machine, so xdist workers and
even two separate runs agree):

- a speed item takes it EXCLUSIVE: no other speed item and no accuracy item of that endpoint runs while
  it measures;
- an accuracy item of a local model takes it SHARED: accuracy items still run side by side, but never
  while a speed item of the same model measures;
- an accuracy item of a hosted model takes nothing (other tenants load it anyway).

POSIX `flock` gives shared and exclusive modes. A second "gate" file makes it fair: every taker passes
the gate exclusively on the way in, and a speed item keeps the gate until it holds the lock, so a steady
stream of accuracy items cannot starve it. Where `fcntl` is missing (Windows) both modes fall back to
one exclusive `filelock.FileLock`: safe, only less parallel.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCK_DIR_ENV = "CRUCIBLE_LOCK_DIR"
EXCLUSIVE, SHARED = "exclusive", "shared"


def lock_dir() -> Path:
    explicit = os.environ.get(LOCK_DIR_ENV)
    if explicit:
        path = Path(explicit)
    else:
        uid = os.getuid() if hasattr(os, "getuid") else "user"
        path = Path(tempfile.gettempdir()) / f"pytest-crucible-locks-{uid}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def lock_path(key: str) -> Path:
    """The lock file for an endpoint key: a readable prefix and a hash (keys are URLs)."""
    readable = re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-")[:40]
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    return lock_dir() / f"{readable}-{digest}.lock"


def endpoint_key(model, base_url: str | None = None) -> str:
    """What identifies 'one endpoint': its base URL, or the local model's name when it is launched."""
    provider = getattr(model, "provider", None)
    url = base_url or (provider.base_url if provider else None)
    if url:
        return url.rstrip("/")
    return f"local:{getattr(model, 'name', model)}"


class LockHeld:
    """What a caller learns about the lock it got."""

    def __init__(self, mode: str | None, key: str | None, waited_s: float):
        self.mode, self.key, self.waited_s = mode, key, waited_s

    def to_dict(self) -> dict:
        return {"mode": self.mode, "waited_s": round(self.waited_s, 4)}


@contextmanager
def endpoint_lock(key: str, mode: str | None) -> Iterator[LockHeld]:
    """Hold the endpoint's lock in `mode` ("exclusive", "shared", or None for no lock)."""
    if mode is None:
        yield LockHeld(None, key, 0.0)
        return
    if mode not in (EXCLUSIVE, SHARED):
        raise ValueError(f"lock mode must be {EXCLUSIVE!r} or {SHARED!r}, got {mode!r}")
    path = lock_path(key)
    started = time.perf_counter()
    if fcntl is None:  # pragma: no cover - Windows
        from filelock import FileLock
        with FileLock(str(path)):
            yield LockHeld(mode, key, time.perf_counter() - started)
        return
    gate = open(path.with_suffix(".gate"), "a+b")
    lock = open(path, "a+b")
    try:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if mode == EXCLUSIVE else fcntl.LOCK_SH)
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
        held = LockHeld(mode, key, time.perf_counter() - started)
        try:
            yield held
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    finally:
        lock.close()
        gate.close()


def mode_for(exclusive: bool, local: bool) -> str | None:
    """Exclusive for an exclusive item kind (speed); shared for other items of local models; none otherwise."""
    if exclusive:
        return EXCLUSIVE
    return SHARED if local else None


@contextmanager
def item_lock(model, client=None, *, exclusive: bool = False) -> Iterator[LockHeld]:
    """The lock one item's requests hold: see `mode_for`."""
    from .hardware import is_local_model

    base_url = getattr(client, "base_url", None)
    local = is_local_model(model, base_url)
    with endpoint_lock(endpoint_key(model, base_url), mode_for(exclusive, local)) as held:
        yield held
