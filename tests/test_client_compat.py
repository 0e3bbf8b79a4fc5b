"""client/compat.py's reach-ins into private parts of httpx2, exercised for real against the
loopback server: each test fails when the private part it relies on is gone. .ci/oldest runs this file
on the oldest pins too."""

from __future__ import annotations

import httpcore2
import httpx2
from loopback import Reply

from pytest_crucible.client.compat import use_network_backend
from pytest_crucible.client.transport import HttpTransport

HI = [{"role": "user", "content": "hi"}]


class CountingBackend(httpcore2.SyncBackend):
    def __init__(self) -> None:
        self.connects: list[tuple[str, int]] = []

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        self.connects.append((host, port))
        return super().connect_tcp(host, port, timeout, local_address, socket_options)


def test_new_connections_go_through_the_chosen_network_backend(loopback):
    backend = CountingBackend()
    transport = httpx2.HTTPTransport()
    assert use_network_backend(transport, backend)  # False: httpx2's HTTPTransport._pool moved
    with httpx2.Client(transport=transport) as client:
        for _ in range(2):
            assert client.get(f"{loopback.base_url}/models").status_code == 200
    host, port = loopback.base_url.split("//")[1].split("/")[0].split(":")
    # httpcore2's pool read its _network_backend for the new connection, and kept that connection
    assert backend.connects == [(host, int(port))]


def test_a_transport_without_a_pool_is_left_alone():
    class Bare:
        pass

    assert not use_network_backend(Bare(), httpcore2.SyncBackend())


def test_the_transport_keeps_the_connection_of_a_stream_that_ended(loopback):
    """The backend and the drain together: a streamed request after a finished one reuses its connection."""
    loopback.script(default=Reply("a b c"))
    transport = HttpTransport(loopback.base_url)
    try:
        for _ in range(2):
            with transport.stream({"model": "loopback-model", "messages": HI, "max_tokens": 8}) as stream:
                stream.ended = lambda: True
                assert list(stream)
    finally:
        transport.close()
    assert len({r.peer for r in loopback.chat_requests}) == 1
