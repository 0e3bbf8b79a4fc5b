"""Child processes that cannot outlive us, and checks that never kill the wrong process.

A server is started through a tiny launcher (`python -c LAUNCHER`) that puts it in its own session and
process group, asks the kernel to SIGKILL it when its parent dies (prctl PR_SET_PDEATHSIG), and then
exec()s the real command, so the server keeps the launcher's pid and the exact command line we record.
Linux only for the parent-death signal; elsewhere the launcher still execs, and the atexit / signal
handlers and the orphan reclaim of the next run are the only guards.

Processes are only ever identified by pid + start time + full command line, never by name.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# argv: LAUNCHER PARENT_PID CMD...  The parent pid guards against the parent dying before prctl ran.
LAUNCHER = (
    "import ctypes,os,sys\n"
    "try:\n"
    " ctypes.CDLL(None,use_errno=True).prctl(1,9,0,0,0)\n"  # PR_SET_PDEATHSIG=1, SIGKILL=9
    "except Exception:\n"
    " pass\n"
    "if os.getppid()!=int(sys.argv[1]):\n"
    " os._exit(70)\n"
    "os.execvp(sys.argv[2],sys.argv[2:])\n"
)


@dataclass(frozen=True)
class ProcessId:
    """A process as recorded in a lease file: enough to recognise it again, and only it."""
    pid: int
    starttime: str | None      # /proc/<pid>/stat field 22 (clock ticks since boot)
    cmdline: tuple[str, ...]
    host: str

    def to_dict(self) -> dict:
        return {"pid": self.pid, "starttime": self.starttime, "cmdline": list(self.cmdline), "host": self.host}

    @classmethod
    def from_dict(cls, data: dict) -> ProcessId:
        return cls(pid=int(data["pid"]), starttime=data.get("starttime"),
                   cmdline=tuple(data.get("cmdline") or ()), host=data.get("host") or "")


def hostname() -> str:
    return os.uname().nodename


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (dead, not yet reaped) counts as dead.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def process_starttime(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return fields[19] if len(fields) > 19 else None  # field 22 overall; fields here start at field 3


def process_cmdline(pid: int) -> tuple[str, ...] | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return tuple(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part) or None


def identify(pid: int, cmdline: list[str] | tuple[str, ...] | None = None) -> ProcessId:
    return ProcessId(pid=pid, starttime=process_starttime(pid),
                     cmdline=tuple(cmdline) if cmdline is not None else (process_cmdline(pid) or ()),
                     host=hostname())


def still_the_same(proc: ProcessId) -> bool:
    """True only if `proc` is alive on this host and is still the very process we recorded."""
    if proc.host and proc.host != hostname():
        return False
    if not pid_alive(proc.pid):
        return False
    if proc.starttime is not None and process_starttime(proc.pid) != proc.starttime:
        return False
    current = process_cmdline(proc.pid)
    return current is not None and tuple(current) == tuple(proc.cmdline)


def holder_alive(proc: ProcessId) -> bool | None:
    """Whether a lease holder is alive: None when it is on another host (cannot tell)."""
    if proc.host and proc.host != hostname():
        return None
    if not pid_alive(proc.pid):
        return False
    return proc.starttime is None or process_starttime(proc.pid) == proc.starttime


def spawn_guarded(cmd: list[str], *, env: dict | None = None, log_path: Path | None = None,
                  cwd: str | None = None) -> subprocess.Popen:
    """Start `cmd` in its own session/process group, killed by the kernel if this process dies."""
    argv = [sys.executable, "-c", LAUNCHER, str(os.getpid()), *cmd]
    if log_path is None:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                env=env, cwd=cwd, start_new_session=True, close_fds=True)
    with open(log_path, "ab") as log:  # the child keeps its own copy of the file
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                env=env, cwd=cwd, start_new_session=True, close_fds=True)


def wait_exec(proc: subprocess.Popen, timeout: float = 10.0) -> bool:
    """Wait until the launcher has exec'd into the real command; False if it exited first.

    Afterwards `identify(proc.pid)` records the command line the kernel shows (for a script, its
    interpreter comes first), which is what a later check compares with.
    """
    launcher = tuple(proc.args) if isinstance(proc.args, (list, tuple)) else None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        current = process_cmdline(proc.pid)
        if current is not None and launcher is not None and tuple(current) != launcher:
            return True
        time.sleep(0.005)
    return proc.poll() is None


def kill_group(pid: int, pgid: int | None = None, *, grace: float = 5.0,
               popen: subprocess.Popen | None = None) -> None:
    """SIGTERM the process group led by `pid`, then SIGKILL it after `grace` seconds."""
    group = pgid if pgid is not None else pid

    def send(sig):
        try:
            os.killpg(group, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def gone() -> bool:
        if popen is not None:
            return popen.poll() is not None
        return not pid_alive(pid)

    if gone():
        return
    send(signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if gone():
            break
        time.sleep(0.05)
    # Also catches any stragglers of the group after the leader exited.
    send(signal.SIGKILL)
    if popen is not None:
        try:
            popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    else:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and pid_alive(pid):
            time.sleep(0.05)


def kill_recorded(proc: ProcessId, pgid: int | None = None, *, grace: float = 5.0) -> bool:
    """Kill a recorded process (and its group) only if it is still exactly that process."""
    if not still_the_same(proc):
        return False
    try:
        actual_pgid = os.getpgid(proc.pid)
    except ProcessLookupError:
        return False
    if pgid is not None and actual_pgid != pgid:
        pgid = None  # not the group we made: only the process itself
    if pgid is None:
        try:
            os.kill(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return True
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and pid_alive(proc.pid):
            time.sleep(0.05)
        if pid_alive(proc.pid) and still_the_same(proc):
            os.kill(proc.pid, signal.SIGKILL)
        return True
    kill_group(proc.pid, pgid, grace=grace)
    return True
