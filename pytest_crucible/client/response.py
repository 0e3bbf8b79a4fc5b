"""What one chat request produced: text, reasoning, tool calls, tokens and timings."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class ToolCall:
    name: str
    arguments: str  # raw JSON text as the model wrote it
    id: str | None = None

    def parsed_arguments(self) -> Any:
        """The arguments as JSON, or None when the model wrote invalid JSON."""
        try:
            return json.loads(self.arguments) if self.arguments.strip() else {}
        except (json.JSONDecodeError, AttributeError, RecursionError):  # nested past the parser's depth: not usable
            return None


@dataclass
class Usage:
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None
    estimated: bool = False  # True when the server sent no usage and we counted ourselves


@dataclass
class Timings:
    """Seconds, measured on the client from the stream. None where the stream never got there."""
    ttft_s: float | None = None          # first token of any kind (reasoning included)
    ttft_answer_s: float | None = None   # first answer (non-reasoning) token or tool-call delta
    e2e_s: float | None = None           # request sent -> stream closed
    # arrival time (s since request) of every content-bearing chunk, for decode rate and ITL
    chunk_times: list[float] = field(default_factory=list)
    # where the arrival times come from: "kernel" (the receive stamps of every chunk, see wire.py) or
    # "process" (the client's clock after each read: later by any wait for a CPU)
    clock: str = "process"


@dataclass
class Response:
    content: str = ""          # the answer text, with inline <think> reasoning removed
    reasoning: str = ""        # reasoning from reasoning_content / reasoning fields or <think> blocks
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    model: str | None = None   # the model name the server answered as
    usage: Usage = field(default_factory=Usage)
    timings: Timings = field(default_factory=Timings)
    attempts: int = 1          # requests made, retries included
    max_tokens: int | None = None
    waits_s: float = 0.0       # seconds slept before retries (backoff, Retry-After, a rate-limit pause)
    system_fingerprint: str | None = None  # the backend configuration the server reported
    server: str | None = None  # the HTTP `server` response header
    # how the reply carried its reasoning: "field" (reasoning_content / reasoning), "tags" (<think> in the
    # text), "prefilled" (only the closing tag came: the template opened the block), None (no reasoning)
    reasoning_form: str | None = None
    reasoning_budget: int | None = None  # the reasoning budget the request gave on top of the answer's
    thinking: str | None = None  # what the request asked of the server: "on", "off", or "auto" (its default)

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"

    @property
    def cut_off(self) -> str | None:
        """Where a reply stopped by the token limit was cut: "reasoning" when it ended inside reasoning
        (no answer yet), "answer" otherwise; None when it was not cut off."""
        if not self.truncated:
            return None
        return "reasoning" if self.reasoning and not self.content.strip() and not self.tool_calls else "answer"

    def to_dict(self) -> dict:
        return asdict(self)
