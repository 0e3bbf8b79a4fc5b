"""ChatClient against the loopback server, through the real transport and real HTTP."""

from __future__ import annotations

import re
import statistics
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from loopback import LoopbackServer, Reply, tokenize

from pytest_crucible.client.chat import ChatClient, model_matches
from pytest_crucible.common.errors import EndpointError, InfraError, ModelMismatchError

HI = [{"role": "user", "content": "hi"}]


@pytest.fixture
def make_client(loopback):
    """A client factory on the loopback server, with fast backoff; every client is closed afterwards."""
    clients = []

    def make(base_url=None, api_key=None, **kw):
        kw.setdefault("model_id", "loopback-model")
        kw.setdefault("backoff_base", 0.01)
        kw.setdefault("timeout", 5.0)
        client = ChatClient(base_url or loopback.base_url, api_key, **kw)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def sleeps_recorder():
    slept = []
    return slept, slept.append


# ---- content, usage, reasoning, tools ---------------------------------------------------------------

def test_streams_content_with_server_usage(loopback, make_client):
    loopback.script(default=Reply("The answer is 42."))
    response = make_client().chat(HI, max_tokens=64)
    assert response.content == "The answer is 42."
    assert response.reasoning == ""
    assert response.finish_reason == "stop" and not response.truncated
    assert response.model == "loopback-model"
    assert response.attempts == 1 and response.max_tokens == 64
    assert response.usage.estimated is False
    assert response.usage.completion_tokens == 5 == len(response.timings.chunk_times)
    assert response.usage.reasoning_tokens == 0 and response.usage.cached_tokens == 0
    t = response.timings
    assert 0 < t.ttft_s <= t.ttft_answer_s <= t.chunk_times[-1] <= t.e2e_s
    body = loopback.chat_requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 64 and body["model"] == "loopback-model" and body["messages"] == HI


def test_replies_are_chosen_per_prompt(loopback, make_client):
    loopback.script(rules=[("capital of France", "Paris"), (re.compile(r"\d+ \+ \d+"), "4")], default="?")
    client = make_client()
    assert client.chat([{"role": "user", "content": "What is the capital of France?"}], max_tokens=8).content == "Paris"
    assert client.chat([{"role": "user", "content": "2 + 2"}], max_tokens=8).content == "4"
    assert client.chat(HI, max_tokens=8).content == "?"


def test_missing_usage_is_counted_and_flagged(loopback, make_client):
    loopback.script(default=Reply("one two three four", reasoning="let me see", usage=False))
    response = make_client().chat(HI, max_tokens=64)
    assert response.content == "one two three four" and response.reasoning == "let me see"
    assert response.usage.estimated is True
    pieces = len(tokenize("one two three four")) + len(tokenize("let me see"))
    assert response.usage.completion_tokens == len(response.timings.chunk_times) == pieces
    assert response.usage.reasoning_tokens == len(tokenize("let me see"))
    assert response.usage.prompt_tokens >= 1


def test_rejected_stream_options_fall_back_once_and_are_remembered(make_client, loopback):
    loopback.reject_stream_options = True
    loopback.script(default="fine")
    client = make_client()
    first = client.chat(HI, max_tokens=8)
    assert first.content == "fine" and first.usage.estimated and first.attempts == 2
    second = client.chat(HI, max_tokens=8)
    assert second.attempts == 1
    assert ["stream_options" in r.body for r in loopback.chat_requests] == [True, False, False]


@pytest.mark.parametrize("style", ["reasoning_content", "reasoning"])
def test_reasoning_fields_are_split_from_the_answer(loopback, make_client, style):
    loopback.script(default=Reply("Paris", reasoning="France's capital is Paris.", reasoning_style=style,
                                  token_delay=0.005))
    response = make_client().chat(HI, max_tokens=64)
    assert response.reasoning == "France's capital is Paris."
    assert response.content == "Paris"
    n_reasoning = len(tokenize("France's capital is Paris."))
    assert response.usage.reasoning_tokens == n_reasoning
    t = response.timings
    assert t.ttft_s == t.chunk_times[0]
    assert t.ttft_answer_s == t.chunk_times[n_reasoning] > t.ttft_s


