"""Run untrusted Python under bubblewrap, with hard limits, and leave nothing behind.

What a sandboxed program gets (`Sandbox.run_python`):

- no network (its own network namespace, with only a downed loopback);
- a read-only system: /usr (and the /bin, /lib links into it) and the Python installation, bound
  read-only, with its site-packages hidden (standard library only); an empty, read-only root; a minimal
  read-only /dev; no /proc, /etc, home, project or results folder;
- a private writable /tmp (tmpfs, 64 MiB), which is also the working directory; `files` are copied there;
- an empty environment (`--clearenv`, then PATH, LANG, HOME=/tmp, TMPDIR=/tmp only: no API keys, no
  proxies);
- its own user, pid, ipc and uts namespaces, a new session, and death with its parent;
- limits: wall clock (the whole sandbox is killed: bwrap dies, and with it every process of the pid
  namespace), CPU time (RLIMIT_CPU), memory (RLIMIT_AS), file size (RLIMIT_FSIZE), open files, core
  dumps off, processes (a seccomp filter refuses fork/vfork/process clones, threads stay allowed;
  RLIMIT_NPROC as a second bound where the kernel enforces it, i.e. when not run as root), and output
  (1 MiB kept per stream, marked truncated; a program that floods past 64 MiB is killed).

The limits are set by a few lines of launcher code that run inside the sandbox before the program,
and the launcher writes one byte to a private pipe before it hands over: a run without that byte
never reached the program, so it is the sandbox that broke (`SandboxError`), never the program.

Without bwrap, `Sandbox(allow_unsandboxed=True)` runs `python -I -S` in a temporary directory with
the same rlimits and a clean environment, in a new session that is killed after the run
(`unsandboxed` is then True). That is NOT isolation; callers must say so in their reports.
"""

from __future__ import annotations

import fcntl
import functools
import math
import os
import shutil
import signal as _signal
import site
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pytest_crucible.common.errors import SandboxError
from pytest_crucible.sandbox.seccomp import fork_filter
from pytest_crucible.sandbox.supervise import OUTPUT_LIMIT as OUTPUT_LIMIT  # re-exported: part of the runner API
from pytest_crucible.sandbox.supervise import collect

TMPFS_MB = 64                   # size of the private /tmp (also RLIMIT_FSIZE)
OPEN_FILES = 256
THREADS = 64                    # RLIMIT_NPROC inside the sandbox
SANDBOX_UID = 65534
_F_SETPIPE_SZ, _F_GETPIPE_SZ = 1031, 1032   # fcntl.h (Linux)
SANDBOX_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp"}

SKIP_REASON = ("no sandbox: bubblewrap (bwrap) is not installed, and code cases run model code only "
               "inside it (install bubblewrap, or pass --crucible-allow-unsandboxed to run code without isolation)")
UNSANDBOXED_WARNING = ("--crucible-allow-unsandboxed: bubblewrap (bwrap) is not installed, so model-written code "
                       "runs WITHOUT isolation (plain `python -I` in a temporary directory, with rlimits "
                       "only); the report marks this run as unsandboxed")

_PY_FLAGS = ("-I", "-S", "-X", "utf8")

# Runs inside the sandbox as `python -I -S -X utf8 -c LAUNCHER start_fd program on_path limits kind
# args...`: set the limits, say "started" on the private start pipe, then run the program as __main__
# (kind "src": Python source; "code": a marshalled code object compiled on the host by this interpreter).
LAUNCHER = r'''
import os, sys
def _crucible_launch():
    import resource
    argv = sys.argv
    start_fd, program, on_path, limits, kind = int(argv[1]), argv[2], argv[3], argv[4], argv[5]
    for item in limits.split(","):
        name, value = item.split("=")
        optional = name.startswith("?")     # best effort (unsandboxed mode, e.g. on macOS)
        try:
            resource.setrlimit(getattr(resource, name.lstrip("?")), (int(value), int(value)))
        except (ValueError, OSError, AttributeError):
            if not optional:
                raise
    os.write(start_fd, b"S")
    os.close(start_fd)
    sys.argv[:] = [program] + argv[6:]
    if on_path == "1":
        sys.path.insert(0, os.getcwd())
    with open(program, "rb") as f:
        data = f.read()
    if kind == "code":
        import marshal
        code = marshal.loads(data)
    else:
        code = compile(data, program, "exec")
    main = type(sys)("__main__")
    main.__file__ = program
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    return code, main.__dict__
_crucible_code, _crucible_globals = _crucible_launch()
del _crucible_launch
try:
    exec(_crucible_code, _crucible_globals)
except SystemExit:
    raise
except BaseException as _crucible_exc:   # as Python would report it, without the launcher's frame
    try:
        import traceback
        traceback.print_exception(type(_crucible_exc), _crucible_exc, _crucible_exc.__traceback__.tb_next)
    except BaseException:
        pass
    raise SystemExit(1)
'''


