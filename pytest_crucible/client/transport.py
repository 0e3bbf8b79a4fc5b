"""The wire transport of the chat client: sends one request, yields the streamed chunks with their
arrival times, and turns every transport or HTTP failure into a classified `retry.Failure`.

`Transport` (with the `ChunkStream` it returns) is what `ChatClient` needs from the wire; the client is
typed against it and uses `OpenAITransport` unless given another (``ChatClient(..., transport=...)``).

Plugging in another transport (a recorded-stream replayer, another HTTP stack): write a class with

- ``stream(request, *, timeout=None, deadline=None)``: send one streamed chat completion. `request` holds
  the keyword arguments of openai's ``chat.completions.create`` except ``stream`` and ``timeout`` (model,
  messages, max_tokens or max_completion_tokens, stream_options, tools, tool_choice, extra_body);
  `timeout` is the idle gap, `deadline` the seconds the request may take in all (limits.py; None: the
  transport's own). Return a `ChunkStream`; raise `Failure` when the request fails before the stream
  starts;
- ``list_models(*, timeout=None)``: the model ids under ``/models``; raise `Failure` on failure;
- ``close()``: release connections; ``redact(text)``: `text` without the transport's secrets (the
  client passes every failure reason through it before it is shown).

Its `ChunkStream` is a context manager (leaving it closes the stream); iterating it yields ``(chunk, seconds,
stamped)``: a chunk as openai's ``ChatCompletionChunk`` or the same shape as a dict, the seconds since the request
started, and whether that time is a kernel receive stamp. It raises `Failure` when the stream breaks. ``server`` is
the HTTP ``server`` header (or None), ``elapsed()`` the seconds since the request started, and the client sets
``ended`` to a callable that says whether the reply ended normally (the transport may then keep the connection). A
`Failure` says whether the attempt may be retried (see retry.py).

`OpenAITransport` is the ``openai`` package over httpx2, its connections timed on the wire (see wire.py):
an attempt's timer starts when the request's first byte is written to the socket, or when a new
connection for it starts to open (connection set-up and the upload are inside every figure, the
client's own request building is not), and a chunk arrives at the kernel's receive stamp of its last
byte on plain-HTTP connections on Linux; elsewhere, or with an injected clock, at the clock read after
the read. What it needs from private parts of openai and httpx2 is in compat.py. Every streamed request
is held to its bounds (limits.py) on the bytes as they arrive (guard.py): the idle gap between tokens,
the deadline, the size of an SSE line and event.

The API key is handed to the ``openai`` client for its ``Authorization`` header and appears nowhere else:
not in ``repr``, exceptions or logs (a server that echoes it back has it replaced by ``***``). Without a
key no ``Authorization`` header is sent; ``OPENAI_API_KEY`` and friends from the environment are never
picked up, so a key meant for one host cannot leak to another; nor are the headers
``OPENAI_CUSTOM_HEADERS`` names (an ``Authorization`` there would replace the key): each is sent as
configured or not at all.
"""

from __future__ import annotations

import email.utils
import json
import math
import os
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

import httpx2
import openai
from openai import Omit

from pytest_crucible.client.compat import call_before_close, use_network_backend
from pytest_crucible.client.guard import GuardedTransport, ReplyCut, RequestGuard
from pytest_crucible.client.limits import deadline_passed, deadline_s, line_cap, max_tokens_of
from pytest_crucible.client.retry import Failure
from pytest_crucible.client.stream import carries_token
from pytest_crucible.client.wire import StampedBackend, WireTimes, drain
from pytest_crucible.common.redact import redact_secret, url_secrets

__all__ = ["Transport", "ChunkStream", "OpenAITransport", "OpenAIChunkStream"]

_RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
# what the openai package raises (or lets through) while a request is sent or its stream read
_STREAM_ERRORS = (openai.APIError, httpx2.HTTPError, OSError, ValueError, RecursionError, ReplyCut)


@runtime_checkable
class ChunkStream(Protocol):
    """One streamed response, as a transport hands it to the client (see the module docstring)."""

    server: str | None
    ended: Callable[[], bool]

    def __iter__(self) -> Iterator[tuple[Any, float, bool]]: ...

    def elapsed(self) -> float: ...

    def __enter__(self) -> ChunkStream: ...

    def __exit__(self, *exc: Any) -> None: ...


