"""Streaming chat client for any OpenAI-compatible endpoint, built on the ``openai`` package.

One :meth:`ChatClient.chat` call sends one streamed chat completion (retrying on transient failures) and
returns a :class:`~pytest_crucible.response.Response`: the answer with reasoning split off, tool calls,
finish reason, the model the server answered as, token usage and timings measured from the stream.

Timing definitions (seconds, on ``time.perf_counter`` unless a ``clock`` is injected). An attempt's timer
starts when the request's first byte is written to the socket, or when a new connection for it starts
to open: connection set-up and the upload are inside every figure, the client's own request building is
not. A chunk's arrival is the kernel's receive stamp of its last byte on plain-HTTP connections on Linux
(see :mod:`pytest_crucible.wire`; ``timings.clock == "kernel"``), so time the client process spent
waiting for a CPU or parsing is not counted; elsewhere it is the clock read after the read
(``"process"``):

- ``ttft_s``: arrival of the first chunk carrying any token (reasoning, answer text or a tool-call delta;
  an empty ``content: ""`` role chunk is not a token);
- ``ttft_answer_s``: arrival of the first chunk carrying a visible answer character (text outside any
  reasoning, whitespace alone does not count) or a tool-call delta;
- ``e2e_s``: until the stream has been read to its end;
- ``chunk_times``: arrival of every token-carrying chunk. Decode speed is
  ``(completion_tokens - 1) / (chunk_times[-1] - chunk_times[0])``.

Token counts come from the server's ``usage`` (requested with ``stream_options.include_usage``). A server
that sends none (llama.cpp's server, some proxies) gets an explicit fallback, flagged with
``usage.estimated = True``: one completion token per token-carrying chunk (that is how llama.cpp and most
local servers stream; servers that batch several tokens per chunk make this an undercount), the
reasoning tokens as the chunks that carried only reasoning, and the prompt tokens as characters / 4.

The API key is handed to the ``openai`` client for its ``Authorization`` header and appears nowhere else:
not in ``repr``, exceptions or logs (a server that echoes it back has it replaced by ``***``). Without a
key no ``Authorization`` header is sent; ``OPENAI_API_KEY`` and friends from the environment are never
picked up, so a key meant for one host cannot leak to another.
"""

from __future__ import annotations

import email.utils
import json
import logging
import math
import random
import re
import socket
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import httpx2
import openai
from openai import Omit

from .errors import EndpointError, ModelMismatchError
from .response import Response, Timings, ToolCall, Usage
from .wire import StampedBackend, WireTimes, drain

__all__ = ["ChatClient", "estimate_prompt_tokens", "model_matches"]

log = logging.getLogger(__name__)

# request fields the client sets itself; ``params`` / ``extra_body`` must not override them
_RESERVED = frozenset({"model", "messages", "stream", "stream_options", "max_tokens", "max_completion_tokens",
                       "tools", "tool_choice"})
_RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
_DATE_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$")
_OPEN_TAG, _CLOSE_TAG = "<think>", "</think>"


# ---------------------------------------------------------------------------------------------------
# model guard

def model_matches(requested: str, answered: str | None) -> bool:
    """Whether a server answering as ``answered`` is serving the ``requested`` model.

    Accepted besides an exact match (case-insensitive): a dated snapshot of the requested name
    (``gpt-4o`` answered as ``gpt-4o-2024-08-06`` or ``...-20240806``), Ollama's implicit ``:latest`` tag,
    and a path-like id whose file name matches (llama.cpp may echo ``/models/qwen.gguf`` for ``qwen``).
    A missing model name cannot be checked and is accepted.
    """
    if not answered:
        return True
    req, ans = requested.strip().lower(), answered.strip().lower()
    if req == ans:
        return True
    if ans.startswith(req) and _DATE_SUFFIX.fullmatch(ans[len(req):]):
        return True
    if ans == req + ":latest" or req == ans + ":latest":
        return True
    if any(sep in s for s in (req, ans) for sep in "/\\"):
        return _basename(req) == _basename(ans)
    return False


def _basename(name: str) -> str:
    base = re.split(r"[\\/]", name.rstrip("/\\"))[-1]
    return base[:-5] if base.endswith(".gguf") else base


# ---------------------------------------------------------------------------------------------------
# inline <think> blocks

