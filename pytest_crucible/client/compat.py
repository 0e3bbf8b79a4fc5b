"""Every use the chat client makes of private parts of the ``httpx2`` / ``httpcore2`` packages, each behind
one small function: when a release moves something, this is the one module to fix, and
tests/test_client_compat.py (run on the newest releases and on .ci/oldest.txt's pins) says which.

Checked on httpx2 / httpcore2 2.7.0 (the oldest pins) and 2.17.0. Each function degrades instead of failing
when its private part is gone: the client then times requests by the process clock.
"""

from __future__ import annotations

from typing import Any

import httpcore2
import httpx2

__all__ = ["use_network_backend"]


def use_network_backend(transport: httpx2.HTTPTransport, backend: httpcore2.NetworkBackend) -> bool:
    """Make `transport` open its new connections through `backend` (httpcore's network backend).

    httpcore2's ``ConnectionPool`` takes a backend, but httpx2's ``HTTPTransport`` does not pass one on:
    this sets the private ``HTTPTransport._pool._network_backend``, which the pool hands to every
    connection it opens. Checked on httpx2 / httpcore2 2.7.0 and 2.16.2. When either attribute is
    missing it returns False and changes nothing: requests are then timed by the process clock, not
    on the wire.
    """
    pool: Any = getattr(transport, "_pool", None)
    if not hasattr(pool, "_network_backend"):
        return False
    pool._network_backend = backend
    return True
