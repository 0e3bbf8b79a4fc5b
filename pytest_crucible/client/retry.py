"""The retry policy of a chat client: which failures are tried again, how long to wait, when to give up.

Pure: no I/O of its own (the wait is an injected `sleep`), so it is tested without a server. An attempt
raises `Failure` (classified by the transport) or `Adjusted` (the client changed the request after the
server refused an optional field: try again at once, not counted as a retry).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pytest_crucible.common.errors import EndpointError

if TYPE_CHECKING:
    from pytest_crucible.client.circuit import Circuit

__all__ = ["Failure", "Adjusted", "RetryPolicy"]

log = logging.getLogger(__name__)


class Failure(Exception):
    """One failed attempt. `retryable` failures are retried; `connect` ones got no HTTP response; `bound`
    ones were cut by one of the request's bounds (limits.py: its deadline, the reply's size), never
    retried."""

    def __init__(self, reason: str, *, retryable: bool, connect: bool = False,
                 retry_after: float | None = None, status: int | None = None, bound: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retryable = retryable and not bound
        self.bound = bound
        self.connect = connect
        self.retry_after = retry_after
        self.status = status


class Adjusted(Exception):
    """The server rejected an optional request field; the client dropped it: try again at once."""


class RetryPolicy:
    """`max_retries` retries follow the first attempt, for retryable failures; the wait is
    `backoff_base * 2**n` seconds (capped at `backoff_max`, with jitter between half and all of it), or
    the server's Retry-After (capped at `backoff_max`). A failure that is not retryable raises at once.
    Once an endpoint was unreachable on every attempt, later runs try it only once (no backoff) until it
    answers again, so a down endpoint costs one full retry cycle per client, not per call. With a
    `deadline` (on `clock`), no wait runs past it: the last failure is then final.
    `on_retry(status, retry_after)` hears of every failed attempt that will be retried. A `circuit`
    (circuit.Circuit, shared by a provider's clients) hears of every attempt's fate and may refuse one
    (ProviderDown) while its provider is down."""

    def __init__(self, max_retries: int = 4, *, backoff_base: float = 1.0, backoff_max: float = 60.0,
                 sleep: Callable[[float], None] = time.sleep, rng: Callable[[], float] | None = None,
                 on_retry: Callable[[int | None, float | None], None] | None = None,
                 clock: Callable[[], float] = time.perf_counter, circuit: Circuit | None = None) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.max_retries = int(max_retries)
        self.backoff_base = float(backoff_base)
        self.backoff_max = float(backoff_max)
        self._sleep = sleep
        self._rng = rng or random.random
        self._on_retry = on_retry
        self._clock = clock
        self.circuit = circuit
        self.unreachable = False

    def backoff(self, failure: Failure, retry_index: int) -> float:
        if failure.retry_after is not None:
            return min(failure.retry_after, self.backoff_max)
        delay = min(self.backoff_max, self.backoff_base * (2 ** retry_index))
        return delay * (0.5 + 0.5 * self._rng())

    def run(self, attempt: Callable[[], Any], *, endpoint: str, model_id: str,
            redact: Callable[[str], str] = lambda text: text,
            deadline: float | None = None) -> tuple[Any, int, float]:
        """Call `attempt` until it succeeds. Returns the result, the number of requests and the seconds
        slept between them; raises EndpointError naming `endpoint` once it gives up (a failure that is not
        retryable, `max_retries` spent, or a wait that would end past `deadline`)."""
        limit = 1 if self.unreachable else self.max_retries + 1
        requests = failures = 0
        waited = 0.0
        got_response = False
        circuit = self.circuit
        while True:
            if circuit is not None:
                circuit.admit()
            requests += 1
            try:
                result = attempt()
            except Adjusted:
                got_response = True
                continue
            except Failure as failure:
                failures += 1
                got_response = got_response or not failure.connect
                reason = redact(failure.reason)
                noun = "attempt" if requests == 1 else "attempts"
                if circuit is not None and not failure.connect:
                    circuit.answered()
                elif circuit is not None and circuit.connect_failed(reason):
                    self.unreachable = True
                    raise EndpointError(f"endpoint {endpoint} unreachable after {requests} {noun}: {reason} "
                                        f"({circuit.failures} connection failures in a row to provider "
                                        f"{circuit.name}: its circuit opened)") from None
                if failure.bound:
                    raise EndpointError(f"endpoint {endpoint} failed after {requests} {noun}: {reason}") from None
                if not failure.retryable:
                    raise EndpointError(f"endpoint {endpoint} rejected the request for model {model_id!r}: "
                                        f"{reason}") from None
                if failures >= limit:
                    if not got_response:
                        self.unreachable = True
                    verb = "failed" if got_response else "unreachable"
                    raise EndpointError(f"endpoint {endpoint} {verb} after {requests} {noun}: {reason}") from None
                delay = self.backoff(failure, failures - 1)
                if deadline is not None and self._clock() + delay >= deadline:
                    raise EndpointError(f"endpoint {endpoint} failed after {requests} {noun} (no time left for "
                                        f"another before the request's deadline): {reason}") from None
                log.info("endpoint %s, model %s: %s; retry %d/%d in %.2f s", endpoint, model_id, reason, failures,
                         limit - 1, delay)
                if self._on_retry is not None:
                    self._on_retry(failure.status, failure.retry_after)
                self._sleep(delay)
                waited += delay
                continue
            self.unreachable = False
            if circuit is not None:
                circuit.answered()
            return result, requests, waited
