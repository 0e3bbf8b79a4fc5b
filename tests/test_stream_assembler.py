"""The stream assembler and the retry policy, without a server: chunk sequences in the shapes OpenAI,
llama.cpp, vLLM, Ollama and LM Studio stream (tests/streams/, written by hand from their formats)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionChunk

from pytest_crucible.client import reasoning_split as reasoning
from pytest_crucible.client.retry import Adjusted, Failure, RetryPolicy
from pytest_crucible.client.stream import StreamAssembler
from pytest_crucible.common.errors import EndpointError

STREAMS = Path(__file__).parent / "streams"
STEP = 0.01  # the i-th chunk "arrives" at (i + 1) * STEP


def recorded(name: str) -> list[dict]:
    """The chunks of a recorded event stream: every `data:` line up to `[DONE]`."""
    chunks = []
    for line in (STREAMS / name).read_text().splitlines():
        if not line.startswith("data: "):
            continue
        data = line[len("data: "):]
        if data == "[DONE]":
            break
        chunks.append(json.loads(data))
    return chunks


def assemble(chunks, max_tokens=256, **kw):
    assembler = StreamAssembler(max_tokens, **kw)
    for i, chunk in enumerate(chunks):
        assert assembler.feed(chunk, (i + 1) * STEP, stamped=True)
    return assembler.response(0.5, messages=[{"role": "user", "content": "x" * 40}])


def test_openai_text_with_a_usage_chunk():
    r = assemble(recorded("openai_text.sse"))
    assert (r.content, r.reasoning, r.finish_reason) == ("The sum is 58.", "", "stop")
    assert r.model == "gpt-4o-2024-08-06" and r.system_fingerprint == "fp_a1b2c3"
    assert (r.usage.prompt_tokens, r.usage.completion_tokens, r.usage.reasoning_tokens) == (31, 5, 0)
    assert not r.usage.estimated and r.reasoning_form is None
    # the role chunk (empty content) carries no token: the first token is the 2nd chunk
    assert r.timings.ttft_s == r.timings.ttft_answer_s == pytest.approx(2 * STEP)
    assert len(r.timings.chunk_times) == 5 and r.timings.clock == "kernel"


def test_openai_parallel_tool_calls_in_pieces():
    r = assemble(recorded("openai_tools.sse"))
    assert r.finish_reason == "tool_calls" and r.content == ""
    assert [(c.name, c.id, c.parsed_arguments()) for c in r.tool_calls] == [
        ("convert_length", "call_K1", {"value": 12, "from": "ft", "to": "m"}),
        ("convert_mass", "call_K2", {"value": 3, "from": "lb", "to": "kg"})]
    assert r.timings.ttft_answer_s == r.timings.ttft_s == pytest.approx(STEP)  # a tool delta is an answer
    assert r.usage.cached_tokens == 64


def test_llamacpp_reasoning_content_with_usage_on_the_finishing_chunk():
    r = assemble(recorded("llamacpp_reasoning.sse"))
    assert r.reasoning == "Seven rows of nine is 63." and r.content == "Answer: 63"
    assert r.reasoning_form == "field"
    assert (r.usage.completion_tokens, r.usage.prompt_tokens) == (6, 19) and not r.usage.estimated
    assert r.usage.reasoning_tokens is None  # llama.cpp sends no token details: unknown, not 0
    assert r.timings.ttft_s == pytest.approx(2 * STEP)
    assert r.timings.ttft_answer_s == pytest.approx(6 * STEP)


def test_llamacpp_prefilled_template_sends_only_the_closing_tag_split_over_chunks():
    r = assemble(recorded("llamacpp_prefilled.sse"))
    assert r.reasoning == "The odd ones are 3, 5." and r.content == "Answer: 8"
    assert r.reasoning_form == "prefilled"
    assert r.timings.ttft_answer_s == pytest.approx(6 * STEP)  # not the chunk that ended the tag
    # no usage: counted, the four chunks before the answer are reasoning
    assert r.usage.estimated and (r.usage.completion_tokens, r.usage.reasoning_tokens) == (5, 4)


def test_vllm_reasoning_content_and_a_final_usage_chunk():
    r = assemble(recorded("vllm_reasoning.sse"))
    assert r.reasoning == "Both trains meet after 2 h." and r.content == "\n\n**Answer: 120**"
    assert r.usage.completion_tokens == 163 and r.usage.cached_tokens is None
    # whitespace is no answer token: the first is "**Answer"
    assert r.timings.ttft_answer_s == pytest.approx(7 * STEP)
    assert r.timings.ttft_s == pytest.approx(2 * STEP)


def test_ollama_reasoning_field_and_a_whole_tool_call():
    r = assemble(recorded("ollama_reasoning_tools.sse"))
    assert r.reasoning == "The user wants Oslo's local time."
    assert [(c.name, c.parsed_arguments(), c.id) for c in r.tool_calls] == [("local_time", {"city": "Oslo"}, "call_7x1")]
    assert r.timings.ttft_answer_s == pytest.approx(4 * STEP)
    assert r.usage.completion_tokens == 27 and r.usage.reasoning_tokens is None


def test_lmstudio_think_tags_split_over_chunks():
    r = assemble(recorded("lmstudio_think.sse"))
    assert r.reasoning == "Count the vowels: 4." and r.content == "There are 4 vowels."
    assert r.reasoning_form == "tags"
    assert r.timings.ttft_s == pytest.approx(STEP) and r.timings.ttft_answer_s == pytest.approx(6 * STEP)


def test_lmstudio_thinking_block_cut_off_by_the_limit_is_truncated_reasoning():
    r = assemble(recorded("lmstudio_thinking_cut.sse"))
    assert r.content == "" and r.reasoning == "First list every pair of"
    assert r.truncated and r.cut_off == "reasoning" and r.timings.ttft_answer_s is None


def test_a_reply_cut_off_before_any_tag_is_reasoning_when_the_template_prefills_the_tag():
    chunks = [{"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]} for p in ("Let", " me see")]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]})
    plain = assemble(chunks)
    assert (plain.content, plain.cut_off) == ("Let me see", "answer")
    learned = assemble(chunks, opens_inside=True)
    assert (learned.content, learned.reasoning, learned.cut_off) == ("", "Let me see", "reasoning")
    # a reply that finished normally is never re-read as reasoning
    chunks[-1]["choices"][0]["finish_reason"] = "stop"
    assert assemble(chunks, opens_inside=True).content == "Let me see"


@pytest.mark.parametrize("name", sorted(p.name for p in STREAMS.glob("*.sse")))
def test_openai_objects_and_json_mappings_assemble_alike(name):
    chunks = recorded(name)
    as_objects = assemble([ChatCompletionChunk.model_validate(c) for c in chunks])
    assert as_objects.to_dict() == assemble(chunks).to_dict()


def test_a_server_that_ignores_the_limit_is_cut_off():
    assembler = StreamAssembler(4)
    fed = [assembler.feed({"choices": [{"index": 0, "delta": {"content": "w "}}]}, i * STEP) for i in range(80)]
    assert fed.index(False) == 2 * 4 + 64  # the (cap + 1)-th token chunk
    assert assembler.finish == "length" and not assembler.complete


def test_other_choices_are_ignored():
    r = assemble([{"choices": [{"index": 1, "delta": {"content": "other"}},
                               {"index": 0, "delta": {"content": "mine"}, "finish_reason": "stop"}]}])
    assert r.content == "mine"


# ---- chunking does not matter -------------------------------------------------------------------------

_pieces = st.sampled_from(["<think>", "</think>", "<thinking>", "</thinking>", "<THINK>", "<reasoning>",
                           "</reasoning>", "ab", " ", "\n", "42", "<", ">", "/", "think"])


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(_pieces, max_size=12), cuts=st.lists(st.integers(0, 60), max_size=8))
def test_reasoning_and_answer_do_not_depend_on_how_the_text_is_chunked(pieces, cuts):
    text = "".join(pieces)
    bounds = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    parts = [text[a:b] for a, b in zip(bounds, bounds[1:])] or [""]
    chunks = [{"choices": [{"index": 0, "delta": {"content": p}}]} for p in parts]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    r = assemble(chunks)
    whole = reasoning.split(text)
    assert r.reasoning == whole.reasoning.strip()
    assert r.content == (whole.answer.lstrip() if whole.tagged else whole.answer)
    # the first answer token is the chunk holding the first visible answer character
    first = next((s + k for s, e in whole.spans for k, ch in enumerate(text[s:e]) if not ch.isspace()), None)
    if first is None:
        assert r.timings.ttft_answer_s is None
    else:
        holder = next(i for i, p in enumerate([q for q in parts if q]) if sum(map(len, [q for q in parts if q][:i + 1])) > first)
        assert r.timings.ttft_answer_s == r.timings.chunk_times[holder]


# ---- the retry policy --------------------------------------------------------------------------------

def scripted_attempts(*outcomes):
    """An attempt that raises or returns each outcome in turn."""
    left = list(outcomes)

    def attempt():
        outcome = left.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome
    return attempt


def test_retries_back_off_exponentially_and_honour_retry_after():
    slept, heard = [], []
    policy = RetryPolicy(3, backoff_base=1.0, sleep=slept.append, rng=lambda: 1.0,
                         on_retry=lambda status, after: heard.append((status, after)))
    attempt = scripted_attempts(Failure("HTTP 500", retryable=True, status=500),
                                Failure("HTTP 429", retryable=True, status=429, retry_after=7.5),
                                Failure("reset", retryable=True), "done")
    assert policy.run(attempt, endpoint="http://e", model_id="m") == ("done", 4, 1.0 + 7.5 + 4.0)
    assert slept == [1.0, 7.5, 4.0] and heard == [(500, None), (429, 7.5), (None, None)]


def test_an_adjusted_request_is_sent_again_at_once_and_a_rejection_raises():
    slept = []
    policy = RetryPolicy(0, sleep=slept.append)
    assert policy.run(scripted_attempts(Adjusted(), "ok"), endpoint="e", model_id="m") == ("ok", 2, 0.0)
    with pytest.raises(EndpointError, match=r"endpoint e rejected the request for model 'm': HTTP 401: no key \*\*\*"):
        policy.run(scripted_attempts(Failure("HTTP 401: no key s3cret", retryable=False)), endpoint="e",
                   model_id="m", redact=lambda t: t.replace("s3cret", "***"))
    assert slept == []


def test_an_unreachable_endpoint_is_tried_once_until_it_answers_again():
    slept = []
    policy = RetryPolicy(2, backoff_base=0.5, sleep=slept.append, rng=lambda: 0.0)
    down = Failure("connection refused", retryable=True, connect=True)
    with pytest.raises(EndpointError, match="unreachable after 3 attempts: connection refused"):
        policy.run(scripted_attempts(down, down, down), endpoint="e", model_id="m")
    assert slept == [0.25, 0.5] and policy.unreachable
    with pytest.raises(EndpointError, match="unreachable after 1 attempt"):
        policy.run(scripted_attempts(down), endpoint="e", model_id="m")
    assert policy.run(scripted_attempts("back"), endpoint="e", model_id="m")[0] == "back"
    assert not policy.unreachable
