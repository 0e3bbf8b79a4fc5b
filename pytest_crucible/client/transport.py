"""The wire transport of the chat client: sends one request, yields the streamed chunks with their
arrival times, and turns every transport or HTTP failure into a classified `retry.Failure`.

`Transport` (with the `ChunkStream` it returns) is what `ChatClient` needs from the wire; the client is
typed against it and uses `HttpTransport` unless given another (``ChatClient(..., transport=...)``).

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

Its `ChunkStream` is a context manager (leaving it closes the stream); iterating it yields ``(chunk,
seconds, stamped)``: a chunk as the dict of the JSON the server sent (or an object with the same
attributes), the seconds since the request started, and whether that time is a kernel receive stamp. It
raises `Failure` when the stream breaks. ``server`` is the HTTP ``server`` header (or None), ``elapsed()``
the seconds since the request started, and the client sets ``ended`` to a callable that says whether the
reply ended normally (the transport may then keep the connection). A `Failure` says whether the attempt
may be retried (see retry.py).

`HttpTransport` speaks the chat-completions protocol over httpx2 itself: the request is one JSON body, the
reply an event stream (sse.py) whose events are handed on as the JSON mappings they are. It once went
through the ``openai`` package, whose per-chunk objects and client machinery took three times the CPU per
request of the whole client now (benchmarks/concurrency.py's docstring): at hundreds of requests in flight
that CPU was the run's bottleneck. Its connections are timed on the wire (see wire.py): an attempt's
timer starts when the request's first byte is written to the socket, or when a new connection for it
starts to open (connection set-up and the upload are inside every figure, the client's own request
building is not), and a chunk arrives at the kernel's receive stamp of its last byte on plain-HTTP
connections on Linux; elsewhere, or with an injected clock, at the clock read after the read. What it
needs from private parts of httpx2 is in compat.py. Every streamed request is held to its bounds
(limits.py) on the bytes as they arrive (guard.py): the idle gap between tokens, the deadline, the size
of an SSE line and event.

The API key goes into the ``Authorization`` header and appears nowhere else: not in ``repr``, exceptions or
logs (a server that echoes it back has it replaced by ``***``). Without a key no ``Authorization`` header is
sent; no key or header is taken from the environment (``OPENAI_API_KEY``, ``OPENAI_CUSTOM_HEADERS``), so
a key meant for one host cannot leak to another. A ``user:password@`` in the base URL is sent as Basic
auth, and a redirect to another host drops the ``Authorization`` header (httpx2's rule).
"""

from __future__ import annotations

import email.utils
import json
import math
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from itertools import chain
from typing import Any, Protocol, runtime_checkable

import httpx2

from pytest_crucible import __version__
from pytest_crucible.client.compat import use_network_backend
from pytest_crucible.client.guard import GuardedTransport, ReplyCut, RequestGuard
from pytest_crucible.client.limits import deadline_passed, deadline_s, line_cap, max_tokens_of
from pytest_crucible.client.retry import Failure
from pytest_crucible.client.sse import SSEDecoder
from pytest_crucible.client.stream import carries_token
from pytest_crucible.client.thread_pools import POOLS, ThreadPools
from pytest_crucible.client.wire import StampedBackend, WireTimes, drain
from pytest_crucible.common.redact import redact_secret, url_secrets

__all__ = ["Transport", "ChunkStream", "HttpTransport", "HttpChunkStream"]


class _ErrorEvent(Exception):
    """An event in the stream whose data carries an ``error`` (how servers report a failure mid-stream)."""


_RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
# what may be raised while a request is sent or its stream read
_STREAM_ERRORS = (httpx2.HTTPError, OSError, ValueError, RecursionError, ReplyCut, _ErrorEvent)
# as many connections, kept between requests, as a provider may have requests in flight (numbers.py), over
# the pools of thread_pools.py
_LIMITS = httpx2.Limits(max_connections=1024 // POOLS, max_keepalive_connections=1024 // POOLS)


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


class HttpChunkStream:
    """One streamed response: iterate for `(chunk, seconds since the request started, kernel-stamped)`,
    each chunk the JSON mapping of one event. `server` is the HTTP `server` header; `elapsed()` the seconds
    until now (for the whole stream); `ended` says whether the reply ended normally (asked at ``[DONE]``):
    then the body's last bytes are read, so the connection is kept for the next request. Each chunk that
    carries a token tells the request's `guard` (the idle gap runs from the last token)."""

    def __init__(self, transport: HttpTransport, response: httpx2.Response, start: float, read_timeout: float,
                 guard: RequestGuard) -> None:
        self._transport = transport
        self._response = response
        self._start = start
        self._read_timeout = read_timeout
        self._guard = guard
        self.ended: Callable[[], bool] = lambda: False
        self.server: str | None = response.headers.get("server")

    def __iter__(self) -> Iterator[tuple[Any, float, bool]]:
        transport, guard, decoder = self._transport, self._guard, SSEDecoder()
        try:
            for piece in chain(self._response.iter_raw(), [None]):
                for _, data in decoder.feed(piece) if piece is not None else decoder.end():
                    if data.startswith("[DONE]"):
                        self._finish()
                        return
                    chunk = json.loads(data)
                    if isinstance(chunk, dict) and chunk.get("error"):
                        raise _ErrorEvent(_error_message(chunk["error"]))
                    seconds, stamped = transport._since(self._start)
                    if carries_token(chunk):
                        guard.progressed()
                    yield chunk, seconds, stamped
        except _STREAM_ERRORS as exc:
            raise transport.classify(exc, read_timeout=self._read_timeout, mid_stream=True, guard=guard) from None

    def _finish(self) -> None:
        """``[DONE]``: a reply that ended normally leaves its connection open (the closing bytes are read
        within the drain's own bounds, not the request's); any other is closed when the stream is left."""
        if self.ended() and self._transport._use_wire:
            self._guard.release()
            drain(self._response, self._transport._wire)

    def elapsed(self) -> float:
        return self._transport._since(self._start)[0]

    def __enter__(self) -> HttpChunkStream:
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self._response.close()
        finally:
            self._transport._wire.guard = None


class HttpTransport:
    """Chat completions over httpx2; `timeout` bounds every wait for data (upload, each gap between bytes)
    and, in a stream, the gap between tokens; a stream also ends at its deadline and its size bounds
    (limits.py); `connect_timeout` bounds the connect phase. With `wire_clock` (and the default clock)
    requests are timed on the wire and streamed connections are kept open between requests; without,
    times are the clock's readings around the HTTP calls and every streamed request opens a new
    connection."""

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
        self._chat_url = _endpoint_url(self.base_url, "chat/completions")
        self._models_url = _endpoint_url(self.base_url, "models")
        self._http = httpx2.Client(
            headers=_default_headers(api_key, headers), timeout=self._timeout(None), follow_redirects=True,
            transport=GuardedTransport(self._transport(), lambda: self._wire.guard))

    # -- the two requests ------------------------------------------------------------------------------
    def stream(self, request: dict, *, timeout: float | None = None,
               deadline: float | None = None) -> HttpChunkStream:
        """Send one streamed chat completion (`request`: the create() arguments but stream and timeout),
        held to the bounds limits.py derives from the idle gap `timeout` and the request's max_tokens
        (`deadline`: seconds left for it, when less than its own)."""
        read_timeout = self.timeout if timeout is None else float(timeout)
        most = max_tokens_of(request)
        own = deadline_s(read_timeout, most)
        body = {key: value for key, value in request.items() if key != "extra_body"}
        body.update(request.get("extra_body") or {})
        body["stream"] = True
        wire = self._wire
        wire.requested_at = wire.sent_at = None
        wire.guard = guard = RequestGuard(idle=read_timeout, deadline=own if deadline is None else min(own, deadline),
                                          deadline_reason=deadline_passed(read_timeout, most),
                                          line_bytes=line_cap(most))
        start = self._clock()
        try:
            sent = self._http.build_request("POST", self._chat_url, content=_json_bytes(body),
                                            timeout=self._timeout(timeout))
            wire.begin(self._clock())
            response = self._http.send(sent, stream=True)
            if not response.is_success:
                raise self._status_failure(response)
        except _STREAM_ERRORS as exc:
            wire.guard = None
            raise self.classify(exc, read_timeout=read_timeout, mid_stream=False, guard=guard) from None
        except Failure:
            wire.guard = None
            raise
        start = (self._use_wire and wire.sent_at) or wire.requested_at or start
        return HttpChunkStream(self, response, start, read_timeout, guard)

    def list_models(self, *, timeout: float | None = None) -> list[str]:
        read_timeout = self.timeout if timeout is None else float(timeout)
        self._wire.guard = None
        try:
            response = self._http.get(self._models_url, timeout=self._timeout(timeout))
            if not response.is_success:
                raise self._status_failure(response)
            return [str(entry["id"]) for entry in response.json()["data"]]
        except (httpx2.HTTPError, OSError) as exc:
            raise self.classify(exc, read_timeout=read_timeout, mid_stream=False) from None
        except (ValueError, KeyError, TypeError) as exc:
            raise Failure(f"malformed /models reply: {_one_line(exc)}", retryable=True) from None

    def close(self) -> None:
        self._http.close()

    # -- plumbing -----------------------------------------------------------------------------------
    def _transport(self) -> httpx2.BaseTransport:
        """httpx's transport, its connections ending reads at the request's bounds and (with the wire clock)
        recording wire times; as many kept connections as a provider may have requests in flight, in
        pools by thread (thread_pools.py) that share one TLS context (making one takes milliseconds)."""
        backend = StampedBackend(self._wire, stamp=self._use_wire)
        tls = httpx2.create_ssl_context()

        def pool() -> httpx2.BaseTransport:
            transport = httpx2.HTTPTransport(verify=tls, limits=_LIMITS)
            use_network_backend(transport, backend)
            return transport
        return ThreadPools(pool)

    def _status_failure(self, response: httpx2.Response) -> Failure:
        """The Failure for a response that is not a success, its body read within the request's bounds."""
        try:
            response.read()
        finally:
            response.close()
        status = response.status_code
        retryable = status in _RETRYABLE_STATUS or status >= 500
        return Failure(f"HTTP {status}: {_status_message(response)}", retryable=retryable, status=status,
                       retry_after=_retry_after(response.headers) if retryable else None)

    def _since(self, start: float) -> tuple[float, bool]:
        """Seconds from ``start`` to the arrival of the bytes just read, and whether that is the kernel's
        stamp (used when known and consistent; otherwise the clock now)."""
        now = self._clock()
        arrived = self._wire.arrived_at if self._use_wire else None
        if arrived is not None and start <= arrived <= now:
            return arrived - start, True
        return now - start, False

    def _timeout(self, timeout: float | None) -> httpx2.Timeout:
        total = self.timeout if timeout is None else float(timeout)
        return httpx2.Timeout(total, connect=min(self.connect_timeout, total))

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
        if isinstance(exc, _ErrorEvent):
            return Failure(f"error event in the stream: {_one_line(exc)}", retryable=True)
        if isinstance(exc, (httpx2.RequestError, OSError)):
            reason, connect = _describe_transport(exc, read_timeout=read_timeout,
                                                  connect_timeout=self.connect_timeout, mid_stream=mid_stream)
            return Failure(reason, retryable=True, connect=connect)
        if isinstance(exc, (ValueError, RecursionError)):  # malformed chunk JSON (too deeply nested)
            return Failure(f"malformed stream data: {_one_line(exc)}", retryable=True)
        return Failure(f"{type(exc).__name__}: {_one_line(exc)}", retryable=True)


def _endpoint_url(base_url: str, path: str) -> str:
    """`path` under the base URL's path, its query (an Azure ``api-version``, a ``key``) kept."""
    url = httpx2.URL(base_url)
    return str(url.copy_with(path=url.path.rstrip("/") + "/" + path))


def _json_bytes(body: dict) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def _default_headers(api_key: str | None, headers: Mapping[str, str] | None) -> dict[str, str]:
    """The configured headers over the key's and ours. Bodies come uncompressed (guard.py). No header comes
    from the environment: a key meant for one host never reaches another."""
    out = {"Accept": "application/json", "Content-Type": "application/json", "Accept-Encoding": "identity",
           "User-Agent": f"pytest-crucible/{__version__}"}
    if api_key:
        out["Authorization"] = f"Bearer {api_key}"
    out.update(headers or {})
    return out


def _error_message(error: Any) -> str:
    message = error.get("message") if isinstance(error, Mapping) else None
    return message if isinstance(message, str) and message else "An error occurred during streaming"


def _one_line(text: Any, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _status_message(response: httpx2.Response) -> str:
    """What an error response says: its JSON's ``error.message`` (or ``message``, or ``error`` as text), else
    the JSON itself, else its text, else the reason phrase."""
    text = response.text.strip()
    body: Any = text
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        pass
    if isinstance(body, Mapping):
        body = body.get("error", body)
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
    return _one_line(message or text or response.reason_phrase)


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