def test_inline_think_tags_split_across_chunks(loopback, make_client):
    chunks = ["<thi", "nk>Let me", " think.</th", "ink>", "\n\n", "The answer", " is 4.", "<", "3 indeed"]
    loopback.script(default=Reply(chunks=chunks, token_delay=0.005))
    response = make_client().chat(HI, max_tokens=64)
    assert response.reasoning == "Let me think."
    assert response.content == "The answer is 4.<3 indeed"
    t = response.timings
    assert len(t.chunk_times) == len(chunks)
    assert t.ttft_s == t.chunk_times[0]
    assert t.ttft_answer_s == t.chunk_times[5]  # whitespace after </think> is not an answer token


def test_inline_think_generated_by_the_server(loopback, make_client):
    loopback.script(default=Reply("42", reasoning="six times seven", reasoning_style="think"))
    response = make_client().chat(HI, max_tokens=64)
    assert (response.reasoning, response.content) == ("six times seven", "42")


def test_lone_closing_think_tag_marks_everything_before_as_reasoning(loopback, make_client):
    loopback.script(default=Reply(chunks=["weighing", " options", "</think>", "Answer: B"], usage=False))
    response = make_client().chat(HI, max_tokens=64)
    assert (response.reasoning, response.content) == ("weighing options", "Answer: B")
    assert response.usage.reasoning_tokens == 3
    assert response.timings.ttft_answer_s == response.timings.chunk_times[3]


def test_unclosed_think_block_is_all_reasoning(loopback, make_client):
    loopback.script(default=Reply(chunks=["<think>", "still going"], finish_reason="length"))
    response = make_client().chat(HI, max_tokens=2)
    assert response.content == "" and response.reasoning == "still going"
    assert response.truncated and response.timings.ttft_answer_s is None


def test_tool_call_deltas_are_assembled(loopback, make_client):
    loopback.script(default=Reply(tool_calls=[("get_weather", {"city": "Paris", "unit": "celsius"}),
                                              {"name": "get_time", "arguments": '{"tz": "Europe/Paris"}',
                                               "id": "call_fixed"}]))
    tools = [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
             for n in ("get_weather", "get_time")]
    response = make_client().chat(HI, max_tokens=64, tools=tools, tool_choice="auto")
    assert response.finish_reason == "tool_calls"
    assert [c.name for c in response.tool_calls] == ["get_weather", "get_time"]
    assert response.tool_calls[0].parsed_arguments() == {"city": "Paris", "unit": "celsius"}
    assert response.tool_calls[1].parsed_arguments() == {"tz": "Europe/Paris"}
    assert response.tool_calls[1].id == "call_fixed" and response.tool_calls[0].id
    assert response.content == ""
    assert response.timings.ttft_answer_s == response.timings.ttft_s
    body = loopback.chat_requests[0].body
    assert body["tools"] == tools and body["tool_choice"] == "auto"


def test_finish_reason_length(loopback, make_client):
    loopback.script(default=Reply("cut off mid", finish_reason="length"))
    response = make_client().chat(HI, max_tokens=3)
    assert response.finish_reason == "length" and response.truncated


def test_params_and_extra_body_reach_the_request(loopback, make_client):
    client = make_client(extra_body={"top_k": 20, "temperature": 0.7})
    client.chat(HI, max_tokens=8, params={"temperature": 0.0, "seed": 7})
    body = loopback.chat_requests[0].body
    assert (body["top_k"], body["temperature"], body["seed"]) == (20, 0.0, 7)
    with pytest.raises(ValueError, match="model"):
        client.chat(HI, max_tokens=8, params={"model": "x"})


def test_list_models(loopback, make_client):
    loopback.models = ["a", "b"]
    assert make_client().list_models() == ["a", "b"]


# ---- retries and failures -----------------------------------------------------------------------------

def test_429_retry_after_is_honoured(loopback, make_client):
    loopback.fault(429, retry_after=0.2)
    loopback.script(default="ok")
    response = make_client(backoff_base=5.0).chat(HI, max_tokens=8)
    assert response.content == "ok" and response.attempts == 2
    first, second = loopback.chat_requests
    waited = second.received_at - first.received_at
    assert 0.2 <= waited < 0.35


def test_retry_after_is_capped_by_backoff_max(loopback, make_client):
    slept, sleep = sleeps_recorder()
    loopback.fault(429, retry_after=120)
    make_client(backoff_max=0.05, sleep=sleep).chat(HI, max_tokens=8)
    assert slept == [0.05]


