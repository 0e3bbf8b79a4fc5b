"""A loopback OpenAI-compatible HTTP server for the project's tests.

Standard library only. It serves ``POST /v1/chat/completions`` (streamed as server-sent events, or as
one JSON object) and ``GET /v1/models`` on 127.0.0.1, in a background thread. What it answers is
scripted per prompt, how fast it answers is scripted per reply, and faults (429 with Retry-After, 500,
connection reset mid-stream, stall, truncated stream, error event mid-stream) are scripted per request. Every request it
receives is recorded, headers included.

    from loopback import LoopbackServer, Reply

    with LoopbackServer() as server:
        server.script(rules=[("capital of France", Reply("Paris"))], default=Reply("I don't know"))
        server.fault(429, times=1, retry_after=0.2)      # the first request is rate-limited
        ...  # point a client at server.base_url  (http://127.0.0.1:PORT/v1)
        assert server.chat_count == 2

Standalone, for a manual demo (serves one fixed reply until killed):

    python tests/loopback.py --port 8765 --reply "42"
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import select
import signal
import socket
import ssl
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable, Mapping

__all__ = ["Reply", "ToolCallReply", "RecordedRequest", "Fault", "LoopbackServer", "tokenize", "assistant_turns",
           "turns_handler", "TIMINGS_PATH", "STATS_PATH"]

_PIECE = re.compile(r"\s*\S{1,4}|\s+$")
# GET this path for the recorded chat requests' clock readings (a server in another process reports
# its real send times this way; time.perf_counter() is CLOCK_MONOTONIC, shared by all processes on Linux)
TIMINGS_PATH = "/_loopback/timings"
# GET this path for the chat requests in flight now and at most so far, and when the first arrived and
# the last ended (perf_counter): a server in another process reports what it saw
STATS_PATH = "/_loopback/stats"


def tokenize(text: str) -> list[str]:
    """Split text into small pieces (up to 4 visible characters each, leading blanks attached),
    the way a tokenizer would. ``"".join(tokenize(t)) == t`` always holds."""
    return _PIECE.findall(text)


@dataclass
class ToolCallReply:
    name: str
    arguments: str | Mapping[str, Any] = "{}"
    id: str | None = None

    def arguments_text(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


@dataclass
class Reply:
    """One scripted answer.

    content            the answer text, streamed in pieces from :func:`tokenize` (one piece per chunk)
    reasoning          reasoning text, sent before the answer
    reasoning_style    "reasoning_content" (DeepSeek / vLLM field), "reasoning" (OpenRouter / Ollama
                       field), "think" (inline ``<think>...</think>`` at the start of the content) or
                       "thinking" (inline ``<thinking>...</thinking>``)
    tool_calls         ToolCallReply objects, dicts ``{"name", "arguments", "id"}`` or (name, args) pairs;
                       streamed as ``tool_calls`` deltas, the arguments split across chunks
    finish_reason      default "tool_calls" when there are tool calls, else "stop"
    model              the model name to answer as; None echoes the requested model
    usage              None: computed (one token per chunk) and sent when the request asks for it
                       with ``stream_options.include_usage``; False: never sent (like llama.cpp);
                       a dict: sent as given
    first_token_delay  seconds from the request's arrival to the first token chunk
    token_delay        seconds between token chunks (scheduled on absolute deadlines, no drift)
    chunks             explicit content pieces, used instead of tokenizing ``content`` (and instead of
                       the reasoning with style "think"): write the tags yourself to split them
    system_fingerprint sent on every chunk when set (the backend configuration, as OpenAI reports it)
    """

    content: str = ""
    reasoning: str = ""
    reasoning_style: str = "reasoning_content"
    tool_calls: list[Any] = field(default_factory=list)
    finish_reason: str | None = None
    model: str | None = None
    usage: Mapping[str, Any] | bool | None = None
    first_token_delay: float = 0.0
    token_delay: float = 0.0
    chunks: list[str] | None = None
    system_fingerprint: str | None = None

    def __post_init__(self) -> None:
        if self.reasoning_style not in ("reasoning_content", "reasoning", "think", "thinking"):
            raise ValueError(f"unknown reasoning_style {self.reasoning_style!r}")
        calls = []
        for call in self.tool_calls:
            if isinstance(call, ToolCallReply):
                calls.append(call)
            elif isinstance(call, Mapping):
                calls.append(ToolCallReply(**call))
            else:
                name, args = call
                calls.append(ToolCallReply(name, args))
        self.tool_calls = calls

    # the stream as a list of deltas, one per token chunk: (kind, payload)
    def token_deltas(self) -> list[tuple[str, Any]]:
        deltas: list[tuple[str, Any]] = []
        if self.chunks is not None:
            if self.reasoning and not self.inline:
                deltas += [(self.reasoning_style, p) for p in tokenize(self.reasoning)]
            deltas += [("content", p) for p in self.chunks]
        elif self.reasoning and self.inline:
            tag = self.reasoning_style
            deltas.append(("content", f"<{tag}>"))
            deltas += [("think", p) for p in tokenize("\n" + self.reasoning + "\n")]
            deltas.append(("think", f"</{tag}>"))
            if self.content:
                deltas += [("content", p) for p in tokenize("\n\n" + self.content)]
        else:
            if self.reasoning:
                deltas += [(self.reasoning_style, p) for p in tokenize(self.reasoning)]
            deltas += [("content", p) for p in tokenize(self.content)]
        for i, call in enumerate(self.tool_calls):
            deltas.append(("tool_start", (i, call)))
            for piece in tokenize(call.arguments_text()):
                deltas.append(("tool_args", (i, piece)))
        return deltas

    @property
    def inline(self) -> bool:
        """The reasoning is in the text, between tags."""
        return self.reasoning_style in ("think", "thinking")

    @property
    def effective_finish_reason(self) -> str:
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any                 # parsed JSON, or None
    raw_body: bytes
    # on the time.perf_counter() clock: the kernel's arrival stamp of the request (Linux), else when read
    received_at: float
    # time.perf_counter() right after each token chunk was written: the truth a timing test compares
    # with (sleeping to a deadline can wake a few ms late on a busy machine)
    token_sent_at: list[float] = field(default_factory=list)
    peer: tuple | None = None  # the client's (host, port): a new port is a new connection
    query: str = ""            # the request target's query string, without the "?"

    def header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(name.lower(), default)


@dataclass
class Fault:
    """One scripted fault, applied to the next ``times`` matching requests (None: forever)."""

    kind: str                          # "status", "reset", "stall", "truncate", "error_event", "hold_open"
    times: int | None = 1
    status: int = 500
    message: str | None = None
    retry_after: float | str | None = None
    after: int = 0                     # token chunks sent before the stream breaks
    path: str = "/v1/chat/completions"
    skip: int = 0                      # matching requests let through before the fault applies
    used: int = 0

    def exhausted(self) -> bool:
        return self.times is not None and self.used >= self.times


_STATUS_TYPES = {400: "invalid_request_error", 401: "invalid_request_error", 403: "permission_error",
                 404: "invalid_request_error", 429: "rate_limit_exceeded", 500: "server_error",
                 502: "server_error", 503: "server_error"}


def _sleep_until(deadline: float) -> None:
    """Sleep until perf_counter() reaches deadline: sleep the remainder and re-check, so an early
    wake-up is corrected and a late one never pushes the following deadlines back."""
    while True:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return
        time.sleep(remaining)


def _last_user_text(body: Any) -> str:
    if not isinstance(body, Mapping):
        return ""
    for message in reversed(body.get("messages") or []):
        if isinstance(message, Mapping) and message.get("role") == "user":
            return _text_of(message.get("content"))
    return ""


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return ""


_SO_TIMESTAMPNS = 35  # Linux; a struct timespec on CLOCK_REALTIME for every packet received
_TIMESPEC = struct.Struct("@ll")  # struct timespec: two C longs


def _enable_receive_stamps(sock: socket.socket) -> bool:
    if not sys.platform.startswith("linux") or isinstance(sock, ssl.SSLSocket):
        return False
    try:
        sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
        return True
    except OSError:
        return False


def _peek_arrival(sock: socket.socket) -> float | None:
    """Block until data is readable; its kernel arrival time on the perf_counter clock (None if unknown)."""
    try:
        data, ancillary, _, _ = sock.recvmsg(1, socket.CMSG_SPACE(_TIMESPEC.size), socket.MSG_PEEK)
    except OSError:
        return None
    mono_ns, wall_ns = time.perf_counter_ns(), time.time_ns()
    for level, kind, payload in ancillary:
        if data and level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(payload) >= _TIMESPEC.size:
            seconds, nanoseconds = _TIMESPEC.unpack_from(payload)
            age_ns = wall_ns - (seconds * 1_000_000_000 + nanoseconds)
            return (mono_ns - age_ns) / 1e9 if age_ns >= 0 else None
    return None


class _ClientGone(Exception):
    pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version, sys_version = "loopback/1", "(tests)"  # the `Server` header: "loopback/1 (tests)"
    server: "_HTTPServer"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.owner._track(self.connection, add=True)
        self._stamped = _enable_receive_stamps(self.connection)
        self._kernel_arrival: float | None = None

    def handle_one_request(self) -> None:
        # wait for the request's first bytes and take the kernel's stamp of their arrival: the delays are
        # scheduled from it, so this thread waking late on a busy machine does not push them back.
        # (Peeking at the socket assumes the buffered reader holds no part of the next request: HTTP
        # pipelining, which no client used with this server does, would block here.)
        self._kernel_arrival = _peek_arrival(self.connection) if self._stamped else None
        super().handle_one_request()

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.server.owner._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - signature from stdlib
        pass

    def parse_request(self) -> bool:
        # the request line has just been read; it arrived when the kernel says, or else now
        self.arrived = self._kernel_arrival or time.perf_counter()
        self._kernel_arrival = None
        return super().parse_request()

    # ---- plumbing
    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send_json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error_json(self, status: int, message: str, headers: Mapping[str, str] | None = None,
                         code: str | None = None) -> None:
        error = {"message": message, "type": _STATUS_TYPES.get(status, "error"), "param": None, "code": code}
        self._send_json(status, {"error": error}, headers)

    def _write_chunk(self, data: bytes) -> None:
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        except OSError as exc:
            raise _ClientGone() from exc

    @staticmethod
    def _event_bytes(payload: Any) -> bytes:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        return f"data: {text}\n\n".encode()

    def _send_event(self, payload: Any) -> None:
        self._write_chunk(self._event_bytes(payload))

    def _reset(self) -> None:
        """Abort the connection with a TCP RST (SO_LINGER 0), as a crashed server would."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.wfile.close()
            self.rfile.close()
            self.connection.close()
        except OSError:
            pass

    def _stall(self) -> None:
        """Send nothing more, keep the socket open, until the client gives up or the server stops."""
        self.close_connection = True
        stop = self.server.owner._stop_event
        while not stop.is_set():
            try:
                readable, _, _ = select.select([self.connection], [], [], 0.05)
                if readable and not self.connection.recv(1, socket.MSG_PEEK):
                    return  # the client closed its end
            except (OSError, ValueError):
                return

    # ---- routes
    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        owner = self.server.owner
        if self.path == TIMINGS_PATH:  # introspection, not recorded: see LoopbackServer.timings
            self._send_json(200, owner.timings())
            return
        if self.path == STATS_PATH:
            self._send_json(200, owner.stats())
            return
        record = owner._record(self, b"", self.arrived)
        if self._apply_status_fault(owner._take_fault(record.path)):
            return
        if not self._authorised():
            return
        if record.path.rstrip("/") in ("/v1/models", "/models"):
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "loopback"} for m in owner.models]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_error_json(404, f"no route GET {record.path}")

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        arrived = self.arrived
        owner = self.server.owner
        raw = self._read_body()
        record = owner._record(self, raw, arrived)
        if record.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._send_error_json(404, f"no route POST {record.path}")
            return
        fault = owner._take_fault(record.path)
        if self._apply_status_fault(fault):
            return
        if not self._authorised():
            return
        body = record.body
        if not isinstance(body, Mapping) or not isinstance(body.get("messages"), list):
            self._send_error_json(400, "request body must be JSON with a 'messages' list")
            return
        if owner.reject_stream_options and "stream_options" in body:
            self._send_error_json(400, "Unrecognized request argument supplied: stream_options")
            return
        refused = sorted(owner.reject_fields.intersection(body))
        if refused:
            self._send_error_json(400, f"Unrecognized request argument supplied: {refused[0]}")
            return
        if owner.reject_max_tokens and "max_tokens" in body:
            self._send_error_json(400, "Unsupported parameter: 'max_tokens' is not supported with this model. "
                                       "Use 'max_completion_tokens' instead.", code="unsupported_parameter")
            return
        requested = body.get("model")
        if owner.strict_models and requested not in owner.models:
            self._send_error_json(404, f"The model `{requested}` does not exist or you do not have access to it.",
                                  code="model_not_found")
            return
        reply = owner._choose_reply(body)
        owner._flight(+1)
        self._answering = True
        try:
            if body.get("stream"):
                self._stream(body, reply, fault, arrived, record)
            else:
                self._complete(body, reply, arrived)
        except _ClientGone:
            self.close_connection = True
        finally:
            self._answered()

    def _answered(self) -> None:
        """The request is no longer in flight. Called before the bytes that end the answer are written:
        a client that got them may send its next request before this thread runs again."""
        if self._answering:
            self._answering = False
            self.server.owner._flight(-1)

    def _authorised(self) -> bool:
        key = self.server.owner.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._send_error_json(401, "Incorrect API key provided.", code="invalid_api_key")
        return False

    def _apply_status_fault(self, fault: Fault | None) -> bool:
        if fault is None or fault.kind != "status":
            return False
        headers = {}
        if fault.retry_after is not None:
            headers["Retry-After"] = str(fault.retry_after)
        message = fault.message or {429: "Rate limit reached, slow down", 500: "internal server error"}.get(
            fault.status, f"scripted error {fault.status}")
        self._send_error_json(fault.status, message, headers)
        return True

    # ---- replies
    def _usage(self, body: Mapping[str, Any], reply: Reply, deltas: list[tuple[str, Any]]) -> dict | None:
        if reply.usage is False:
            return None
        if isinstance(reply.usage, Mapping):
            return dict(reply.usage)
        prompt_chars = sum(len(_text_of(m.get("content"))) for m in body["messages"] if isinstance(m, Mapping))
        completion = sum(1 for kind, _ in deltas if kind != "tool_start") + len(reply.tool_calls)
        reasoning = sum(1 for kind, _ in deltas if kind in ("reasoning_content", "reasoning", "think"))
        if reply.inline and reply.reasoning and reply.chunks is None:
            reasoning += 1  # the opening tag
        return {"prompt_tokens": max(1, prompt_chars // 4), "completion_tokens": completion,
                "total_tokens": max(1, prompt_chars // 4) + completion,
                "prompt_tokens_details": {"cached_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": reasoning}}

    def _stream(self, body: Mapping[str, Any], reply: Reply, fault: Fault | None, arrived: float,
                record: RecordedRequest) -> None:
        owner = self.server.owner
        model = reply.model if reply.model is not None else body.get("model")
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        deltas, finish_reason = owner._within_limit(body, reply)
        usage = self._usage(body, reply, deltas)
        ident = f"chatcmpl-loopback-{next(owner._ids)}"
        created = int(time.time())

        def chunk(delta: dict, finish: str | None = None) -> dict:
            out = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
                   "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
            if reply.system_fingerprint is not None:
                out["system_fingerprint"] = reply.system_fingerprint
            if include_usage:
                out["usage"] = None
            return out

        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self._send_event(chunk({"role": "assistant", "content": ""}))

        sent = 0
        breaks = fault is not None and fault.kind not in ("status", "hold_open")
        for i, (kind, payload) in enumerate(deltas):
            if breaks and sent == fault.after:
                return self._break_stream(fault)
            if kind in ("content", "think"):
                delta = {"content": payload}
            elif kind in ("reasoning_content", "reasoning"):
                delta = {kind: payload, "content": None}
            elif kind == "tool_start":
                index, call = payload
                delta = {"tool_calls": [{"index": index, "id": call.id or f"call_{ident.rsplit('-', 1)[-1]}_{index}",
                                         "type": "function",
                                         "function": {"name": call.name, "arguments": ""}}]}
            else:  # tool_args
                index, piece = payload
                delta = {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
            event = self._event_bytes(chunk(delta))  # built before the wait, so the send is on time
            _sleep_until(arrived + reply.first_token_delay + i * reply.token_delay)
            self._write_chunk(event)
            record.token_sent_at.append(time.perf_counter())
            sent += 1
        if breaks and sent <= fault.after:
            return self._break_stream(fault)
        if not include_usage or usage is None:
            self._answered()
        self._send_event(chunk({}, finish_reason))
        if include_usage and usage is not None:
            final = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
                     "choices": [], "usage": usage}
            self._answered()
            self._send_event(final)
        self._send_event("[DONE]")
        if fault is not None and fault.kind == "hold_open":
            return self._stall()  # the body never ends, though its content is complete
        self._write_chunk(b"")  # the terminating zero-length chunk

    def _break_stream(self, fault: Fault) -> None:
        if fault.kind == "reset":
            self._reset()
        elif fault.kind == "stall":
            self._stall()
        elif fault.kind == "error_event":  # what vLLM or a proxy sends when generation fails mid-way
            message = fault.message or "generation failed"
            self._send_event({"error": {"message": message, "type": "server_error", "code": 500}})
            self._write_chunk(b"")
        elif fault.kind == "truncate":
            self._write_chunk(b"")  # a clean end of body, but no finish_reason and no [DONE]

    def _complete(self, body: Mapping[str, Any], reply: Reply, arrived: float) -> None:
        deltas = reply.token_deltas()
        _sleep_until(arrived + reply.first_token_delay + max(0, len(deltas) - 1) * reply.token_delay)
        model = reply.model if reply.model is not None else body.get("model")
        message: dict[str, Any] = {"role": "assistant"}
        if reply.chunks is not None:
            content = "".join(reply.chunks)
        elif reply.reasoning and reply.inline:
            tag = reply.reasoning_style
            content = f"<{tag}>\n{reply.reasoning}\n</{tag}>\n\n{reply.content}"
        else:
            content = reply.content
        message["content"] = content if content or not reply.tool_calls else None
        if reply.reasoning and not reply.inline:
            message[reply.reasoning_style] = reply.reasoning
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": c.id or f"call_{i}", "type": "function",
                 "function": {"name": c.name, "arguments": c.arguments_text()}}
                for i, c in enumerate(reply.tool_calls)]
        payload: dict[str, Any] = {
            "id": f"chatcmpl-loopback-{next(self.server.owner._ids)}", "object": "chat.completion",
            "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": reply.effective_finish_reason}]}
        usage = self._usage(body, reply, deltas)
        if usage is not None:
            payload["usage"] = usage
        self._answered()
        self._send_json(200, payload)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True
    allow_reuse_address = True
    request_queue_size = 128  # many clients connecting at once (the default 5 drops some)

    def __init__(self, address: tuple[str, int], owner: "LoopbackServer") -> None:
        self.owner = owner
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that went away is not worth a traceback on stderr


