"""One process's local servers: a model's server starts on first use and stops when the process is done.

`LeaseManager.server_for(model)` leases the model's devices, makes room on them (launch.displace),
starts the llama.cpp server and returns a `LocalServer` (its endpoint). Each model is started once per
process; xdist workers of one run share the first worker's server as guests (see locks.py). Two local
models that need the same device take turns: the manager stops one before it starts the other.

Servers stop at `close()` (the pytest session's end), and also on SIGTERM / SIGHUP (handlers installed
while a server runs), at interpreter exit (atexit), and -- when this process is SIGKILLed -- by the
kernel (the server's parent-death signal). A lease left behind by a dead process is reclaimed by the next.
"""

from __future__ import annotations

import atexit
import functools
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from pytest_crucible.common.errors import InfraError
from pytest_crucible.local import displace as displace_mod
from pytest_crucible.local.device_leases import DeviceLease, LeaseDir, LeaseTimeout, acquire
from pytest_crucible.local.devices import Device, cpu_device, discover_gpus
from pytest_crucible.local.http import HTTPFailure, get_json
from pytest_crucible.local.launch_spec import LaunchError, LaunchSpec
from pytest_crucible.local.llamacpp import LlamaServer, ServerInfo
from pytest_crucible.local.process import ProcessId, holder_alive, pid_alive


class LocalServerError(InfraError):
    """A local model could not be served (launch spec, lease, or server failure)."""


@dataclass
class LocalServer:
    """What `crucible_lease` gives a test: the endpoint of a running local model."""
    model: str
    model_id: str
    base_url: str                 # http://127.0.0.1:PORT/v1
    devices: list[str]
    role: str                     # owner (this process started it) or guest (an xdist worker shares it)
    gguf: str | None = None
    pid: int | None = None
    startup_s: float | None = None
    displaced: list[str] = field(default_factory=list)
    api_key: str | None = None

    @property
    def endpoint(self) -> tuple[str, str | None]:
        return self.base_url, self.api_key


@dataclass
class _Held:
    lease: DeviceLease
    local: LocalServer
    server: LlamaServer | None = None
    displaced: list = field(default_factory=list)


_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
_JOIN_PATIENCE_S = 60.0  # how long a worker waits for the shared server to answer while its process lives


class _ProcessHooks:
    """What stops every manager's servers when the process ends: an atexit hook, and SIGTERM / SIGHUP
    handlers while a server runs (the previous handlers are kept, and put back when none runs)."""

    def __init__(self) -> None:
        self.managers: weakref.WeakSet[LeaseManager] = weakref.WeakSet()
        self.previous_handlers: dict[int, Any] = {}
        self.lock = threading.Lock()
        self.atexit_registered = False

    def stop_all(self) -> None:
        for manager in list(self.managers):
            manager.close(fast=True)

    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stop_all()
        previous = self.previous_handlers.get(signum, signal.SIG_DFL)
        if callable(previous):
            previous(signum, frame)
            return
        if previous == signal.SIG_IGN:
            return
        # The default action would end the process at once; let the caller (pytest) unwind instead, so
        # its teardown and the partial report still happen. The servers are already stopped.
        raise KeyboardInterrupt(f"stopped by signal {signal.Signals(signum).name}")

    def install(self) -> None:
        with self.lock:
            if not self.atexit_registered:
                atexit.register(self.stop_all)
                self.atexit_registered = True
            if threading.current_thread() is not threading.main_thread():
                return
            for signum in _SIGNALS:
                current = signal.getsignal(signum)
                if current == self.on_signal:
                    continue
                try:
                    signal.signal(signum, self.on_signal)
                except (ValueError, OSError):
                    continue
                self.previous_handlers[signum] = current

    def remove(self) -> None:
        with self.lock:
            if any(m._held for m in self.managers):
                return
            if threading.current_thread() is not threading.main_thread():
                return
            for signum, previous in list(self.previous_handlers.items()):
                if signal.getsignal(signum) == self.on_signal:
                    try:
                        signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
                    except (ValueError, OSError, TypeError):
                        pass
                del self.previous_handlers[signum]


# process-wide by nature: signal handlers and atexit hooks belong to the interpreter, not to one manager
_HOOKS = _ProcessHooks()


