"""Property tests (hypothesis, seeded) for the client's bounds: whatever chunks or bytes an endpoint sends,
split wherever, the stream assembler and the transport end within their bounds and raise nothing but the
endpoint's error."""

from __future__ import annotations

import json
import re

import httpx2
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from openai._streaming import SSEDecoder as OpenAIDecoder

from pytest_crucible.client.chat import ChatClient
from pytest_crucible.client.guard import ReplyCut, RequestGuard, SSEBudget
from pytest_crucible.client.limits import text_cap
from pytest_crucible.client.retry import Failure
from pytest_crucible.client.sse import SSEDecoder
from pytest_crucible.client.stream import StreamAssembler
from pytest_crucible.client.transport import HttpTransport
from pytest_crucible.common.errors import EndpointError

HI = [{"role": "user", "content": "hi"}]
SEEDED = settings(derandomize=True, max_examples=150, deadline=None)

# ---- chunks of every shape -------------------------------------------------------------------------------

_junk = st.none() | st.integers() | st.floats() | st.lists(st.integers(), max_size=2) | \
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
_text = st.text(max_size=40) | st.text(alphabet="ab<>/think ", min_size=400, max_size=3000)
_value = st.one_of(_text, _text, _text, _junk)
_count = st.one_of(st.integers(0, 10 ** 6), st.integers(-5, 10 ** 15), _junk)
_function = st.fixed_dictionaries({}, optional={"name": _value, "arguments": _value})
_tool = st.fixed_dictionaries({}, optional={"index": st.one_of(st.none(), st.integers(0, 3), _junk), "id": _value,
                                            "function": _function | _junk})
_delta = st.fixed_dictionaries({}, optional={
    "role": st.just("assistant"), "content": _value, "reasoning_content": _value, "reasoning": _value,
    "tool_calls": st.lists(_tool, max_size=3) | _junk})
_choice = st.fixed_dictionaries({"delta": _delta | _junk}, optional={
    "index": st.sampled_from([0, None, 1]) | _junk,
    "finish_reason": st.one_of(st.none(), st.sampled_from(["stop", "length", "tool_calls"]), _junk)})
_usage = st.fixed_dictionaries({}, optional={
    "prompt_tokens": _count, "completion_tokens": _count,
    "completion_tokens_details": st.fixed_dictionaries({}, optional={"reasoning_tokens": _count}) | _junk})
_chunk = st.fixed_dictionaries({}, optional={"choices": st.lists(_choice, max_size=2) | _junk, "model": _value,
                                             "usage": _usage | _junk, "system_fingerprint": _value})


def kept_text(response) -> int:
    return len(response.content) + len(response.reasoning) + sum(
        len(c.name) + len(c.arguments) + len(c.id or "") for c in response.tool_calls)


@SEEDED
@given(chunks=st.lists(_chunk, max_size=30), max_tokens=st.integers(1, 40))
def test_the_assembler_keeps_within_its_bounds_or_names_the_endpoints_error(chunks, max_tokens):
    assembler = StreamAssembler(max_tokens)
    try:
        for i, chunk in enumerate(chunks):
            if not assembler.feed(chunk, (i + 1) * 0.01):
                break
        response = assembler.response(1.0, messages=HI)
    except Failure as failure:
        assert failure.reason.startswith("malformed stream data")
        return
    assert kept_text(response) <= text_cap(max_tokens)
    assert len(assembler.chunks) <= 2 * max_tokens + 65
    json.dumps(response.to_dict())  # a row can hold it


# ---- SSE lines and events, split anywhere ---------------------------------------------------------------

_sse_piece = st.sampled_from([b"data: ", b"x" * 10, b"y" * 300, b":", b" keepalive", b"\n", b"\r", b"\r\n",
                              b"\n\n", b"{}", b"event: e", b"id: 1"])


def within(data: bytes, cap: int) -> bool:
    """The whole stream's verdict: every line, and every event's non-comment lines, within `cap` bytes."""
    event = 0
    for line in re.split(rb"\r\n|\r|\n", data):
        if len(line) > cap:
            return False
        if not line:
            event = 0
        elif not line.startswith(b":"):
            event += len(line)
            if event > cap:
                return False
    return True


def pieces_of(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(bounds, bounds[1:])]


@SEEDED
@given(parts=st.lists(_sse_piece, max_size=40), cuts=st.lists(st.integers(0, 4000), max_size=10),
       cap=st.integers(1, 400))
def test_the_sse_budget_cuts_exactly_the_streams_past_it_however_they_are_split(parts, cuts, cap):
    data = b"".join(parts)
    budget = SSEBudget(cap)
    try:
        for piece in pieces_of(data, cuts):
            budget.feed(piece)
    except ReplyCut:
        assert not within(data, cap)
        return
    assert within(data, cap)
    # what the decoder buffers of it is no more than what was counted
    decoder = SSEDecoder()
    assert all(len(event) <= cap for piece in pieces_of(data, cuts) for _, event in decoder.feed(piece))