Rule = tuple[Any, Any]


class LoopbackServer:
    """A scripted OpenAI-compatible server on 127.0.0.1 (see the module docstring)."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, models: Iterable[str] = ("loopback-model",),
                 api_key: str | None = None, strict_models: bool = False, reject_stream_options: bool = False,
                 reject_max_tokens: bool = False, honour_max_tokens: bool = False, reject_fields: Iterable[str] = (),
                 default: Reply | str | None = None, rules: Iterable[Rule] | Mapping[Any, Any] | None = None,
                 handler: Callable[[dict], Reply | str | None] | None = None,
                 tls: ssl.SSLContext | None = None) -> None:
        self.host = host
        self.tls = tls                              # a server-side context: serve https
        self._port = port
        self.models = list(models)
        self.api_key = api_key                      # when set, requests without it get 401
        self.strict_models = strict_models          # when set, an unknown model gets 404
        self.reject_stream_options = reject_stream_options  # 400 on stream_options, like some old servers
        self.reject_max_tokens = reject_max_tokens  # 400 on max_tokens, like OpenAI's reasoning models
        # stop a streamed reply after max_tokens token chunks, finish_reason "length", as a real server
        # does (off: the whole scripted reply, like a server that ignores the limit; streams only)
        self.honour_max_tokens = honour_max_tokens
        self.reject_fields = set(reject_fields)  # 400 naming any of these request fields, as OpenAI answers
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._faults: list[Fault] = []
        self._connections: set[socket.socket] = set()
        self._stop_event = threading.Event()
        self._ids = itertools.count(1)
        self._server: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._rules: list[Rule] = []
        self._default: Reply = Reply("ok")
        self._handler: Callable[[dict], Reply | str | None] | None = None
        self.in_flight = 0       # chat requests being answered now
        self.max_in_flight = 0   # ... and the most at once (reset() starts over)
        self.last_done: float | None = None  # perf_counter when the last answer was written
        self.script(rules=rules, default=default, handler=handler)

    # ---- life cycle
    def start(self) -> "LoopbackServer":
        if self._server is not None:
            return self
        self._stop_event.clear()
        self._server = _HTTPServer((self.host, self._port), self)
        # the listening socket asks for stamps too, so Linux keeps stamping on while the server runs
        # (it switches on a moment after the first socket asks: a new connection could miss it)
        _enable_receive_stamps(self._server.socket)
        if self.tls is not None:
            self._server.socket = self.tls.wrap_socket(self._server.socket, server_side=True)
        self._port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"loopback-{self._port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stop_event.set()
        server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:  # wake handlers blocked on idle keep-alive connections
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        server.server_close()  # joins the handler threads
        if thread is not None:
            thread.join()
        self._server = self._thread = None

    def __enter__(self) -> "LoopbackServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}:{self._port}"

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    @staticmethod
    def down_url() -> str:
        """A base URL on which nothing listens (a port just bound and released)."""
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        return f"http://127.0.0.1:{port}/v1"

    # ---- scripting
    def script(self, rules: Iterable[Rule] | Mapping[Any, Any] | None = None, default: Reply | str | None = None,
               handler: Callable[[dict], Reply | str | None] | None = None) -> "LoopbackServer":
        """Set what the server answers. ``handler(request_json)`` is asked first (None: go on); then the
        rules in order, each ``(pattern, reply)`` where pattern is a substring, a compiled regex or a
        callable on the last user message; then ``default``. A reply may be a plain string."""
        items = rules.items() if isinstance(rules, Mapping) else (rules or [])
        with self._lock:
            self._rules = [(pattern, _as_reply(reply)) for pattern, reply in items]
            if default is not None:
                self._default = _as_reply(default)
            self._handler = handler
        return self

    def fault(self, status: int | None = None, *, times: int | None = 1, retry_after: float | str | None = None,
              message: str | None = None, reset_after: int | None = None, stall_after: int | None = None,
              truncate_after: int | None = None, error_event_after: int | None = None,
              hold_open: bool | None = None, path: str = "/v1/chat/completions", skip: int = 0) -> "LoopbackServer":
        """Queue a fault for the next ``times`` requests to ``path`` (None: every request). Give one of:
        ``status`` (an HTTP error, with ``retry_after`` as the Retry-After header), ``reset_after=K``
        (TCP reset after K token chunks), ``stall_after=K`` (stop sending after K token chunks, keep the
        connection open), ``truncate_after=K`` (end the body cleanly after K chunks, no finish_reason
        and no [DONE]), ``error_event_after=K`` (an ``{"error": ...}`` event after K chunks, with
        ``message``), ``hold_open=True`` (the whole stream and [DONE], then the body is left open instead
        of ended). ``skip=K`` lets K matching requests through first (the third turn of a conversation
        fails with ``skip=2``). Faults apply in the order queued."""
        given = [k for k, v in (("status", status), ("reset_after", reset_after), ("stall_after", stall_after),
                                ("truncate_after", truncate_after), ("error_event_after", error_event_after),
                                ("hold_open", hold_open or None))
                 if v is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of status, reset_after, stall_after, truncate_after, "
                             f"error_event_after, hold_open (got {given})")
        if status is not None:
            item = Fault("status", times, status=status, message=message, retry_after=retry_after, path=path)
        elif reset_after is not None:
            item = Fault("reset", times, after=reset_after, path=path)
        elif stall_after is not None:
            item = Fault("stall", times, after=stall_after, path=path)
        elif truncate_after is not None:
            item = Fault("truncate", times, after=truncate_after, path=path)
        elif hold_open:
            item = Fault("hold_open", times, path=path)
        else:
            item = Fault("error_event", times, after=error_event_after, message=message, path=path)
        item.skip = skip
        with self._lock:
            self._faults.append(item)
        return self

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def reset(self) -> None:
        """Forget recorded requests, queued faults and the in-flight peak (the script stays)."""
        with self._lock:
            self._requests.clear()
            self._faults.clear()
            self.max_in_flight = self.in_flight
            self.last_done = None

    def stats(self) -> dict[str, Any]:
        """Chat requests: how many, in flight now and at most, first arrival and last end (perf_counter)."""
        chats = self.chat_requests
        with self._lock:
            return {"chat_count": len(chats), "in_flight": self.in_flight, "max_in_flight": self.max_in_flight,
                    "first_received": min((r.received_at for r in chats), default=None),
                    "last_done": self.last_done, "prompts": [_last_user_text(r.body) for r in chats]}

    # ---- what was received
    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.rstrip("/").endswith("/chat/completions")]

    @property
    def chat_count(self) -> int:
        return len(self.chat_requests)

    def timings(self) -> list[dict[str, Any]]:
        """Per chat request, in arrival order: ``received_at`` and ``token_sent_at`` (perf_counter values)
        and the request's last user message, so a caller can match them to what it sent."""
        return [{"received_at": r.received_at, "token_sent_at": list(r.token_sent_at),
                 "prompt": _last_user_text(r.body)} for r in self.chat_requests]

    # ---- used by the handler threads
    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    def _record(self, handler: _Handler, raw: bytes, arrived: float | None = None) -> RecordedRequest:
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        path, _, query = handler.path.partition("?")
        record = RecordedRequest(handler.command, path, {k.lower(): v for k, v in handler.headers.items()},
                                 body, raw, arrived if arrived is not None else time.perf_counter(),
                                 peer=tuple(handler.client_address), query=query)
        with self._lock:
            self._requests.append(record)
        return record

    def _flight(self, change: int) -> None:
        with self._lock:
            self.in_flight += change
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if change < 0:
                self.last_done = time.perf_counter()

    def _take_fault(self, path: str) -> Fault | None:
        with self._lock:
            for item in self._faults:
                if item.path.rstrip("/") == path.rstrip("/") and not item.exhausted():
                    if item.skip:
                        item.skip -= 1
                        return None
                    item.used += 1
                    return item
        return None

    def _within_limit(self, body: Mapping[str, Any], reply: Reply) -> tuple[list[tuple[str, Any]], str]:
        """The reply's token deltas and finish reason, cut at the request's max_tokens when honoured."""
        deltas = reply.token_deltas()
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        if self.honour_max_tokens and isinstance(limit, int) and len(deltas) > limit:
            return deltas[:limit], "length"
        return deltas, reply.effective_finish_reason

    def _choose_reply(self, body: Mapping[str, Any]) -> Reply:
        with self._lock:
            handler, rules, default = self._handler, list(self._rules), self._default
        if handler is not None:
            chosen = handler(dict(body))
            if chosen is not None:
                return _as_reply(chosen)
        text = _last_user_text(body)
        for pattern, reply in rules:
            if isinstance(pattern, str):
                hit = pattern in text
            elif isinstance(pattern, re.Pattern):
                hit = pattern.search(text) is not None
            elif callable(pattern):
                hit = bool(pattern(text))
            else:
                raise TypeError(f"unsupported rule pattern {pattern!r}")
            if hit:
                return reply
        return default


