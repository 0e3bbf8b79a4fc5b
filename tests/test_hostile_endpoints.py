"""Endpoints that misbehave (tests/hostile_server.py) against the client's bounds (client/limits.py):
every request ends by its deadline, no buffer grows past its bound, no key leaks, and a run goes on."""

from __future__ import annotations

import json
import textwrap
import threading
import time

import pytest
from hostile_server import NORMAL_REPLY, HostileServer
from loopback import LoopbackServer

from pytest_crucible.client.chat import ChatClient
from pytest_crucible.client.limits import deadline_s, text_cap
from pytest_crucible.client.retry import Failure
from pytest_crucible.client.stream import StreamAssembler
from pytest_crucible.common.errors import ConfigError, EndpointError
from pytest_crucible.common.filelocks import SlotPool
from pytest_crucible.engine.config import INIT_TEMPLATE, MAX_CONCURRENCY, load_config

HI = [{"role": "user", "content": "hi"}]
KEY = "sk-hostile-7f3a9c1e"
TIMEOUT, MAX_TOKENS = 1.0, 4          # a deadline of 1 + 4 x 1 = 5 s


def ask(server: HostileServer, *, wait: float, **kw) -> tuple[object, float]:
    """The client's answer (a Response or the exception it raised) and its seconds; None when it took
    longer than `wait` (the old client never ended)."""
    client = ChatClient(server.base_url, KEY, model_id="hostile", timeout=TIMEOUT, backoff_base=0.1,
                        model_guard=False)
    outcome: list = []

    def run() -> None:
        started = time.perf_counter()
        try:
            result: object = client.chat(HI, max_tokens=kw.get("max_tokens", MAX_TOKENS))
        except Exception as exc:  # noqa: BLE001 - the outcome under test
            result = exc
        outcome.append((result, time.perf_counter() - started))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(wait)
    return outcome[0] if outcome else (None, wait)


@pytest.mark.parametrize("mode", ["keepalive", "empty_delta", "trickle"])
def test_a_request_that_never_ends_ends_by_its_deadline(mode):
    deadline = deadline_s(TIMEOUT, MAX_TOKENS)
    with HostileServer(mode, interval=0.2) as server:
        result, took = ask(server, wait=deadline + 5)
    assert isinstance(result, EndpointError), result
    assert took <= deadline + 2
    # a trickle makes progress until its deadline; keep-alives are cut after each idle gap, then retried
    reasons = ("deadline passed",) if mode == "trickle" else ("deadline passed", "no token for 1 s")
    assert any(reason in str(result) for reason in reasons), result


def test_a_line_past_its_bound_is_cut_before_it_is_buffered():
    with HostileServer("endless_line", size=8 << 20) as server:
        result, took = ask(server, wait=20)
    assert isinstance(result, EndpointError) and "SSE line of more than" in str(result), result
    assert took < 2 and len(server.requests) == 1  # the endpoint's fault: not retried


def test_a_huge_chunk_is_an_error_and_nothing_of_it_is_kept():
    with HostileServer("huge_chunk", size=2 << 20) as server:
        result, _ = ask(server, wait=20, max_tokens=16)
    assert isinstance(result, EndpointError) and "SSE line of more than" in str(result), result
    assert len(str(result)) < 1000


def test_tool_call_arguments_count_against_the_text_bound():
    with HostileServer("huge_tool", size=1 << 20) as server:
        result, took = ask(server, wait=20, max_tokens=16)
    assert isinstance(result, EndpointError), result
    assert f"passed {text_cap(16)} characters of text" in str(result) and took < 2


def test_a_compressed_reply_is_refused_and_requests_ask_for_none():
    with HostileServer("gzip") as server:
        result, _ = ask(server, wait=20)
    assert isinstance(result, EndpointError) and "Content-Encoding: gzip" in str(result), result
    assert server.requests[0]["headers"]["accept-encoding"] == "identity"


def test_an_echoed_key_is_replaced_before_the_reply_is_returned():
    with HostileServer("echo_key") as server:
        response, _ = ask(server, wait=20)
    assert response.content == f"{NORMAL_REPLY} (your key is ***)"
    assert json.loads(response.tool_calls[0].arguments) == {"key": "***"}
    assert KEY not in json.dumps(response.to_dict())


def test_openai_custom_headers_from_the_environment_are_never_sent(monkeypatch):
    monkeypatch.setenv("OPENAI_CUSTOM_HEADERS", "Authorization: Bearer sk-stolen\nX-Leak: 1\n x-other :2")
    with LoopbackServer(api_key=KEY) as server:  # answers 401 unless the configured key comes
        with ChatClient(server.base_url, KEY, model_id="loopback-model", max_retries=0) as client:
            assert client.chat(HI, max_tokens=8).content == "ok"
        with ChatClient(server.base_url, KEY, model_id="loopback-model", max_retries=0,
                        headers={"X-Leak": "configured"}) as client:
            client.chat(HI, max_tokens=8)
        server.api_key = None
        with ChatClient(server.base_url, None, model_id="loopback-model", max_retries=0) as client:
            client.chat(HI, max_tokens=8)
        seen = [r.headers for r in server.chat_requests]
    assert [h.get("authorization") for h in seen] == [f"Bearer {KEY}", f"Bearer {KEY}", None]
    assert [h.get("x-leak") for h in seen] == [None, "configured", None]
    assert not any("x-other" in h for h in seen)


