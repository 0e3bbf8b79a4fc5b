"""The per-endpoint lock: speed items exclusive, accuracy items of local models shared, across processes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from pytest_crucible.common import filelocks as locks
from pytest_crucible.engine.config import ModelSpec, Provider
from pytest_crucible.engine.endpoint_lock import (
    EXCLUSIVE,
    SHARED,
    EndpointHolds,
    endpoint_key,
    item_lock,
    mode_for,
)

pytestmark = pytest.mark.skipif(locks.fcntl is None, reason="shared locks need fcntl (POSIX)")

HOLDER = textwrap.dedent("""
    import sys, time
    from pytest_crucible.engine.endpoint_lock import endpoint_lock
    name, mode, hold, log = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    with open(log, "a") as f:
        f.write(f"{name} try {time.monotonic()}\\n")
    with endpoint_lock("http://127.0.0.1:1234/v1", mode):
        with open(log, "a") as f:
            f.write(f"{name} in {time.monotonic()}\\n")
        time.sleep(hold)
        with open(log, "a") as f:
            f.write(f"{name} out {time.monotonic()}\\n")
""")


@pytest.fixture
def lock_dir(tmp_path, monkeypatch):
    folder = tmp_path / "locks"
    monkeypatch.setenv(locks.LOCK_DIR_ENV, str(folder))
    return folder


def start(name: str, mode: str, hold: float, log: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", HOLDER, name, mode, str(hold), str(log)],
                            env=dict(os.environ), cwd=str(Path(__file__).resolve().parent.parent))


def events(log: Path) -> dict[str, tuple[float, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in log.read_text().splitlines():
        name, what, t = line.split()
        if what != "try":
            out.setdefault(name, {})[what] = float(t)
    return {n: (e["in"], e["out"]) for n, e in out.items()}


def wait_for(log: Path, text: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text():
            return
        time.sleep(0.01)
    raise AssertionError(f"{text!r} never appeared in {log}")


def finish(*procs: subprocess.Popen) -> None:
    for p in procs:
        assert p.wait(30) == 0


def test_exclusive_keeps_shared_out(lock_dir, tmp_path):
    log = tmp_path / "log"
    speed = start("speed", EXCLUSIVE, 0.6, log)
    wait_for(log, "speed in")
    accuracy = start("accuracy", SHARED, 0.0, log)
    finish(speed, accuracy)
    ev = events(log)
    assert ev["accuracy"][0] >= ev["speed"][1]


def test_shared_holders_overlap(lock_dir, tmp_path):
    log = tmp_path / "log"
    one = start("one", SHARED, 1.0, log)
    wait_for(log, "one in")
    two = start("two", SHARED, 0.0, log)
    wait_for(log, "two out")
    assert "one out" not in log.read_text()  # two came and went while one still held its shared lock
    finish(one, two)


def test_speed_item_is_not_starved_by_a_stream_of_accuracy_items(lock_dir, tmp_path):
    """Reader holds; a writer queues; a later reader must wait for the writer, not slip in before it."""
    log = tmp_path / "log"
    reader1 = start("reader1", SHARED, 0.8, log)
    wait_for(log, "reader1 in")
    writer = start("writer", EXCLUSIVE, 0.3, log)
    wait_for(log, "writer try")
    time.sleep(0.15)  # the writer is now waiting (holding the gate) for reader1 to finish
    assert "writer in" not in log.read_text()
    reader2 = start("reader2", SHARED, 0.0, log)
    finish(reader1, writer, reader2)
    ev = events(log)
    assert ev["writer"][0] >= ev["reader1"][1]
    assert ev["reader2"][0] >= ev["writer"][1]


def test_a_process_shared_hold_is_joined_and_still_lets_a_queued_writer_in_first(lock_dir, tmp_path):
    """One process's accuracy items join one shared hold (a second comes and goes while the first holds),
    yet once a writer (a speed item, another process) waits at the gate, a later item of the process waits
    for the writer instead of joining the hold before it."""
    log = tmp_path / "log"
    hold = EndpointHolds().of("http://127.0.0.1:1234/v1")

    def reader(name: str, seconds: float) -> threading.Thread:
        def run() -> None:
            with hold.held():
                with open(log, "a") as f:
                    f.write(f"{name} in {time.monotonic()}\n")
                time.sleep(seconds)
                with open(log, "a") as f:
                    f.write(f"{name} out {time.monotonic()}\n")
        thread = threading.Thread(target=run)
        thread.start()
        return thread

    first = reader("reader1", 0.8)
    wait_for(log, "reader1 in")
    second = reader("reader2", 0.0)
    wait_for(log, "reader2 out")
    assert "reader1 out" not in log.read_text()  # joined the hold while reader1 held it
    writer = start("writer", EXCLUSIVE, 0.3, log)
    wait_for(log, "writer try")
    time.sleep(0.15)  # the writer now holds the gate, waiting for the hold to end
    assert "writer in" not in log.read_text()
    third = reader("reader3", 0.0)
    for thread in (first, second, third):
        thread.join(30)
    finish(writer)
    ev = events(log)
    assert ev["writer"][0] >= ev["reader1"][1]
    assert ev["reader3"][0] >= ev["writer"][1]
    with hold.held():   # the hold ended with its callers: a new one starts (and ends) cleanly
        pass


def test_two_speed_items_never_overlap(lock_dir, tmp_path):
    log = tmp_path / "log"
    procs = [start(f"s{i}", EXCLUSIVE, 0.2, log) for i in range(3)]
    finish(*procs)
    spans = sorted(events(log).values())
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


def test_modes_and_keys(lock_dir):
    assert mode_for(True, local=False) == EXCLUSIVE and mode_for(True, local=True) == EXCLUSIVE
    assert mode_for(False, local=True) == SHARED and mode_for(False, local=False) is None
    local = ModelSpec("m", "m", Provider("p", "http://127.0.0.1:1234/v1/"))
    assert endpoint_key(local) == "http://127.0.0.1:1234/v1"
    assert endpoint_key(ModelSpec("x", "x", None, launch={"package": "p"})) == "local:x"
    with item_lock(local) as held:
        assert held.mode == SHARED
    with item_lock(local, exclusive=True) as held:
        assert held.mode == EXCLUSIVE
    hosted = ModelSpec("h", "h", Provider("p", "https://api.example.com/v1"))
    with item_lock(hosted) as held:
        assert held.mode is None
    assert any(p.suffix == ".lock" for p in lock_dir.iterdir())
