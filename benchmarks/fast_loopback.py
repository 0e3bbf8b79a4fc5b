"""A loopback OpenAI-compatible endpoint on one asyncio event loop, for the high-concurrency benchmark.

    python benchmarks/fast_loopback.py --port 8765 --reply "Answer: 42" --first-token-delay 0.5

tests/loopback.py answers each request on a thread of its own: at hundreds of requests in flight on a
2-core machine those threads compete with the client being measured. This server parses HTTP/1.1 by hand
(keep-alive, Content-Length bodies), answers `POST /v1/chat/completions` (streamed: a role chunk, the
reply in pieces of up to 4 characters, the finish chunk, a usage chunk when asked, `[DONE]`; or one JSON
object) after `--first-token-delay` seconds counted from the request's arrival, and serves the same
`GET /_loopback/stats` as tests/loopback.py (requests in flight, the most at once, the first arrival and
the last answer on perf_counter's clock, the prompts). Standard library only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import signal
import sys
import time

STATS_PATH = "/_loopback/stats"
_PIECE = re.compile(r"\s*\S{1,4}|\s+$")


class Endpoint:
    def __init__(self, reply: str, delay: float):
        self.pieces = _PIECE.findall(reply) or [""]
        self.delay = delay
        self.in_flight = self.max_in_flight = self.chat_count = 0
        self.first_received: float | None = None
        self.last_done: float | None = None
        self.prompts: list[str] = []
        self.ids = 0

    def stats(self) -> dict:
        return {"cpu_s": time.process_time(), "chat_count": self.chat_count, "in_flight": self.in_flight,
                "max_in_flight": self.max_in_flight,
                "first_received": self.first_received, "last_done": self.last_done, "prompts": self.prompts}

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                arrived = time.perf_counter()
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
                body = await reader.readexactly(int(headers.get("content-length") or 0))
                if method == "GET":
                    payload = self.stats() if path == STATS_PATH else {"object": "list", "data": [
                        {"id": "bench", "object": "model", "created": 0, "owned_by": "loopback"}]}
                    writer.write(_response(200, "application/json", json.dumps(payload).encode()))
                else:
                    await self.chat(json.loads(body), arrived, writer)
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def chat(self, body: dict, arrived: float, writer: asyncio.StreamWriter) -> None:
        self.chat_count += 1
        if self.first_received is None:
            self.first_received = arrived
        messages = body.get("messages") or [{}]
        self.prompts.append(str(messages[-1].get("content") or ""))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        self.ids += 1
        ident, model = f"chatcmpl-fast-{self.ids}", body.get("model")
        usage = {"prompt_tokens": max(1, sum(len(str(m.get("content") or "")) for m in messages) // 4),
                 "completion_tokens": len(self.pieces)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        if body.get("stream"):
            data = self._stream(ident, model, usage, bool((body.get("stream_options") or {}).get("include_usage")))
        else:
            message = {"role": "assistant", "content": "".join(self.pieces)}
            data = _response(200, "application/json", json.dumps(
                {"id": ident, "object": "chat.completion", "created": int(time.time()), "model": model,
                 "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": "stop"}],
                 "usage": usage}).encode())
        await asyncio.sleep(max(0.0, arrived + self.delay - time.perf_counter()))
        self.in_flight -= 1
        self.last_done = time.perf_counter()
        writer.write(data)

    def _stream(self, ident: str, model, usage: dict, include_usage: bool) -> bytes:
        created = int(time.time())

        def event(delta: dict | None, finish: str | None = None, last: bool = False) -> bytes:
            chunk = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model,
                     "choices": [] if last else [{"index": 0, "delta": delta, "logprobs": None,
                                                  "finish_reason": finish}]}
            if include_usage:
                chunk["usage"] = usage if last else None
            return b"data: " + json.dumps(chunk).encode() + b"\n\n"

        events = [event({"role": "assistant", "content": ""})]
        events += [event({"content": piece}) for piece in self.pieces]
        events.append(event({}, "stop"))
        if include_usage:
            events.append(event(None, last=True))
        events.append(b"data: [DONE]\n\n")
        head = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n")
        return head + b"".join(b"%x\r\n%s\r\n" % (len(e), e) for e in events) + b"0\r\n\r\n"


def _response(status: int, content_type: str, data: bytes) -> bytes:
    return (f"HTTP/1.1 {status} OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(data)}\r\n\r\n"
            .encode() + data)


async def serve(port: int, reply: str, delay: float) -> None:
    endpoint = Endpoint(reply, delay)
    server = await asyncio.start_server(endpoint.serve, "127.0.0.1", port, backlog=4096)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    print(f"loopback endpoint at http://127.0.0.1:{port}/v1", flush=True)
    async with server:
        await stop.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--reply", default="ok")
    parser.add_argument("--first-token-delay", type=float, default=0.0)
    args = parser.parse_args(argv)
    asyncio.run(serve(args.port, args.reply, args.first_token_delay))
    return 0


if __name__ == "__main__":
    sys.exit(main())