# ---- the assembler's bounds, without a server ---------------------------------------------------------

def test_the_assembler_keeps_the_capped_prefix_of_every_kind_of_text():
    cap = text_cap(4)
    assembler = StreamAssembler(4)
    assert assembler.feed({"choices": [{"index": 0, "delta": {"reasoning_content": "r" * 1000}}]}, 0.1)
    assert assembler.feed({"choices": [{"index": 0, "delta": {"content": "c" * 1000}}]}, 0.2)
    tool = {"index": 0, "id": "t", "function": {"name": "f", "arguments": "a" * 10 ** 6}}
    assert not assembler.feed({"choices": [{"index": 0, "delta": {"tool_calls": [tool]}}]}, 0.3)
    assert assembler.overflow and f"passed {cap} characters" in assembler.overflow
    response = assembler.response(0.4)
    kept = len(response.reasoning) + len(response.content) + len(response.tool_calls[0].arguments) + 2
    assert kept == cap and response.tool_calls[0].arguments == "a" * (cap - 2002)
    assert not assembler.feed({"choices": [{"index": 0, "delta": {"content": "more"}}]}, 0.5)


@pytest.mark.parametrize("chunk", [
    {"choices": [{"index": 0, "delta": {"content": 5}}]},
    {"choices": "abc"},
    {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": [1], "function": {"arguments": "{}"}}]}}]},
    {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": 7}}]}}]},
    {"choices": [], "usage": {"prompt_tokens": "many", "completion_tokens": 1}},
    {"choices": [], "usage": {"prompt_tokens": 10 ** 40, "completion_tokens": 1}},
    {"model": ["m"], "choices": []},
])
def test_a_chunk_of_the_wrong_shape_is_the_endpoints_error(chunk):
    with pytest.raises(Failure, match="malformed stream data"):
        StreamAssembler(16).feed(chunk, 0.1)


# ---- concurrency ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["99999999999999999999", str(MAX_CONCURRENCY + 1), "0"])
def test_concurrency_is_bounded_where_it_is_read(tmp_path, value):
    path = tmp_path / "models.yaml"
    path.write_text(f"providers:\n  p:\n    base_url: http://127.0.0.1:1/v1\n    concurrency: {value}\nmodels: []\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    message = str(error.value)
    assert f"from 1 to {MAX_CONCURRENCY}" in message and ":4" in message and "providers.p.concurrency" in message


def test_the_init_template_says_what_each_number_bounds(tmp_path):
    assert "seconds per request" not in INIT_TEMPLATE
    assert "seconds without a token" in INIT_TEMPLATE and "timeout + 1 s per token" in INIT_TEMPLATE
    assert "1 to 1024" in INIT_TEMPLATE
    (tmp_path / "models.yaml").write_text(INIT_TEMPLATE)
    assert load_config(tmp_path / "models.yaml").providers["local"].timeout == 600


def test_a_slot_pool_costs_what_it_uses_not_its_size(tmp_path, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_LOCK_DIR", str(tmp_path))
    started = time.perf_counter()
    pool = SlotPool("http://big", 200_000)
    took = time.perf_counter() - started
    assert [pool.try_take(), pool.try_take()] == [0, 1]
    pool.give_back(0)
    assert pool.try_take(1) == 0 and pool.held == 2
    assert took < 0.05 and len(list(tmp_path.iterdir())) == 2


# ---- a run through the plugin ----------------------------------------------------------------------------

CASES = """\
def cases():
    return [{"id": f"H{i}", "category": "math", "difficulty": "easy", "max_tokens": 16,
             "prompt": ("HOSTILE " if i == 1 else "") + f"item {i}: what is 40 + 2?",
             "grader": {"type": "numeric", "answer": 42}} for i in range(3)]
"""


def test_a_run_stores_no_echoed_key_and_keeps_every_other_row(pytester, monkeypatch):
    monkeypatch.setenv("HOSTILE_KEY", KEY)
    with HostileServer("echo_key", trigger="HOSTILE") as server:
        pytester.makefile(".yaml", models=textwrap.dedent(f"""\
            providers:
              loop: {{base_url: "{server.base_url}", api_key_env: HOSTILE_KEY, timeout: 5, concurrency: 2}}
            models:
              - {{name: h, provider: loop, model_id: hostile}}
            """))
        (pytester.path / "math").mkdir()
        (pytester.path / "math" / "hostile_cases.py").write_text(CASES)
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--models", "h",
                                               "--crucible-no-builtin-cases", "math")
    latest = pytester.path / "crucible-results" / "latest"
    rows = [json.loads(line) for line in (latest / "rows.jsonl").read_text().splitlines()]
    assert result.ret == 0, result.stdout.str()[-2000:]
    assert sorted(r["case_id"] for r in rows) == ["H0", "H1", "H2"] and {r["outcome"] for r in rows} == {"passed"}
    assert "your key is ***" in json.dumps(rows)
    for name in ("rows.jsonl", "report.json", "report.html"):
        assert KEY not in (latest / name).read_text(), name
