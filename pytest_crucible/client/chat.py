"""Streaming chat client for any OpenAI-compatible endpoint.

One :meth:`ChatClient.chat` call sends one streamed chat completion (retrying on transient failures) and
returns a :class:`~pytest_crucible.client.response.Response`: the answer with reasoning split off, tool calls,
finish reason, the model the server answered as, token usage and timings measured from the stream.

The client is three parts, each testable on its own:

- the retry policy (:mod:`pytest_crucible.client.retry`): which failures are retried, backoff, Retry-After;
- the stream assembler (:mod:`pytest_crucible.client.stream`): chunks in, a Response out, pure; it defines
  the timings (``ttft_s``, ``ttft_answer_s``, ``e2e_s``, ``chunk_times``) and the token fallback for
  servers that send no usage;
- the wire transport (:mod:`pytest_crucible.client.transport`): the chat-completions protocol over httpx2,
  on connections timed on the wire by the kernel's receive stamps; swappable (``transport=``, anything that fits the
  ``Transport`` protocol).

Every request is bounded (:mod:`pytest_crucible.client.limits`): an idle gap between tokens, a deadline
for the whole call (retries included), and the size of the reply; past the deadline or a size bound the
call raises :class:`EndpointError` at once (the endpoint's fault). A key the endpoint echoes into its
reply is replaced by ``***`` before the reply is returned.

Around them the client shapes each request: the model's thinking setting
(:mod:`pytest_crucible.client.thinking_control`: fields that ask for thinking or none, the reasoning budget on top
of ``max_tokens``, what the first reply showed), ``stream_options.include_usage`` (dropped for good by a server that
refuses it), ``max_tokens`` (sent as ``max_completion_tokens`` to a server that asks for that), and the model guard.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pytest_crucible.client.circuit import Circuit
from pytest_crucible.client.limits import deadline_passed, deadline_s
from pytest_crucible.client.response import Response
from pytest_crucible.client.retry import Adjusted, Failure, RetryPolicy
from pytest_crucible.client.stream import StreamAssembler
from pytest_crucible.client.thinking_control import Thinking
from pytest_crucible.client.transport import HttpTransport, Transport
from pytest_crucible.common.errors import ModelMismatchError
from pytest_crucible.common.redact import redact_base_url

__all__ = ["ChatClient", "model_matches"]

log = logging.getLogger(__name__)

# request fields the client sets itself; ``params`` / ``extra_body`` must not override them
_RESERVED = frozenset({"model", "messages", "stream", "stream_options", "max_tokens", "max_completion_tokens",
                       "tools", "tool_choice"})
_DATE_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$")


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
# the client

class ChatClient:
    """Streams chat completions from one model on one OpenAI-compatible endpoint.

    ``timeout`` is the idle gap: a request with no token for ``timeout`` seconds (silent, or sending only
    keep-alives and empty chunks) is cut and retried; ``connect_timeout`` caps the connect phase
    separately. Each ``chat`` call also has a deadline, ``timeout + max_tokens x 1 s``, retries included,
    and bounds on the reply's size (see :mod:`pytest_crucible.client.limits`): past one the request ends
    with :class:`EndpointError`, not retried. Retries (see :class:`~pytest_crucible.client.retry.RetryPolicy`):
    ``max_retries`` after the first attempt, on 408/409/425/429, 5xx, connection failures and streams that
    break, stall or end without a finish reason, while the deadline leaves time; other 4xx answers raise at
    once. ``on_retry(status, retry_after)`` hears
    of every failed attempt that will be retried (the run's scheduler lowers the provider's concurrency on
    429 / 503). ``circuit`` (:class:`~pytest_crucible.client.circuit.Circuit`, one per provider) stops
    asking a provider that refused connections several times in a row.

    ``wire_clock`` (on by default) times requests on the wire (first byte written, kernel receive stamps)
    and keeps connections open between streamed requests. Off, or with an injected ``clock``, times are
    the clock's readings around the HTTP calls: ``benchmarks/timing_accuracy.py`` shows both
    side by side. ``transport`` replaces the wire transport altogether (any
    :class:`~pytest_crucible.client.transport.Transport`). ``thinking`` is the model's
    :class:`~pytest_crucible.client.thinking_control.Thinking` setting (default: auto, nothing sent).
    """

    def __init__(self, base_url: str, api_key: str | None = None, *, model_id: str, timeout: float = 600.0,
                 connect_timeout: float = 10.0, max_retries: int = 4, headers: Mapping[str, str] | None = None,
                 extra_body: Mapping[str, Any] | None = None, backoff_base: float = 1.0, backoff_max: float = 60.0,
                 model_guard: bool = True, wire_clock: bool = True, clock: Callable[[], float] = time.perf_counter,
                 sleep: Callable[[float], None] = time.sleep, rng: Callable[[], float] | None = None,
                 on_retry: Callable[[int | None, float | None], None] | None = None,
                 transport: Transport | None = None, thinking: Thinking | None = None,
                 circuit: Circuit | None = None) -> None:
        self.retry = RetryPolicy(max_retries, backoff_base=backoff_base, backoff_max=backoff_max, sleep=sleep,
                                 rng=rng, on_retry=on_retry, circuit=circuit)
        self.base_url = str(base_url).rstrip("/")
        self.timeout = float(timeout)
        self.model_id = model_id
        self.model_guard = model_guard
        self.extra_body = dict(extra_body or {})
        self.thinking = thinking or Thinking()
        self._use_stream_options = True
        self._max_tokens_field = "max_tokens"
        clash = _RESERVED.intersection(self.extra_body)
        if clash:
            raise ValueError(f"extra_body may not set {sorted(clash)}: the client sets them")
        self.transport: Transport = transport or HttpTransport(self.base_url, api_key, timeout=timeout,
                                                               connect_timeout=connect_timeout, headers=headers,
                                                               wire_clock=wire_clock, clock=clock)
        self._has_key = bool(api_key)

    # -- public API ---------------------------------------------------------------------------------
    def chat(self, messages: Sequence[Mapping[str, Any]], *, max_tokens: int,
             tools: Sequence[Mapping[str, Any]] | None = None, tool_choice: Any = None,
             params: Mapping[str, Any] | None = None, timeout: float | None = None,
             reasoning_budget: int | None = None, force_answer: bool = False) -> Response:
        """Send one streamed chat completion and return what came back (see the module docstring).

        ``max_tokens`` is the answer's budget; a thinking model's ``reasoning_budget`` is added on top
        (see :mod:`pytest_crucible.client.thinking_control`). ``params`` are sampling and server-specific fields
        (temperature, seed, top_k, ...), merged over the client's ``extra_body`` into the request body.
        ``force_answer`` asks the server not to think, whatever the model's setting. Raises
        :class:`EndpointError` when the endpoint fails (after retries where that makes sense) and
        :class:`ModelMismatchError` when the server answers as another model. The reply's text is returned
        with the API key replaced by ``***`` wherever the endpoint echoed it.
        """
        given = {**self.extra_body, **dict(params or {})}
        clash = _RESERVED.intersection(given)
        if clash:
            raise ValueError(f"params may not set {sorted(clash)}: pass them as arguments")
        plans = []
        idle = self.timeout if timeout is None else float(timeout)
        most = self.budget(max_tokens, reasoning_budget)
        deadline = Deadline(time.perf_counter() + deadline_s(idle, most), deadline_passed(idle, most))

        def attempt() -> Response:
            plan = self.thinking.plan(messages, max_tokens, reasoning_budget, force_off=force_answer)
            plans.append(plan)
            return self._stream_once(plan.messages, plan.max_tokens, tools, tool_choice,
                                     _merged(plan.fields, given), timeout, deadline)

        response, requests, waited = self.retry.run(attempt, endpoint=self._public_url(), model_id=self.model_id,
                                                    redact=self.transport.redact, deadline=deadline.at)
        _redact_reply(response, self.transport.redact)
        plan = plans[-1]
        response.attempts = requests
        response.waits_s = round(waited, 4)
        response.max_tokens = plan.max_tokens
        response.reasoning_budget = plan.reasoning_budget
        response.thinking = plan.thinking
        self.thinking.observe(response)
        return response

    def budget(self, max_tokens: int, reasoning_budget: int | None = None) -> int:
        """The most tokens a request with this answer budget may produce (for cost caps)."""
        return self.thinking.plan((), max_tokens, reasoning_budget).max_tokens

    def list_models(self, *, timeout: float | None = None) -> list[str]:
        """The model ids the endpoint lists under ``/models``."""
        models, _, _ = self.retry.run(lambda: self.transport.list_models(timeout=timeout),
                                      endpoint=self._public_url(), model_id=self.model_id,
                                      redact=self.transport.redact)
        return models

    def close(self) -> None:
        """Close the transport (its connection pool)."""
        self.transport.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        key = "set" if self._has_key else "none"
        return f"ChatClient(base_url={self._public_url()!r}, model_id={self.model_id!r}, api_key={key})"

    def _public_url(self) -> str:
        return redact_base_url(self.base_url)

    # -- one attempt --------------------------------------------------------------------------------
    def _stream_once(self, messages: list[dict], max_tokens: int, tools: Sequence[Mapping[str, Any]] | None,
                     tool_choice: Any, body: dict, timeout: float | None, deadline: Deadline) -> Response:
        request: dict[str, Any] = {"model": self.model_id, "messages": messages, self._max_tokens_field: max_tokens}
        use_stream_options = self._use_stream_options
        if use_stream_options:
            request["stream_options"] = {"include_usage": True}
        if tools:
            request["tools"] = [dict(t) for t in tools]
        if tool_choice is not None:
            request["tool_choice"] = tool_choice
        if body:
            request["extra_body"] = body
        try:
            stream = self.transport.stream(request, timeout=timeout, deadline=deadline.left())
        except Failure as failure:
            if failure.status == 400:
                self._adjust(failure.reason.lower(), use_stream_options)
            raise
        assembler = StreamAssembler(max_tokens, opens_inside=self.thinking.opens_inside)
        stream.ended = lambda: assembler.complete
        guard = self.model_guard
        with stream:
            for chunk, seconds, stamped in stream:
                more = assembler.feed(chunk, seconds, stamped)
                if guard and assembler.model:  # checked once, on the first chunk that names a model
                    guard = False
                    if not model_matches(self.model_id, assembler.model):
                        answered = self.transport.redact(assembler.model)
                        raise ModelMismatchError(
                            f"endpoint {self._public_url()} answered as model {answered!r:.200}, not the "
                            f"requested {self.model_id!r} (disable the model guard if this alias is expected)")
                if not more:  # past a cap (stream.py): stop reading, never graded as complete
                    break
                deadline.check()  # any transport: the client's own bound, chunk by chunk
        if assembler.overflow is not None:
            raise Failure(assembler.overflow, retryable=False, bound=True)
        e2e = stream.elapsed()
        if assembler.finish is None:
            raise Failure(f"stream ended without a finish_reason after {len(assembler.chunks)} token chunks "
                          "(truncated)", retryable=True)
        if assembler.usage is None and use_stream_options:
            log.debug("endpoint %s sent no usage; counting one token per chunk", self._public_url())
        response = assembler.response(e2e, messages=messages, tools=tools)
        response.server = stream.server
        return response

    def _adjust(self, message: str, used_stream_options: bool) -> None:
        """A 400 that names an optional field: change the request and raise Adjusted (sent again at once)."""
        if used_stream_options and "stream_options" in message:
            self._use_stream_options = False
            log.info("endpoint %s rejects stream_options; counting tokens from the stream", self._public_url())
            raise Adjusted()
        if self._max_tokens_field == "max_tokens" and "max_completion_tokens" in message:
            self._max_tokens_field = "max_completion_tokens"
            raise Adjusted()
        if self.thinking.refused(message):
            log.info("endpoint %s refuses a thinking field; no longer sent: %s", self._public_url(), message)
            raise Adjusted()


class Deadline:
    """The moment (``time.perf_counter``) a ``chat`` call must be over, retries included, and the reason
    it fails with once passed (limits.py)."""

    def __init__(self, at: float, reason: str) -> None:
        self.at = at
        self.reason = reason

    def left(self) -> float:
        """Seconds left; raises the deadline's Failure when none are."""
        left = self.at - time.perf_counter()
        if left <= 0:
            raise Failure(self.reason, retryable=False, bound=True)
        return left

    def check(self) -> None:
        self.left()


def _redact_reply(response: Response, redact: Callable[[str], str]) -> None:
    """Replace the API key wherever the endpoint echoed it into the reply, before anything stores it."""
    response.content = redact(response.content)
    response.reasoning = redact(response.reasoning)
    for call in response.tool_calls:
        call.name, call.arguments = redact(call.name), redact(call.arguments)
        call.id = redact(call.id) if call.id else call.id
    for name in ("model", "system_fingerprint", "server", "finish_reason"):
        value = getattr(response, name)
        if isinstance(value, str):
            setattr(response, name, redact(value))


def _merged(thinking_fields: dict, given: dict) -> dict:
    """The request body: the thinking fields under the provider's and the case's own (a mapping both set,
    like chat_template_kwargs, merged key by key, the given keys winning)."""
    body = {**thinking_fields, **given}
    for key, value in thinking_fields.items():
        if isinstance(value, dict) and isinstance(given.get(key), Mapping):
            body[key] = {**value, **given[key]}
    return body
