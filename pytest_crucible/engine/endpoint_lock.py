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

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from pytest_crucible.common.filelocks import EXCLUSIVE, SHARED, SharedHold, lock_file, shared_or_exclusive
from pytest_crucible.local.hardware import is_local_model

__all__ = ["EXCLUSIVE", "SHARED", "EndpointHolds", "LockHeld", "endpoint_key", "endpoint_lock", "item_lock",
           "mode_for"]


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


class EndpointHolds:
    """A process's shared holds of endpoint locks (filelocks.SharedHold), one per endpoint: its accuracy
    items of a local endpoint join one hold rather than each taking the lock."""

    def __init__(self) -> None:
        self._holds: dict[str, SharedHold] = {}
        self._mutex = threading.Lock()

    def of(self, key: str) -> SharedHold:
        with self._mutex:
            hold = self._holds.get(key)
            if hold is None:
                hold = self._holds[key] = SharedHold(lock_file("endpoint", key))
            return hold


@contextmanager
def endpoint_lock(key: str, mode: str | None, holds: EndpointHolds | None = None) -> Iterator[LockHeld]:
    """Hold the endpoint's lock in `mode` ("exclusive", "shared", or None for no lock); shared through
    `holds`, the process's shared holds, when given."""
    if mode is None:
        yield LockHeld(None, key, 0.0)
        return
    if mode == SHARED and holds is not None:
        with holds.of(key).held() as waited:
            yield LockHeld(mode, key, waited)
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
    """The lock one item's requests hold: see `mode_for`. A shared lock goes through the client's
    `endpoint_holds` (the run's, engine/scheduler.py's ScheduledClient), when it has them."""
    base_url = getattr(client, "base_url", None)
    local = is_local_model(model, base_url)
    holds = getattr(client, "endpoint_holds", None)
    with endpoint_lock(endpoint_key(model, base_url), mode_for(exclusive, local), holds) as held:
        yield held
