"""A provider's circuit (client/circuit.py): a dead provider is said once, its items are skipped as
`provider down` without asking, and it is asked again when it comes back."""

from __future__ import annotations

import json
import socket
import textwrap
import time

import pytest
from loopback import LoopbackServer

from pytest_crucible.client.chat import ChatClient
from pytest_crucible.client.circuit import Circuit
from pytest_crucible.client.retry import Failure, RetryPolicy
from pytest_crucible.common.errors import EndpointError, ProviderDown


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def refused():
    raise Failure("connection refused", retryable=True, connect=True)


def test_three_connection_failures_open_it_and_a_probe_closes_it():
    clock, told = Clock(), []
    circuit = Circuit("loop", clock=clock, on_change=told.append)
    policy = RetryPolicy(4, sleep=lambda s: None, circuit=circuit)
    with pytest.raises(EndpointError, match="circuit opened"):  # the third failure in a row opens it
        policy.run(refused, endpoint="e", model_id="m")
    assert circuit.open and len(told) == 1 and "provider loop is down" in told[0]
    asked = []
    for _ in range(5):  # nothing is sent while it is open
        with pytest.raises(ProviderDown, match="^provider down: loop"):
            policy.run(lambda: asked.append(1), endpoint="e", model_id="m")
    assert not asked and len(told) == 1
    clock.now += 10  # the probe goes, fails: still down, the next probe 10 s later
    with pytest.raises(ProviderDown):
        policy.run(refused, endpoint="e", model_id="m")
    clock.now += 5
    with pytest.raises(ProviderDown):
        policy.run(lambda: asked.append(1), endpoint="e", model_id="m")
    clock.now += 5  # the next probe gets an answer: closed, told once
    assert policy.run(lambda: "ok", endpoint="e", model_id="m")[0] == "ok"
    assert not circuit.open and len(told) == 2 and "is back" in told[1]
    assert policy.run(lambda: "ok", endpoint="e", model_id="m")[0] == "ok"


def test_an_http_answer_between_connection_failures_resets_the_count():
    circuit = Circuit("loop", clock=Clock())
    circuit.connect_failed("refused")
    circuit.connect_failed("refused")
    circuit.answered()
    assert not circuit.connect_failed("refused") and not circuit.open


def test_a_provider_that_comes_back_is_asked_again():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    clock = Clock()
    circuit = Circuit("loop", clock=clock)
    client = ChatClient(f"http://127.0.0.1:{port}/v1", model_id="m", max_retries=4, backoff_base=0.01,
                        circuit=circuit, wire_clock=False)
    with pytest.raises(EndpointError):
        client.chat([{"role": "user", "content": "hi"}], max_tokens=8)
    assert circuit.open
    with LoopbackServer(port=port) as server:
        with pytest.raises(ProviderDown):  # no probe due yet
            client.chat([{"role": "user", "content": "hi"}], max_tokens=8)
        clock.now += 10
        assert client.chat([{"role": "user", "content": "hi"}], max_tokens=8).content
        assert not circuit.open and server.chat_count == 1
    client.close()


def test_a_dead_provider_is_said_once_and_its_items_end_in_seconds(pytester, tmp_path, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_LOCK_DIR", str(tmp_path / "locks"))
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    pytester.makefile(".yaml", models=textwrap.dedent(f"""\
        providers:
          dead: {{base_url: "http://127.0.0.1:{port}/v1", concurrency: 4}}
        models:
          - {{name: m1, provider: dead, model_id: m1}}
        """))
    items = 300
    pytester.makefile(".cases.yaml", many="cases:\n" + "".join(
        f"  - {{id: C{i:03d}, category: math, difficulty: easy, prompt: p, grader: {{type: numeric, answer: 1}}}}\n"
        for i in range(items)))
    started = time.monotonic()
    result = pytester.runpytest("-p", "no:cacheprovider", "--models", "m1", "--crucible-no-builtin-cases",
                                "many.cases.yaml")
    took = time.monotonic() - started
    out = result.stdout.str()
    assert took < 10, (took, out[-2000:])
    assert out.count("provider dead is down") == 1, out[-3000:]
    assert result.ret == 1  # a dead provider never passes a run: the failure that opened the circuit is an error
    run_dir = pytester.path / "crucible-results" / "latest"
    rows = [json.loads(line) for line in (run_dir / "rows.jsonl").read_text().splitlines()]
    assert len(rows) == items and len({r["case_id"] for r in rows}) == items  # every item has a row
    errors = [r for r in rows if r["outcome"] == "error"]
    down = [r for r in rows if r["outcome"] == "skipped" and r["reason"].startswith("provider down")]
    assert len(errors) == 1 and len(down) == items - 1
    assert out.count("infrastructure error (not scored)") <= 2  # one block (and its short-summary line)
    report = json.loads((run_dir / "report.json").read_text())["models"]["m1"]
    assert report["provider_down"] == items - 1
    assert f"skipped {items - 1} ({items - 1} provider down)" in out
