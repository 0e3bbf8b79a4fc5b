"""The Transport protocol: ChatClient over a transport that is not the HTTP one (a recorded-stream replayer,
no server), and HttpTransport fitting the same protocol."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import httpx2
import pytest

from pytest_crucible.client.chat import ChatClient
from pytest_crucible.client.retry import Failure
from pytest_crucible.client.thread_pools import ThreadPools
from pytest_crucible.client.transport import ChunkStream, HttpTransport, Transport
from pytest_crucible.common.errors import EndpointError

STREAMS = Path(__file__).parent / "streams"
HI = [{"role": "user", "content": "hi"}]
STEP = 0.01


def recorded(name: str) -> list[dict]:
    lines = (STREAMS / name).read_text().splitlines()
    data = [line[len("data: "):] for line in lines if line.startswith("data: ")]
    return [json.loads(d) for d in data[:data.index("[DONE]")]]


class ReplayStream:
    """Replays chunks, the i-th arriving at (i + 1) * STEP; `break_after` chunks, then a broken connection."""

    def __init__(self, chunks: list[dict], break_after: int | None = None) -> None:
        self.chunks = chunks
        self.break_after = break_after
        self.server = "replay/1.0"
        self.ended = lambda: False
        self.closed = False

    def __iter__(self):
        for i, chunk in enumerate(self.chunks):
            if i == self.break_after:
                raise Failure("connection reset mid-stream", retryable=True)
            yield chunk, (i + 1) * STEP, True

    def elapsed(self) -> float:
        return (len(self.chunks) + 1) * STEP

    def __enter__(self) -> ReplayStream:
        return self

    def __exit__(self, *exc) -> None:
        self.closed = True


class ReplayTransport:
    """Answers each request with the next of `outcomes`: a ReplayStream, or a Failure to raise."""

    def __init__(self, *outcomes, secret: str = "sk-REPLAY") -> None:
        self.outcomes = list(outcomes)
        self.requests: list[dict] = []
        self.streams: list[ReplayStream] = []
        self.secret = secret
        self.closed = False

    def stream(self, request: dict, *, timeout: float | None = None, deadline: float | None = None) -> ChunkStream:
        self.requests.append(request)
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Failure):
            raise outcome
        self.streams.append(outcome)
        return outcome

    def list_models(self, *, timeout: float | None = None) -> list[str]:
        return ["gpt-4o"]

    def redact(self, text: str) -> str:
        return text.replace(self.secret, "***")

    def close(self) -> None:
        self.closed = True


def client_over(transport: Transport, **kw) -> ChatClient:
    kw.setdefault("sleep", lambda seconds: None)
    return ChatClient("http://replay.invalid/v1", None, model_id="gpt-4o", transport=transport, **kw)


def test_both_transports_fit_the_protocol():
    assert isinstance(ReplayTransport(), Transport) and isinstance(ReplayStream([]), ChunkStream)
    http_transport = HttpTransport("http://127.0.0.1:9/v1")
    try:
        assert isinstance(http_transport, Transport)
    finally:
        http_transport.close()


def test_a_replayed_stream_is_assembled_with_the_transports_times():
    stream = ReplayStream(recorded("openai_text.sse"))
    transport = ReplayTransport(stream)
    with client_over(transport) as client:
        response = client.chat(HI, max_tokens=16)
        assert client.list_models() == ["gpt-4o"]
    assert (response.content, response.finish_reason, response.server) == ("The sum is 58.", "stop", "replay/1.0")
    assert response.usage.completion_tokens == 5 and response.timings.clock == "kernel"
    assert response.timings.ttft_s == pytest.approx(2 * STEP)  # the role chunk carries no token
    assert stream.closed and stream.ended() and transport.closed
    request = transport.requests[0]
    assert (request["model"], request["messages"], request["max_tokens"]) == ("gpt-4o", HI, 16)
    assert request["stream_options"] == {"include_usage": True}


def test_failures_of_another_transport_are_retried_and_redacted():
    transport = ReplayTransport(Failure("HTTP 503: busy", retryable=True, status=503),
                                ReplayStream(recorded("openai_text.sse"), break_after=3),
                                ReplayStream(recorded("openai_text.sse")),
                                Failure("HTTP 401: key sk-REPLAY refused", retryable=False, status=401))
    with client_over(transport) as client:
        assert client.chat(HI, max_tokens=16).attempts == 3
        with pytest.raises(EndpointError, match=r"HTTP 401: key \*\*\* refused") as info:
            client.chat(HI, max_tokens=16)
    assert "sk-REPLAY" not in str(info.value) and not transport.outcomes


def test_requests_keep_to_the_pool_of_their_thread_and_pools_are_made_as_threads_come():
    """client/thread_pools.py: at most `most` pools, made only when a new thread asks; each thread's
    requests (and its kept connection) stay in one pool; close() closes every pool made."""
    class Pool(httpx2.BaseTransport):
        def __init__(self) -> None:
            self.threads: set[int] = set()
            self.closed = False

        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            self.threads.add(threading.get_ident())
            return httpx2.Response(200)

        def close(self) -> None:
            self.closed = True

    made: list[Pool] = []
    pools = ThreadPools(lambda: made.append(Pool()) or made[-1], most=4)
    request = httpx2.Request("GET", "http://127.0.0.1:9/")
    pools.handle_request(request)
    assert len(made) == 1
    start = threading.Barrier(10)

    def ask() -> None:
        start.wait()
        for _ in range(5):
            pools.handle_request(request)

    threads = [threading.Thread(target=ask) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(made) == 4
    assert sum(len(pool.threads) for pool in made) == 11   # every thread in exactly one pool
    pools.close()
    assert all(pool.closed for pool in made)
