"""Every use the chat client makes of private parts of the ``openai`` and ``httpx2`` / ``httpcore2`` packages,
each behind one small function: when a release moves something, this is the one module to fix, and
tests/test_client_compat.py (run on the newest releases and on .ci/oldest.txt's pins) says which.

Checked on openai 3.0.0 with httpx2 / httpcore2 2.7.0 (the oldest pins) and on openai 3.60.0 with
httpx2 / httpcore2 2.16.2. Each function degrades instead of failing when its private part is gone:
the client then works as a plain openai client would (timed by the process clock, a new connection per
streamed request).

Not here, because a public API does the job: the openai client's private ``_enforce_credentials=False``
(without a key the transport passes ``admin_api_key=""``, which satisfies the openai client's credentials
check, and omits the ``Authorization`` header per request).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpcore2
import httpx2

__all__ = ["use_network_backend", "call_before_close"]


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


def call_before_close(response: httpx2.Response, before: Callable[[], None]) -> bool:
    """Run `before()` each time `response` is closed, right before it closes.

    The openai package's sync ``Stream`` closes its response (``Stream.response``) as soon as it reads
    ``[DONE]``, before the body's last bytes: httpx2 then drops the connection. httpx2 has no close hook,
    so the response's bound ``close`` is replaced on the instance. Checked on openai 3.0.0 and 3.60.0
    with httpx2 2.7.0 and 2.16.2. Returns False (and changes nothing) where ``close`` cannot be replaced;
    a release that stops closing the response at ``[DONE]`` just never calls `before` there. Either way
    every streamed request then opens a new connection.
    """
    close = response.close

    def before_then_close() -> None:
        before()
        close()

    try:
        response.close = before_then_close  # type: ignore[method-assign]
    except AttributeError:  # a Response with __slots__
        return False
    return True