@dataclass
class RunResult:
    returncode: int | None      # the program's exit code; None when it was killed by a signal
    stdout: str
    stderr: str
    timed_out: bool             # killed at the wall-clock limit (or by the CPU-time limit)
    memory_exceeded: bool       # ran out of its memory limit (a MemoryError, or malloc failing in C)
    output_truncated: bool      # a stream went past OUTPUT_LIMIT (the rest was dropped)
    duration_s: float
    signal: int | None          # the signal that ended it, if one did
    channel: bytes = b""        # what it wrote on the private result pipe (harness runs only)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def find_bwrap() -> str | None:
    return shutil.which("bwrap")


def bwrap_available() -> bool:
    """True when a bwrap executable is on PATH (whether it works is what `Sandbox.canary` checks)."""
    return find_bwrap() is not None


class Sandbox:
    """Runs Python programs in bubblewrap. Thread-safe; cheap to construct."""

    def __init__(self, *, allow_unsandboxed: bool = False, bwrap: str | None = None):
        """`bwrap`: path of the bwrap executable; None finds it on PATH, "" means "act as if absent"."""
        path = find_bwrap() if bwrap is None else (bwrap or None)
        if path is None and not allow_unsandboxed:
            raise SandboxError("bubblewrap (bwrap) not found on PATH; install it (apt install bubblewrap, "
                               "dnf install bubblewrap, ...) or allow unsandboxed execution "
                               "(--crucible-allow-unsandboxed; `crucible cases verify --allow-unsandboxed`) "
                               "to run code without isolation")
        self.bwrap = path
        self.unsandboxed = path is None
        self.python = os.path.realpath(sys.executable)
        self._seccomp = None if self.unsandboxed else fork_filter()
        self._seccomp_strict = None if self.unsandboxed else fork_filter(no_signal_handlers=True)
        self._static = None if self.unsandboxed else self._static_bwrap_args()
        # the code grader's canary verdict for this sandbox (grading.code.canary): run once per sandbox
        self.canary_checked = False
        self.canary_failure: str | None = None
        self.canary_lock = threading.Lock()

    @property
    def mode(self) -> str:
        return "unsandboxed" if self.unsandboxed else "bwrap"

    # ------------------------------------------------------------------ public API

    def run_python(self, code: str, *, stdin: str | None = None, timeout_s: float = 15.0,
                   memory_mb: int = 1024, files: dict[str, str] | None = None,
                   args: list[str] | tuple[str, ...] = ()) -> RunResult:
        """Run `code` as a __main__ program (sys.argv[1:] = args, cwd = a private /tmp holding `files`)."""
        return self.execute(code, stdin=(stdin or "").encode(), timeout_s=timeout_s, memory_mb=memory_mb,
                            files=files, args=list(args))

    def canary(self) -> None:
        """Run a known-good program; raise SandboxError when the environment cannot run code."""
        program = (
            "import sys, os, json, math, re, collections, hashlib\n"
            "data = sys.stdin.read()\n"
            "with open('canary.txt', 'w') as f: f.write(data * 2)\n"
            "with open('canary.txt') as f: back = f.read()\n"
            "with open(sys.argv[1]) as f: given = f.read()\n"
            "total = sum(math.isqrt(i) for i in range(10000))\n"
            "print(json.dumps({'back': back, 'given': given, 'total': total, "
            "'env': sorted(k for k in os.environ if k not in ('PATH', 'LANG', 'HOME', 'TMPDIR', "
            "'LC_CTYPE', 'PWD'))}))\n"
        )
        total = sum(math.isqrt(i) for i in range(10000))
        expected = f'{{"back": "okok", "given": "file", "total": {total}, "env": []}}'
        try:
            result = self.run_python(program, stdin="ok", timeout_s=60, files={"given.txt": "file"},
                                     args=["given.txt"])
        except SandboxError as exc:
            raise SandboxError(f"sandbox canary failed: {exc}") from None
        if result.stdout.strip() != expected or result.returncode != 0:
            detail = (result.stderr.strip().splitlines() or [""])[-1][:300]
            state = "timed out" if result.timed_out else f"exit {result.returncode}, signal {result.signal}"
            raise SandboxError(f"sandbox canary failed ({state}): a known-good program did not run as "
                               f"expected in the {self.mode} sandbox; stdout {result.stdout[:200]!r}; "
                               f"stderr: {detail}")

    # ------------------------------------------------------------------ one run

    def execute(self, code: str | bytes, *, stdin: bytes = b"", timeout_s: float = 15.0, memory_mb: int = 1024,
                files: dict[str, str] | None = None, args: list[str] | tuple[str, ...] = (), channel: bool = False,
                secret: bytes | None = None, cwd_on_path: bool = True,
                no_signal_handlers: bool = False) -> RunResult:
        """Run `code` (source, or bytes: a code object marshalled by this interpreter); with `channel`,
        the program also gets a private result pipe and (with `secret`)
        a pipe holding the secret: their fd numbers are prepended to its arguments
        (`sys.argv[1]` = result fd, `sys.argv[2]` = secret fd), and what it writes on the result pipe
        comes back as `RunResult.channel`. `no_signal_handlers` makes installing a signal handler fail
        (sandboxed mode only; see `seccomp`)."""
        if timeout_s <= 0:
            raise ValueError("timeout_s must be positive")
        if memory_mb < 32:
            raise ValueError("memory_mb must be at least 32")
        clean_files: list[tuple[str, bytes]] = []
        for name, content in (files or {}).items():
            rel = PurePosixPath(name)
            if rel.is_absolute() or ".." in rel.parts or not rel.parts or rel.parts[0] == ".":
                raise ValueError(f"file names must be relative paths inside the sandbox: {name!r}")
            clean_files.append((str(rel), content.encode("utf-8") if isinstance(content, str) else content))
        kind = "code" if isinstance(code, bytes) else "src"
        program_data = code if isinstance(code, bytes) else code.encode("utf-8")
        spawn = functools.partial(
            self._spawn, stdin=stdin, timeout_s=timeout_s, memory_mb=memory_mb, args=[str(a) for a in args],
            kind=kind, channel=channel, secret=secret, cwd_on_path=cwd_on_path, no_signal_handlers=no_signal_handlers)
        if not self.unsandboxed:
            return spawn(program_data, clean_files, None)
        with tempfile.TemporaryDirectory(prefix="crucible-run-") as tmp:
            work = Path(tmp)
            (work / ".crucible-main.py").write_bytes(program_data)
            for rel_name, data in clean_files:
                target = work.joinpath(*PurePosixPath(rel_name).parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            return spawn(b"", [], work)

    def _limits(self, timeout_s: float, memory_mb: int) -> str:
        cpu = int(math.ceil(timeout_s)) + 1
        limits = [f"RLIMIT_AS={memory_mb << 20}", f"RLIMIT_CPU={cpu}", f"RLIMIT_FSIZE={TMPFS_MB << 20}",
                  f"RLIMIT_NOFILE={OPEN_FILES}", "RLIMIT_CORE=0"]
        if self.unsandboxed:
            return ",".join("?" + item for item in limits)
        limits.append(f"RLIMIT_NPROC={THREADS}")
        return ",".join(limits)

    def _spawn(self, program_data: bytes, files: list[tuple[str, bytes]], work: Path | None, *,
               stdin: bytes, timeout_s: float, memory_mb: int, args: list[str], kind: str, channel: bool,
               secret: bytes | None, cwd_on_path: bool, no_signal_handlers: bool) -> RunResult:
        parent_fds: list[int] = []   # ours: closed at the end
        child_fds: list[int] = []    # the child's ends: closed once it started
        try:
            start_r, start_w = os.pipe()
            parent_fds.append(start_r)
            child_fds.append(start_w)
            extra: list[str] = []
            chan_r = None
            if channel:
                chan_r, chan_w = os.pipe()
                parent_fds.append(chan_r)
                child_fds.append(chan_w)
                extra.append(str(chan_w))
                sec_r = _data_fd(secret or b"")
                child_fds.append(sec_r)
                extra.append(str(sec_r))
            if work is not None:     # unsandboxed
                program = str(work / ".crucible-main.py")
                cwd = str(work)
                env = dict(SANDBOX_ENV, HOME=cwd, TMPDIR=cwd)
                argv = [self.python, *_PY_FLAGS, "-c", LAUNCHER]
            else:
                program = "/sandbox/main.py"
                cwd = "/"
                env = {"PATH": SANDBOX_ENV["PATH"]}
                assert self.bwrap is not None and self._static is not None  # sandboxed: both set in __init__
                fd = _data_fd(program_data)
                child_fds.append(fd)
                argv = [self.bwrap, *self._static, "--ro-bind-data", str(fd), program]
                for rel, data in files:
                    fd = _data_fd(data)
                    child_fds.append(fd)
                    argv += ["--perms", "0666", "--file", str(fd), f"/tmp/{rel}"]
                argv += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/tmp"]
                seccomp = self._seccomp_strict if no_signal_handlers else self._seccomp
                if seccomp is not None:
                    fd = _data_fd(seccomp)
                    child_fds.append(fd)
                    argv += ["--seccomp", str(fd)]
                argv += ["--", self.python, *_PY_FLAGS, "-c", LAUNCHER]
            argv += [str(start_w), program, "1" if cwd_on_path else "0", self._limits(timeout_s, memory_mb),
                     kind, *extra, *args]

            started = time.perf_counter()
            try:
                proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, pass_fds=tuple(child_fds), cwd=cwd, env=env,
                                        start_new_session=True, close_fds=True)
            except OSError as exc:
                raise SandboxError(f"cannot start {'python' if self.unsandboxed else 'bwrap'}: {exc}") from exc
            for fd in child_fds:
                os.close(fd)
            child_fds.clear()
            return self._supervise(proc, started, stdin=stdin, timeout_s=timeout_s, start_r=start_r,
                                   chan_r=chan_r)
        finally:
            for fd in parent_fds + child_fds:
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _supervise(self, proc: subprocess.Popen, started: float, *, stdin: bytes, timeout_s: float,
                   start_r: int, chan_r: int | None) -> RunResult:
        got = collect(proc, started + timeout_s, stdin=stdin, start_r=start_r, chan_r=chan_r)
        duration = time.perf_counter() - started
        out, killed_for = got.out, got.killed_for
        stderr = out["stderr"].decode("utf-8", "replace")
        rc = proc.returncode
        sig = None
        if rc is not None and rc < 0:
            sig, rc = -rc, None
        elif rc is not None and not self.unsandboxed and 128 < rc <= 128 + 64:
            sig, rc = rc - 128, None   # bwrap reports a child killed by signal N as exit 128 + N
        if killed_for is not None:
            rc, sig = None, _signal.SIGKILL
        timed_out = killed_for == "timeout" or sig == _signal.SIGXCPU
        if not out["start"]:
            if killed_for == "timeout":
                raise SandboxError(f"the {self.mode} sandbox did not start within {timeout_s:g}s")
            tail = " | ".join(stderr.strip().splitlines()[-3:])[:500]
            raise SandboxError(f"the {self.mode} sandbox failed to start (exit {proc.returncode}): "
                               f"{tail or 'no error output'}")
        return RunResult(returncode=rc, stdout=out["stdout"].decode("utf-8", "replace"), stderr=stderr,
                         timed_out=timed_out, memory_exceeded=_memory_exceeded(stderr),
                         output_truncated=got.truncated or killed_for == "flood", duration_s=duration,
                         signal=sig, channel=bytes(out["channel"]))

    # ------------------------------------------------------------------ bwrap arguments

    def _static_bwrap_args(self) -> list[str]:
        args = ["--unshare-all", "--unshare-user"]
        if _supports(self.bwrap, "--disable-userns"):
            args.append("--disable-userns")
        args += ["--die-with-parent", "--new-session", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
                 "--hostname", "sandbox", "--clearenv"]
        for key, value in SANDBOX_ENV.items():
            args += ["--setenv", key, value]
        bound: list[str] = []
        for top in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(top):
                args += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                args += ["--ro-bind", top, top]
                bound.append(top)
        for extra in (sys.base_prefix, os.path.dirname(self.python)):
            extra = os.path.realpath(extra)
            if not any(extra == b or extra.startswith(b + "/") for b in bound):
                args += ["--ro-bind", extra, extra]
                bound.append(extra)
        # third-party packages stay out of reach (the interpreter runs with -S anyway): an empty,
        # read-only folder over each site-packages directory
        for folder in _site_packages():
            if any(folder == b or folder.startswith(b + "/") for b in bound) and os.path.isdir(folder):
                args += ["--perms", "0555", "--size", "4096", "--tmpfs", folder]
        args += ["--dev", "/dev", "--perms", "1777", "--size", str(TMPFS_MB << 20), "--tmpfs", "/tmp"]
        return args


