"""How a run's requests reach the providers: concurrency, rate limits, the cost cap, asking ahead.

- `ProviderLane`: a provider's `concurrency` is the most requests in flight against it across the
  whole run. Within a process the lane counts them; across xdist workers each request also holds one
  of the provider's slots (locks.SlotPool). A 429 or 503 halves the lane's limit (at most once per
  round of requests), honours Retry-After for every new request, and says so once; each success adds
  1/limit back, up to `concurrency` (additive increase, multiplicative decrease).
- `CostLedger`: with a cap (--crucible-max-cost, a provider's max_cost_usd), a request is sent only
  while the recorded cost plus the worst case of every request in flight (its prompt and max_tokens at
  the model's prices) stays within the cap; otherwise CostCapReached, and the item is skipped. The
  ledger is a file shared by the run's processes.
- `ScheduledClient`: a ChatClient whose `chat` goes through the lane and the ledger. Every item's
  requests pass here, whatever its kind.
- `Prefetcher`: asks upcoming items ahead of the one pytest is running, on a thread pool, at most
  `window` per provider; the item takes its answer when it gets there. It never passes an exclusive
  item (speed), never asks what the caller did not list (deselected items), and stops when told.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from pytest_crucible.client.stream import estimate_prompt_tokens
from pytest_crucible.common.errors import CostCapReached, CrucibleError
from pytest_crucible.common.filelocks import SlotPool, exclusive, lock_root
from pytest_crucible.engine.endpoint_lock import EndpointHolds
from pytest_crucible.results.row import COST_CAP_PREFIX

SLOT_POLL_S = 0.005        # how soon the request waiting for another process's slot looks again,
SLOT_POLL_MAX_S = 0.08     # doubling after each look that found none, up to this
RATE_LIMIT_STATUS = (429, 503)


class LaneClosed(CrucibleError):
    """The run is over: a request still waiting for its turn is not sent."""


class ProviderLane:
    """One provider's requests in flight, in this process (and its slots across processes)."""

    def __init__(self, name: str, concurrency: int, *, slots: SlotPool | None = None,
                 log: Callable[[str], None] | None = None):
        self.name = name
        self.capacity = concurrency
        self.limit = float(concurrency)
        self.in_flight = 0
        self.peak = 0
        self.slots = slots
        self._log = log or (lambda message: None)
        self._cond = threading.Condition()
        self._pause_until = 0.0
        self._round = 0              # bumped by each decrease: a 429 from an older round decreases nothing
        self._polling = False        # one waiting request looks for a slot another process gave back
        self._poll_s = SLOT_POLL_S     # the looking request's wait before its next scan
        self._next_scan = 0.0
        self._closed = False
        self._told = False
        self._local = threading.local()

    def acquire(self) -> tuple[int | None, float]:
        """Wait for room (and a slot); returns (slot, seconds waited on a rate-limit pause). While other
        processes hold every slot, one waiting request looks again after SLOT_POLL_S, doubled after each
        look that found none (up to SLOT_POLL_MAX_S); the rest sleep until a request of this process ends
        (then they try the slots it gave back, not every slot) or the looking one got its slot."""
        paused = 0.0
        polling = False
        with self._cond:
            try:
                while True:
                    if self._closed:
                        raise LaneClosed(f"the run ended before a request to provider {self.name} was sent")
                    now = time.monotonic()
                    if now < self._pause_until:
                        self._cond.wait(self._pause_until - now)
                        paused += time.monotonic() - now
                        continue
                    allowed = max(1, int(self.limit))
                    if self.in_flight >= allowed:
                        self._cond.wait()
                        continue
                    # a request woken by another's end tries the slots given back last; the one looking
                    # for a slot another process gave back scans them all, less often the longer it finds none
                    looks = polling or not self._polling
                    scan = looks and now >= self._next_scan
                    slot = self.slots.try_take(allowed, scan=scan) if self.slots is not None else None
                    if self.slots is not None and slot is None:
                        if not looks:
                            self._cond.wait()
                            continue
                        self._polling = polling = True
                        if scan:
                            self._next_scan = now + self._poll_s
                            self._poll_s = min(2 * self._poll_s, SLOT_POLL_MAX_S)
                        self._cond.wait(max(0.0, self._next_scan - now))
                        continue
                    if scan:
                        self._poll_s = SLOT_POLL_S
                    self.in_flight += 1
                    self.peak = max(self.peak, self.in_flight)
                    self._local.round = self._round
                    return slot, paused
            finally:
                if polling:
                    self._polling = False
                    self._cond.notify_all()

    def close(self) -> None:
        """No more requests: those still waiting for their turn give up (LaneClosed)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def release(self, slot: int | None, ok: bool) -> None:
        with self._cond:
            self.in_flight -= 1
            if slot is not None:
                assert self.slots is not None  # a slot comes only from a pool
                self.slots.give_back(slot)
            if ok and self.limit < self.capacity:
                self.limit = min(self.capacity, self.limit + 1.0 / self.limit)
            self._cond.notify_all()

    def throttled(self, status: int | None, retry_after: float | None) -> None:
        """A request of this lane was refused with `status` and will be retried (ChatClient.on_retry)."""
        if status not in RATE_LIMIT_STATUS:
            return
        with self._cond:
            before = self.limit
            if getattr(self._local, "round", self._round) == self._round:
                self.limit = max(1.0, self.limit / 2)
                self._round += 1
            if retry_after:
                self._pause_until = max(self._pause_until, time.monotonic() + retry_after)
            if not self._told:
                self._told = True
                after = f", Retry-After {retry_after:g} s" if retry_after else ""
                self._log(f"provider {self.name} is rate-limiting (HTTP {status}{after}): at most "
                          f"{max(1, int(self.limit))} requests at once now (was {max(1, int(before))}); "
                          "not counted against the model")


class CostLedger:
    """Recorded cost and the worst case of the requests in flight, shared by the run's processes
    through a small JSON file (see the module docstring)."""

    def __init__(self, path, *, run_cap: float | None, provider_caps: dict[str, float],
                 spent_before: dict[str, float] | None = None):
        self.path = path
        self.run_cap = run_cap
        self.provider_caps = {p: c for p, c in provider_caps.items() if c}
        self.before = dict(spent_before or {})   # cost of the rows of a resumed run
        self._file_lock = exclusive(f"{path}.lock")   # the run's other processes
        self._mutex = threading.Lock()                 # this process's threads (the file lock is reentrant)

    @property
    def active(self) -> bool:
        return bool(self.run_cap or self.provider_caps)

    def _read(self) -> dict:
        try:
            return json.loads(open(self.path, encoding="utf-8").read())
        except (OSError, ValueError):
            return {"spent": {}, "reserved": {}}

    def _write(self, state: dict) -> None:
        tmp = f"{self.path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(state, handle)
        os.replace(tmp, self.path)

    def reserve(self, provider: str, worst: float) -> float:
        """Book `worst` for one request, or raise CostCapReached. Returns what was booked."""
        if not self.active or worst <= 0:
            return 0.0
        with self._mutex, self._file_lock:
            state = self._read()
            for cap, scope in ((self.run_cap, None), (self.provider_caps.get(provider), provider)):
                if cap is None:
                    continue
                committed = self._committed(state, scope)
                if committed + worst > cap:
                    where = f" for provider {scope}" if scope else ""
                    raise CostCapReached(f"{COST_CAP_PREFIX}{cap:g} reached{where}")
            state["reserved"][provider] = state["reserved"].get(provider, 0.0) + worst
            self._write(state)
        return worst

    def settle(self, provider: str, booked: float, cost: float) -> None:
        """The request ended: its booking is replaced by what it cost."""
        if not self.active or (booked <= 0 and cost <= 0):
            return
        with self._mutex, self._file_lock:
            state = self._read()
            state["reserved"][provider] = max(0.0, state["reserved"].get(provider, 0.0) - booked)
            state["spent"][provider] = state["spent"].get(provider, 0.0) + cost
            self._write(state)

    def _committed(self, state: dict, provider: str | None) -> float:
        def total(section: dict) -> float:
            return sum(v for p, v in section.items() if provider is None or p == provider)
        return total(self.before) + total(state["spent"]) + total(state["reserved"])

    def spent(self) -> float:
        """The run's recorded cost so far (without what is in flight)."""
        state = self._read() if self.active else {"spent": {}}
        return sum(self.before.values()) + sum(state["spent"].values())

    def remove(self) -> None:
        for path in (self.path, f"{self.path}.lock"):
            try:
                os.unlink(path)
            except OSError:
                pass