@functools.lru_cache(maxsize=1)  # process-wide: the installed llama-cpp-python is the interpreter's, not a run's
def python_server_offloads() -> bool:
    """Whether the installed llama-cpp-python was built with GPU support (PyPI's default build is not).
    Asked in a child process, so this process never initialises a GPU runtime."""
    try:
        done = subprocess.run([sys.executable, "-c", "import llama_cpp; print(llama_cpp.llama_supports_gpu_offload())"],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and done.stdout.strip().endswith("True")


def resolve_devices(spec: LaunchSpec, gpus: list[Device] | None = None,
                    offloads: Callable[[], bool] = python_server_offloads) -> list[Device]:
    """The devices a launch spec needs: its GPU indexes, cpu, or (auto) every GPU found -- unless the
    layers stay on the CPU (gpu_layers 0, or a llama-cpp-python built without GPU support) -- else cpu."""
    gpus = discover_gpus() if gpus is None else gpus
    if spec.devices == "cpu":
        return [cpu_device()]
    if isinstance(spec.devices, str):  # "auto"
        if spec.gpu_layers == 0 or not gpus or (spec.server == "python" and not offloads()):
            return [cpu_device()]
        return list(gpus)
    by_index = {g.index: g for g in gpus}
    missing = [i for i in spec.devices if i not in by_index]
    if missing:
        found = ", ".join(g.describe() for g in gpus) or "none (no nvidia-smi / rocm-smi answered)"
        raise LaunchError(f"model {spec.model_name}: GPU {missing[0]} not found; GPUs here: {found}")
    return [by_index[i] for i in spec.devices]


class LeaseManager:
    def __init__(self, run_id: str | None = None, lease_dir: str | None = None,
                 log: Callable[[str], None] | None = None, guest_wait: float = 1800.0,
                 secret_env_names=()):
        self.run_id = run_id
        self.secret_env_names = tuple(secret_env_names)  # the providers' api_key_env: kept from servers
        self._lease_dir_path = lease_dir
        self._lease_dir: LeaseDir | None = None
        self.log = log or (lambda message: print(f"crucible: {message}", file=sys.stderr))
        self.guest_wait = guest_wait
        self._held: dict[str, _Held] = {}
        self._failed: dict[str, str] = {}
        self._lock = threading.RLock()
        _HOOKS.managers.add(self)

    @property
    def lease_dir(self) -> LeaseDir:
        if self._lease_dir is None:
            self._lease_dir = LeaseDir(self._lease_dir_path)
        return self._lease_dir

    # -- public ----------------------------------------------------------------------------------
    def server_for(self, model) -> LocalServer:
        """The running server of a model with a launch spec, started (and leased) on first use."""
        with self._lock:
            held = self._held.get(model.name)
            if held is not None and held.lease.role == "guest" and not self._owner_still_serves(held):
                self._release(model.name)  # the sharing worker stopped or died: lease anew
                held = None
            if held is not None:
                if held.server is None or held.server.alive():
                    return held.local
                log = held.server.info.log_path if held.server.info else "?"
                self._release(model.name, keep_log=True)
                raise LocalServerError(f"the server of model {model.name} exited unexpectedly (log {log}); "
                                       "it is started again for the next item")
            if model.name in self._failed:
                raise LocalServerError(self._failed[model.name])
            try:
                return self._start(model)
            except LeaseTimeout as exc:  # the device may be free for the next item: not remembered
                raise LocalServerError(str(exc)) from None
            except (LaunchError, InfraError) as exc:
                self._failed[model.name] = str(exc)
                raise LocalServerError(str(exc)) from None

    def release(self, model_name: str) -> None:
        with self._lock:
            self._release(model_name)

    def close(self, fast: bool = False) -> None:
        """Stop every server and give every lease back. `fast`: do not wait for sharing workers."""
        with self._lock:
            for name in list(self._held):
                try:
                    self._release(name, fast=fast)
                except Exception as exc:  # keep stopping the others
                    self.log(f"stopping the server of {name} failed: {exc}")
        _HOOKS.remove()

    def held(self) -> dict[str, LocalServer]:
        return {name: h.local for name, h in self._held.items()}

    # -- internals -------------------------------------------------------------------------------
    def _start(self, model) -> LocalServer:
        spec = LaunchSpec.from_model(model)
        gguf = spec.resolve_gguf()
        gpus = discover_gpus()
        devices = resolve_devices(spec, gpus)
        device_ids = [d.id for d in devices]
        # Turn-taking: our own servers on these devices go first (no waiting on ourselves).
        for name, other in list(self._held.items()):
            if set(other.lease.devices) & set(device_ids):
                self.log(f"stopping {name} to free {', '.join(sorted(set(other.lease.devices) & set(device_ids)))} "
                         f"for {model.name}")
                self._release(name)
        lease = acquire(self.lease_dir, device_ids, model=model.name, run_id=self.run_id,
                        fingerprint=spec.fingerprint(), timeout=spec.effective_lease_timeout(),
                        on_stale=self._restore_stale, on_wait=self.log)
        if lease.role == "guest":
            return self._join(model, spec, lease, gguf)
        _HOOKS.install()
        held = _Held(lease=lease, local=LocalServer(model=model.name, model_id=spec.model_id, base_url="",
                                                    devices=device_ids, role="owner", gguf=str(gguf)))
        self._held[model.name] = held
        try:
            if spec.displace:
                def record(victim):
                    held.displaced.append(victim)
                    lease.update(displaced=[m.to_dict() for m in held.displaced])
                displace_mod.displace(list(spec.displace), device_ids, [g.id for g in gpus], record=record,
                                      log=self.log)
            server = LlamaServer(spec, gguf, devices, self.lease_dir.path / "logs", self.secret_env_names)
            held.server = server

            def started(process: ProcessId, pgid: int, port: int, log_path: str) -> None:
                lease.update(server={"process": process.to_dict(), "pgid": pgid, "port": port,
                                     "log": log_path, "fingerprint": spec.fingerprint()})

            info: ServerInfo = server.start(on_started=started)
        except BaseException:
            self._release(model.name, keep_log=True)
            raise
        lease.update(state="ready", server=info.to_record())
        held.local.base_url = info.base_url
        held.local.pid = info.process.pid
        held.local.startup_s = round(info.startup_s, 3)
        held.local.displaced = [m.label() for m in held.displaced]
        self.lease_dir.log("server_ready", model=model.name, devices=device_ids, base_url=info.base_url,
                           server_pid=info.process.pid, startup_s=round(info.startup_s, 3), token=lease.token)
        return held.local

    def _join(self, model, spec: LaunchSpec, lease: DeviceLease, gguf) -> LocalServer:
        base_url = lease.base_url
        server = lease.record.get("server") or {}
        pid = (server.get("process") or {}).get("pid")
        # a server busy decoding for another worker can be slow to answer on a loaded machine: wait while its
        # process lives, give up at once when it has died
        waited_until = time.monotonic() + _JOIN_PATIENCE_S
        while True:
            try:
                get_json(f"{base_url}/models", timeout=5.0)
                break
            except HTTPFailure as exc:
                if time.monotonic() > waited_until or (isinstance(pid, int) and not pid_alive(pid)):
                    lease.release()
                    raise LocalServerError(f"model {model.name}: the server shared by this run at {base_url} "
                                           f"does not answer: {exc}") from None
                time.sleep(0.5)
        local = LocalServer(model=model.name, model_id=spec.model_id, base_url=base_url or "",
                            devices=list(lease.devices), role="guest", gguf=str(gguf),
                            pid=(server.get("process") or {}).get("pid"), startup_s=server.get("startup_s"))
        self._held[model.name] = _Held(lease=lease, local=local)
        return local

    def _release(self, name: str, fast: bool = False, keep_log: bool = False) -> None:
        held = self._held.pop(name, None)
        if held is None:
            return
        lease = held.lease
        if lease.role == "guest":
            lease.release()
            return
        try:
            if not fast:
                waiting = lease.live_guests()
                if waiting:
                    self.log(f"waiting for {len(waiting)} worker(s) still using {name}")
                left = lease.wait_for_guests(self.guest_wait)
                if left:
                    self.log(f"stopping {name} although pid(s) {left} still use it")
            if held.server is not None:
                held.server.stop(grace=2.0 if fast else 5.0, keep_log=keep_log)
            if held.displaced:
                for problem in displace_mod.restore(held.displaced, log=self.log):
                    self.log(problem)
        finally:
            lease.release()

    def _owner_still_serves(self, held: _Held) -> bool:
        record = self.lease_dir.read_record(held.lease.devices[0])
        if not record or record.get("token") != held.lease.token or record.get("state") != "ready":
            return False
        try:
            return holder_alive(ProcessId.from_dict(record["holder"])) is not False
        except (KeyError, TypeError, ValueError):
            return False

    def _restore_stale(self, record: dict) -> None:
        displaced = record.get("displaced") or []
        if displaced:
            self.log(f"restoring what dead pid {(record.get('holder') or {}).get('pid')} displaced")
            for problem in displace_mod.restore(displaced, log=self.log):
                self.log(problem)