def test_backoff_is_exponential_and_ends_in_one_line_error(loopback, make_client):
    slept, sleep = sleeps_recorder()
    loopback.fault(500, times=None, message="model crashed")
    client = make_client(max_retries=4, backoff_base=0.1, backoff_max=0.5, sleep=sleep, rng=lambda: 1.0)
    with pytest.raises(EndpointError) as info:
        client.chat(HI, max_tokens=8)
    assert slept == [0.1, 0.2, 0.4, 0.5]
    assert str(info.value) == f"endpoint {loopback.base_url} failed after 5 attempts: HTTP 500: model crashed"
    assert "\n" not in str(info.value) and isinstance(info.value, InfraError)
    assert loopback.chat_count == 5


def test_jitter_keeps_delays_between_half_and_full(loopback, make_client):
    slept, sleep = sleeps_recorder()
    loopback.fault(503, times=3)
    make_client(max_retries=3, backoff_base=1.0, sleep=sleep, rng=lambda: 0.0).chat(HI, max_tokens=8)
    assert slept == [0.5, 1.0, 2.0]


def test_500_then_success(loopback, make_client):
    loopback.fault(500, times=2)
    loopback.script(default="recovered")
    response = make_client().chat(HI, max_tokens=8)
    assert response.content == "recovered" and response.attempts == 3


def test_connection_reset_mid_stream_then_success(loopback, make_client):
    text = "one two three four five six"
    loopback.fault(reset_after=3)
    loopback.script(default=Reply(text))
    response = make_client().chat(HI, max_tokens=32)
    assert response.content == text  # nothing of the broken attempt is kept
    assert response.attempts == 2 and len(response.timings.chunk_times) == len(tokenize(text))


def test_connection_reset_every_time_names_the_cause(loopback, make_client):
    loopback.fault(reset_after=1, times=None)
    loopback.script(default=Reply("one two three"))
    with pytest.raises(EndpointError, match=r"failed after 2 attempts: connection reset mid-stream$"):
        make_client(max_retries=1).chat(HI, max_tokens=32)


def test_truncated_stream_is_retried(loopback, make_client):
    loopback.fault(truncate_after=2)
    loopback.script(default=Reply("alpha beta gamma delta"))
    response = make_client().chat(HI, max_tokens=32)
    assert response.content == "alpha beta gamma delta" and response.attempts == 2


def test_error_event_mid_stream_is_retried(loopback, make_client):
    loopback.fault(error_event_after=2, message="CUDA out of memory")
    loopback.script(default=Reply("alpha beta gamma delta"))
    assert make_client().chat(HI, max_tokens=32).attempts == 2
    loopback.fault(error_event_after=1, message="CUDA out of memory", times=None)
    with pytest.raises(EndpointError, match="failed after 2 attempts: error event in the stream: CUDA out of memory"):
        make_client(max_retries=1).chat(HI, max_tokens=32)


def test_rejected_max_tokens_switches_to_max_completion_tokens(loopback, make_client):
    loopback.reject_max_tokens = True
    client = make_client()
    assert client.chat(HI, max_tokens=8).attempts == 2
    assert client.chat(HI, max_tokens=8).attempts == 1
    assert [("max_tokens" in r.body, r.body.get("max_completion_tokens")) for r in loopback.chat_requests] == [
        (True, None), (False, 8), (False, 8)]


def test_stall_is_ended_by_the_read_timeout_and_retried(loopback, make_client):
    loopback.fault(stall_after=2)
    loopback.script(default=Reply("alpha beta gamma delta"))
    started = time.perf_counter()
    response = make_client(timeout=0.3).chat(HI, max_tokens=32)
    elapsed = time.perf_counter() - started
    assert response.content == "alpha beta gamma delta" and response.attempts == 2
    assert 0.3 <= elapsed < 1.5


def test_stall_every_time_raises_after_the_retries(loopback, make_client):
    loopback.fault(stall_after=1, times=None)
    started = time.perf_counter()
    with pytest.raises(EndpointError, match=r"failed after 2 attempts: stream stalled: no data for 0.25 s"):
        make_client(timeout=0.25, max_retries=1).chat(HI, max_tokens=32)
    assert time.perf_counter() - started < 2.0