def ledger_path(run_id: str | None, invocation: str) -> str:
    return str(lock_root() / f"cost-{run_id}-{invocation}.json")


class ScheduledClient:
    """A ChatClient whose requests go through the provider's lane and the cost ledger."""

    def __init__(self, client, model, lane: ProviderLane | None, ledger: CostLedger | None,
                 endpoint_holds: EndpointHolds | None = None):
        self.client, self.model, self.lane, self.ledger = client, model, lane, ledger
        self.endpoint_holds = endpoint_holds  # the process's shared endpoint locks (endpoint_lock.item_lock)
        self.provider = model.provider.name if model.provider else "local"
        self.in_flight = 0
        self._count = threading.Lock()

    @property
    def base_url(self) -> str:
        return self.client.base_url

    @property
    def model_id(self) -> str:
        return self.client.model_id

    def list_models(self, **kwargs):
        return self.client.list_models(**kwargs)

    def close(self) -> None:
        self.client.close()

    def worst_case(self, messages, max_tokens: int, tools) -> float:
        return self.model.cost(estimate_prompt_tokens(list(messages), tools), max_tokens)

    @property
    def thinking(self):
        return self.client.thinking

    def chat(self, messages, *, max_tokens: int, tools=None, tool_choice=None, params=None, timeout=None,
             reasoning_budget=None, force_answer=False):
        provider = self.provider
        most = self.client.budget(max_tokens, reasoning_budget)  # a thinking model's reasoning included
        booked = (self.ledger.reserve(provider, self.worst_case(messages, most, tools))
                  if self.ledger is not None else 0.0)
        cost = 0.0
        try:
            slot, paused = self.lane.acquire() if self.lane is not None else (None, 0.0)
            ok = False
            with self._count:
                self.in_flight += 1
            try:
                response = self.client.chat(messages, max_tokens=max_tokens, tools=tools, tool_choice=tool_choice,
                                            params=params, timeout=timeout, reasoning_budget=reasoning_budget,
                                            force_answer=force_answer)
                ok = True
            finally:
                with self._count:
                    self.in_flight -= 1
                if self.lane is not None:
                    self.lane.release(slot, ok)
            cost = self.model.cost(response.usage.prompt_tokens, response.usage.completion_tokens)
            response.waits_s = round(response.waits_s + paused, 4)
            return response
        finally:
            if self.ledger is not None:
                self.ledger.settle(provider, booked, cost)