def _site_packages() -> list[str]:
    folders = {sysconfig.get_paths().get("purelib"), sysconfig.get_paths().get("platlib")}
    try:
        folders.update(site.getsitepackages())
    except AttributeError:
        pass
    return sorted(os.path.realpath(f) for f in folders if f)


def _data_fd(data: bytes) -> int:
    """The read end of a pipe that yields `data` then EOF (for bwrap's --file / --ro-bind-data / --seccomp)."""
    r, w = os.pipe()
    try:
        if len(data) > 60000:
            try:
                fcntl.fcntl(w, _F_SETPIPE_SZ, min(len(data) + 4096, 1 << 20))
            except OSError:
                pass
        size = fcntl.fcntl(w, _F_GETPIPE_SZ)
    except OSError:
        size = 65536
    if len(data) <= size:
        os.write(w, data)
        os.close(w)
        return r

    def feed() -> None:   # larger than a pipe holds: written while bwrap reads it
        try:
            with os.fdopen(w, "wb") as f:
                f.write(data)
        except OSError:
            pass
    threading.Thread(target=feed, daemon=True, name="crucible-sandbox-feed").start()
    return r


@functools.lru_cache(maxsize=16)
def _supports(bwrap: str, option: str) -> bool:
    try:
        text = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return option in text