def test_endpoint_down_raises_quickly_with_a_clear_reason(make_client):
    url = LoopbackServer.down_url()
    client = make_client(url, max_retries=4, backoff_base=0.01)
    started = time.perf_counter()
    with pytest.raises(EndpointError) as info:
        client.chat(HI, max_tokens=8)
    assert str(info.value) == f"endpoint {url} unreachable after 5 attempts: connection refused"
    assert time.perf_counter() - started < 2.0
    # the client remembers: the next call tries once instead of backing off again
    with pytest.raises(EndpointError, match="unreachable after 1 attempt: connection refused"):
        client.chat(HI, max_tokens=8)


def test_endpoint_that_comes_back_is_used_again(make_client):
    url = LoopbackServer.down_url()
    client = make_client(url, max_retries=1)
    with pytest.raises(EndpointError):
        client.chat(HI, max_tokens=8)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with LoopbackServer(port=port):
        assert client.chat(HI, max_tokens=8).attempts == 1
        assert client.chat(HI, max_tokens=8).attempts == 1


def test_401_is_not_retried(loopback, make_client):
    loopback.api_key = "the-right-key"
    client = make_client(api_key="sk-wrong-key-123")
    with pytest.raises(EndpointError) as info:
        client.chat(HI, max_tokens=8)
    assert "HTTP 401: Incorrect API key provided." in str(info.value)
    assert loopback.chat_count == 1
    assert "sk-wrong-key-123" not in str(info.value)


def test_unknown_model_404_carries_the_server_message(loopback, make_client):
    loopback.strict_models = True
    with pytest.raises(EndpointError, match="HTTP 404: The model `nope` does not exist"):
        make_client(model_id="nope").chat(HI, max_tokens=8)
    assert loopback.chat_count == 1


# ---- model guard ------------------------------------------------------------------------------------

def test_model_mismatch_fails_closed(loopback, make_client):
    loopback.script(default=Reply("hello", model="some-other-model"))
    with pytest.raises(ModelMismatchError, match="answered as model 'some-other-model', not the requested "
                                                 "'loopback-model'"):
        make_client().chat(HI, max_tokens=8)
    assert loopback.chat_count == 1


@pytest.mark.parametrize("requested, answered", [
    ("gpt-4o", "gpt-4o-2024-08-06"),
    ("claude-3-5-sonnet", "claude-3-5-sonnet-20241022"),
    ("qwen2.5-7b", "/models/qwen2.5-7b.gguf"),
    ("qwen2.5-7b", "C:\\models\\Qwen2.5-7B"),
    ("llama3.2", "llama3.2:latest"),
])
def test_model_guard_allows_snapshots_and_paths(loopback, make_client, requested, answered):
    loopback.script(default=Reply("hello", model=answered))
    assert make_client(model_id=requested).chat(HI, max_tokens=8).model == answered


def test_model_guard_can_be_disabled(loopback, make_client):
    loopback.script(default=Reply("hello", model="gpt-3.5-turbo"))
    assert make_client(model_guard=False).chat(HI, max_tokens=8).model == "gpt-3.5-turbo"


@pytest.mark.parametrize("requested, answered", [
    ("gpt-4o", "gpt-4o-mini"), ("gpt-4o", "gpt-4"), ("gpt-4o-2024-08-06", "gpt-4o"),
    ("qwen2.5-7b", "/models/qwen2.5-72b.gguf"), ("llama3", "llama3-instruct"),
])
def test_model_matches_rejects_other_models(requested, answered):
    assert not model_matches(requested, answered)


# ---- API keys -----------------------------------------------------------------------------------------

def test_api_key_goes_only_into_the_authorization_header(loopback, make_client):
    key = "sk-loopback-SECRET-4711"
    loopback.fault(500, message=f"bad key {key} echoed", times=None)
    client = make_client(api_key=key, max_retries=1)
    with pytest.raises(EndpointError) as info:
        client.chat(HI, max_tokens=8)
    assert key not in str(info.value) and "bad key *** echoed" in str(info.value)
    assert key not in repr(client)
    loopback.clear_faults()
    client.chat(HI, max_tokens=8)
    client.list_models()
    assert loopback.request_count == 4
    for request in loopback.requests:
        assert request.header("authorization") == f"Bearer {key}"
        others = {k: v for k, v in request.headers.items() if k != "authorization"}
        assert key not in repr(others) and key.encode() not in request.raw_body and key not in request.path