@runtime_checkable
class Transport(Protocol):
    """What the chat client needs from the wire (see the module docstring)."""

    def stream(self, request: dict, *, timeout: float | None = None,
               deadline: float | None = None) -> ChunkStream: ...

    def list_models(self, *, timeout: float | None = None) -> list[str]: ...

    def close(self) -> None: ...

    def redact(self, text: str) -> str: ...


class OpenAIChunkStream:
    """One streamed response: iterate for `(chunk, seconds since the request started, kernel-stamped)`.
    `server` is the HTTP `server` header; `elapsed()` the seconds until now (for the whole stream);
    `ended` says whether the reply ended normally (asked when the body closes, which the openai package
    does at `[DONE]`): then the connection is kept for the next request. Each chunk that carries a token
    tells the request's `guard` (the idle gap runs from the last token)."""

    def __init__(self, transport: OpenAITransport, stream: Any, start: float, read_timeout: float,
                 guard: RequestGuard) -> None:
        self._transport = transport
        self._stream = stream
        self._start = start
        self._read_timeout = read_timeout
        self._guard = guard
        self.ended: Callable[[], bool] = lambda: False
        raw = getattr(stream, "response", None)
        self.server: str | None = raw.headers.get("server") if raw is not None else None
        transport._keep_connection(stream, ended=lambda: self.ended(), guard=guard)

    def __iter__(self) -> Iterator[tuple[Any, float, bool]]:
        try:
            for chunk in self._stream:
                seconds, stamped = self._transport._since(self._start)
                if carries_token(chunk):
                    self._guard.progressed()
                yield chunk, seconds, stamped
        except _STREAM_ERRORS as exc:
            raise self._transport.classify(exc, read_timeout=self._read_timeout, mid_stream=True,
                                           guard=self._guard) from None

    def elapsed(self) -> float:
        return self._transport._since(self._start)[0]

    def __enter__(self) -> OpenAIChunkStream:
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self._stream.close()
        finally:
            self._transport._wire.guard = None


