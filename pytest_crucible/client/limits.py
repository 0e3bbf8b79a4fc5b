"""How long one chat request may take and how much of a reply is kept, all derived from two numbers:
the provider's ``timeout`` and the request's ``max_tokens`` (the case's answer budget, plus a thinking
model's reasoning budget). An endpoint that passes a bound has the request cut: its item gets an error row
(the endpoint's fault, never the model's) and no more of its reply is read or kept.

- idle gap: ``timeout`` seconds without a token (answer, reasoning or tool-call text). SSE comments
  (``: keep-alive``), empty deltas and role-only chunks are no token: an endpoint sending only those is
  cut after ``timeout`` seconds just as a silent one is; such a stall is retried.
- deadline: ``timeout + max_tokens x SECONDS_PER_TOKEN`` seconds for the whole request, connection,
  prompt, every token, retries and their waits included: the idle gap covers the prompt's processing
  (time to first token), the rest allows the slowest decode a benchmark run is useful at, one token per
  second. Passed, the request ends at once and is not retried.
- text: ``TEXT_CHARS_PER_TOKEN x max_tokens + TEXT_FLOOR`` characters of answer, reasoning and tool
  calls (names, ids, arguments) together. No tokenizer's tokens average 64 characters: a reply past it
  is not the model's. The stored reply is never longer.
- one SSE line, and one event (one chunk's JSON): ``LINE_BYTES_PER_TOKEN x max_tokens + LINE_FLOOR``
  bytes. Room for a server that sends its whole reply as one chunk with every character JSON-escaped;
  the line is cut before it is buffered whole.

Apart from these, a server that ignores ``max_tokens`` is stopped after ``2 x max_tokens + 64`` token
chunks and its reply graded as cut off by the limit (``finish_reason`` length), as before: that is a
known server habit, not an abuse. Peak memory per request in flight is a few times the line bound
(the line, its text and the parsed chunk) plus the text bound.
"""

from __future__ import annotations

__all__ = ["SECONDS_PER_TOKEN", "deadline_passed", "deadline_s", "line_cap", "max_tokens_of", "text_cap"]

SECONDS_PER_TOKEN = 1.0
TEXT_CHARS_PER_TOKEN = 64
TEXT_FLOOR = 4096
LINE_BYTES_PER_TOKEN = 256
LINE_FLOOR = 64 * 1024
# the bounds of a request that sets no max_tokens (the chat client always sets one)
UNSET_MAX_TOKENS = 32768


def deadline_s(timeout: float, max_tokens: int | None) -> float:
    """Seconds one request may take in all."""
    return float(timeout) + SECONDS_PER_TOKEN * _tokens(max_tokens)


def deadline_passed(timeout: float, max_tokens: int | None) -> str:
    """The reason a request that passed its deadline fails with."""
    return (f"deadline passed: the request may take {deadline_s(timeout, max_tokens):g} s in all, retries "
            f"included (timeout {float(timeout):g} s + {_tokens(max_tokens)} tokens x {SECONDS_PER_TOKEN:g} s)")


def text_cap(max_tokens: int | None) -> int:
    """Characters of answer, reasoning and tool calls a reply may hold."""
    return TEXT_CHARS_PER_TOKEN * _tokens(max_tokens) + TEXT_FLOOR


def line_cap(max_tokens: int | None) -> int:
    """Bytes of one SSE line, and of one event's data lines together."""
    return LINE_BYTES_PER_TOKEN * _tokens(max_tokens) + LINE_FLOOR


def max_tokens_of(request: dict) -> int | None:
    """The token limit a chat request sends (``max_tokens`` or ``max_completion_tokens``)."""
    value = request.get("max_tokens", request.get("max_completion_tokens"))
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _tokens(max_tokens: int | None) -> int:
    return max_tokens if max_tokens is not None and max_tokens > 0 else UNSET_MAX_TOKENS