# -- asking ahead -----------------------------------------------------------------------------------

@dataclass
class Upcoming:
    """An item the prefetcher may ask ahead: `start()` gives (item context, ask callable) or None when
    it must not be asked ahead after all (skipped, finished, ...)."""
    key: str
    lane: str | None          # the provider lane it counts against; None: never asked ahead
    exclusive: bool           # an exclusive item: nothing after it is asked before it ran
    start: Callable[[], tuple[Any, Callable[[Any], Any]] | None]


class Prefetcher:
    """`windows`: how many items of each lane may be asked ahead; `threads`: how many asks run at once
    (the lanes' concurrency: the rest wait in the pool's queue, where stop() still cancels them)."""

    def __init__(self, windows: dict[str, int], threads: int):
        self.windows = dict(windows)
        self._pool = ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="crucible-ask")
        self._ahead: dict[str, tuple[Any, Future, str]] = {}
        self._done: set[str] = set()
        self._outstanding: Counter = Counter()
        self.stopped = False

    def advance(self, upcoming: Iterable[Upcoming], scan: int = 512) -> int:
        """Ask the next items in `upcoming` (in order, the current item first) that fit their lane's
        window. Returns how many were sent off."""
        sent = 0
        for index, entry in enumerate(upcoming):
            if self.stopped or index >= scan:
                break
            if entry.exclusive:
                break
            if entry.lane is None or entry.key in self._ahead or entry.key in self._done:
                continue
            if self._outstanding[entry.lane] >= self.windows.get(entry.lane, 0):
                if self._all_full():
                    break  # nothing further could be sent: looking on costs time per item and asks nothing
                continue
            started = entry.start()
            self._done.add(entry.key)
            if started is None:
                continue
            item, ask = started
            self._ahead[entry.key] = (item, self._pool.submit(ask, item), entry.lane)
            self._outstanding[entry.lane] += 1
            sent += 1
        return sent

    def _all_full(self) -> bool:
        return all(self._outstanding[lane] >= window for lane, window in self.windows.items())

    def settled(self, entry: Upcoming) -> bool:
        """Whether `advance` will never send `entry` (sent already, never asked ahead, or started and found
        not to be asked ahead): the caller may leave it out of what it passes next time. An exclusive entry
        is never settled: it stops the asking until it ran."""
        return not entry.exclusive and (entry.lane is None or entry.key in self._done)

    def take(self, key: str) -> tuple[Any, Future] | None:
        """The item asked ahead under `key` and its future, once; None when it was not asked ahead."""
        found = self._ahead.pop(key, None)
        if found is None:
            return None
        item, future, lane = found
        self._outstanding[lane] -= 1
        return item, future

    def stop(self) -> None:
        """No more asking ahead; what has not started yet is never sent."""
        self.stopped = True
        for _, future, _ in self._ahead.values():
            future.cancel()
        self._pool.shutdown(wait=False, cancel_futures=True)


def window_for(concurrency: int) -> int:
    """Items asked ahead per provider: four times its concurrency, so a freed slot never waits for pytest
    to grade the answers that came back before."""
    return 4 * concurrency
