"""Keep speed measurements of one endpoint apart from everything else that loads it, across processes.

A lock per endpoint (see pytest_crucible/common/filelocks.py: every process on the machine sees it, so xdist
workers and even two separate runs agree):

- a speed item takes it EXCLUSIVE: no other speed item and no accuracy item of that endpoint runs while
  it measures;
- an accuracy item of a local model takes it SHARED: accuracy items still run side by side, but never
  while a speed item of the same model measures;
- an accuracy item of a hosted model takes nothing (other tenants load it anyway).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pytest_crucible.common.filelocks import EXCLUSIVE, SHARED, lock_file, shared_or_exclusive
from pytest_crucible.local.hardware import is_local_model

__all__ = ["EXCLUSIVE", "SHARED", "LockHeld", "endpoint_key", "endpoint_lock", "item_lock", "mode_for"]


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
    with shared_or_exclusive(lock_file("endpoint", key), mode) as waited:
        yield LockHeld(mode, key, waited)


def mode_for(exclusive: bool, local: bool) -> str | None:
    """Exclusive for an exclusive item kind (speed); shared for other items of local models; none otherwise."""
    if exclusive:
        return EXCLUSIVE
    return SHARED if local else None


@contextmanager
def item_lock(model, client=None, *, exclusive: bool = False) -> Iterator[LockHeld]:
    """The lock one item's requests hold: see `mode_for`."""
    base_url = getattr(client, "base_url", None)
    local = is_local_model(model, base_url)
    with endpoint_lock(endpoint_key(model, base_url), mode_for(exclusive, local)) as held:
        yield held