def _as_reply(reply: Reply | str) -> Reply:
    return reply if isinstance(reply, Reply) else Reply(str(reply))


def assistant_turns(messages: Any) -> int:
    """How many assistant messages a conversation holds (the turns a multi-turn client has had)."""
    return sum(1 for m in messages or [] if isinstance(m, Mapping) and m.get("role") == "assistant")


def turns_handler(script: Iterable[Reply | str], *, after: int = 0,
                  done: Reply | str = "the script has no more turns") -> Callable[[dict], Reply]:
    """A handler for a multi-turn conversation: the request whose messages hold `after + k` assistant
    turns gets the k-th scripted reply (tool calls, then an answer), whatever else it says."""
    replies = [_as_reply(r) for r in script]

    def handler(body: dict) -> Reply:
        turn = assistant_turns(body.get("messages")) - after
        return replies[turn] if 0 <= turn < len(replies) else _as_reply(done)

    return handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve a fixed reply on an OpenAI-compatible endpoint until killed.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--reply", default="ok", help="the content of every answer")
    parser.add_argument("--model", action="append", help="a model id listed by /v1/models (repeatable)")
    parser.add_argument("--first-token-delay", type=float, default=0.0)
    parser.add_argument("--token-delay", type=float, default=0.0)
    args = parser.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    server = LoopbackServer(host=args.host, port=args.port, models=args.model or ["loopback-model"],
                            default=Reply(args.reply, first_token_delay=args.first_token_delay,
                                          token_delay=args.token_delay))
    try:
        server.start()
        print(f"loopback endpoint at {server.base_url} (Ctrl-C to stop)", flush=True)
        while not stop.wait(0.2):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