def _memory_exceeded(stderr: str) -> bool:
    tail = [line.strip() for line in stderr.strip().splitlines()[-3:]]
    if tail and tail[-1].startswith("MemoryError"):
        return True
    return any("Cannot allocate memory" in line or "out of memory" in line.lower() for line in tail)


# ---------------------------------------------------------------------- the process's sandboxes
# Whether code may run without bwrap is the run's setting (the session's RunSettings), passed in; one
# Sandbox per setting is kept for the process, so its canary runs once.
_sandboxes: dict[bool, Sandbox] = {}
_sandboxes_lock = threading.Lock()


def unavailable_reason(allow_unsandboxed: bool = False) -> str | None:
    """Why code cases must be skipped here (SKIP_REASON), or None when they can run."""
    if bwrap_available() or allow_unsandboxed:
        return None
    return SKIP_REASON


def sandbox_mode(allow_unsandboxed: bool = False) -> str:
    """"bwrap", "unsandboxed" (no bwrap, --crucible-allow-unsandboxed given) or "unavailable"."""
    if bwrap_available():
        return "bwrap"
    return "unsandboxed" if allow_unsandboxed else "unavailable"


def get_sandbox(allow_unsandboxed: bool = False) -> Sandbox:
    """The process's sandbox for this setting (raises SandboxError when there is none)."""
    allow = bool(allow_unsandboxed)
    with _sandboxes_lock:
        sandbox = _sandboxes.get(allow)
        if sandbox is None:
            sandbox = _sandboxes[allow] = Sandbox(allow_unsandboxed=allow)
        return sandbox
