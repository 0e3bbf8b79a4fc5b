"""rows.jsonl's write path: each row reaches the operating system as it is appended (a killed process loses
none), and the disk within the sync interval, on a thread of its own (the run never waits for the disk)."""

from __future__ import annotations

import json
import os
import threading
import time

from pytest_crucible.results import store as store_module
from pytest_crucible.results.row import Row
from pytest_crucible.results.store import RunStore, read_rows, row_line
from pytest_crucible.suite.case import Case


def a_row(i: int, **changes) -> Row:
    case = Case(id=f"C{i:03d}", category="math", difficulty="easy", messages=({"role": "user", "content": "q"},),
                grader={"type": "numeric", "answer": 1})

    class Model:
        name, model_id, provider, max_tokens, reasoning_budget, params, thinking = "m", "m", None, None, None, {}, False

        def cost(self, prompt, completion):
            return 0.0

    row = Row.begin(case, Model()).settle("passed")
    for key, value in changes.items():
        setattr(row, key, value)
    return row


def test_a_row_is_in_the_file_as_append_returns_before_any_sync(tmp_path, monkeypatch):
    synced = []
    monkeypatch.setattr(store_module.os, "fsync", lambda fd: synced.append(time.monotonic()))
    store = RunStore(tmp_path, "run-1", sync_interval_s=60.0)
    try:
        for i in range(3):
            store.append(a_row(i))
            # another reader (a resumed run after a SIGKILL) sees it now: it is in the OS, not a buffer
            assert [r["case_id"] for r in read_rows(tmp_path / "run-1")] == [f"C{j:03d}" for j in range(i + 1)]
    finally:
        store.close()
    assert synced, "close() syncs the last rows"


def test_rows_are_synced_within_the_interval_on_another_thread(tmp_path, monkeypatch):
    real_fsync = os.fsync
    synced: list[tuple[float, str]] = []

    def fsync(fd):
        synced.append((time.monotonic(), threading.current_thread().name))
        real_fsync(fd)

    monkeypatch.setattr(store_module.os, "fsync", fsync)
    store = RunStore(tmp_path, "run-1", sync_interval_s=0.05)
    try:
        appended = time.monotonic()
        store.append(a_row(1))
        deadline = time.monotonic() + 5
        while not synced and time.monotonic() < deadline:
            time.sleep(0.005)
        assert synced and synced[0][1] == "crucible-rows-sync"
        assert synced[0][0] - appended < 1.0
        for i in range(50):  # a burst: far fewer syncs than rows
            store.append(a_row(i))
        time.sleep(0.2)
        assert 1 < len(synced) < 20
    finally:
        store.close()
    assert synced[-1][1] == threading.current_thread().name  # the last sync is close()'s own


def test_interval_zero_syncs_each_row_before_append_returns(tmp_path, monkeypatch):
    synced = []
    monkeypatch.setattr(store_module.os, "fsync", lambda fd: synced.append(fd))
    store = RunStore(tmp_path, "run-1", sync_interval_s=0)
    store.append(a_row(1))
    assert len(synced) == 1
    store.append(a_row(2))
    assert len(synced) == 2
    store.close()


def test_the_line_written_is_the_rows_json_with_nan_as_null(tmp_path):
    row = a_row(1, wall_s=float("nan"), timings={"ttft_s": float("inf"), "e2e_s": 0.5})
    data = json.loads(row_line(row.to_dict()))
    assert data["wall_s"] is None and data["timings"] == {"ttft_s": None, "e2e_s": 0.5}
    plain = a_row(2).to_dict()  # one row: two would carry two clock readings
    assert row_line(plain) == (json.dumps(plain, ensure_ascii=False) + "\n").encode()
    store = RunStore(tmp_path, "run-1")
    store.append(row, row.to_dict())
    store.close()
    assert read_rows(tmp_path / "run-1")[0]["timings"]["ttft_s"] is None