class OpenAITransport:
    """Chat completions through the ``openai`` package; `timeout` bounds every wait for data (upload, each
    gap between bytes) and, in a stream, the gap between tokens; a stream also ends at its deadline and
    its size bounds (limits.py); `connect_timeout` bounds the connect phase. With `wire_clock`
    (and the default clock) requests are timed on the wire and streamed connections are kept open
    between requests; without, times are the clock's readings around the openai package's calls and every
    streamed request opens a new connection (the openai package's own behaviour)."""

    def __init__(self, base_url: str, api_key: str | None = None, *, timeout: float = 600.0,
                 connect_timeout: float = 10.0, headers: Mapping[str, str] | None = None,
                 wire_clock: bool = True, clock: Callable[[], float] = time.perf_counter) -> None:
        self.base_url = str(base_url).rstrip("/")
        self.timeout = float(timeout)
        self.connect_timeout = float(min(connect_timeout, timeout))
        self._clock = clock
        # what a reply or an error must not show: the key, and a password or key the base URL carries
        self._secrets = [s for s in (api_key, *url_secrets(self.base_url)) if s]
        self._wire = WireTimes()
        # the wire times are on time.perf_counter: an injected clock (tests) is used alone
        self._use_wire = wire_clock and clock is time.perf_counter
        # without a key, say so per request, or the openai client refuses to send anything
        self._request_headers: dict[str, Any] | None = None if api_key else {"Authorization": Omit()}
        self._openai = openai.OpenAI(
            base_url=self.base_url,
            api_key=api_key or "",           # "" (not None): never fall back to $OPENAI_API_KEY
            # never pick up $OPENAI_ADMIN_KEY either; "" (not None) also lets a client without a key be built
            admin_api_key="",
            organization=None, project=None, webhook_secret="",
            max_retries=0,                   # retries are the client's: they must cover errors mid-stream too
            timeout=self._timeout(None),
            default_headers=_default_headers(api_key, headers),
            http_client=openai.DefaultHttpxClient(event_hooks={"request": [self._on_send]},
                                                  transport=GuardedTransport(self._transport(),
                                                                             lambda: self._wire.guard)),
        )
        # the openai package imports its resources on first use (~1 s for `chat` in some releases): do it
        # here, not inside the first item's request
        self._completions = self._openai.chat.completions

    # -- the two requests ------------------------------------------------------------------------------
    def stream(self, request: dict, *, timeout: float | None = None,
               deadline: float | None = None) -> OpenAIChunkStream:
        """Send one streamed chat completion (`request`: the create() arguments but stream and timeout),
        held to the bounds limits.py derives from the idle gap `timeout` and the request's max_tokens
        (`deadline`: seconds left for it, when less than its own)."""
        read_timeout = self.timeout if timeout is None else float(timeout)
        most = max_tokens_of(request)
        own = deadline_s(read_timeout, most)
        wire = self._wire
        wire.requested_at = wire.sent_at = None
        wire.guard = guard = RequestGuard(idle=read_timeout, deadline=own if deadline is None else min(own, deadline),
                                          deadline_reason=deadline_passed(read_timeout, most),
                                          line_bytes=line_cap(most))
        start = self._clock()
        try:
            stream = self._completions.create(**request, stream=True, timeout=self._timeout(timeout),
                                              extra_headers=self._request_headers)
        except _STREAM_ERRORS as exc:
            wire.guard = None
            raise self.classify(exc, read_timeout=read_timeout, mid_stream=False, guard=guard) from None
        start = (self._use_wire and wire.sent_at) or wire.requested_at or start
        return OpenAIChunkStream(self, stream, start, read_timeout, guard)

    def list_models(self, *, timeout: float | None = None) -> list[str]:
        read_timeout = self.timeout if timeout is None else float(timeout)
        self._wire.guard = None
        try:
            page = self._openai.models.list(timeout=self._timeout(timeout), extra_headers=self._request_headers)
            return [m.id for m in page.data]
        except (openai.APIError, httpx2.HTTPError, OSError, ValueError) as exc:
            raise self.classify(exc, read_timeout=read_timeout, mid_stream=False) from None

    def close(self) -> None:
        self._openai.close()

    # -- plumbing -----------------------------------------------------------------------------------
    def _on_send(self, request: Any) -> None:
        # right before the request goes to the connection pool: a fallback start when no byte was
        # seen leaving (the openai package's own request building is never counted)
        self._wire.begin(self._clock())

    def _transport(self) -> httpx2.HTTPTransport:
        """httpx's transport with openai's connection limits, its connections ending reads at the request's
        bounds and (with the wire clock) recording wire times."""
        transport = httpx2.HTTPTransport(limits=openai.DEFAULT_CONNECTION_LIMITS)
        use_network_backend(transport, StampedBackend(self._wire, stamp=self._use_wire))
        return transport

    def _keep_connection(self, stream: Any, ended: Callable[[], bool], guard: RequestGuard) -> None:
        """Let a stream that ``ended()`` leave its connection open for the next request. The openai package
        closes the response at ``[DONE]`` before the body's last bytes are read, which drops the connection
        (its async client drains them, the sync one does not): every request would pay a new TCP and TLS
        handshake inside its time to first token."""
        response = getattr(stream, "response", None)
        if not self._use_wire or response is None:
            return

        def drain_if_ended() -> None:
            if ended():
                guard.release()  # the closing bytes are read within the drain's own bounds
                drain(response, self._wire)

        call_before_close(response, drain_if_ended)

    def _since(self, start: float) -> tuple[float, bool]:
        """Seconds from ``start`` to the arrival of the bytes just read, and whether that is the kernel's
        stamp (used when known and consistent; otherwise the clock now)."""
        now = self._clock()
        arrived = self._wire.arrived_at if self._use_wire else None
        if arrived is not None and start <= arrived <= now:
            return arrived - start, True
        return now - start, False

    def _timeout(self, timeout: float | None) -> openai.Timeout:
        total = self.timeout if timeout is None else float(timeout)
        return openai.Timeout(total, connect=min(self.connect_timeout, total))

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = redact_secret(text, secret)
        return text

    def classify(self, exc: BaseException, *, read_timeout: float, mid_stream: bool,
                 guard: RequestGuard | None = None) -> Failure:
        cut = guard.verdict() if guard is not None else None
        if cut is None and isinstance(exc, ReplyCut):
            cut = exc
        if cut is not None:  # a bound of the request, whatever the HTTP stack made of it
            return Failure(cut.reason, retryable=cut.retryable, bound=not cut.retryable)
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            reason = f"HTTP {status}: {_status_message(exc)}"
            retryable = status in _RETRYABLE_STATUS or status >= 500
            return Failure(reason, retryable=retryable, status=status,
                           retry_after=_retry_after(exc.response.headers) if retryable else None)
        if isinstance(exc, (openai.APIConnectionError, httpx2.TransportError, OSError)):
            reason, connect = _describe_transport(exc, read_timeout=read_timeout,
                                                  connect_timeout=self.connect_timeout, mid_stream=mid_stream)
            return Failure(reason, retryable=True, connect=connect)
        if isinstance(exc, openai.APIError):  # an error event inside the stream
            return Failure(f"error event in the stream: {_one_line(exc.message)}", retryable=True)
        if isinstance(exc, (ValueError, RecursionError)):  # malformed chunk JSON (too deeply nested)
            return Failure(f"malformed stream data: {_one_line(exc)}", retryable=True)
        return Failure(f"{type(exc).__name__}: {_one_line(exc)}", retryable=True)


