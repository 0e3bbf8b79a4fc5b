"""Politeness towards LM Studio and Ollama: unload only what sits on the leased devices, restore it after.

Both servers are small fakes written here (standard library HTTP, in a thread) that keep the state the
real APIs describe: Ollama's /api/ps and /api/generate with keep_alive, LM Studio's /api/v1/models,
/api/v1/models/unload and /api/v1/models/load (and the 0.3 /api/v0/models listing).
"""

from __future__ import annotations

import json
import signal
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from test_lease import events, fake_model, python_child, wait_for, write_fake_server

from pytest_crucible.local import LeaseManager
from pytest_crucible.local.adapter import DisplaceError, LoadedModel, parse_time
from pytest_crucible.local.device_leases import LeaseDir, acquire
from pytest_crucible.local.displace import displace, restore
from pytest_crucible.local.launch_spec import validate_launch

GB = 10**9


class FakeServer:
    """Base: a JSON HTTP server on 127.0.0.1 in a thread, recording every request."""

    token: str | None = None

    def __init__(self):
        self.requests: list[tuple[float, str, str, dict | None, str | None]] = []
        self.fail_unload: int | None = None
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _reply(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                auth = self.headers.get("Authorization")
                owner.requests.append((time.time(), method, self.path, body, auth))
                if owner.token and auth != f"Bearer {owner.token}":
                    return self._reply(401, {"error": "unauthorized"})
                status, reply = owner.route(method, self.path, body)
                self._reply(status, reply)

            def do_GET(self):
                self._handle("GET")

            def do_POST(self):
                self._handle("POST")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def calls(self, method=None, path=None):
        return [r for r in self.requests if (method is None or r[1] == method) and (path is None or r[2] == path)]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class FakeOllama(FakeServer):
    def __init__(self):
        super().__init__()
        self.loaded: dict[str, dict] = {}

    def load(self, name, size, vram, keep_alive_s=300):
        expires = (datetime.now(timezone.utc) + timedelta(seconds=keep_alive_s)).isoformat().replace(
            "+00:00", "Z") if keep_alive_s >= 0 else "2318-02-14T07:21:32.123456789Z"
        self.loaded[name] = {"name": name, "model": name, "size": size, "size_vram": vram,
                             "expires_at": expires, "details": {"format": "gguf"}, "context_length": 4096}

    def route(self, method, path, body):
        if method == "GET" and path == "/api/ps":
            return 200, {"models": list(self.loaded.values())}
        if method == "POST" and path == "/api/generate":
            name = body["model"]
            if body.get("keep_alive") == 0:
                if self.fail_unload:
                    return self.fail_unload, {"error": "model is busy"}
                self.loaded.pop(name, None)
                return 200, {"model": name, "response": "", "done": True, "done_reason": "unload"}
            keep = body.get("keep_alive", 300)
            self.load(name, 4 * GB, 4 * GB, keep if isinstance(keep, int) else 300)
            return 200, {"model": name, "response": "", "done": True, "done_reason": "load"}
        return 404, {"error": "not found"}


class FakeLMStudio(FakeServer):
    def __init__(self, legacy: bool = False):
        super().__init__()
        self.legacy = legacy
        self.models: dict[str, dict] = {}

    def add(self, key, instances=()):
        self.models[key] = {"type": "llm", "publisher": "x", "key": key, "display_name": key,
                            "size_bytes": 5 * GB, "loaded_instances": [
                                {"id": iid, "config": {"context_length": ctx, "flash_attention": True,
                                                       "eval_batch_size": 512, "parallel": 4}}
                                for iid, ctx in instances], "max_context_length": 131072}

    def loaded_ids(self):
        return sorted(i["id"] for m in self.models.values() for i in m["loaded_instances"])

    def route(self, method, path, body):
        if self.legacy:
            if method == "GET" and path == "/api/v0/models":
                return 200, {"object": "list", "data": [
                    {"id": k, "type": "llm", "state": "loaded" if m["loaded_instances"] else "not-loaded"}
                    for k, m in self.models.items()]}
            return 404, {"error": "Unexpected endpoint or method."}
        if method == "GET" and path == "/api/v1/models":
            return 200, {"models": list(self.models.values())}
        if method == "POST" and path == "/api/v1/models/unload":
            if self.fail_unload:
                return self.fail_unload, {"error": "busy"}
            for model in self.models.values():
                before = len(model["loaded_instances"])
                model["loaded_instances"] = [i for i in model["loaded_instances"] if i["id"] != body["instance_id"]]
                if len(model["loaded_instances"]) != before:
                    return 200, {"instance_id": body["instance_id"]}
            return 404, {"error": "no such instance"}
        if method == "POST" and path == "/api/v1/models/load":
            model = self.models[body["model"]]
            iid = body["model"] if not model["loaded_instances"] else f"{body['model']}:2"
            config = {k: v for k, v in body.items() if k != "model"}
            model["loaded_instances"].append({"id": iid, "config": config})
            return 200, {"type": "llm", "instance_id": iid, "load_time_seconds": 0.1, "status": "loaded"}
        return 404, {"error": "not found"}


@pytest.fixture
def ollama():
    server = FakeOllama()
    yield server
    server.close()


@pytest.fixture
def lmstudio():
    server = FakeLMStudio()
    yield server
    server.close()


def entry(kind, url, **kw):
    return {"kind": kind, "url": url, **kw}


class Recorder:
    def __init__(self):
        self.models: list[LoadedModel] = []
        self.lines: list[str] = []

    def record(self, model):
        self.models.append(model)

    def log(self, line):
        self.lines.append(line)


# -- Ollama ---------------------------------------------------------------------------------------


def test_ollama_unloads_only_the_models_on_a_leased_gpu_and_restores_them(ollama):
    ollama.load("qwen-gpu", 20 * GB, 20 * GB, keep_alive_s=1800)
    ollama.load("llama-forever", 8 * GB, 8 * GB, keep_alive_s=-1)
    ollama.load("tiny-cpu", 1 * GB, 0)
    rec = Recorder()
    done = displace([entry("ollama", ollama.url)], ["gpu0"], ["gpu0"], record=rec.record, log=rec.log)
    assert sorted(m.name for m in done) == ["llama-forever", "qwen-gpu"]
    assert [m.name for m in rec.models] == [m.name for m in done]  # each recorded before it was unloaded
    assert set(ollama.loaded) == {"tiny-cpu"}
    unloads = [r[3] for r in ollama.calls("POST", "/api/generate")]
    assert all(body["keep_alive"] == 0 for body in unloads) and len(unloads) == 2
    keep = {m.name: m.restore["keep_alive"] for m in done}
    assert keep["llama-forever"] == -1 and 1700 < keep["qwen-gpu"] <= 1800
    assert any("unloaded ollama:qwen-gpu" in line for line in rec.lines)
    # the lease file stores them as dicts; restoring from there works the same
    assert restore([m.to_dict() for m in done], log=rec.log) == []
    assert set(ollama.loaded) == {"tiny-cpu", "qwen-gpu", "llama-forever"}
    reloads = [r[3] for r in ollama.calls("POST", "/api/generate")][2:]
    assert {b["model"]: b["keep_alive"] for b in reloads} == keep


def test_ollama_cpu_lease_unloads_what_sits_in_system_memory(ollama):
    ollama.load("all-vram", 4 * GB, 4 * GB)
    ollama.load("split", 30 * GB, 20 * GB)
    ollama.load("cpu-only", 1 * GB, 0)
    done = displace([entry("ollama", ollama.url)], ["cpu"], ["gpu0"], record=lambda m: None)
    assert sorted(m.name for m in done) == ["cpu-only", "split"]
    assert set(ollama.loaded) == {"all-vram"}


def test_a_server_on_other_gpus_is_left_alone(ollama, lmstudio):
    ollama.load("big", 20 * GB, 20 * GB)
    lmstudio.add("qwen/qwen3-8b", [("qwen/qwen3-8b", 8192)])
    done = displace([entry("ollama", ollama.url, devices=[1]), entry("lmstudio", lmstudio.url, devices=[1])],
                    ["gpu0"], ["gpu0", "gpu1"], record=lambda m: None)
    assert done == [] and set(ollama.loaded) == {"big"} and lmstudio.loaded_ids() == ["qwen/qwen3-8b"]
    assert ollama.calls("POST") == [] and lmstudio.calls("POST") == []


def test_ollama_refusing_to_unload_is_an_error_naming_the_model(ollama):
    ollama.load("busy", 20 * GB, 20 * GB)
    ollama.fail_unload = 500
    with pytest.raises(DisplaceError, match=r"ollama at http://127\.0\.0\.1:\d+ refused to unload busy: .*HTTP 500"):
        displace([entry("ollama", ollama.url)], ["gpu0"], ["gpu0"], record=lambda m: None)


def test_go_time_format_is_parsed():
    when = parse_time("2024-06-04T14:38:31.83753123-07:00")
    assert when == datetime(2024, 6, 4, 21, 38, 31, 837531, tzinfo=timezone.utc)
    assert parse_time("2318-02-14T07:21:32.123456789Z").year == 2318
    assert parse_time("garbage") is None and parse_time(None) is None


# -- LM Studio ------------------------------------------------------------------------------------


def test_lmstudio_unloads_instances_and_loads_them_again_with_their_config(lmstudio):
    lmstudio.add("qwen/qwen3-30b", [("qwen/qwen3-30b", 32768), ("qwen/qwen3-30b:2", 4096)])
    lmstudio.add("google/gemma-3-4b", [("google/gemma-3-4b", 8192)])
    lmstudio.add("not/loaded")
    rec = Recorder()
    done = displace([entry("lmstudio", lmstudio.url)], ["gpu0"], ["gpu0"], record=rec.record, log=rec.log)
    assert sorted(m.instance_id for m in done) == ["google/gemma-3-4b", "qwen/qwen3-30b", "qwen/qwen3-30b:2"]
    assert lmstudio.loaded_ids() == []
    assert sorted(r[3]["instance_id"] for r in lmstudio.calls("POST", "/api/v1/models/unload")) == \
        ["google/gemma-3-4b", "qwen/qwen3-30b", "qwen/qwen3-30b:2"]
    assert restore(done) == []
    loads = sorted((r[3]["model"], r[3]["context_length"]) for r in lmstudio.calls("POST", "/api/v1/models/load"))
    assert loads == [("google/gemma-3-4b", 8192), ("qwen/qwen3-30b", 4096), ("qwen/qwen3-30b", 32768)]
    body = lmstudio.calls("POST", "/api/v1/models/load")[0][3]
    assert body["flash_attention"] is True and "parallel" not in body  # only settings the load API takes
    assert len(lmstudio.loaded_ids()) == 3


def test_lmstudio_models_sit_on_the_gpus_or_on_the_cpu_of_a_machine_without(lmstudio):
    lmstudio.add("m", [("m", 4096)])
    assert displace([entry("lmstudio", lmstudio.url)], ["cpu"], ["gpu0"], record=lambda m: None) == []
    done = displace([entry("lmstudio", lmstudio.url)], ["cpu"], [], record=lambda m: None)
    assert [m.name for m in done] == ["m"]


def test_lmstudio_token_is_sent(lmstudio, monkeypatch):
    monkeypatch.setenv("LM_TOKEN", "tok-123")
    lmstudio.token = "tok-123"
    lmstudio.add("m", [("m", 4096)])
    done = displace([entry("lmstudio", lmstudio.url, api_key_env="LM_TOKEN")], ["gpu0"], ["gpu0"],
                    record=lambda m: None)
    assert [m.name for m in done] == ["m"]
    assert restore(done) == []  # the token name travels with the record
    assert {r[4] for r in lmstudio.requests} == {"Bearer tok-123"}
    monkeypatch.delenv("LM_TOKEN")
    with pytest.raises(DisplaceError, match="HTTP 401"):
        displace([entry("lmstudio", lmstudio.url, api_key_env="LM_TOKEN")], ["gpu0"], ["gpu0"],
                 record=lambda m: None)


def test_old_lmstudio_cannot_unload_and_says_so():
    server = FakeLMStudio(legacy=True)
    try:
        server.add("old-model", [("old-model", 4096)])
        server.add("idle-model")
        with pytest.raises(DisplaceError, match="older than 0.4 and cannot unload old-model"):
            displace([entry("lmstudio", server.url)], ["gpu0"], ["gpu0"], record=lambda m: None)
    finally:
        server.close()


def test_a_server_that_is_not_running_has_nothing_to_unload():
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    rec = Recorder()
    assert displace([entry("ollama", f"http://127.0.0.1:{port}")], ["gpu0"], ["gpu0"], record=rec.record,
                    log=rec.log) == []
    assert rec.lines and "is not running: nothing to unload" in rec.lines[0]


def test_a_failed_restore_is_reported_not_raised(ollama):
    gone = LoadedModel(kind="lmstudio", url="http://127.0.0.1:9", name="m", instance_id="m", restore={"model": "m"})
    problems = restore([gone])
    assert len(problems) == 1 and problems[0].startswith("could not load lmstudio:m again at http://127.0.0.1:9")


# -- through the lease manager --------------------------------------------------------------------


@pytest.fixture
def lease_dir(tmp_path, monkeypatch):
    path = tmp_path / "leases"
    monkeypatch.setenv("CRUCIBLE_LEASE_DIR", str(path))
    return path


def test_lease_displaces_before_the_server_starts_and_restores_after(tmp_path, lease_dir, ollama, lmstudio):
    ollama.load("qwen", 1 * GB, 0)             # in system memory: on the cpu
    lmstudio.add("gemma", [("gemma", 8192)])   # no GPU on this (test) machine: on the cpu
    binary = write_fake_server(tmp_path)
    model = fake_model(binary, displace=[f"ollama@{ollama.url}", f"lmstudio@{lmstudio.url}"])
    lines = []
    manager = LeaseManager(run_id="r", lease_dir=str(lease_dir), log=lines.append)
    try:
        server = manager.server_for(model)
        assert ollama.loaded == {} and lmstudio.loaded_ids() == []
        record = json.loads((lease_dir / "cpu.json").read_text())
        assert sorted(d["name"] for d in record["displaced"]) == ["gemma", "qwen"]
        ready = next(e["ts"] for e in events(lease_dir) if e["event"] == "server_ready")
        assert max(r[0] for r in ollama.calls("POST") + lmstudio.calls("POST")) < ready
        assert sorted(server.displaced) == ["lmstudio:gemma", "ollama:qwen"]
    finally:
        manager.close()
    assert set(ollama.loaded) == {"qwen"} and lmstudio.loaded_ids() == ["gemma"]
    assert any("loaded ollama:qwen again" in line for line in lines)


def test_what_a_killed_run_displaced_is_restored_by_the_next(tmp_path, lease_dir, ollama):
    ollama.load("qwen", 1 * GB, 0, keep_alive_s=-1)
    binary = write_fake_server(tmp_path)
    child = python_child(f"""
        import time
        from types import SimpleNamespace
        from pytest_crucible.local import LeaseManager
        from pytest_crucible.local.launch_spec import validate_launch
        model = SimpleNamespace(name="fake", model_id="fake", launch=validate_launch(
            {{"gguf": {str(binary)!r}, "server": "binary", "binary": {str(binary)!r}, "devices": "cpu",
              "displace": ["ollama@{ollama.url}"]}}))
        server = LeaseManager(run_id="dies").server_for(model)
        print(server.pid, flush=True)
        time.sleep(300)
    """)
    server_pid = int(child.stdout.readline())
    assert ollama.loaded == {}
    child.send_signal(signal.SIGKILL)
    child.wait()
    from pytest_crucible.local.process import pid_alive
    assert wait_for(lambda: not pid_alive(server_pid), 5)
    assert ollama.loaded == {}  # nobody restored it yet
    manager = LeaseManager(run_id="next", lease_dir=str(lease_dir), log=lambda m: None)
    try:
        manager.server_for(fake_model(binary))  # no displace of its own
        assert set(ollama.loaded) == {"qwen"}
        assert ollama.calls("POST", "/api/generate")[-1][3]["keep_alive"] == -1
    finally:
        manager.close()
    reclaimed = [e for e in events(lease_dir) if e["event"] == "reclaimed"]
    assert reclaimed and reclaimed[0]["dead_holder"] == child.pid


def test_a_displace_failure_gives_the_lease_back_and_restores_what_went(tmp_path, lease_dir, ollama):
    ollama.load("first", 1 * GB, 0)
    binary = write_fake_server(tmp_path)
    broken = FakeLMStudio(legacy=True)
    broken.add("stuck", [("stuck", 4096)])
    try:
        model = fake_model(binary, displace=[f"ollama@{ollama.url}", f"lmstudio@{broken.url}"])
        manager = LeaseManager(run_id="r", lease_dir=str(lease_dir), log=lambda m: None)
        with pytest.raises(Exception, match="older than 0.4"):
            manager.server_for(model)
        assert set(ollama.loaded) == {"first"}  # put back
        assert not (lease_dir / "cpu.json").exists()
        lease = acquire(LeaseDir(lease_dir), ["cpu"], model="x", timeout=1)
        lease.release()
    finally:
        broken.close()


def test_displace_spec_in_models_yaml_is_validated():
    spec = validate_launch({"displace": ["ollama", "lmstudio@http://h:1234", {"kind": "ollama", "devices": "cpu"}]})
    assert spec["displace"] == [{"kind": "ollama", "url": "http://127.0.0.1:11434"},
                                {"kind": "lmstudio", "url": "http://h:1234"},
                                {"kind": "ollama", "url": "http://127.0.0.1:11434", "devices": ["cpu"]}]
    with pytest.raises(ValueError, match=r"displace\[0\]: unknown field 'port'"):
        validate_launch({"displace": [{"kind": "ollama", "port": 1}]})
