"""Connection pools split by thread: httpx's pool looks over every connection it holds each time a request
starts and ends, so at hundreds of requests in flight (one per asking thread) that scan was a sixth of
the client's CPU (benchmarks/concurrency.py's docstring). `ThreadPools` spreads the threads over up to
`most` pools instead, made as threads first ask: each thread keeps to its pool, where its kept connection
is, and a pool's scan covers the connections of a few threads."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable

import httpx2

POOLS = 16  # at 256 asking threads: 16 connections per pool


class ThreadPools(httpx2.BaseTransport):
    """Sends each request through the pool of its thread (pools from `make()`, at most `most`)."""

    def __init__(self, make: Callable[[], httpx2.BaseTransport], most: int = POOLS) -> None:
        self._make = make
        self._most = most
        self._pools: list[httpx2.BaseTransport] = []
        self._turns = itertools.count()
        self._local = threading.local()
        self._lock = threading.Lock()

    def _pool(self) -> httpx2.BaseTransport:
        pool = getattr(self._local, "pool", None)
        if pool is None:
            index = next(self._turns) % self._most
            with self._lock:
                while len(self._pools) <= index:
                    self._pools.append(self._make())
                pool = self._local.pool = self._pools[index]
        return pool

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        return self._pool().handle_request(request)

    def close(self) -> None:
        with self._lock:
            pools, self._pools = self._pools, []
        for pool in pools:
            pool.close()
