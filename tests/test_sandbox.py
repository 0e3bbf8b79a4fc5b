"""The bubblewrap runner: what a program sees, its limits, and the unsandboxed fallback."""

from __future__ import annotations

import os
import struct
import time

import pytest

from pytest_crucible.common.errors import InfraError, SandboxError
from pytest_crucible.sandbox import (
    SKIP_REASON,
    RunResult,
    Sandbox,
    bwrap_available,
    get_sandbox,
    sandbox_mode,
    unavailable_reason,
)
from pytest_crucible.sandbox import bwrap as runner
from pytest_crucible.sandbox.seccomp import fork_filter

needs_bwrap = pytest.mark.skipif(not bwrap_available(), reason=SKIP_REASON)


@pytest.fixture(scope="module")
def sandbox():
    if not bwrap_available():
        pytest.skip(SKIP_REASON)
    return Sandbox()


@pytest.fixture(scope="module")
def bare():
    """Unsandboxed mode, forced even where bwrap exists."""
    return Sandbox(allow_unsandboxed=True, bwrap="")


# ---------------------------------------------------------------------------------------- basics

@needs_bwrap
def test_program_gets_stdin_args_files_and_a_private_tmp(sandbox):
    result = sandbox.run_python(
        "import os, sys\n"
        "print(sys.argv[1:], os.getcwd(), input())\n"
        "print(open('data/in.txt').read())\n"
        "open('out.txt', 'w').write('x' * 10)\n"
        "print(os.path.getsize('/tmp/out.txt'))\n",
        stdin="hello\n", args=["a", "b"], files={"data/in.txt": "file content"})
    assert isinstance(result, RunResult)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["['a', 'b'] /tmp hello", "file content", "10"]
    assert not (result.timed_out or result.memory_exceeded or result.output_truncated)
    assert result.signal is None and result.duration_s > 0