def _default_headers(api_key: str | None, headers: Mapping[str, str] | None) -> dict[str, Any]:
    """The configured headers and the key's, and none of those the openai package would take from the
    environment: $OPENAI_CUSTOM_HEADERS (one `Name: value` a line) and $OPENAI_ORG_ID / $OPENAI_PROJECT_ID
    belong to the user's own openai use, never sent to a benchmarked endpoint. An Authorization header
    of ours also keeps the variable's from replacing the key. Bodies come uncompressed (guard.py)."""
    names = [line.split(":", 1)[0].strip() for line in os.environ.get("OPENAI_CUSTOM_HEADERS", "").split("\n")
             if ":" in line]
    out: dict[str, Any] = {name: Omit() for name in names if name}
    out.update({"OpenAI-Organization": Omit(), "OpenAI-Project": Omit(), "Accept-Encoding": "identity",
                "Authorization": f"Bearer {api_key}" if api_key else Omit()})
    out.update(headers or {})
    return out


def _one_line(text: Any, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _status_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    message: Any = None
    if isinstance(body, Mapping):
        message = body.get("message")
        err = body.get("error")
        if message is None and isinstance(err, Mapping):
            message = err.get("message")
        elif message is None and isinstance(err, str):
            message = err
        if message is None:
            message = json.dumps(body)
    elif isinstance(body, str) and body.strip():
        message = body
    if message is None:
        try:
            message = exc.response.text or exc.response.reason_phrase
        except Exception:  # the body of a streamed error may be unread
            message = exc.response.reason_phrase
    return _one_line(message or "")


def _retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _chain(exc: BaseException | None) -> list[BaseException]:
    seen: list[BaseException] = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def _describe_transport(exc: BaseException, *, read_timeout: float | None, connect_timeout: float | None,
                        mid_stream: bool) -> tuple[str, bool]:
    """A short reason for a transport failure, and whether it happened before any response came."""
    chain = _chain(exc)
    where = " mid-stream" if mid_stream else ""

    def has(*types: type) -> bool:
        return any(isinstance(e, types) for e in chain)

    if has(ConnectionRefusedError):
        return "connection refused", True
    if has(httpx2.ConnectTimeout):
        return f"connect timeout after {connect_timeout:g} s", True
    if has(socket.gaierror):
        return "host name not resolved", True
    if has(httpx2.ConnectError):
        return f"cannot connect: {_one_line(chain[-1])}", True
    if has(httpx2.ReadTimeout, httpx2.TimeoutException, TimeoutError):
        if mid_stream:
            return f"stream stalled: no data for {read_timeout:g} s (read timeout)", False
        return f"no response within {read_timeout:g} s (read timeout)", False
    if has(ConnectionResetError):
        return f"connection reset{where}", False
    if has(httpx2.RemoteProtocolError):
        return f"server closed the connection{where}", False
    last = chain[-1]
    return f"{type(last).__name__}{where}: {_one_line(last)}", False