class _ThinkSplitter:
    """Splits streamed content into reasoning (inside ``<think>...</think>``) and answer text.

    Fed piece by piece; a tag split over two pieces is recognised because a trailing partial tag is
    held back until the next piece decides it. ``feed`` returns ``(reasoning, answer)`` text released
    by that piece.
    """

    def __init__(self, inside: bool = False) -> None:
        self.inside = inside
        self.pending = ""
        self.seen_tag = inside

    def feed(self, text: str) -> tuple[str, str]:
        buf = self.pending + text
        self.pending = ""
        reasoning, answer = [], []
        while buf:
            tag = _CLOSE_TAG if self.inside else _OPEN_TAG
            at = buf.find(tag)
            if at >= 0:
                (reasoning if self.inside else answer).append(buf[:at])
                buf = buf[at + len(tag):]
                self.inside = not self.inside
                self.seen_tag = True
                continue
            keep = _partial_suffix(buf, tag)
            (reasoning if self.inside else answer).append(buf[:len(buf) - keep])
            self.pending = buf[len(buf) - keep:]
            break
        return "".join(reasoning), "".join(answer)

    def flush(self) -> tuple[str, str]:
        rest, self.pending = self.pending, ""
        return (rest, "") if self.inside else ("", rest)


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest end of ``text`` that is a proper beginning of ``tag``."""
    for n in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:n]):
            return n
    return 0


# ---------------------------------------------------------------------------------------------------
# failures

class _Failure(Exception):
    """One failed attempt. ``retryable`` failures are retried; ``connect`` ones got no HTTP response."""

    def __init__(self, reason: str, *, retryable: bool, connect: bool = False,
                 retry_after: float | None = None, status: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retryable = retryable
        self.connect = connect
        self.retry_after = retry_after
        self.status = status


class _Adjusted(Exception):
    """The server rejected an optional request field; the client dropped it, try again at once."""


@dataclass
class _Chunk:
    t: float
    reasoning: str = ""   # from reasoning_content / reasoning fields
    content: str = ""     # raw content, <think> blocks still in
    tool: bool = False


def _one_line(text: str, limit: int = 300) -> str:
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


def _chain(exc: BaseException) -> list[BaseException]:
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


# ---------------------------------------------------------------------------------------------------
# the client

class ChatClient:
    """Streams chat completions from one model on one OpenAI-compatible endpoint.

    ``timeout`` bounds every wait for data (connect, upload, and each gap between bytes of the stream),
    so a stream that stalls ends after ``timeout`` seconds and is retried; ``connect_timeout`` caps the
    connect phase separately. ``max_retries`` retries follow the first attempt, on 408/409/425/429, 5xx,
    connection failures and streams that break, stall or end without a finish reason; the wait is
    ``backoff_base * 2**n`` seconds (capped at ``backoff_max``, with jitter between half and all of it),
    or the server's ``Retry-After`` (capped at ``backoff_max``). Other 4xx answers raise at once.
    Once an endpoint was found unreachable on every attempt, later calls try it only once (no backoff)
    until it answers again, so a down endpoint costs one full retry cycle per client, not per call.
    ``on_retry(status, retry_after)`` hears of every failed attempt that will be retried (the run's
    scheduler lowers the provider's concurrency on 429 / 503).

    ``wire_clock`` (on by default) times requests on the wire (first byte written, kernel receive stamps;
    see the module docstring) and keeps connections open between streamed requests. Off, or with an
    injected ``clock``, times are the clock's readings around the openai package's calls, and every
    streamed request opens a new connection (the openai package's own behaviour): the benchmark in
    ``benchmarks/timing_accuracy.py`` shows both side by side.
    """

    def __init__(self, base_url: str, api_key: str | None = None, *, model_id: str, timeout: float = 600.0,
                 connect_timeout: float = 10.0, max_retries: int = 4, headers: Mapping[str, str] | None = None,
                 extra_body: Mapping[str, Any] | None = None, backoff_base: float = 1.0, backoff_max: float = 60.0,
                 model_guard: bool = True, wire_clock: bool = True, clock: Callable[[], float] = time.perf_counter,
                 sleep: Callable[[float], None] = time.sleep, rng: Callable[[], float] | None = None,
                 on_retry: Callable[[int | None, float | None], None] | None = None) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.base_url = str(base_url).rstrip("/")
        self.model_id = model_id
        self.timeout = float(timeout)
        self.connect_timeout = float(min(connect_timeout, timeout))
        self.max_retries = int(max_retries)
        self.extra_body = dict(extra_body or {})
        self.backoff_base = float(backoff_base)
        self.backoff_max = float(backoff_max)
        self.model_guard = model_guard
        self._clock = clock
        self._sleep = sleep
        self._rng = rng or random.random
        self._on_retry = on_retry
        self._secret = api_key or None
        self._use_stream_options = True
        self._max_tokens_field = "max_tokens"
        self._unreachable = False
        self._wire = WireTimes()
        # the wire times are on time.perf_counter: an injected clock (tests) is used alone
        self._use_wire = wire_clock and clock is time.perf_counter
        clash = _RESERVED.intersection(self.extra_body)
        if clash:
            raise ValueError(f"extra_body may not set {sorted(clash)}: the client sets them")

        # $OPENAI_ORG_ID / $OPENAI_PROJECT_ID belong to api.openai.com accounts: never sent from here
        default_headers: dict[str, Any] = {"OpenAI-Organization": Omit(), "OpenAI-Project": Omit()}
        default_headers.update(headers or {})
        # without a key, say so per request, or the openai client refuses to send anything
        self._request_headers: dict[str, Any] | None = None if api_key else {"Authorization": Omit()}
        self._openai = openai.OpenAI(
            base_url=self.base_url,
            api_key=api_key or "",           # "" (not None): never fall back to $OPENAI_API_KEY
            admin_api_key="",                # never pick up $OPENAI_ADMIN_KEY either
            organization=None, project=None, webhook_secret="",
            max_retries=0,                   # retries are ours: they must cover errors mid-stream too
            timeout=self._timeout(None),
            default_headers=default_headers,
            http_client=openai.DefaultHttpxClient(event_hooks={"request": [self._on_send]},
                                                  transport=self._transport()),
            _enforce_credentials=False,
        )
        # the openai package imports its resources on first use (~1 s for `chat` in some releases): do it
        # here, not inside the first item's request
        self._completions = self._openai.chat.completions

    # -- plumbing -----------------------------------------------------------------------------------
    def _on_send(self, request: Any) -> None:
        # right before the request goes to the connection pool: a fallback start when no byte was
        # seen leaving (the openai package's own request building is never counted)
        self._wire.begin(self._clock())

    def _transport(self) -> httpx2.HTTPTransport:
        """httpx's transport with openai's connection limits, its connections recording wire times."""
        transport = httpx2.HTTPTransport(limits=openai.DEFAULT_CONNECTION_LIMITS)
        pool = getattr(transport, "_pool", None)  # httpx offers no public way to choose the backend
        if self._use_wire and hasattr(pool, "_network_backend"):
            pool._network_backend = StampedBackend(self._wire)
        return transport

    def _keep_connection(self, stream: Any, ended: Callable[[], bool]) -> None:
        """Let a stream that ``ended()`` leave its connection open for the next request. The openai package
        closes the response at ``[DONE]`` before the body's last bytes are read, which drops the connection
        (its async client drains them, the sync one does not): every request would pay a new TCP and TLS
        handshake inside its time to first token."""
        response = getattr(stream, "response", None)
        if not self._use_wire or response is None:
            return
        close = response.close

        def drain_then_close() -> None:
            if ended():
                drain(response, self._wire)
            close()

        response.close = drain_then_close

    def _since(self, start: float) -> tuple[float, bool]:
        """Seconds from ``start`` to the arrival of the bytes just read, and whether that is the kernel's
        stamp (used when known and consistent; otherwise the clock now)."""
        now = self._clock()
        arrived = self._wire.arrived_at if self._use_wire else None
        if arrived is not None and start <= arrived <= now:
            return arrived - start, True
        return now - start, False

    def __repr__(self) -> str:
        key = "set" if self._secret else "none"
        return f"ChatClient(base_url={self._public_url()!r}, model_id={self.model_id!r}, api_key={key})"

    def close(self) -> None:
        """Close the connection pool."""
        self._openai.close()

    def __enter__(self) -> "ChatClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _timeout(self, timeout: float | None) -> openai.Timeout:
        total = self.timeout if timeout is None else float(timeout)
        return openai.Timeout(total, connect=min(self.connect_timeout, total))

    def _public_url(self) -> str:
        return re.sub(r"//[^/@]*@", "//***@", self.base_url)

    def _redact(self, text: str) -> str:
        if self._secret:
            text = text.replace(self._secret, "***")
        return text

    def _backoff(self, failure: _Failure, retry_index: int) -> float:
        if failure.retry_after is not None:
            return min(failure.retry_after, self.backoff_max)
        delay = min(self.backoff_max, self.backoff_base * (2 ** retry_index))
        return delay * (0.5 + 0.5 * self._rng())

    def _classify(self, exc: BaseException, *, read_timeout: float, mid_stream: bool) -> _Failure:
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            reason = f"HTTP {status}: {_status_message(exc)}"
            retryable = status in _RETRYABLE_STATUS or status >= 500
            return _Failure(reason, retryable=retryable, status=status,
                            retry_after=_retry_after(exc.response.headers) if retryable else None)
        if isinstance(exc, (openai.APIConnectionError, httpx2.TransportError, OSError)):
            reason, connect = _describe_transport(exc, read_timeout=read_timeout,
                                                  connect_timeout=self.connect_timeout, mid_stream=mid_stream)
            return _Failure(reason, retryable=True, connect=connect)
        if isinstance(exc, openai.APIError):  # an error event inside the stream
            return _Failure(f"error event in the stream: {_one_line(exc.message)}", retryable=True)
        if isinstance(exc, ValueError):     # malformed chunk JSON
            return _Failure(f"malformed stream data: {_one_line(exc)}", retryable=True)
        return _Failure(f"{type(exc).__name__}: {_one_line(exc)}", retryable=True)

    def _run(self, attempt: Callable[[], Any]) -> tuple[Any, int, float]:
        """Call ``attempt`` until it succeeds, retrying as the class docstring says. Returns the result,
        the number of requests and the seconds slept between them."""
        limit = 1 if self._unreachable else self.max_retries + 1
        requests = 0
        failures = 0
        waited = 0.0
        got_response = False
        while True:
            requests += 1
            try:
                result = attempt()
            except _Adjusted:
                got_response = True
                continue
            except _Failure as failure:
                failures += 1
                got_response = got_response or not failure.connect
                reason = self._redact(failure.reason)
                if not failure.retryable:
                    raise EndpointError(f"endpoint {self._public_url()} rejected the request for model "
                                        f"{self.model_id!r}: {reason}") from None
                if failures >= limit:
                    if not got_response:
                        self._unreachable = True
                    verb = "failed" if got_response else "unreachable"
                    noun = "attempt" if requests == 1 else "attempts"
                    raise EndpointError(f"endpoint {self._public_url()} {verb} after {requests} {noun}: "
                                        f"{reason}") from None
                delay = self._backoff(failure, failures - 1)
                log.info("endpoint %s, model %s: %s; retry %d/%d in %.2f s", self._public_url(), self.model_id,
                         reason, failures, limit - 1, delay)
                if self._on_retry is not None:
                    self._on_retry(failure.status, failure.retry_after)
                self._sleep(delay)
                waited += delay
                continue
            self._unreachable = False
            return result, requests, waited

    # -- public API ---------------------------------------------------------------------------------
    def chat(self, messages: Sequence[Mapping[str, Any]], *, max_tokens: int,
             tools: Sequence[Mapping[str, Any]] | None = None, tool_choice: Any = None,
             params: Mapping[str, Any] | None = None, timeout: float | None = None) -> Response:
        """Send one streamed chat completion and return what came back (see the module docstring).

        ``params`` are sampling and server-specific fields (temperature, seed, top_k, ...), merged over
        the client's ``extra_body`` into the request body. Raises :class:`EndpointError` when the endpoint
        fails (after retries where that makes sense) and :class:`ModelMismatchError` when the server
        answers as another model.
        """
        body = {**self.extra_body, **dict(params or {})}
        clash = _RESERVED.intersection(body)
        if clash:
            raise ValueError(f"params may not set {sorted(clash)}: pass them as arguments")
        messages = [dict(m) for m in messages]
        response, requests, waited = self._run(
            lambda: self._stream_once(messages, max_tokens, tools, tool_choice, body, timeout))
        response.attempts = requests
        response.waits_s = round(waited, 4)
        response.max_tokens = max_tokens
        return response

    def list_models(self, *, timeout: float | None = None) -> list[str]:
        """The model ids the endpoint lists under ``/models``."""
        read_timeout = self.timeout if timeout is None else float(timeout)

        def attempt() -> list[str]:
            try:
                page = self._openai.models.list(timeout=self._timeout(timeout), extra_headers=self._request_headers)
                return [m.id for m in page.data]
            except (openai.APIError, httpx2.HTTPError, OSError, ValueError) as exc:
                raise self._classify(exc, read_timeout=read_timeout, mid_stream=False) from None

        models, _, _ = self._run(attempt)
        return models

    # -- one attempt --------------------------------------------------------------------------------
    def _stream_once(self, messages: list[dict], max_tokens: int, tools: Sequence[Mapping[str, Any]] | None,
                     tool_choice: Any, body: dict, timeout: float | None) -> Response:
        read_timeout = self.timeout if timeout is None else float(timeout)
        kwargs: dict[str, Any] = {"model": self.model_id, "messages": messages, "stream": True,
                                  self._max_tokens_field: max_tokens, "timeout": self._timeout(timeout),
                                  "extra_headers": self._request_headers}
        use_stream_options = self._use_stream_options
        if use_stream_options:
            kwargs["stream_options"] = {"include_usage": True}
        if tools:
            kwargs["tools"] = [dict(t) for t in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        if body:
            kwargs["extra_body"] = body

        wire = self._wire
        wire.requested_at = wire.sent_at = None
        start = self._clock()
        try:
            stream = self._completions.create(**kwargs)
            start = (self._use_wire and wire.sent_at) or wire.requested_at or start
        except openai.BadRequestError as exc:
            message = _status_message(exc).lower()
            if use_stream_options and "stream_options" in message:
                self._use_stream_options = False
                log.info("endpoint %s rejects stream_options; counting tokens from the stream", self._public_url())
                raise _Adjusted() from None
            if self._max_tokens_field == "max_tokens" and "max_completion_tokens" in message:
                self._max_tokens_field = "max_completion_tokens"
                raise _Adjusted() from None
            raise self._classify(exc, read_timeout=read_timeout, mid_stream=False) from None
        except (openai.APIError, httpx2.HTTPError, OSError, ValueError) as exc:
            raise self._classify(exc, read_timeout=read_timeout, mid_stream=False) from None

        raw_response = getattr(stream, "response", None)
        server = raw_response.headers.get("server") if raw_response is not None else None
        fingerprint: str | None = None
        chunks: list[_Chunk] = []
        calls: dict[int, dict[str, str]] = {}
        order: list[int] = []
        finish: str | None = None
        answered: str | None = None
        usage: Any = None
        received = 0
        kernel_stamped = 0
        capped = False
        chunk_cap, char_cap = 2 * max_tokens + 64, 64 * max_tokens + 4096
        self._keep_connection(stream, ended=lambda: finish is not None and not capped)
        try:
            with stream:
                for chunk in stream:
                    now, stamped = self._since(start)
                    if chunk.model and answered is None:
                        answered = chunk.model
                        if self.model_guard and not model_matches(self.model_id, answered):
                            raise ModelMismatchError(
                                f"endpoint {self._public_url()} answered as model {answered!r}, not the requested "
                                f"{self.model_id!r} (disable the model guard if this alias is expected)")
                    if chunk.usage is not None:
                        usage = chunk.usage
                    fingerprint = getattr(chunk, "system_fingerprint", None) or fingerprint
                    item = _Chunk(now)
                    for choice in chunk.choices or ():
                        if choice.index not in (0, None):
                            continue
                        delta = choice.delta
                        if delta is not None:
                            item.reasoning += _reasoning_of(delta)
                            item.content += delta.content or ""
                            if delta.tool_calls:
                                item.tool = True
                                _merge_tool_deltas(calls, order, delta.tool_calls)
                        if choice.finish_reason:
                            finish = choice.finish_reason
                    if item.reasoning or item.content or item.tool:
                        chunks.append(item)
                        kernel_stamped += stamped
                        received += len(item.reasoning) + len(item.content)
                        if len(chunks) > chunk_cap or received > char_cap:
                            # the server ignores max_tokens: stop reading, and never grade this as complete
                            finish, capped = "length", True
                            break
        except ModelMismatchError:
            raise
        except (openai.APIError, httpx2.HTTPError, OSError, ValueError) as exc:
            raise self._classify(exc, read_timeout=read_timeout, mid_stream=True) from None
        e2e, _ = self._since(start)
        if finish is None:
            raise _Failure(f"stream ended without a finish_reason after {len(chunks)} token chunks (truncated)",
                           retryable=True)
        clock = "kernel" if chunks and kernel_stamped == len(chunks) else "process"
        response = self._assemble(chunks, calls, order, finish, answered, usage, e2e, clock, messages, tools,
                                  use_stream_options)
        response.system_fingerprint, response.server = fingerprint, server
        return response

    def _assemble(self, chunks: list[_Chunk], calls: dict[int, dict[str, str]], order: list[int], finish: str,
                  answered: str | None, usage: Any, e2e: float, clock: str, messages: list[dict],
                  tools: Sequence[Mapping[str, Any]] | None, asked_usage: bool) -> Response:
        raw = "".join(c.content for c in chunks)
        close_at, open_at = raw.find(_CLOSE_TAG), raw.find(_OPEN_TAG)
        # a lone </think> (the template opened the block in the prompt): what precedes it is reasoning
        splitter = _ThinkSplitter(inside=close_at >= 0 and (open_at < 0 or open_at > close_at))
        reasoning_parts: list[str] = []
        answer_parts: list[str] = []
        ttft_answer: float | None = None
        reasoning_only_chunks = 0
        for i, c in enumerate(chunks):
            think, answer = splitter.feed(c.content) if c.content else ("", "")
            if i == len(chunks) - 1:
                more_think, more_answer = splitter.flush()
                think, answer = think + more_think, answer + more_answer
            reasoning_parts.append(c.reasoning + think)
            answer_parts.append(answer)
            if ttft_answer is None and (answer.strip() or c.tool):
                ttft_answer = c.t
            if not answer and not c.tool:
                reasoning_only_chunks += 1
        content = "".join(answer_parts)
        if splitter.seen_tag:
            content = content.lstrip()
        reasoning = "".join(reasoning_parts).strip()

        times = [c.t for c in chunks]
        timings = Timings(ttft_s=times[0] if times else None, ttft_answer_s=ttft_answer, e2e_s=e2e,
                          chunk_times=times, clock=clock)
        if usage is not None:
            details = getattr(usage, "completion_tokens_details", None)
            prompt_details = getattr(usage, "prompt_tokens_details", None)
            reasoning_tokens = getattr(details, "reasoning_tokens", None) if details is not None else None
            if reasoning_tokens is None and not reasoning:
                reasoning_tokens = 0
            tokens = Usage(prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                           reasoning_tokens=reasoning_tokens,
                           cached_tokens=getattr(prompt_details, "cached_tokens", None) if prompt_details else None)
        else:
            if asked_usage:
                log.debug("endpoint %s sent no usage; counting one token per chunk", self._public_url())
            tokens = Usage(prompt_tokens=estimate_prompt_tokens(messages, tools), completion_tokens=len(chunks),
                           reasoning_tokens=reasoning_only_chunks, cached_tokens=None, estimated=True)
        tool_calls = [ToolCall(name=calls[i]["name"], arguments=calls[i]["arguments"], id=calls[i]["id"] or None)
                      for i in order]
        return Response(content=content, reasoning=reasoning, tool_calls=tool_calls, finish_reason=finish,
                        model=answered, usage=tokens, timings=timings)


def _reasoning_of(delta: Any) -> str:
    """Reasoning text of a delta: ``reasoning_content`` (DeepSeek, vLLM, llama.cpp) or ``reasoning``."""
    out = ""
    for name in ("reasoning_content", "reasoning"):
        value = getattr(delta, name, None)
        if isinstance(value, str):
            out += value
    return out


def _merge_tool_deltas(calls: dict[int, dict[str, str]], order: list[int], deltas: Iterable[Any]) -> None:
    """Fold streamed tool-call deltas into ``calls`` (by index; arguments are concatenated)."""
    for d in deltas:
        index = getattr(d, "index", None)
        call_id = getattr(d, "id", None) or ""
        if index is None:  # some servers omit the index: a new id starts a new call
            if order and (not call_id or calls[order[-1]]["id"] in ("", call_id)):
                index = order[-1]
            else:
                index = len(order)
        if index not in calls:
            calls[index] = {"id": "", "name": "", "arguments": ""}
            order.append(index)
        call = calls[index]
        if call_id and not call["id"]:
            call["id"] = call_id
        fn = getattr(d, "function", None)
        if fn is not None:
            name = getattr(fn, "name", None)
            if name and name != call["name"]:  # whole once (OpenAI), repeated, or in pieces
                call["name"] += name
            args = getattr(fn, "arguments", None)
            if args:
                call["arguments"] += args


def estimate_prompt_tokens(messages: list[dict], tools: Sequence[Mapping[str, Any]] | None) -> int:
    chars = 0
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            chars += sum(len(p.get("text", "")) for p in content if isinstance(p, Mapping))
    if tools:
        chars += len(json.dumps(list(tools)))
    return max(1, math.ceil(chars / 4))
