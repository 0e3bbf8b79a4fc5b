"""Device leases shared by every process on this host: pytest runs, xdist workers, `crucible status`.

A lease directory holds, per device (`cpu`, `gpu0`, ...):

    <device>.lock      an exclusive OS file lock (pytest_crucible/common/filelocks.py), freed by the kernel when
                       the holding process dies, however it dies
    <device>.json      the lease record: holder (pid, host, model, run, since), state, the server it
                       started (pid, start time, command line) and the models it displaced
    guests/<token>/    one file per xdist worker of the same run sharing the holder's server

and `history.jsonl`, one line per acquire / release / reclaim / join / leave / timeout.

A record whose lock is free belongs to a holder that died: the next process to take the lock reclaims
it (kills the orphan server if, and only if, its pid, start time and command line still match, and
restores what the dead holder displaced).
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from filelock import FileLock, Timeout
from platformdirs import user_cache_dir

from pytest_crucible.common.errors import InfraError
from pytest_crucible.common.filelocks import exclusive
from pytest_crucible.local.process import ProcessId, holder_alive, hostname, identify, kill_recorded, pid_alive

LEASE_DIR_ENV = "CRUCIBLE_LEASE_DIR"
HISTORY_FILE = "history.jsonl"
HISTORY_MAX_LINES = 2000
POLL_S = 0.25


class LeaseTimeout(InfraError):
    """Waited too long for a device another process holds."""


class LeaseError(InfraError):
    """The lease directory cannot be used."""


def default_lease_dir() -> Path:
    """$CRUCIBLE_LEASE_DIR, else `leases/` in the user cache dir (stable across shells and services)."""
    env = os.environ.get(LEASE_DIR_ENV)
    if env:
        return Path(env).expanduser()
    return Path(user_cache_dir("pytest-crucible")) / "leases"


def clock(ts: float | None) -> str:
    return datetime.fromtimestamp(ts).strftime("%H:%M:%S") if ts else "?"


class LeaseDir:
    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_lease_dir()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LeaseError(f"cannot create the lease directory {self.path}: {exc.strerror}; set "
                             f"${LEASE_DIR_ENV} to a writable directory") from None

    # -- files -----------------------------------------------------------------------------------
    def lock(self, device: str) -> FileLock:
        return exclusive(self.path / f"{device}.lock")

    def record_path(self, device: str) -> Path:
        return self.path / f"{device}.json"

    def guests_dir(self, token: str) -> Path:
        return self.path / "guests" / token

    def read_record(self, device: str) -> dict | None:
        try:
            data = json.loads(self.record_path(device).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None
        return data if isinstance(data, dict) else None

    def write_record(self, device: str, record: dict) -> None:
        path = self.record_path(device)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)

    def remove_record(self, device: str, token: str) -> None:
        record = self.read_record(device)
        if record is not None and record.get("token") == token:
            try:
                self.record_path(device).unlink()
            except FileNotFoundError:
                pass

    def devices(self) -> list[str]:
        names = {p.stem for p in self.path.glob("*.lock")} | {p.stem for p in self.path.glob("*.json")}
        return sorted(names, key=lambda d: (d != "cpu", len(d), d))

    # -- history ---------------------------------------------------------------------------------
    def log(self, event: str, **fields) -> None:
        line = json.dumps({"ts": round(time.time(), 3), "event": event, "pid": os.getpid(), **fields},
                          sort_keys=True)
        path = self.path / HISTORY_FILE
        try:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
            if path.stat().st_size > HISTORY_MAX_LINES * 400:
                lines = path.read_text(encoding="utf-8").splitlines()[-HISTORY_MAX_LINES // 2:]
                tmp = path.with_name(f".{HISTORY_FILE}.{os.getpid()}.tmp")
                tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
                os.replace(tmp, path)
        except OSError:
            pass

    def history(self, last: int | None = None) -> list[dict]:
        try:
            lines = (self.path / HISTORY_FILE).read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        out = []
        for line in lines[-last:] if last else lines:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
        return out


@dataclass
class DeviceLease:
    """Devices held by this process: as `owner` (holds the locks, runs the server) or as `guest`
    (an xdist worker of the same run using the owner's server)."""

    lease_dir: LeaseDir
    devices: tuple[str, ...]
    token: str
    role: str
    record: dict
    locks: list[FileLock] = field(default_factory=list)
    released: bool = False

    @property
    def base_url(self) -> str | None:
        return (self.record.get("server") or {}).get("base_url")

    def update(self, **fields) -> None:
        """Owner only: change the record (state, server, displaced) on every leased device."""
        if self.role != "owner":
            raise RuntimeError("only the owner of a lease writes its record")
        self.record.update(fields)
        for device in self.devices:
            self.lease_dir.write_record(device, self.record)

    def live_guests(self) -> list[int]:
        pids = []
        folder = self.lease_dir.guests_dir(self.token)
        for path in folder.glob("*.json"):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                proc = ProcessId.from_dict(data)
            except (OSError, json.JSONDecodeError, KeyError, ValueError):
                continue
            if holder_alive(proc) is False:
                path.unlink(missing_ok=True)
                continue
            pids.append(proc.pid)
        return pids

    def wait_for_guests(self, timeout: float = 1800.0) -> list[int]:
        """Owner: mark the lease as stopping and wait until the workers sharing it have let go."""
        self.update(state="stopping")
        deadline = time.monotonic() + timeout
        guests = self.live_guests()
        while guests and time.monotonic() < deadline:
            time.sleep(POLL_S)
            guests = self.live_guests()
        return guests

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        if self.role == "guest":
            (self.lease_dir.guests_dir(self.token) / f"{os.getpid()}.json").unlink(missing_ok=True)
            self.lease_dir.log("left", devices=list(self.devices), token=self.token,
                               model=self.record.get("holder", {}).get("model"))
            return
        for device in self.devices:
            self.lease_dir.remove_record(device, self.token)
        try:
            folder = self.lease_dir.guests_dir(self.token)
            for path in folder.glob("*"):
                path.unlink(missing_ok=True)
            folder.rmdir()
        except OSError:
            pass
        self.lease_dir.log("released", devices=list(self.devices), token=self.token,
                           model=self.record.get("holder", {}).get("model"),
                           held_s=round(time.time() - self.record.get("holder", {}).get("since", time.time()), 3))
        for lock in reversed(self.locks):
            try:
                lock.release(force=True)
            except OSError:
                pass
        self.locks.clear()


def describe_holder(device: str, record: dict | None) -> str:
    if not record:
        return f"device {device} is leased by a process that has not written its record yet"
    holder = record.get("holder") or {}
    where = ""
    if holder.get("host") and holder["host"] != hostname():
        where = f" on {holder['host']}"
    return (f"device {device} is leased by pid {holder.get('pid', '?')}{where} "
            f"(model {holder.get('model', '?')}) since {clock(holder.get('since'))}")


def acquire(lease_dir: LeaseDir, devices: list[str], *, model: str, run_id: str | None = None,
            fingerprint: str | None = None, timeout: float = 600.0,
            on_stale: Callable[[dict], None] | None = None,
            on_wait: Callable[[str], None] | None = None) -> DeviceLease:
    """Take the devices (all or none), or join a server of the same run and fingerprint.

    Raises LeaseTimeout naming the holder after `timeout` seconds.
    """
    devices = sorted(set(devices))
    started = time.monotonic()
    deadline = started + timeout
    told = False
    while True:
        held: list[FileLock] = []
        blocked = None
        for device in devices:
            lock = lease_dir.lock(device)
            try:
                lock.acquire(timeout=0)
            except Timeout:
                blocked = device
                break
            held.append(lock)
        if blocked is None:
            return _become_owner(lease_dir, tuple(devices), held, model=model, run_id=run_id,
                                 fingerprint=fingerprint, on_stale=on_stale)
        for lock in reversed(held):
            lock.release(force=True)
        record = lease_dir.read_record(blocked)
        if run_id and fingerprint and record and _joinable(record, run_id, fingerprint, devices):
            joined = _join(lease_dir, blocked, record)
            if joined is not None:
                return joined
        if not told and on_wait is not None:
            on_wait(describe_holder(blocked, record) + "; waiting")
            told = True
        if time.monotonic() >= deadline:
            waited = time.monotonic() - started
            lease_dir.log("timeout", devices=devices, model=model, run_id=run_id, waited_s=round(waited, 1),
                          holder=(record or {}).get("holder"))
            raise LeaseTimeout(f"{describe_holder(blocked, record)}; waited {waited:.0f} s "
                               "(wait longer with launch.lease_timeout or $CRUCIBLE_LEASE_TIMEOUT)")
        time.sleep(min(POLL_S, max(0.0, deadline - time.monotonic())))


def _joinable(record: dict, run_id: str, fingerprint: str, devices: list[str]) -> bool:
    holder = record.get("holder") or {}
    return (record.get("state") == "ready" and holder.get("run_id") == run_id
            and (record.get("server") or {}).get("fingerprint") == fingerprint
            and sorted(record.get("devices") or []) == devices and holder.get("host") == hostname())


def _join(lease_dir: LeaseDir, device: str, record: dict) -> DeviceLease | None:
    token = record["token"]
    folder = lease_dir.guests_dir(token)
    me = identify(os.getpid())
    try:
        folder.mkdir(parents=True, exist_ok=True)
        mine = folder / f"{os.getpid()}.json"
        mine.write_text(json.dumps({**me.to_dict(), "since": time.time()}), encoding="utf-8")
    except OSError:
        return None
    # Registered first, checked second: the owner marks `stopping` first and looks for guests second,
    # so either we see `stopping` here or the owner sees us and waits.
    again = lease_dir.read_record(device)
    if not again or again.get("token") != token or again.get("state") != "ready":
        mine.unlink(missing_ok=True)
        return None
    lease_dir.log("joined", devices=again.get("devices"), token=token,
                  model=(again.get("holder") or {}).get("model"), owner=(again.get("holder") or {}).get("pid"))
    return DeviceLease(lease_dir, tuple(again.get("devices") or [device]), token, "guest", again)


def _become_owner(lease_dir: LeaseDir, devices: tuple[str, ...], locks: list[FileLock], *, model: str,
                  run_id: str | None, fingerprint: str | None,
                  on_stale: Callable[[dict], None] | None) -> DeviceLease:
    stale: dict[str, dict] = {}
    for device in devices:
        record = lease_dir.read_record(device)
        if record is not None:
            stale.setdefault(record.get("token") or device, record)
    for record in stale.values():
        reclaim(lease_dir, record, on_stale=on_stale)
    me = identify(os.getpid())
    record = {
        "token": uuid.uuid4().hex,
        "devices": list(devices),
        "state": "starting",
        "holder": {"pid": me.pid, "starttime": me.starttime, "host": me.host, "model": model,
                   "run_id": run_id, "since": time.time(), "argv": " ".join(sys.argv)[:300]},
        "server": None,
        "displaced": [],
    }
    lease = DeviceLease(lease_dir, devices, record["token"], "owner", record, locks=list(locks))
    lease.update()
    lease_dir.log("acquired", devices=list(devices), token=record["token"], model=model, run_id=run_id)
    return lease


def reclaim(lease_dir: LeaseDir, record: dict, on_stale: Callable[[dict], None] | None = None) -> None:
    """Clean up after a holder that died: its server (only if it is still exactly that process),
    then whatever it displaced (through `on_stale`), then its records."""
    holder = record.get("holder") or {}
    server = record.get("server") or {}
    killed = False
    if server.get("process"):
        try:
            proc = ProcessId.from_dict(server["process"])
        except (KeyError, ValueError, TypeError):
            proc = None
        if proc is not None:
            killed = kill_recorded(proc, server.get("pgid"))
    if on_stale is not None:
        try:
            on_stale(record)
        except Exception as exc:  # restoring someone else's models must not stop our run
            lease_dir.log("restore_failed", token=record.get("token"), error=str(exc)[:300])
    for device in record.get("devices") or []:
        lease_dir.remove_record(device, record.get("token", ""))
    lease_dir.log("reclaimed", devices=record.get("devices"), token=record.get("token"),
                  dead_holder=holder.get("pid"), model=holder.get("model"), orphan_server_killed=killed,
                  server_pid=(server.get("process") or {}).get("pid"))


@dataclass
class LeaseInfo:
    device: str
    state: str            # held, stale (holder died; the next run reclaims it), free
    record: dict | None
    guests: int = 0

    def describe(self) -> str:
        if self.state == "free":
            return f"{self.device}: free"
        rec = self.record or {}
        holder = rec.get("holder") or {}
        server = rec.get("server") or {}
        text = describe_holder(self.device, rec).replace(f"device {self.device} is ", f"{self.device}: ")
        if self.state == "stale":
            text += " -- STALE: the holder died; the next run reclaims it"
        else:
            text += f", {rec.get('state', '?')}"
        if holder.get("run_id"):
            text += f", run {holder['run_id']}"
        if server.get("base_url"):
            pid = (server.get("process") or {}).get("pid")
            alive = pid_alive(pid) if pid else False
            text += f", server {server['base_url']} (pid {pid}{'' if alive else ', gone'})"
        if self.guests:
            text += f", {self.guests} worker(s) sharing it"
        if rec.get("displaced"):
            text += ", displaced " + ", ".join(f"{d.get('kind')}:{d.get('name')}" for d in rec["displaced"])
        return text


def list_leases(lease_dir: LeaseDir) -> list[LeaseInfo]:
    """The state of every device this lease directory knows. Probing a lock takes it for an instant."""
    infos = []
    for device in lease_dir.devices():
        record = lease_dir.read_record(device)
        lock = lease_dir.lock(device)
        try:
            lock.acquire(timeout=0)
        except Timeout:
            held = True
        else:
            held = False
            lock.release(force=True)
        if held:
            guests = 0
            if record and record.get("token"):
                guests = len(DeviceLease(lease_dir, (device,), record["token"], "owner", record).live_guests())
            infos.append(LeaseInfo(device, "held", record, guests))
        elif record:
            infos.append(LeaseInfo(device, "stale", record))
        else:
            infos.append(LeaseInfo(device, "free", None))
    return infos