@needs_bwrap
def test_environment_is_empty_but_for_a_minimal_set(sandbox, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-should-never-leak")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    result = sandbox.run_python("import os, json; print(json.dumps(dict(os.environ)))")
    import json
    env = json.loads(result.stdout)
    assert set(env) <= {"PATH", "LANG", "HOME", "TMPDIR", "PWD"}
    assert env["HOME"] == "/tmp"
    assert "sk-test" not in result.stdout


@needs_bwrap
def test_filesystem_is_read_only_outside_tmp_and_hides_home_project_and_proc(sandbox, tmp_path):
    project = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    result = sandbox.run_python(
        "import os\n"
        "for p in ['/x', '/usr/x', '/dev/x', '/sandbox/x', '/dev/shm/x']:\n"
        "    try:\n"
        "        open(p, 'w').write('x'); print('WROTE', p)\n"
        "    except OSError as e:\n"
        "        print('no', p, e.errno)\n"
        f"for p in [{project!r}, os.path.expanduser('~root'), '/home', '/etc', '/proc/self', {str(tmp_path)!r}]:\n"
        "    print('exists' if os.path.exists(p) else 'absent', p)\n")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["no"] * 5 + ["absent"] * 6, result.stdout


@needs_bwrap
def test_only_the_standard_library_is_importable(sandbox):
    import sysconfig
    site_packages = sysconfig.get_paths()["purelib"]
    # the folder is empty inside, or absent (a virtual environment under /tmp: the sandbox's /tmp is its own)
    result = sandbox.run_python(f"import os, json, typing\np = {site_packages!r}\n"
                                "print(os.listdir(p) if os.path.exists(p) else [])\nimport pytest\n")
    assert result.stdout.strip() == "[]" and "ModuleNotFoundError: No module named 'pytest'" in result.stderr


@needs_bwrap
def test_timeout_kills_the_program(sandbox):
    started = time.perf_counter()
    result = sandbox.run_python("while True:\n    pass\n", timeout_s=1)
    assert result.timed_out and result.returncode is None and result.signal == 9
    assert 0.9 < time.perf_counter() - started < 10


@needs_bwrap
def test_memory_limit(sandbox):
    result = sandbox.run_python("blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 2**20))\n",
                                memory_mb=200, timeout_s=20)
    assert result.memory_exceeded and result.returncode == 1 and not result.timed_out


@needs_bwrap
def test_output_is_capped_and_marked(sandbox):
    result = sandbox.run_python("import sys\nsys.stdout.write('x' * 5_000_000)\nprint('end', file=sys.stderr)")
    assert result.output_truncated and result.returncode == 0
    assert len(result.stdout) == runner.OUTPUT_LIMIT and result.stderr.strip() == "end"


@needs_bwrap
def test_exit_code_and_uncaught_exception(sandbox):
    assert sandbox.run_python("import sys; sys.exit(7)").returncode == 7
    result = sandbox.run_python("def f():\n    raise KeyError('k')\nf()\n")
    assert result.returncode == 1
    assert "KeyError: 'k'" in result.stderr and 'File "/sandbox/main.py", line 3' in result.stderr
    assert "<string>" not in result.stderr   # the launcher's own frame is not shown


@needs_bwrap
def test_killed_by_signal_is_reported(sandbox):
    result = sandbox.run_python("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n")
    assert result.returncode is None and result.signal == 15


@needs_bwrap
def test_threads_work_but_processes_do_not(sandbox):
    result = sandbox.run_python(
        "import os, threading, concurrent.futures as cf\n"
        "with cf.ThreadPoolExecutor(4) as ex:\n    print(sum(ex.map(abs, range(-5, 5))))\n"
        "try:\n    os.fork()\nexcept OSError as e:\n    print('fork', e.errno)\n")
    assert result.stdout.split() == ["25", "fork", "1"], result.stderr


@needs_bwrap
def test_canary_passes_here(sandbox):
    sandbox.canary()


def test_canary_raises_sandbox_error_when_the_sandbox_is_broken(tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    broken = Sandbox(bwrap=str(fake))
    with pytest.raises(SandboxError, match="failed to start.*Permission denied"):
        broken.run_python("print(1)")
    with pytest.raises(SandboxError, match="canary"):
        broken.canary()
    assert issubclass(SandboxError, InfraError)


def test_a_program_printing_like_bwrap_is_not_an_infrastructure_error(bare):
    # only the launcher's start byte decides whether the sandbox broke, never the program's output
    result = bare.run_python("import sys\nprint('bwrap: setting up uid map: Permission denied', file=sys.stderr)\n"
                             "sys.exit(1)")
    assert result.returncode == 1


# ---------------------------------------------------------------------------------------- no bwrap

def test_without_bwrap_the_sandbox_refuses_unless_allowed():
    with pytest.raises(SandboxError, match=r"bubblewrap \(bwrap\) not found"):
        Sandbox(bwrap="")
    assert Sandbox(allow_unsandboxed=True, bwrap="").unsandboxed


def test_unsandboxed_mode_runs_with_limits_and_a_clean_env(bare, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-should-never-leak")
    assert bare.unsandboxed and bare.mode == "unsandboxed"
    result = bare.run_python("import os, sys\nprint(sorted(os.environ), sys.flags.isolated, open('f.txt').read(), "
                             "sys.argv[1], input())", files={"f.txt": "F"}, args=["A"], stdin="IN")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['HOME', 'LANG', 'PATH', 'TMPDIR'] 1 F A IN"
    timed = bare.run_python("while True:\n    pass\n", timeout_s=1)
    assert timed.timed_out and timed.signal == 9
    memory = bare.run_python("x = bytearray(4 * 2**30)", memory_mb=256)
    assert memory.memory_exceeded
    bare.canary()


def test_the_sandbox_setting_is_passed_in_not_kept(monkeypatch):
    monkeypatch.setattr(runner, "find_bwrap", lambda: None)
    monkeypatch.setattr(runner, "_sandboxes", {})
    assert unavailable_reason() == SKIP_REASON and "bwrap" in SKIP_REASON and "--crucible-allow-unsandboxed" in SKIP_REASON
    assert sandbox_mode() == "unavailable"
    with pytest.raises(SandboxError):
        get_sandbox()
    assert unavailable_reason(allow_unsandboxed=True) is None and sandbox_mode(True) == "unsandboxed"
    assert get_sandbox(allow_unsandboxed=True).unsandboxed
    # nothing was remembered: the next caller without the setting still gets no sandbox
    assert unavailable_reason() == SKIP_REASON
    with pytest.raises(SandboxError):
        get_sandbox()


def test_invalid_arguments_are_refused(bare):
    with pytest.raises(ValueError):
        bare.run_python("pass", files={"../escape.txt": "x"})
    with pytest.raises(ValueError):
        bare.run_python("pass", timeout_s=0)


# ---------------------------------------------------------------------------------------- seccomp

def test_seccomp_filter_is_well_formed():
    prog = fork_filter("x86_64")
    assert prog is not None and len(prog) % 8 == 0
    instructions = [struct.unpack("=HBBI", prog[i:i + 8]) for i in range(0, len(prog), 8)]
    # every jump stays inside the program, and it ends in a return
    for n, (code, jt, jf, _) in enumerate(instructions):
        if code & 0x07 == 0x05:
            assert n + 1 + max(jt, jf) < len(instructions)
    assert instructions[-1][0] == 0x06
    strict = fork_filter("x86_64", no_signal_handlers=True)
    assert len(strict) == len(prog) + 16
    assert fork_filter("aarch64") is not None and fork_filter("mips") is None
