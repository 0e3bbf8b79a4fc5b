"""Feed a sandboxed child its stdin and collect its outputs, within a deadline and an output budget.

Kept apart from bwrap.py's argument building: this part only knows a started process and its pipes.
"""

from __future__ import annotations

import os
import selectors
import signal as _signal
import subprocess
import time
from dataclasses import dataclass, field

OUTPUT_LIMIT = 1 << 20          # bytes kept of stdout, of stderr and of the result channel
FLOOD_LIMIT = 64 << 20          # bytes read in all before a flooding program is killed
_CHUNK = 65536


@dataclass
class Collected:
    """What one child wrote, and why it was killed (if it was)."""
    out: dict[str, bytearray] = field(default_factory=lambda: {
        "stdout": bytearray(), "stderr": bytearray(), "start": bytearray(), "channel": bytearray()})
    truncated: bool = False
    total: int = 0
    killed_for: str | None = None   # "timeout" | "flood"


class _Pump:
    def __init__(self, proc: subprocess.Popen, deadline: float, stdin: bytes, start_r: int, chan_r: int | None):
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None  # all pipes
        self.proc = proc
        self.deadline = deadline
        self.got = Collected()
        self.exited_at: float | None = None
        self.sel = selectors.DefaultSelector()
        self.streams = {proc.stdout.fileno(): "stdout", proc.stderr.fileno(): "stderr", start_r: "start"}
        if chan_r is not None:
            self.streams[chan_r] = "channel"
        for fd in self.streams:
            os.set_blocking(fd, False)
            self.sel.register(fd, selectors.EVENT_READ)
        self.pending = memoryview(stdin)
        self.stdin_fd = proc.stdin.fileno()
        if self.pending:
            os.set_blocking(self.stdin_fd, False)
            self.sel.register(self.stdin_fd, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()

    def kill(self, reason: str) -> None:
        if self.got.killed_for is None:
            self.got.killed_for = reason
        kill_group(self.proc)

    def pump(self) -> None:
        while self.sel.get_map():
            now = time.perf_counter()
            if self.exited_at is None and now >= self.deadline:
                self.kill("timeout")
                self.exited_at = now
            if self.exited_at is not None and now - self.exited_at > 2.0:
                break   # pipes held open by something that outlived the kill: stop reading
            wait = 0.2 if self.exited_at is not None else min(max(self.deadline - now, 0.0), 0.25)
            events = self.sel.select(wait)
            if not events:
                if self.exited_at is None and has_exited(self.proc):
                    kill_group(self.proc)   # leftovers of the process group (unsandboxed mode)
                    self.exited_at = time.perf_counter()
                continue
            for key, _ in events:
                if key.fd == self.stdin_fd:
                    self._write_stdin()
                else:
                    self._read(key.fd)

    def _write_stdin(self) -> None:
        try:
            n = os.write(self.stdin_fd, self.pending[:_CHUNK])
            self.pending = self.pending[n:]
        except OSError:   # BrokenPipeError included: the child stopped reading
            self.pending = self.pending[:0]
        if not self.pending:
            self.sel.unregister(self.stdin_fd)
            assert self.proc.stdin is not None
            self.proc.stdin.close()

    def _read(self, fd: int) -> None:
        try:
            data = os.read(fd, _CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.sel.unregister(fd)
            return
        got = self.got
        got.total += len(data)
        buf = got.out[self.streams[fd]]
        room = OUTPUT_LIMIT - len(buf)
        if len(data) > room:
            got.truncated = True
            data = data[:max(room, 0)]
        buf += data
        if got.total > FLOOD_LIMIT and got.killed_for is None:
            self.kill("flood")

    def wait_exit(self) -> None:
        """Every pipe is closed: the program is done, or it closed its outputs and runs on."""
        pause = 0.0002
        while self.got.killed_for is None and not has_exited(self.proc):
            if time.perf_counter() >= self.deadline:
                self.kill("timeout")
                break
            time.sleep(pause)
            pause = min(pause * 2, 0.02)

    def close(self) -> None:
        self.sel.close()
        kill_group(self.proc)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass
        self.proc.wait()


def collect(proc: subprocess.Popen, deadline: float, *, stdin: bytes, start_r: int,
            chan_r: int | None) -> Collected:
    """Run `proc` to its end (or kill it at `deadline` or on a flood) and return what it wrote."""
    pump = _Pump(proc, deadline, stdin, start_r, chan_r)
    try:
        pump.pump()
        pump.wait_exit()
    finally:
        pump.close()
    return pump.got


def has_exited(proc: subprocess.Popen) -> bool:
    """Has the child exited? (without reaping it where the OS allows, so its process-group id stays
    reserved for the final kill)"""
    if not hasattr(os, "waitid"):   # macOS
        return proc.poll() is not None
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, _signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


__all__ = ["FLOOD_LIMIT", "OUTPUT_LIMIT", "Collected", "collect", "has_exited", "kill_group"]
