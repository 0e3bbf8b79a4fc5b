"""The stream assembler: streamed chat-completion chunks in, one Response out. Pure, no I/O.

Chunks are what the server sent: the JSON mappings themselves, or objects with the same attributes (as the
openai package makes), each with the moment it arrived. The assembler knows the shapes OpenAI-compatible
servers stream: a leading role chunk with empty content, reasoning in `reasoning_content` / `reasoning`
fields or between tags in the text (reasoning.py decides which text is which), tool calls in pieces by
index (OpenAI, vLLM, llama.cpp), whole in one chunk (Ollama) or without an index, usage on a chunk of
its own with no choices (OpenAI, vLLM, Ollama) or on the finishing chunk (llama.cpp), and none at all.

Timings (seconds since the request started, as the transport measured them):
- `ttft_s`: the first chunk carrying any token (reasoning, answer text or a tool-call delta; an empty
  `content: ""` role chunk is not a token);
- `ttft_answer_s`: the chunk that carried the first visible answer character (whitespace alone does not
  count; the character's place in the whole text decides, so a tag cut over two chunks cannot move it)
  or the first tool-call delta;
- `chunk_times`: every token-carrying chunk.

Bounds (limits.py): the reply's text (answer, reasoning, tool-call names, ids and arguments together) is
kept up to `text_cap(max_tokens)` characters; past it the assembler keeps that prefix, says why in
`overflow` and stops (`feed` returns False): the client fails the request, the endpoint's fault. A chunk of
the wrong shape (a number where text belongs, a token count that is no count) raises `Failure` (malformed
stream data) and nothing else.

Without usage from the server, tokens are counted: one completion token per token-carrying chunk (how
llama.cpp and most local servers stream; servers that batch tokens make it an undercount), the reasoning
tokens as the chunks that carried no answer character, and the prompt as characters / 4; the Usage is
flagged `estimated`.
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_crucible.client import reasoning_split as reasoning_text
from pytest_crucible.client.limits import TEXT_CHARS_PER_TOKEN, TEXT_FLOOR, text_cap
from pytest_crucible.client.response import Response, Timings, ToolCall, Usage
from pytest_crucible.client.retry import Failure

__all__ = ["StreamAssembler", "carries_token", "estimate_prompt_tokens"]


_PLAIN = (str, bytes, int, float, list, tuple)
_MOST_TOKENS = 10 ** 12  # a usage count above this is no count


def _get(obj: Any, name: str) -> Any:
    """Field `name` of a chunk part (an openai object or its JSON mapping); None for anything else."""
    if type(obj) is dict:  # a JSON chunk's part, the usual case: no ABC check
        return obj.get(name)
    if obj is None or isinstance(obj, _PLAIN):
        return None
    return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)


def _malformed(what: str, value: Any) -> Failure:
    return Failure(f"malformed stream data: {what} is {type(value).__name__}, not text", retryable=True)


def _text(value: Any, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _malformed(what, value)
    return value


def _choices(chunk: Any) -> list:
    """The choices of a chunk that belong to the first answer (index 0, or no index)."""
    choices = _get(chunk, "choices")
    if choices is None:
        return []
    if not isinstance(choices, (list, tuple)):
        raise _malformed("choices", choices)
    return [c for c in choices if _get(c, "index") in (0, None)]


def carries_token(chunk: Any) -> bool:
    """Whether a chunk carries any token (answer or reasoning text, a tool-call delta); never raises."""
    try:
        return any(_text(_get(d, "content"), "content") or reasoning_text.reasoning_of(d) or _get(d, "tool_calls")
                   for d in (_get(c, "delta") for c in _choices(chunk)) if d is not None)
    except Failure:
        return False


def _usage(usage: Any) -> Any:
    for section, names in ((usage, ("prompt_tokens", "completion_tokens")),
                           (_get(usage, "completion_tokens_details"), ("reasoning_tokens",)),
                           (_get(usage, "prompt_tokens_details"), ("cached_tokens",))):
        for name in names:
            value = _get(section, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                      or not 0 <= value <= _MOST_TOKENS):
                raise Failure(f"malformed stream data: usage {name} is {value!r:.40}, not a token count",
                              retryable=True)
    return usage


@dataclass
class _Chunk:
    t: float
    reasoning: str = ""   # from the reasoning fields
    content: str = ""     # raw content, reasoning tags still in
    tool: bool = False


class StreamAssembler:
    """Feed it every chunk (`feed`), then take the `response`.

    `max_tokens` sets two caps. A server that ignores the limit is cut off after 2 x max_tokens + 64 token
    chunks (`feed` returns False: stop reading), and the reply is finished as `length`, never graded as
    complete. A reply whose text passes `text_cap(max_tokens)` characters is cut there (`overflow` says
    so, `feed` returns False): no reply of a model is that long. `opens_inside`: the model's template
    pre-fills the opening reasoning tag (learned from earlier replies), so a reply cut off before any tag
    came is all reasoning.
    """

    def __init__(self, max_tokens: int | None = None, *, opens_inside: bool = False) -> None:
        self.chunks: list[_Chunk] = []
        self.calls: dict[int, dict[str, str]] = {}
        self.order: list[int] = []
        self.finish: str | None = None
        self.model: str | None = None        # the model the server answered as (first named)
        self.usage: Any = None
        self.fingerprint: str | None = None
        self.capped = False
        self.overflow: str | None = None     # why the reply's text was cut at its bound, or None
        self.opens_inside = opens_inside
        self._stamped = 0
        self._chunk_cap = 2 * max_tokens + 64 if max_tokens else None
        self._text_cap = text_cap(max_tokens)
        self._text = 0                       # characters of text kept

    def feed(self, chunk: Any, t: float, stamped: bool = False) -> bool:
        """Take one chunk that arrived `t` seconds after the request started (`stamped`: by the kernel).
        Returns False once the reply passed a cap: read no further. Raises Failure on a malformed chunk."""
        if self.overflow is not None:
            return False
        model = _text(_get(chunk, "model"), "model")
        if model and self.model is None:
            self.model = model
        usage = _get(chunk, "usage")
        if usage is not None:
            self.usage = _usage(usage)
        self.fingerprint = _text(_get(chunk, "system_fingerprint"), "system_fingerprint") or self.fingerprint
        item = _Chunk(t)
        for choice in _choices(chunk):
            delta = _get(choice, "delta")
            if delta is not None:
                item.reasoning += self._keep(reasoning_text.reasoning_of(delta))
                item.content += self._keep(_text(_get(delta, "content"), "content"))
                deltas = _get(delta, "tool_calls")
                if deltas:
                    item.tool = True
                    self._merge_tool_deltas(deltas)
            finish = _text(_get(choice, "finish_reason"), "finish_reason")
            if finish:
                self.finish = finish
        if not (item.reasoning or item.content or item.tool):
            return self.overflow is None
        self.chunks.append(item)
        self._stamped += stamped
        if self.overflow is not None:
            return False
        if self._chunk_cap is not None and len(self.chunks) > self._chunk_cap:
            self.finish, self.capped = "length", True
            return False
        return True

    def _keep(self, text: str) -> str:
        """`text`, or as much of it as the reply's text bound leaves room for."""
        room = self._text_cap - self._text
        if len(text) > room:
            text = text[:max(0, room)]
            self.overflow = (f"the reply passed {self._text_cap} characters of text ({TEXT_CHARS_PER_TOKEN} per "
                             f"token of max_tokens + {TEXT_FLOOR}): cut there")
        self._text += len(text)
        return text

    @property
    def complete(self) -> bool:
        """The server finished the reply (not cut off by the safety cap)."""
        return self.finish is not None and not self.capped

    def _merge_tool_deltas(self, deltas: Any) -> None:
        """Fold streamed tool-call deltas (by index; arguments are concatenated)."""
        if not isinstance(deltas, (list, tuple)):
            raise _malformed("tool_calls", deltas)
        calls, order = self.calls, self.order
        for d in deltas:
            index = _get(d, "index")
            if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
                raise Failure(f"malformed stream data: tool call index {index!r:.40}", retryable=True)
            call_id = _text(_get(d, "id"), "tool call id")
            if index is None:  # some servers omit the index: a new id starts a new call
                continues = order and (not call_id or calls[order[-1]]["id"] in ("", call_id))
                index = order[-1] if continues else len(order)
            if index not in calls:
                calls[index] = {"id": "", "name": "", "arguments": ""}
                order.append(index)
            call = calls[index]
            if call_id and not call["id"]:
                call["id"] = self._keep(call_id)
            fn = _get(d, "function")
            if fn is not None:
                name = _text(_get(fn, "name"), "tool call name")
                if name and name != call["name"]:  # whole once (OpenAI), repeated, or in pieces
                    call["name"] += self._keep(name)
                call["arguments"] += self._keep(_text(_get(fn, "arguments"), "tool call arguments"))

    def response(self, e2e: float, *, messages: Sequence[Mapping[str, Any]] = (),
                 tools: Sequence[Mapping[str, Any]] | None = None) -> Response:
        """The assembled Response (`finish_reason` None when the stream never finished)."""
        chunks = self.chunks
        raw = "".join(c.content for c in chunks)
        field_reasoning = "".join(c.reasoning for c in chunks)
        parts = reasoning_text.split(raw)
        if self.opens_inside and self.finish == "length" and not parts.tagged and not field_reasoning:
            parts = reasoning_text.split(raw, inside=True)
        content = parts.answer.lstrip() if parts.tagged else parts.answer
        reasoning = (field_reasoning + parts.reasoning).strip()

        # which chunk carried each answer character: chunk i holds raw[ends[i-1]:ends[i]]
        ends, total = [], 0
        for c in chunks:
            total += len(c.content)
            ends.append(total)
        first_visible = next((s + k for s, e in parts.spans for k, ch in enumerate(raw[s:e]) if not ch.isspace()),
                             None)
        answer_at = bisect.bisect_right(ends, first_visible) if first_visible is not None else None
        tool_at = next((i for i, c in enumerate(chunks) if c.tool), None)
        first = min((i for i in (answer_at, tool_at) if i is not None), default=None)
        # chunks with an answer character from the first visible one on (blank text before it is not
        # an answer token), for the token count of a server that sends no usage
        answer_spans = [(max(s, first_visible), e) for s, e in parts.spans
                        if first_visible is not None and e > first_visible]
        has_answer = _carries_answer(ends, answer_spans)

        times = [c.t for c in chunks]
        clock = "kernel" if chunks and self._stamped == len(chunks) else "process"
        timings = Timings(ttft_s=times[0] if times else None, ttft_answer_s=times[first] if first is not None else None,
                          e2e_s=e2e, chunk_times=times, clock=clock)
        usage = self.usage
        if usage is not None:
            details = _get(usage, "completion_tokens_details")
            prompt_details = _get(usage, "prompt_tokens_details")
            reasoning_tokens = _get(details, "reasoning_tokens")
            if reasoning_tokens is None and not reasoning:
                reasoning_tokens = 0
            tokens = Usage(prompt_tokens=_get(usage, "prompt_tokens"),
                           completion_tokens=_get(usage, "completion_tokens"), reasoning_tokens=reasoning_tokens,
                           cached_tokens=_get(prompt_details, "cached_tokens"))
        else:
            reasoning_only = sum(1 for c, answered in zip(chunks, has_answer) if not answered and not c.tool)
            tokens = Usage(prompt_tokens=estimate_prompt_tokens(messages, tools), completion_tokens=len(chunks),
                           reasoning_tokens=reasoning_only, cached_tokens=None, estimated=True)
        form = "field" if field_reasoning else "prefilled" if parts.opened_inside else "tags" if parts.tagged else None
        tool_calls = [ToolCall(name=self.calls[i]["name"], arguments=self.calls[i]["arguments"],
                               id=self.calls[i]["id"] or None) for i in self.order]
        return Response(content=content, reasoning=reasoning, tool_calls=tool_calls, finish_reason=self.finish,
                        model=self.model, usage=tokens, timings=timings, system_fingerprint=self.fingerprint,
                        reasoning_form=form)


def _carries_answer(ends: list[int], spans: Sequence[tuple[int, int]]) -> list[bool]:
    """For each chunk (its content ends at `ends[i]` in the whole text): does it hold an answer character?"""
    out, j, lo = [], 0, 0
    for hi in ends:
        while j < len(spans) and spans[j][1] <= lo:
            j += 1
        out.append(hi > lo and j < len(spans) and spans[j][0] < hi)
        lo = hi
    return out


def estimate_prompt_tokens(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None) -> int:
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