def test_a_query_in_the_base_url_stays_on_every_request(loopback, make_client):
    """An Azure-style `?api-version=` (or a `?key=`) in the base URL is sent with each request, after the
    endpoint's path, not glued into it."""
    client = make_client(base_url=loopback.base_url + "?api-version=2024-10-21")
    assert client.chat(HI, max_tokens=8).content
    assert client.list_models() == ["loopback-model"]
    assert [(r.path, r.query) for r in loopback.requests] == [("/v1/chat/completions", "api-version=2024-10-21"),
                                                              ("/v1/models", "api-version=2024-10-21")]


def test_environment_keys_are_never_sent(loopback, make_client, monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"):
        monkeypatch.setenv(name, f"env-{name}")
    client = make_client(api_key=None)
    client.chat(HI, max_tokens=8)
    headers = loopback.requests[0].headers
    assert "authorization" not in headers
    assert not any("env-OPENAI" in v for v in headers.values())


# ---- timing truth ---------------------------------------------------------------------------------------

def test_timings_match_injected_delays(loopback, make_client):
    """First-token delay 0.2 s, then one token every 10 ms (100 tok/s), measured from the stream:
    medians over a few requests within the 2 ms / 2 % targets of the server's real send times."""
    n_tokens = 41
    loopback.script(default=Reply(" ".join(["tok"] * n_tokens), first_token_delay=0.2, token_delay=0.01))
    client = make_client()
    client.chat(HI, max_tokens=64)  # warm-up: the first request's costs (a new connection)
    ttft_errors, rate_ratios = [], []
    for _ in range(4):
        response = client.chat(HI, max_tokens=64)
        times = response.timings.chunk_times
        assert len(times) == n_tokens == response.usage.completion_tokens
        assert response.timings.ttft_answer_s == response.timings.ttft_s
        assert response.timings.e2e_s >= times[-1]
        assert response.timings.ttft_s >= 0.2  # never earlier than the injected delay
        # the truth is when the server really wrote each token (a sleep may wake late on a busy box)
        sent = loopback.chat_requests[-1].token_sent_at
        received = loopback.chat_requests[-1].received_at
        ttft_errors.append(response.timings.ttft_s - (sent[0] - received))
        rate_ratios.append(((n_tokens - 1) / (times[-1] - times[0])) / ((n_tokens - 1) / (sent[-1] - sent[0])))
    # what is left is the request's way there and back on loopback; the server notes its send time just
    # after writing, and the kernel stamps the arrival a little before that
    assert -0.001 <= statistics.median(ttft_errors) < 0.002, ttft_errors
    assert response.timings.clock == ("kernel" if sys.platform.startswith("linux") else "process")
    assert abs(statistics.median(rate_ratios) - 1) < 0.02, rate_ratios


def test_a_server_that_ignores_max_tokens_is_cut_off_as_truncated(loopback):
    loopback.script(default=Reply("word " * 5000))
    with ChatClient(loopback.base_url, model_id="loopback-model", max_retries=0) as client:
        response = client.chat([{"role": "user", "content": "hi"}], max_tokens=16)
    assert response.truncated and response.finish_reason == "length"
    assert len(response.timings.chunk_times) <= 2 * 16 + 65


@pytest.mark.parametrize("style", ["reasoning_content", "think", "thinking"])
def test_time_to_first_answer_token_in_every_reasoning_form(loopback, make_client, style):
    """40 reasoning tokens (a field, <think> tags, <thinking> tags), then the answer: ttft_answer_s is the
    arrival of the first answer token, against the server's real send time of that token."""
    reply = Reply("Answer: 42", reasoning=" ".join(["hmm"] * 40), reasoning_style=style,
                  first_token_delay=0.05, token_delay=0.004)
    deltas = reply.token_deltas()
    last_reasoning = max(i for i, (kind, _) in enumerate(deltas) if kind != "content")
    first_answer = next(i for i, (kind, piece) in enumerate(deltas) if i > last_reasoning and piece.strip())
    assert first_answer >= 40
    loopback.script(default=reply)
    client = make_client()
    client.chat(HI, max_tokens=128)  # warm-up
    errors = []
    for _ in range(5):
        response = client.chat(HI, max_tokens=128)
        assert (response.content, response.reasoning) == ("Answer: 42", " ".join(["hmm"] * 40))
        record = loopback.chat_requests[-1]
        errors.append(response.timings.ttft_answer_s - (record.token_sent_at[first_answer] - record.received_at))
        assert response.timings.ttft_s < response.timings.ttft_answer_s
    assert -0.0005 <= statistics.median(errors) < 0.002, errors