@SEEDED
@given(steps=st.lists(st.tuples(st.floats(0, 3), st.binary(max_size=50), st.booleans()), max_size=30))
def test_the_guard_ends_a_request_at_its_deadline_whatever_arrives(steps):
    now = [0.0]
    guard = RequestGuard(idle=2.0, deadline=10.0, deadline_reason="deadline passed", line_bytes=1 << 20,
                         clock=lambda: now[0])
    for advance, data, token in steps:
        now[0] += advance
        try:
            guard.feed(data)
            if token:
                guard.progressed()
            guard.check()
        except ReplyCut as cut:
            if now[0] >= 10.0:
                assert cut.reason == "deadline passed" and not cut.retryable
            else:
                assert cut.retryable and now[0] >= guard.progress_at + 2.0
            return
        assert now[0] < 10.0


def decoded(decode, data: bytes, cuts: list[int]) -> list[tuple[str | None, str]] | str:
    """The events `decode` makes of `data` split at `cuts`, or "not UTF-8"."""
    try:
        return decode(pieces_of(data, cuts))
    except UnicodeDecodeError:
        return "not UTF-8"


def ours(pieces: list[bytes]) -> list[tuple[str | None, str]]:
    decoder = SSEDecoder()
    return [event for piece in pieces for event in decoder.feed(piece)] + decoder.end()


def openais(pieces: list[bytes]) -> list[tuple[str | None, str]]:
    return [(e.event, e.data) for e in OpenAIDecoder().iter_bytes(iter(pieces))]


@SEEDED
@given(parts=st.lists(_sse_piece | st.sampled_from([b"\xff", "é".encode()]), max_size=40),
       cuts=st.lists(st.integers(0, 4000), max_size=10))
@example(parts=[b"data: ", b"{}", b"\r", b"\n", b"data: ", b"{}", b"\n\n"], cuts=[9])  # CR | LF: one line end
@example(parts=[b"data: ", b"{}", b"\n", b"\r"], cuts=[])  # a body ending in CR: the event is dispatched
def test_the_sse_decoder_reads_events_as_the_openai_package_does_however_they_are_split(parts, cuts):
    """Differential, against openai's decoder: the same events with data, names and data alike. Left out of
    the comparison: openai's events with empty data (it also dispatches events that had no data line, and
    after an `id:` every blank line), and its reading of a last line no line end closes (no event comes of
    it, only an error when it is not UTF-8)."""
    data = b"".join(parts)
    mine, theirs = decoded(ours, data, cuts), decoded(openais, data, cuts)
    assert decoded(ours, data, list(range(len(data)))) == mine  # byte by byte: every split at once
    closed_lines_utf8 = all(_utf8(line) for line in re.split(rb"\r\n|\r|\n", data)[:-1])
    assert (mine == "not UTF-8") == (not closed_lines_utf8)
    if mine == "not UTF-8" or theirs == "not UTF-8":
        assert theirs == "not UTF-8"
        return
    assert [e for e in mine if e[1]] == [e for e in theirs if e[1]]
    assert len(mine) <= len(theirs)


def _utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# ---- the transport, bytes to Response --------------------------------------------------------------------

def _event(payload) -> bytes:
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


_sse_event = st.one_of(
    _chunk.map(_event),
    st.builds(lambda text: _event({"choices": [{"index": 0, "delta": {"content": text}}]}), st.text(max_size=30)),
    st.just(_event({"choices": [{"index": 0, "delta": {}}]})),
    st.just(b": keepalive\n\n"),
    st.just(b"data: {not json\n\n"),
    st.just(b'data: {"choices": [{"index": 0, "delta": {"content": "' + b"a" * 80_000 + b'"}}]}\n\n'),
    st.just(_event({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})),
    st.just(b"data: [DONE]\n\n"),
    st.just(b"data: " + b"[" * 5000 + b"\n\n"),
    st.just(b"\xff\xfe\n\n"),
)


class _Replay(HttpTransport):
    """The real transport (SSE decoder, guard and all) over httpx's mock transport: each request is
    answered with `body` in `pieces`."""

    pieces: list[bytes] = []

    def _transport(self):
        return httpx2.MockTransport(lambda request: httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, content=iter(self.pieces)))


@pytest.fixture(scope="module")
def replay():
    transport = _Replay("http://fuzz.invalid/v1", "sk-fuzz", timeout=5.0)
    client = ChatClient("http://fuzz.invalid/v1", model_id="m", max_retries=0, model_guard=False,
                        transport=transport)
    yield transport, client
    client.close()


@SEEDED
@given(events=st.lists(_sse_event, max_size=12), cuts=st.lists(st.integers(0, 90_000), max_size=8),
       max_tokens=st.integers(1, 64))
def test_any_bytes_end_in_a_bounded_response_or_the_endpoints_error(replay, events, cuts, max_tokens):
    transport, client = replay
    transport.pieces = pieces_of(b"".join(events), cuts)
    try:
        response = client.chat(HI, max_tokens=max_tokens)
    except EndpointError as error:
        assert len(str(error)) < 1000
        return
    assert kept_text(response) <= text_cap(max_tokens)
