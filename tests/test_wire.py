"""Wire times: kernel receive stamps, the request's first byte as its start, connections kept open."""

from __future__ import annotations

import socket
import ssl
import struct
import subprocess
import sys
import time

import pytest
from loopback import LoopbackServer, Reply

from pytest_crucible.client import wire
from pytest_crucible.client.chat import ChatClient

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="kernel receive stamps are Linux's")
MESSAGES = [{"role": "user", "content": "hello"}]


def client_for(server: LoopbackServer, **kwargs) -> ChatClient:
    return ChatClient(server.base_url, None, model_id="loopback-model", max_retries=0, timeout=30, **kwargs)


def _stamp(wall_ns: int) -> list[tuple[int, int, bytes]]:
    seconds, nanoseconds = divmod(wall_ns, 1_000_000_000)
    return [(socket.SOL_SOCKET, wire.SO_TIMESTAMPNS, struct.pack("@ll", seconds, nanoseconds))]


def test_a_wall_clock_stamp_is_moved_to_the_perf_counter_clock():
    before = time.perf_counter()
    arrival = wire._arrival(_stamp(time.time_ns() - 250_000_000))  # arrived 250 ms ago
    assert before - 0.26 < arrival < time.perf_counter() - 0.24
    assert wire._arrival(_stamp(time.time_ns() + 10 * 1_000_000_000)) is None  # wall clock stepped back since
    assert wire._arrival([]) is None


@linux_only
def test_a_read_reports_when_the_bytes_arrived_not_when_they_were_read():
    assert wire.kernel_stamps_available()
    times = wire.WireTimes()
    with socket.create_server(("127.0.0.1", 0)) as listener:
        backend = wire.StampedBackend(times)
        stream = backend.connect_tcp("127.0.0.1", listener.getsockname()[1], timeout=5)
        peer, _ = listener.accept()
        with peer:
            peer.sendall(b"first token")
            sent = time.perf_counter()
            time.sleep(0.2)  # a client busy elsewhere: the bytes wait in the kernel
            data = stream.read(1024, timeout=5)
        stream.close()
    assert data == b"first token"
    assert times.arrived_at is not None
    assert sent - 0.005 < times.arrived_at < sent + 0.005, times.arrived_at - sent


_FRESH_CONNECTIONS = """
import socket
from pytest_crucible import wire
times, unstamped = wire.WireTimes(), 0
backend = wire.StampedBackend(times)
with socket.create_server(("127.0.0.1", 0)) as listener:
    for _ in range(60):
        stream = backend.connect_tcp("127.0.0.1", listener.getsockname()[1], timeout=5)
        peer, _ = listener.accept()
        with peer:
            peer.sendall(b"token")
            assert stream.read(64, timeout=5) == b"token"
        stream.close()
        unstamped += times.arrived_at is None
print(unstamped)
"""


@linux_only
def test_a_new_connection_is_stamped_from_its_first_packet():
    """Linux stamps packets only while some socket asks for it, switches that on a moment after the first
    socket asks and off when the last one closes: without the backend holding it on, a third of these
    fresh connections got their first packet unstamped. A new process, so no other socket holds it on."""
    done = subprocess.run([sys.executable, "-c", _FRESH_CONNECTIONS], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"


@linux_only
def test_a_busy_client_still_times_the_first_token_at_its_arrival(monkeypatch):
    """The stream is read 200 ms after the first token came: the kernel's stamp keeps the truth."""
    with LoopbackServer(default=Reply("one two", first_token_delay=0.05)) as server:
        measured = {}
        for wire_clock in (True, False):
            client = client_for(server, wire_clock=wire_clock)
            http = client.transport._http
            send = http.send

            def late_send(*args, **kwargs):
                response = send(*args, **kwargs)
                time.sleep(0.2)
                return response

            monkeypatch.setattr(http, "send", late_send)
            response = client.chat(MESSAGES, max_tokens=8)
            client.close()
            record = server.chat_requests[-1]
            measured[wire_clock] = (response.timings, record.token_sent_at[0] - record.received_at)
    timings, truth = measured[True]
    assert timings.clock == "kernel"
    # chunks read together share the stamp of the last one: the finish, sent right after the token
    # (later by however long a loaded machine keeps the server thread from writing it)
    assert truth - 0.0005 <= timings.ttft_s <= truth + 0.02, (timings.ttft_s, truth)
    timings, truth = measured[False]
    assert timings.clock == "process"
    assert timings.ttft_s > 0.2  # what the process clock sees, for contrast


def test_streamed_requests_share_one_connection():
    with LoopbackServer(default=Reply("a b c", token_delay=0.001)) as server, client_for(server) as client:
        for _ in range(4):
            assert client.chat(MESSAGES, max_tokens=8).content == "a b c"
        peers = {r.peer for r in server.chat_requests}
    assert len(server.chat_requests) == 4 and len(peers) == 1, peers


def test_a_body_left_open_after_done_costs_a_tenth_of_a_second_not_the_timeout():
    with LoopbackServer(default=Reply("a b c")) as server, client_for(server) as client:
        server.fault(hold_open=True)
        started = time.perf_counter()
        first = client.chat(MESSAGES, max_tokens=8)
        took = time.perf_counter() - started
        second = client.chat(MESSAGES, max_tokens=8)
        peers = [r.peer for r in server.chat_requests]
    assert first.content == second.content == "a b c" and first.finish_reason == "stop"
    assert took < 2.0  # the client's timeout is 30 s; the drain gives up after 0.1 s
    assert peers[0] != peers[1]  # that connection was closed, a new one served the next request


def test_a_stream_cut_short_by_the_client_is_not_drained():
    """A server that ignores max_tokens is left mid-stream: its connection is dropped at once."""
    endless = Reply(" ".join(["word"] * 2000), token_delay=0.0005)
    with LoopbackServer(default=endless) as server, client_for(server) as client:
        started = time.perf_counter()
        response = client.chat(MESSAGES, max_tokens=4)
        took = time.perf_counter() - started
    assert response.finish_reason == "length"
    assert took < 0.5  # draining would have read on until the deadline


def test_https_endpoints_keep_their_connection_and_use_the_process_clock(tmp_path, monkeypatch):
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_context)
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
    with LoopbackServer(default=Reply("secure answer", token_delay=0.001), tls=server_context) as server:
        assert server.base_url.startswith("https://")
        with client_for(server) as client:
            responses = [client.chat(MESSAGES, max_tokens=8) for _ in range(3)]
        peers = {r.peer for r in server.chat_requests}
    assert [r.content for r in responses] == ["secure answer"] * 3
    assert {r.timings.clock for r in responses} == {"process"}  # TLS sockets hand out no stamps
    assert all(0 < r.timings.ttft_s <= r.timings.e2e_s for r in responses)
    assert len(peers) == 1, peers
