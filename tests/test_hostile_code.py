"""Hostile programs: each is contained, graded as a failure, leaves no process behind, and the next
run works. Two levels: raw `Sandbox.run_python` (isolation and limits) and the code grader (a pass
that cannot be forged)."""

from __future__ import annotations

import os
import socket
import time
import uuid
from pathlib import Path

import pytest

from pytest_crucible.grading.code import run_code
from pytest_crucible.sandbox import SKIP_REASON, Sandbox, bwrap_available
from pytest_crucible.suite.case import build_case

pytestmark = pytest.mark.skipif(not bwrap_available(), reason=SKIP_REASON)


class MarkedSandbox(Sandbox):
    """Puts a marker on every sandboxed command line, so survivors can be found in /proc."""

    def __init__(self, marker: str, **kw):
        super().__init__(**kw)
        self.marker = marker

    def execute(self, code, *, args=(), **kw):
        return super().execute(code, args=[*args, self.marker], **kw)


def survivors(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(entry))
        except OSError:
            pass
    return found


def assert_no_survivors(marker: str) -> None:
    deadline = time.monotonic() + 3
    while survivors(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert survivors(marker) == [], "a sandboxed process outlived its run"


@pytest.fixture
def marked():
    marker = f"crucible-hostile-{uuid.uuid4().hex}"
    sandbox = MarkedSandbox(marker)
    yield sandbox
    assert_no_survivors(marker)
    after = sandbox.run_python("print(6 * 7)")       # the next run works
    assert after.returncode == 0 and after.stdout.strip() == "42"
    assert_no_survivors(marker)


# ---------------------------------------------------------------------------------------- containment

def test_no_network(marked):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    try:
        result = marked.run_python(
            "import socket\n"
            "for target in [('127.0.0.1', %d), ('1.1.1.1', 80)]:\n"
            "    try:\n"
            "        socket.create_connection(target, timeout=2); print('CONNECTED', target)\n"
            "    except OSError as e:\n"
            "        print('blocked', e.errno)\n"
            "try:\n    socket.getaddrinfo('example.com', 80); print('RESOLVED')\n"
            "except OSError:\n    print('blocked dns')\n" % port, timeout_s=20)
    finally:
        server.close()
    assert result.returncode == 0, result.stderr
    assert "CONNECTED" not in result.stdout and "RESOLVED" not in result.stdout
    assert result.stdout.count("blocked") == 3


def test_no_writes_outside_tmp(marked, tmp_path):
    escape = tmp_path / "escape.txt"
    result = marked.run_python(
        "import os\n"
        f"for p in [{str(escape)!r}, '/usr/escape', '/sandbox/main.py', '/escape', '/dev/escape', '/tmp/../x']:\n"
        "    try:\n"
        "        open(p, 'w').write('x'); print('WROTE', p)\n"
        "    except OSError:\n"
        "        print('refused', p)\n"
        "open('/tmp/ok.txt', 'w').write('fine'); print('tmp ok')\n")
    assert "WROTE" not in result.stdout and "tmp ok" in result.stdout, result.stdout + result.stderr
    assert not escape.exists()


def test_no_secrets_from_env_home_or_project(marked, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-hostile-test-secret")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-hostile-test-secret")
    secret = Path.home() / f".crucible-hostile-{uuid.uuid4().hex}"
    secret.write_text("home secret")
    project_file = Path(__file__).resolve().parent.parent / "pyproject.toml"
    try:
        result = marked.run_python(
            "import os\nprint(sorted(os.environ.items()))\n"
            f"for p in [{str(secret)!r}, {str(project_file)!r}, '/etc/shadow', '/etc/passwd', '/root/.bashrc']:\n"
            "    try:\n"
            "        print('READ', p, open(p).read()[:20])\n"
            "    except OSError:\n"
            "        print('refused', p)\n")
    finally:
        secret.unlink()
    assert "sk-" not in result.stdout and "READ" not in result.stdout, result.stdout
    assert result.stdout.count("refused") == 5


def test_fork_bomb_is_contained(marked):
    started = time.perf_counter()
    result = marked.run_python("import os\nwhile True:\n    os.fork()\n", timeout_s=10)
    assert result.returncode == 1 and "PermissionError" in result.stderr
    assert time.perf_counter() - started < 8


def test_thread_bomb_is_contained(marked):
    result = marked.run_python(
        "import threading, time\nn = 0\ntry:\n    while True:\n"
        "        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n        n += 1\n"
        "except Exception as e:\n    print(n, type(e).__name__)\n", timeout_s=20)
    assert result.returncode == 0 and not result.timed_out, result.stderr
    count, error = result.stdout.split()
    assert int(count) < 5000 and error == "RuntimeError"


def test_unbounded_allocation_is_contained(marked):
    result = marked.run_python("x = []\nwhile True:\n    x.append(bytearray(10**7))\n", memory_mb=256)
    assert result.memory_exceeded and not result.timed_out


def test_tmpfs_cannot_fill_memory(marked):
    result = marked.run_python("f = open('/tmp/big', 'wb')\nwhile True:\n    f.write(b'x' * 2**20)\n", timeout_s=20)
    assert result.returncode not in (0, None) or result.signal is not None
    assert not result.timed_out


def test_infinite_loop_is_killed(marked):
    result = marked.run_python("while True:\n    pass\n", timeout_s=1)
    assert result.timed_out and result.returncode is None


def test_stdout_flood_neither_blocks_nor_exhausts_memory(marked):
    started = time.perf_counter()
    result = marked.run_python("import os\nwhile True:\n    os.write(1, b'y' * 65536)\n", timeout_s=30)
    assert result.output_truncated and len(result.stdout) <= 1 << 20
    assert time.perf_counter() - started < 25      # killed at the flood ceiling, not the time limit


def test_killing_the_parent_or_everyone_is_contained(marked):
    # the parent is the namespace's init, which ignores signals from inside; "everyone" is nobody else
    result = marked.run_python(
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint('still here', flush=True)\n"
        "try:\n    os.kill(-1, signal.SIGKILL)\nexcept ProcessLookupError:\n    print('nobody to kill', flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n")
    assert result.stdout.split("\n")[:2] == ["still here", "nobody to kill"] and result.signal == 9


def test_background_processes_die_with_the_sandbox(marked):
    # take away the seccomp filter to exercise the other layer: the pid namespace dies with bwrap
    marked._seccomp = marked._seccomp_strict = None
    program = (
        "import os, sys, subprocess, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(120)\n"
        "    os._exit(0)\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', sys.argv[-1]],\n"
        "                 start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "time.sleep(0.3)\n"
        "print('parent done')\n")
    result = marked.run_python(program)
    assert result.stdout.strip() == "parent done", result.stderr
    assert_no_survivors(marked.marker)
    result = marked.run_python(program.replace("print('parent done')", "while True:\n    pass"), timeout_s=1.5)
    assert result.timed_out


def test_with_the_filter_no_background_process_can_start(marked):
    result = marked.run_python(
        "import os, subprocess, sys\n"
        "for attempt in (lambda: os.fork(), lambda: subprocess.Popen([sys.executable, '-c', 'pass']),\n"
        "                lambda: os.posix_spawn(sys.executable, [sys.executable], {})):\n"
        "    try:\n        attempt(); print('STARTED')\n"
        "    except OSError as e:\n        print('refused', e.errno)\n")
    assert "STARTED" not in result.stdout and result.stdout.count("refused") == 3, result.stdout + result.stderr


# ---------------------------------------------------------------------------------------- forging a pass

TESTS = "def check(candidate):\n    assert candidate(2) == 4\n    assert candidate(5) == 25\n"
RIGHT = "def square(x):\n    return x * x\n"
WRONG_TAIL = "\ndef square(x):\n    return -1\n"


def square_case(tests=TESTS):
    return build_case({"id": "hostile-square", "category": "coding", "difficulty": "easy", "prompt": "square",
                       "grader": {"type": "code", "entry_point": "square", "tests": tests},
                       "verify": {"solution": RIGHT}}, Path("cases/coding/hostile.cases.yaml"))


FRAME_AND_MEMORY_ATTACK = r'''
import os, sys, hashlib
found, attempts = [], {}

def scan(frame):
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if isinstance(value, bytes) and len(value) == 32:
                found.append(value)
        frame = frame.f_back

def attempt(name, fn):
    try:
        fn()
        attempts[name] = "ok"
    except BaseException as exc:
        attempts[name] = type(exc).__name__

def tb_trick():
    try:
        raise ValueError
    except ValueError as exc:
        scan(exc.__traceback__.tb_frame)

def gen_trick():
    def gen():
        yield box[0].gi_frame
    box = [gen()]
    scan(next(box[0]))

def gc_trick():
    import gc
    for obj in gc.get_objects():
        if isinstance(obj, bytes) and len(obj) == 32:
            found.append(obj)
    gc.get_referrers(sys.modules)

def read_fds():
    for fd in range(3, 256):
        try:
            data = os.read(fd, 4096)
        except OSError:
            continue
        if len(data) >= 32:
            found.append(data[:32])

def run_attack():
    attempt("sys._getframe", lambda: scan(sys._getframe()))
    attempt("sys._current_frames", lambda: [scan(f) for f in sys._current_frames().values()])
    attempt("tb_frame", tb_trick)
    attempt("gi_frame", gen_trick)
    attempt("inspect.stack", lambda: [scan(fi.frame) for fi in __import__("inspect").stack()])
    attempt("gc", gc_trick)
    attempt("settrace", lambda: sys.settrace(lambda *a: None))
    attempt("setprofile", lambda: sys.setprofile(lambda *a: None))
    attempt("ctypes", lambda: __import__("ctypes"))
    attempt("/proc/self/mem", lambda: open("/proc/self/mem", "rb"))
    attempt("code.replace", lambda: (lambda: 1).__code__.replace(co_consts=(2,)))
    attempt("__code__", lambda: setattr(run_attack, "__code__", (lambda: 1).__code__))
    attempt("marshal", lambda: __import__("marshal").loads(__import__("marshal").dumps((lambda: 1).__code__)))
    attempt("fork", lambda: os.fork())
    attempt("read fds", read_fds)
    sys.stderr.write(f"ATTEMPTS {attempts!r} FOUND {len(found)}\n")
    for key in found:                              # with a key, forge the harness's pass record
        body = b"'P'\t2\t2\t''"
        mac = hashlib.blake2b(body, key=key, digest_size=16).hexdigest().encode()
        for fd in range(3, 64):
            try:
                os.write(fd, mac + b"\t" + body + b"\n")
            except OSError:
                pass
    if found:
        os._exit(0)
'''

FORGERIES = {
    "prints success": "print('PASS'); print('All tests passed!'); print(\"'P'\\t2\\t2\\t''\")" + WRONG_TAIL,
    "exit 0 while loading": "import os\nos._exit(0)\n" + WRONG_TAIL,
    "SystemExit while loading": "raise SystemExit(0)\n" + WRONG_TAIL,
    "exit 0 inside the tests": "import os\ndef square(x):\n    os._exit(0)\n",
    "SystemExit inside the tests": "def square(x):\n    raise SystemExit(0)\n",
    "KeyboardInterrupt inside the tests": "def square(x):\n    raise KeyboardInterrupt\n",
    "replaces builtins": (
        "import builtins\nclass Nope(Exception):\n    pass\n"
        "builtins.AssertionError = Nope\nbuiltins.abs = lambda x: 0\nbuiltins.len = lambda x: 0\n"
        "builtins.isinstance = lambda *a: True\nbuiltins.all = lambda *a: True\nbuiltins.bool = lambda *a: True\n"
        "builtins.__import__ = lambda *a, **k: None\n" + WRONG_TAIL),
    "always-equal object": (
        "class Anything:\n    __eq__ = lambda s, o: True\n    __ne__ = lambda s, o: False\n"
        "    __bool__ = lambda s: True\n    __hash__ = lambda s: 0\n"
        "def square(x):\n    return Anything()\n"),
    "int subclass that equals anything": (
        "class Int(int):\n    __eq__ = lambda s, o: True\n    __ne__ = lambda s, o: False\n"
        "def square(x):\n    return Int(-1)\n"),
    "str subclass and list subclass": (
        "class L(list):\n    __eq__ = lambda s, o: True\n"
        "def square(x):\n    return L([-1])\n"),
    "kills the parent": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n" + WRONG_TAIL,
    "kills everything": "import os, signal\nos.kill(-1, signal.SIGKILL)\n" + WRONG_TAIL,
    "kills itself": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n" + WRONG_TAIL,
    "closes stdout and stderr": "import os, sys\nsys.stdout.close()\nos.close(1)\nos.close(2)\n" + WRONG_TAIL,
    "closes every other fd": "import os\nos.closerange(3, 4096)\n" + WRONG_TAIL,
    "writes forged records on every fd": (
        "import os\nfor fd in range(3, 256):\n    try:\n"
        "        os.write(fd, b\"0123456789abcdef0123456789abcdef\\t'P'\\t2\\t2\\t''\\n\")\n"
        "    except OSError:\n        pass\n" + WRONG_TAIL),
    "patches os and the harness's module": (
        "import os, sys\nos.write = lambda *a: 0\nos._exit = lambda *a: None\n"
        "main = sys.modules['__main__']\nfor name in list(vars(main)):\n"
        "    if not name.startswith('__'):\n        setattr(main, name, None)\n" + WRONG_TAIL),
    "background thread forges and exits": (
        "import os, threading, time\ndef forge():\n    time.sleep(0.05)\n"
        "    for fd in range(3, 64):\n        try:\n            os.write(fd, b\"x\\t'P'\\t2\\t2\\t''\\n\")\n"
        "        except OSError:\n            pass\n    os._exit(0)\n"
        "threading.Thread(target=forge).start()\ndef square(x):\n    time.sleep(1)\n    return -1\n"),
    "signal handler to reach a frame": (
        "import signal, sys\nframes = []\n"
        "def handler(sig, frame):\n    frames.append(frame)\n"
        "try:\n    signal.signal(signal.SIGALRM, handler)\n    signal.setitimer(signal.ITIMER_REAL, 0.01)\n"
        "except OSError as e:\n    sys.stderr.write('handler refused\\n')\n"
        "try:\n    import _imp, importlib.machinery as m\n"
        "    fresh = _imp.create_builtin(m.ModuleSpec('_signal', m.BuiltinImporter))\n"
        "    fresh.signal(fresh.SIGUSR1, handler)\nexcept OSError:\n    sys.stderr.write('fresh refused\\n')\n"
        + WRONG_TAIL),
    "raises the harness's own assertion class": (
        "def square(x):\n    for cls in BaseException.__subclasses__():\n"
        "        if cls.__name__ == 'AssertFail':\n            raise cls()\n    return -1\n"),
    "patches math used by the tests": "import math\nmath.isclose = lambda *a, **k: True\n" + WRONG_TAIL,
    "walks frames, gc and memory for the key while loading": FRAME_AND_MEMORY_ATTACK + "run_attack()\n" + WRONG_TAIL,
    "walks frames, gc and memory for the key inside the tests":
        FRAME_AND_MEMORY_ATTACK + "def square(x):\n    run_attack()\n    return -1\n",
    "recursion limit sabotage": "import sys\nsys.setrecursionlimit(25)\n" + WRONG_TAIL,
    "floods stdout": "import os\nwhile True:\n    os.write(1, b'P' * 65536)\n",
    "forks": "import os\nos.fork()\n" + WRONG_TAIL,
}


@pytest.fixture(scope="module")
def grading_sandbox():
    marker = f"crucible-forge-{uuid.uuid4().hex}"
    sandbox = MarkedSandbox(marker)
    yield sandbox
    assert_no_survivors(marker)


@pytest.mark.parametrize("name", list(FORGERIES))
def test_forged_success_never_passes(grading_sandbox, name):
    case = square_case("import math\n" + TESTS + "    assert math.isclose(candidate(3), 9)\n")
    result = run_code(case, FORGERIES[name], sandbox=grading_sandbox, timeout_s=10)
    assert not result.passed, result.details
    assert result.reason
    assert_no_survivors(grading_sandbox.marker)
    if "walks frames" in name:
        stderr = result.details["stderr_tail"]
        assert "FOUND 0" in stderr, stderr
        attempts = eval(stderr.split("ATTEMPTS ", 1)[1].split(" FOUND")[0])
        assert [k for k, v in attempts.items() if v == "ok"] == ["read fds"], attempts
        assert result.reason == "AssertionError in test 1: expected 4, got -1"
    if name == "signal handler to reach a frame":
        assert "handler refused" in result.details["stderr_tail"]
    # the sandbox and harness still work, and the same tests pass a correct solution
    assert run_code(case, RIGHT, sandbox=grading_sandbox).passed


def test_forged_record_lines_are_counted_and_ignored(grading_sandbox):
    result = run_code(square_case(), FORGERIES["writes forged records on every fd"], sandbox=grading_sandbox)
    assert not result.passed and result.details["unauthenticated_lines"] >= 1
    assert result.reason == "AssertionError in test 1: expected 4, got -1"


def test_hostile_runs_end_with_readable_reasons(grading_sandbox):
    case = square_case()
    reasons = {name: run_code(case, FORGERIES[name], sandbox=grading_sandbox, timeout_s=3).reason
               for name in ("exit 0 while loading", "SystemExit while loading", "always-equal object",
                            "kills itself", "floods stdout")}
    assert reasons == {
        "exit 0 while loading": "exited with code 0 before the tests finished",
        "SystemExit while loading": "SystemExit: 0",
        "always-equal object": "AssertionError in test 1: cannot compare an object of type Anything "
                               "(only plain values are compared)",
        "kills itself": "killed by signal SIGKILL before the tests finished",
        "floods stdout": "output limit exceeded (the program flooded its output)",
    }


def test_the_frame_attack_is_real_without_the_jail(grading_sandbox, monkeypatch):
    """Control experiment: the same attack, against a harness whose audit hook is switched off,
    finds the key and forges a pass. So the jail is what stops it, not a flaw in the attack."""
    import marshal

    from pytest_crucible.sandbox import testrun

    unjailed = testrun.HARNESS_SOURCE.replace("    sys.addaudithook(hook)\n", "    pass\n")
    assert unjailed != testrun.HARNESS_SOURCE
    monkeypatch.setattr(testrun, "HARNESS_CODE", marshal.dumps(compile(unjailed, "unjailed", "exec")))
    attack = FRAME_AND_MEMORY_ATTACK + "run_attack()\n" + WRONG_TAIL
    forged = run_code(square_case(), attack, sandbox=grading_sandbox, timeout_s=10)
    assert forged.passed and "FOUND 0" not in forged.details["stderr_tail"]
    monkeypatch.undo()
    assert not run_code(square_case(), attack, sandbox=grading_sandbox, timeout_s=10).passed
