"""The loopback server itself: scripting, faults, recording, clean shutdown, the standalone script."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import openai
import pytest
from loopback import LoopbackServer, Reply, tokenize

HI = [{"role": "user", "content": "hi"}]


def post(url: str, body: dict) -> tuple[int, dict, dict]:
    request = urllib.request.Request(url + "/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as resp:
            return resp.status, dict(resp.headers), json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), json.loads(err.read())


@pytest.mark.parametrize("text", ["", "a", "hello world", "  lead and trail  ", "supercalifragilistic\n\nok"])
def test_tokenize_keeps_every_character(text):
    assert "".join(tokenize(text)) == text


def test_non_streaming_reply_with_reasoning_and_usage(loopback):
    loopback.script(default=Reply("42", reasoning="six by seven"))
    status, _, body = post(loopback.base_url, {"model": "m", "messages": HI})
    assert status == 200 and body["model"] == "m"
    message = body["choices"][0]["message"]
    assert message["content"] == "42" and message["reasoning_content"] == "six by seven"
    assert body["usage"]["completion_tokens_details"]["reasoning_tokens"] == len(tokenize("six by seven"))


def test_rules_handler_and_default(loopback):
    loopback.script(rules={"weather": "sunny", re.compile(r"^\d+$"): "a number"}, default="default",
                    handler=lambda req: "from handler" if req.get("seed") == 1 else None)

    def ask(text, **extra):
        return post(loopback.base_url, {"model": "m", "messages": [{"role": "user", "content": text}], **extra})[2]

    assert ask("how is the weather")["choices"][0]["message"]["content"] == "sunny"
    assert ask("123")["choices"][0]["message"]["content"] == "a number"
    assert ask("x 123")["choices"][0]["message"]["content"] == "default"
    assert ask("weather", seed=1)["choices"][0]["message"]["content"] == "from handler"


def test_status_fault_then_normal_service(loopback):
    loopback.fault(429, times=2, retry_after=3)
    assert [post(loopback.base_url, {"model": "m", "messages": HI})[0] for _ in range(3)] == [429, 429, 200]
    loopback.fault(503, message="overloaded")
    status, _, body = post(loopback.base_url, {"model": "m", "messages": HI})
    assert status == 503 and body["error"]["message"] == "overloaded"
    assert loopback.chat_count == 4


def test_fault_needs_exactly_one_kind(loopback):
    with pytest.raises(ValueError):
        loopback.fault()
    with pytest.raises(ValueError):
        loopback.fault(500, reset_after=1)


def test_usage_only_when_asked_and_never_when_switched_off(loopback):
    loopback.script(rules=[("silent", Reply("x", usage=False))], default=Reply("x"))
    client = openai.OpenAI(base_url=loopback.base_url, api_key="k", max_retries=0)
    try:
        def usages(text, **kw):
            chunks = list(client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": text}], stream=True, **kw))
            return [c.usage for c in chunks if c.usage is not None]

        assert usages("plain") == []
        assert len(usages("plain", stream_options={"include_usage": True})) == 1
        assert usages("silent", stream_options={"include_usage": True}) == []
    finally:
        client.close()


def test_stop_leaves_no_thread_even_with_stalled_and_idle_connections():
    before = set(threading.enumerate())
    server = LoopbackServer(default=Reply("a b c d")).start()
    server.fault(stall_after=1)
    idle = socket.create_connection(("127.0.0.1", server.port))  # an idle keep-alive connection
    stalled = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0, timeout=30)
    stream = stalled.chat.completions.create(model="m", messages=HI, stream=True)
    next(iter(stream))  # the role chunk; the server now stalls
    started = time.perf_counter()
    server.stop()
    assert time.perf_counter() - started < 2.0
    assert set(threading.enumerate()) <= before
    idle.close()
    stream.close()
    stalled.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=1).close()


def test_down_url_refuses_connections():
    url = LoopbackServer.down_url()
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_standalone_script_serves_a_fixed_reply():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    script = Path(__file__).with_name("loopback.py")
    proc = subprocess.Popen([sys.executable, str(script), "--port", str(port), "--reply", "forty-two"],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/v1" in line
        status, _, body = post(f"http://127.0.0.1:{port}/v1", {"model": "m", "messages": HI})
        assert status == 200 and body["choices"][0]["message"]["content"] == "forty-two"
    finally:
        proc.terminate()
        assert proc.wait(timeout=5) == 0
        proc.stdout.close()
