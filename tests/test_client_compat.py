"""client/compat.py's reach-ins into private parts of openai and httpx2, exercised for real against the
loopback server: each test fails when the private part it relies on is gone. .ci/oldest runs this file
on the oldest pins too."""

from __future__ import annotations

import httpcore2
import httpx2
import openai
from loopback import Reply

from pytest_crucible.client.compat import call_before_close, use_network_backend
from pytest_crucible.client.transport import OpenAITransport

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


def test_the_openai_stream_closes_its_response_after_done_and_the_hook_runs_first(loopback):
    loopback.script(default=Reply("a b c"))
    seen = []
    with openai.OpenAI(base_url=loopback.base_url, api_key="k", max_retries=0) as client:
        stream = client.chat.completions.create(model="loopback-model", messages=HI, stream=True)
        response = stream.response
        assert isinstance(response, httpx2.Response)
        assert call_before_close(response, lambda: seen.append(response.is_closed))
        chunks = list(stream)  # iterating to the end: no close() of ours
        assert chunks and response.is_closed
        assert seen[:1] == [False]  # the stream closed it while iterating; the hook ran before the close


def test_the_transport_keeps_the_connection_of_a_stream_that_ended(loopback):
    """The hook and the backend together: a streamed request after a finished one reuses its connection."""
    loopback.script(default=Reply("a b c"))
    transport = OpenAITransport(loopback.base_url)
    try:
        for _ in range(2):
            with transport.stream({"model": "loopback-model", "messages": HI, "max_tokens": 8}) as stream:
                stream.ended = lambda: True
                assert list(stream)
    finally:
        transport.close()
    assert len({r.peer for r in loopback.chat_requests}) == 1


def test_a_client_without_a_key_is_built_without_the_private_credentials_switch(loopback, monkeypatch):
    """admin_api_key="" stands in for openai's private _enforce_credentials=False: a release where an empty
    admin key no longer counts as credentials fails here (OpenAIError: Missing credentials)."""
    for name in ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY"):
        monkeypatch.delenv(name, raising=False)
    transport = OpenAITransport(loopback.base_url, None)
    try:
        assert transport.list_models() == ["loopback-model"]
    finally:
        transport.close()
    assert "authorization" not in loopback.requests[0].headers

