"""An OpenAI-compatible endpoint that misbehaves, for the client's bounds (pytest_crucible/client/limits.py).

Standard library only; serves ``POST /v1/chat/completions`` on 127.0.0.1 in a background thread. A request
whose last user message contains `trigger` is answered in the server's `mode`; any other gets a normal
streamed reply, ``Answer: 42``. Bodies are sent without a length and end when the connection closes.

    keepalive     an SSE comment (``: keepalive``) every `interval` seconds, forever
    empty_delta   a chunk with an empty delta every `interval` seconds, forever
    trickle       one content character every `interval` seconds, forever
    endless_line  one ``data:`` line that never ends (the connection closes after `size` bytes of it)
    huge_chunk    one chunk whose content is `size` bytes, then the end of the reply
    huge_tool     tool-call arguments of `size` bytes in 4 KiB pieces, then the end of the reply
    echo_key      a normal reply that quotes the request's API key in its text and tool call
    gzip          a normal reply, gzip-compressed although the client asked for none

    with HostileServer("keepalive") as server:
        ...  # point a client at server.base_url
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["MODES", "NORMAL_REPLY", "HostileServer"]

MODES = ("keepalive", "empty_delta", "trickle", "endless_line", "huge_chunk", "huge_tool", "echo_key", "gzip")
NORMAL_REPLY = "Answer: 42"
_PIECE = 1 << 20


def _event(payload: Any) -> bytes:
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def _chunk(delta: dict, finish: str | None = None) -> dict:
    return {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "hostile",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _reply(*deltas: dict, finish: str = "stop") -> bytes:
    events = [_event(_chunk({"role": "assistant", "content": ""}))]
    events += [_event(_chunk(d)) for d in deltas]
    events += [_event(_chunk({}, finish)), b"data: [DONE]\n\n"]
    return b"".join(events)


class _Gone(Exception):
    pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        body = json.dumps({"object": "list", "data": [{"id": "hostile", "object": "model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        owner = self.server.owner
        with owner.lock:
            owner.requests.append({"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
        prompt = next((m.get("content") for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
        mode = owner.mode if owner.trigger in str(prompt) else "normal"
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        if mode == "gzip":
            self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        try:
            getattr(self, f"_{mode}")()
        except (_Gone, OSError):
            pass

    # -- writing
    def _send(self, data: bytes) -> None:
        if self.server.owner.stopping.is_set():
            raise _Gone()
        self.wfile.write(data)
        self.wfile.flush()

    def _every_interval(self, data: bytes) -> None:
        owner = self.server.owner
        while not owner.stopping.wait(owner.interval):
            self._send(data)

    # -- the modes
    def _normal(self) -> None:
        self._send(_reply({"content": NORMAL_REPLY}))

    def _keepalive(self) -> None:
        self._every_interval(b": keepalive\n\n")

    def _empty_delta(self) -> None:
        self._send(_event(_chunk({"role": "assistant", "content": ""})))
        self._every_interval(_event(_chunk({})))

    def _trickle(self) -> None:
        self._every_interval(_event(_chunk({"content": "a"})))

    def _endless_line(self) -> None:
        self._send(b'data: {"choices": [{"index": 0, "delta": {"content": "')
        self._repeat(b"a", self.server.owner.size)

    def _huge_chunk(self) -> None:
        self._send(b'data: {"choices": [{"index": 0, "delta": {"content": "')
        self._repeat(b"a", self.server.owner.size)
        self._send(b'"}}]}\n\n' + _event(_chunk({}, "stop")) + b"data: [DONE]\n\n")

    def _huge_tool(self) -> None:
        start = {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                 "function": {"name": "f", "arguments": ""}}]}
        self._send(_event(_chunk(start)))
        piece = _event(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": "a" * 4096}}]}))
        for _ in range(self.server.owner.size // 4096):
            self._send(piece)
        self._send(_event(_chunk({}, "tool_calls")) + b"data: [DONE]\n\n")

    def _echo_key(self) -> None:
        key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        call = {"index": 0, "id": "call_1", "type": "function",
                "function": {"name": "echo", "arguments": json.dumps({"key": key})}}
        self._send(_reply({"content": f"{NORMAL_REPLY} (your key is {key})"}, {"tool_calls": [call]}))

    def _gzip(self) -> None:
        self._send(gzip.compress(_reply({"content": NORMAL_REPLY})))

    def _repeat(self, byte: bytes, size: int) -> None:
        piece = byte * _PIECE
        for _ in range(size // _PIECE):
            self._send(piece)
        self._send(byte * (size % _PIECE))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: HostileServer


class HostileServer:
    """See the module docstring. `requests`: what was received (headers lower-cased, parsed body)."""

    def __init__(self, mode: str, *, trigger: str = "", interval: float = 0.5, size: int = 100 << 20,
                 port: int = 0) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; one of {', '.join(MODES)}")
        self.mode, self.trigger, self.interval, self.size = mode, trigger, interval, size
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


if __name__ == "__main__":  # a manual demo: python tests/hostile_server.py keepalive
    import sys

    with HostileServer(sys.argv[1] if len(sys.argv) > 1 else "keepalive") as server:
        print(f"hostile endpoint ({server.mode}) at {server.base_url}", flush=True)
        while True:
            time.sleep(1)
