"""The bounds of one streamed request (limits.py), enforced on its bytes as they arrive.

The SSE decoder (sse.py) buffers a line, and an event's data lines, with no limit, and drops comments
without a word; the transport yields every chunk, empty or not. So the bounds are kept below them, where
every byte passes:

- `GuardedTransport` wraps httpx's transport: the body of a guarded response reaches httpx (and then the
  SSE decoder) only through `RequestGuard.feed`, which counts the bytes of each SSE line and event
  and checks the deadline and the idle gap between pieces;
- wire.py's network stream ends each socket read at `RequestGuard.read_until()`, so a silent endpoint is
  cut at the deadline, not a whole read timeout later;
- the chunk stream (transport.py) calls `RequestGuard.progressed()` for every chunk that carries a token.

The guard of the request in flight sits on the transport's per-thread `WireTimes` (one request at a
time per thread). Requests are sent with ``Accept-Encoding: identity``: a compressed body would be
inflated by httpx before any count could see it, so a guarded response that is compressed anyway is cut.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator

import httpx2

__all__ = ["GuardedTransport", "ReplyCut", "RequestGuard", "SSEBudget"]

_LINE_END = re.compile(rb"[\r\n]")
_CR, _LF, _COLON = 0x0D, 0x0A, 0x3A


class ReplyCut(Exception):
    """The endpoint passed one of the request's bounds; `retryable`: trying again may do better (a stall)."""

    def __init__(self, reason: str, *, retryable: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retryable = retryable


class SSEBudget:
    """Counts the bytes of the SSE line being received and of the event being built (its non-comment
    lines since the last blank line), splitting lines as sse.py does (CR, LF or CRLF); raises
    ReplyCut once either passes `cap` bytes."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.line = 0          # bytes of the current line so far
        self.event = 0         # bytes of the current event's non-comment lines
        self._comment = False  # the current line is an SSE comment (starts with ':')
        self._skip_lf = False  # the last line ended with CR: an LF right after it ends nothing

    def feed(self, data: bytes) -> None:
        start = 0
        for match in _LINE_END.finditer(data):
            end = match.start()
            if self._skip_lf and end == start and data[end] == _LF:
                self._skip_lf = False
                start = end + 1
                continue
            self._add(data, start, end)
            if self.line == 0:
                self.event = 0  # a blank line dispatches the event
            self.line, self._comment = 0, False
            self._skip_lf = data[end] == _CR
            start = end + 1
        if start < len(data):
            self._skip_lf = False
            self._add(data, start, len(data))

    def _add(self, data: bytes, start: int, end: int) -> None:
        if end <= start:
            return
        if self.line == 0:
            self._comment = data[start] == _COLON
        self.line += end - start
        if not self._comment:
            self.event += end - start
        if self.line > self.cap:
            raise ReplyCut(f"the endpoint sent an SSE line of more than {self.cap} bytes (the bound for this "
                           "request's max_tokens)")
        if self.event > self.cap:
            raise ReplyCut(f"the endpoint sent an SSE event of more than {self.cap} bytes (the bound for this "
                           "request's max_tokens)")


class RequestGuard:
    """One streamed request's bounds: its `deadline` (seconds from now; passed, it fails with
    `deadline_reason`), the `idle` gap between tokens, and `line_bytes` per SSE line and event. Every cut
    is remembered in `cut`, so the transport names the bound whatever exception the HTTP stack made of it."""

    def __init__(self, *, idle: float, deadline: float, deadline_reason: str, line_bytes: int,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        now = clock()
        self.idle = idle
        self.deadline_at = now + deadline
        self.deadline_reason = deadline_reason
        self.progress_at = now
        self.bytes_since_progress = 0
        self.cut: ReplyCut | None = None
        self.released = False
        self._sse = SSEBudget(line_bytes)

    def progressed(self) -> None:
        """A token arrived."""
        self.progress_at = self._clock()
        self.bytes_since_progress = 0

    def release(self) -> None:
        """The reply is complete: what is read after it (the body's closing bytes) is not held to its bounds."""
        self.released = True

    def read_until(self) -> float | None:
        """The moment the next socket read must give up (None: released)."""
        return None if self.released else min(self.deadline_at, self.progress_at + self.idle)

    def feed(self, data: bytes) -> None:
        """Bytes of the body arrived: count them (raises ReplyCut past a bound)."""
        if self.released:
            return
        self.bytes_since_progress += len(data)
        self._cut_if(self._deadline_passed())
        try:
            self._sse.feed(data)
        except ReplyCut as cut:
            self._cut_if(cut)

    def check(self) -> None:
        """Before the next read: raise ReplyCut when the deadline or the idle gap has passed."""
        self._cut_if(self.verdict())

    def verdict(self) -> ReplyCut | None:
        """Why the request must end now (a cut already made first), or None. A read that timed out with
        no byte since the last token is left to the transport's own words (a stall)."""
        if self.cut is not None:
            return self.cut
        if self.released:
            return None
        passed = self._deadline_passed()
        if passed is not None:
            return passed
        if self.bytes_since_progress and self._clock() >= self.progress_at + self.idle:
            return ReplyCut(f"no token for {self.idle:g} s (read timeout): the endpoint sent only keep-alives, "
                            "comments or empty chunks", retryable=True)
        return None

    def _deadline_passed(self) -> ReplyCut | None:
        if self._clock() < self.deadline_at:
            return None
        return ReplyCut(self.deadline_reason)

    def _cut_if(self, cut: ReplyCut | None) -> None:
        if cut is not None:
            self.cut = self.cut or cut
            raise cut


class _GuardedStream(httpx2.SyncByteStream):
    def __init__(self, inner: httpx2.SyncByteStream, guard: RequestGuard) -> None:
        self._inner = inner
        self._guard = guard

    def __iter__(self) -> Iterator[bytes]:
        guard = self._guard
        for piece in self._inner:
            guard.feed(piece)
            yield piece
            # the transport has handled every event of the piece by now: tokens marked progress
            guard.check()

    def close(self) -> None:
        self._inner.close()


class GuardedTransport(httpx2.BaseTransport):
    """httpx's transport, the body of each response read through the guard `guard_of()` gives for the
    request in flight on this thread (None: not guarded)."""

    def __init__(self, inner: httpx2.BaseTransport, guard_of: Callable[[], RequestGuard | None]) -> None:
        self.inner = inner
        self._guard_of = guard_of

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = self.inner.handle_request(request)
        guard = self._guard_of()
        if guard is None or not isinstance(response.stream, httpx2.SyncByteStream):
            return response
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            response.close()
            guard.cut = ReplyCut(f"the endpoint compressed its reply (Content-Encoding: {encoding}) although the "
                                 "request asked for none")
            raise guard.cut
        return httpx2.Response(status_code=response.status_code, headers=response.headers,
                               stream=_GuardedStream(response.stream, guard), extensions=response.extensions)

    def close(self) -> None:
        self.inner.close()
