"""A llama.cpp server for one local model: llama-cpp-python's (`python -m llama_cpp.server`, or
`python -m pytest_crucible.local.llamacpp_server` for a chat format that escapes HTML) or a
`llama-server` binary, on a free loopback port, started so that it cannot outlive this process."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from pytest_crucible.common.errors import InfraError
from pytest_crucible.common.redact import has_url_credentials
from pytest_crucible.local.chat_templates import UNESCAPED_FORMATS
from pytest_crucible.local.devices import Device, usable_cpus, visible_devices_env
from pytest_crucible.local.http import HTTPFailure, get_json, post_json
from pytest_crucible.local.launch_spec import LaunchError, LaunchSpec
from pytest_crucible.local.process import ProcessId, identify, kill_group, spawn_guarded, wait_exec

HOST = "127.0.0.1"
PORT_ATTEMPTS = 3
LOG_TAIL_LINES = 25
# A variable whose name says it holds a secret, or whose value is a URL with credentials in it, never
# reaches the server: it runs a model, it has no use for API keys.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION", re.I)


def scrubbed_environment(environ: dict, secret_names=()) -> dict:
    """`environ` without the variables that hold secrets: those named in `secret_names` (the providers'
    api_key_env), those whose name says so, and URLs with credentials in them."""
    named = set(secret_names)
    return {k: v for k, v in environ.items()
            if k not in named and not SECRET_NAME.search(k) and not has_url_credentials(v)}


class ServerStartError(InfraError):
    """The server did not come up; the message carries the end of its log."""


@dataclass
class ServerInfo:
    base_url: str                 # http://127.0.0.1:PORT/v1
    port: int
    process: ProcessId
    pgid: int
    fingerprint: str
    model_id: str
    log_path: str
    started_at: float
    startup_s: float
    command: list[str]

    def to_record(self) -> dict:
        return {"base_url": self.base_url, "port": self.port, "process": self.process.to_dict(),
                "pgid": self.pgid, "fingerprint": self.fingerprint, "model_id": self.model_id,
                "log": self.log_path, "started_at": self.started_at, "startup_s": round(self.startup_s, 3)}


def free_port(host: str = HOST) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def tail(path: Path | str, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def server_binary(spec: LaunchSpec) -> str:
    """The llama-server executable a `server: binary` spec names (or llama-server on PATH)."""
    binary = spec.binary or "llama-server"
    found = shutil.which(binary) if os.sep not in binary else (binary if os.access(binary, os.X_OK) else None)
    if not found:
        raise LaunchError(f"model {spec.model_name}: llama-server binary not found: {binary} "
                          "(set launch.binary to its path, or use server: python)")
    return os.path.abspath(found)


def server_version(spec: LaunchSpec) -> str | None:
    """The llama.cpp build that serves a spec, for the run meta: llama-cpp-python's package version, or
    what `llama-server --version` prints. None when it cannot be told."""
    if spec.server != "binary":
        try:
            return "llama-cpp-python " + importlib.metadata.version("llama_cpp_python")
        except importlib.metadata.PackageNotFoundError:
            return None
    try:
        # only what finds the binary and its libraries: no keys in a child's environment
        env = {k: os.environ[k] for k in ("PATH", "LD_LIBRARY_PATH") if k in os.environ}
        done = subprocess.run([server_binary(spec), "--version"], capture_output=True, text=True, timeout=20,
                              env=env)
    except (LaunchError, OSError, subprocess.TimeoutExpired):
        return None
    for line in (done.stdout + "\n" + done.stderr).splitlines():
        if line.strip().lower().startswith("version"):
            return "llama-server " + line.split(":", 1)[-1].strip()
    return None


class LlamaServer:
    def __init__(self, spec: LaunchSpec, gguf: Path, devices: list[Device], log_dir: Path,
                 secret_env_names=()):
        self.spec = spec
        self.secret_env_names = tuple(secret_env_names)
        self.gguf = Path(gguf)
        self.devices = devices
        self.log_dir = Path(log_dir)
        self.popen: subprocess.Popen | None = None
        self.info: ServerInfo | None = None

    @property
    def on_gpu(self) -> bool:
        return any(d.kind != "cpu" for d in self.devices)

    def gpu_layers(self) -> int:
        if self.spec.gpu_layers is not None:
            return self.spec.gpu_layers
        return -1 if self.on_gpu else 0

    def threads(self) -> int:
        return self.spec.threads or usable_cpus()

    def executable(self) -> list[str]:
        if self.spec.server == "binary":
            return [server_binary(self.spec)]
        if importlib.util.find_spec("llama_cpp") is None:
            raise LaunchError(f"model {self.spec.model_name}: llama-cpp-python is not installed "
                              "(pip install 'pytest-crucible[local]')")
        if self.spec.chat_format in UNESCAPED_FORMATS:  # the same server, its template without HTML escaping
            return [sys.executable, "-m", "pytest_crucible.local.llamacpp_server"]
        return [sys.executable, "-m", "llama_cpp.server"]

    def command(self, port: int) -> list[str]:
        spec = self.spec
        exe = self.executable()
        if spec.server == "binary":
            cmd = [*exe, "--model", str(self.gguf), "--host", HOST, "--port", str(port),
                   "--ctx-size", str(spec.context), "--threads", str(self.threads()),
                   "--n-gpu-layers", str(self.gpu_layers()), "--alias", spec.model_id]
            if spec.chat_format == "jinja":
                cmd.append("--jinja")
            elif spec.chat_format:
                cmd += ["--chat-template", spec.chat_format]
        else:
            cmd = [*exe, "--model", str(self.gguf), "--host", HOST, "--port", str(port),
                   "--n_ctx", str(spec.context), "--n_threads", str(self.threads()),
                   "--n_threads_batch", str(self.threads()), "--n_gpu_layers", str(self.gpu_layers()),
                   "--model_alias", spec.model_id,
                   # by default a new request cuts off the stream in progress: xdist workers share this server
                   "--interrupt_requests", "False"]
            if spec.chat_format:
                cmd += ["--chat_format", spec.chat_format]
        return cmd + list(spec.args)

    def environment(self) -> dict:
        env = scrubbed_environment(dict(os.environ), self.secret_env_names)
        env.update(visible_devices_env(self.devices))
        env.setdefault("PYTHONUNBUFFERED", "1")
        return env

    def start(self, on_started=None) -> ServerInfo:
        """Start and wait until `/v1/models` answers; ServerStartError (with the log's end) otherwise.

        `on_started(popen, cmd)` is called as soon as the process runs, before the wait, so that the
        lease file names the server even if this process dies while the model loads.
        """
        self.log_dir.mkdir(parents=True, exist_ok=True)
        last_error = None
        for _ in range(PORT_ATTEMPTS):
            port = free_port()
            cmd = self.command(port)
            log_path = self.log_dir / f"{self.spec.model_name}-{os.getpid()}-{port}.log"
            started = time.monotonic()
            popen = spawn_guarded(cmd, env=self.environment(), log_path=log_path)
            self.popen = popen
            if not wait_exec(popen):
                popen.wait()
                raise ServerStartError(f"model {self.spec.model_name}: the server launcher exited with status "
                                       f"{popen.returncode} before starting {cmd[0]}; log {log_path}:\n"
                                       f"{tail(log_path)}")
            process = identify(popen.pid)
            if on_started is not None:
                on_started(process, popen.pid, port, str(log_path))
            try:
                self._wait_ready(popen, port, log_path, started)
            except _PortTaken as exc:
                last_error = exc
                log_path.unlink(missing_ok=True)
                continue
            except BaseException:
                kill_group(popen.pid, popen.pid, grace=2.0, popen=popen)
                raise
            self._warm_up(port)
            self.info = ServerInfo(base_url=f"http://{HOST}:{port}/v1", port=port, process=process,
                                   pgid=popen.pid, fingerprint=self.spec.fingerprint(),
                                   model_id=self.spec.model_id, log_path=str(log_path),
                                   started_at=time.time(), startup_s=time.monotonic() - started, command=cmd)
            return self.info
        raise ServerStartError(f"model {self.spec.model_name}: no free port after {PORT_ATTEMPTS} tries: "
                               f"{last_error}")

    def _wait_ready(self, popen: subprocess.Popen, port: int, log_path: Path, started: float) -> None:
        url = f"http://{HOST}:{port}/v1/models"
        deadline = started + self.spec.startup_timeout
        while True:
            code = popen.poll()
            if code is not None:
                log = tail(log_path)
                if "address already in use" in log.lower() or "errno 98" in log.lower():
                    raise _PortTaken(f"port {port} was taken")
                raise ServerStartError(f"model {self.spec.model_name}: the server exited with status {code} "
                                       f"while starting; log {log_path}:\n{log}")
            try:
                body = get_json(url, timeout=2.0)
            except HTTPFailure:
                body = None
            if isinstance(body, dict) and isinstance(body.get("data"), list):
                return
            if time.monotonic() >= deadline:
                kill_group(popen.pid, popen.pid, grace=2.0, popen=popen)
                raise ServerStartError(f"model {self.spec.model_name}: the server did not answer {url} within "
                                       f"{self.spec.startup_timeout:.0f} s (launch.startup_timeout); log "
                                       f"{log_path}:\n{tail(log_path)}")
            time.sleep(0.1)

    def _warm_up(self, port: int) -> None:
        """One 1-token request, so the first measured item does not pay for lazy initialisation."""
        try:
            post_json(f"http://{HOST}:{port}/v1/chat/completions",
                      {"model": self.spec.model_id, "messages": [{"role": "user", "content": "Hi"}],
                       "max_tokens": 1, "temperature": 0}, timeout=self.spec.startup_timeout)
        except HTTPFailure:
            pass  # best effort: a server that cannot answer this fails the first item, with its reason

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def stop(self, grace: float = 5.0, keep_log: bool = False) -> None:
        if self.popen is None:
            return
        kill_group(self.popen.pid, self.popen.pid, grace=grace, popen=self.popen)
        if self.info and not keep_log:
            Path(self.info.log_path).unlink(missing_ok=True)
        self.popen = None


class _PortTaken(Exception):
    pass
