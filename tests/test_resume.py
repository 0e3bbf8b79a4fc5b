"""--crucible-resume: a run killed (even by SIGKILL) continues where it stopped, asking nothing twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from loopback import Reply

from pytest_crucible.results.store import read_rows

N = 12
CASES = textwrap.dedent(f"""\
    def cases():
        return [{{"id": f"R{{i:02d}}", "category": "math", "difficulty": "easy",
                  "prompt": f"Question {{i:02d}}: what is {{i}} + {{i}}? End with 'Answer: N'.",
                  "grader": {{"type": "numeric", "answer": 2 * i}}}} for i in range({N})]
    """)


def models_yaml(base_url: str) -> str:
    return textwrap.dedent(f"""\
        providers:
          loop: {{base_url: "{base_url}", max_retries: 0, timeout: 20}}
        models:
          - {{name: m1, provider: loop, model_id: m1}}
        """)


def right_answer(request: dict):
    text = request["messages"][-1]["content"]
    return Reply(f"Answer: {2 * int(text.split()[1].rstrip(':'))}")


@pytest.fixture
def project(pytester, loopback):
    pytester.makefile(".yaml", models=models_yaml(loopback.base_url))
    (pytester.path / "math").mkdir()
    (pytester.path / "math" / "resume_cases.py").write_text(CASES)
    loopback.script(handler=right_answer)
    return pytester


def run(pytester, *args):
    return pytester.runpytest("-p", "no:cacheprovider", "--models", "m1", "--crucible-no-builtin-cases", "math", *args)


def asked(loopback) -> list[str]:
    return [r.body["messages"][-1]["content"].split(":")[0] for r in loopback.chat_requests]


def rows_file(pytester):
    return pytester.path / "crucible-results" / "latest" / "rows.jsonl"


def run_and_kill(pytester, rows: int, timeout: float, poll: float) -> None:
    """A run of the math folder in a process group of its own, SIGKILLed once rows.jsonl has `rows` lines."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--models", "m1",
               "--crucible-no-builtin-cases", "math", "-q"]
    proc = subprocess.Popen(command, cwd=pytester.path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        path = rows_file(pytester)
        if path.is_file() and len(path.read_bytes().splitlines()) >= rows:
            break
        time.sleep(poll)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def test_resume_asks_only_what_has_no_final_row_and_reports_everything(project, loopback):
    loopback.fault(500, times=None, message="overloaded")
    first = run(project, "-k", "R00 or R01 or R02 or R03")   # four items, all errors
    assert first.parseoutcomes()["errors"] == 4
    loopback.clear_faults()
    run(project, "--crucible-resume", "-k", "R00 or R01 or R02 or R03 or R04 or R05")
    assert sorted(asked(loopback)[-6:]) == [f"Question {i:02d}" for i in range(6)]  # errors asked again
    run_id = json.loads((rows_file(project).parent / "report.json").read_text())["meta"]["run_id"]
    loopback.reset()
    result = run(project, "--crucible-resume")
    result.assert_outcomes(passed=N)            # the finished items are there, as passed
    assert sorted(asked(loopback)) == [f"Question {i:02d}" for i in range(6, N)]
    report = json.loads((rows_file(project).parent / "report.json").read_text())
    assert report["meta"]["run_id"] == run_id    # the same run, continued
    assert report["models"]["m1"]["total"] == {**report["models"]["m1"]["total"], "passed": N, "errors": 0, "n": N}
    rows = read_rows(rows_file(project))
    assert len(rows) == 4 + N                    # four old error rows stay in the file, appended after
    assert sorted(r["case_id"] for r in rows if r["outcome"] == "passed") == [f"R{i:02d}" for i in range(N)]


def test_a_changed_case_is_asked_again(project, loopback):
    run(project, "-k", "R03")
    path = project.path / "math" / "resume_cases.py"
    path.write_text(CASES.replace("Question {i:02d}:", "Question {i:02d}: (reworded)"))
    loopback.reset()
    result = run(project, "--crucible-resume", "-k", "R03")
    result.assert_outcomes(passed=1)
    assert asked(loopback) == ["Question 03"]
    rows = read_rows(rows_file(project))
    assert len(rows) == 2 and rows[0]["case_hash"] != rows[1]["case_hash"]
    report = json.loads((rows_file(project).parent / "report.json").read_text())
    assert report["models"]["m1"]["total"]["n"] == 1   # the latest row of the item counts, once


def test_resuming_a_finished_run_rebuilds_its_report_and_asks_nothing(project, loopback):
    run(project, "-k", "R00 or R01")
    report_file = rows_file(project).parent / "report.json"
    report_file.unlink()
    loopback.reset()
    result = run(project, "--crucible-resume", "-k", "R00 or R01")
    result.assert_outcomes(passed=2)
    assert asked(loopback) == []
    assert json.loads(report_file.read_text())["models"]["m1"]["total"]["passed"] == 2
    result.stdout.fnmatch_lines(["*crucible summary*"])


def test_a_resumed_run_keeps_when_it_started_and_what_it_selected(project, loopback):
    run(project, "-k", "R00 or R01")
    meta_file = rows_file(project).parent / "meta.json"
    first = json.loads(meta_file.read_text())
    time.sleep(1.1)  # meta.json's times are to the second
    run(project, "--crucible-resume", "-k", "R02")
    meta = json.loads(meta_file.read_text())
    assert meta["started_at"] == first["started_at"] and meta["selection"] == first["selection"]
    assert meta["selection"]["-k"] == "R00 or R01" and meta["resumed_selection"]["-k"] == "R02"
    assert meta["resumed_at"] > first["started_at"]


def test_resume_needs_a_run_to_continue(project):
    result = run(project, "--crucible-resume")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--crucible-resume: no run to continue in crucible-results*"])


def test_sigkill_mid_run_then_resume_loses_nothing_and_repeats_nothing(project, loopback):
    loopback.script(handler=lambda body: Reply(right_answer(body).content, first_token_delay=0.25))
    run_and_kill(project, rows=N // 2, timeout=60, poll=0.02)
    written = {r["case_id"] for r in read_rows(rows_file(project))}
    assert N // 2 <= len(written) < N
    settled(loopback)  # a request the killed run was sending may still land: not one the resumed run asks
    loopback.reset()
    result = run(project, "-q", "--crucible-resume")  # the killed run was a process of its own; this one needs none
    assert result.ret == 0, result.stdout.str()[-2000:]
    rows = read_rows(rows_file(project))
    assert len(rows) == N and len({r["case_id"] for r in rows}) == N   # all there, no duplicates
    again = [f"R{int(q.split()[1]):02d}" for q in asked(loopback)]
    assert sorted(again) == sorted({f"R{i:02d}" for i in range(N)} - written)  # only what had no row, once


def test_resume_says_what_it_keeps_and_what_it_asks(project, loopback):
    run(project, "-k", "R00 or R01 or R02")
    run_id = rows_file(project).resolve().parent.name
    result = run(project, "--crucible-resume", "-k", "R00 or R01 or R02 or R03 or R04")
    result.stdout.fnmatch_lines([f"crucible: resuming {run_id}: 3 rows kept, 2 items to ask"])
    spread = project.runpytest_subprocess("-p", "no:cacheprovider", "--models", "m1", "--crucible-no-builtin-cases",
                                          "math", "--crucible-resume", "-n", "2")
    spread.stdout.fnmatch_lines([f"crucible: resuming {run_id}: 5 rows kept, 7 items to ask"])
    assert spread.stdout.str().count("crucible: resuming") == 1


def test_resume_refuses_a_run_a_live_process_writes_and_takes_over_a_dead_ones(project, loopback):
    from pytest_crucible.results.store import HOLDER_FILE, hold_run_dir
    run(project, "-k", "R00")
    run_dir = rows_file(project).resolve().parent
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from pytest_crucible.results.store import "
                               f"hold_run_dir; from pathlib import Path; lock = hold_run_dir(Path({str(run_dir)!r})); "
                               "print('held', flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        assert holder.stdout.readline().strip() == "held"
        loopback.reset()
        result = project.runpytest_subprocess("-p", "no:cacheprovider", "--models", "m1", "--crucible-no-builtin-cases",
                                              "math", "--crucible-resume")
        assert result.ret == 2 and asked(loopback) == []
        assert f"is still being written by process {holder.pid}" in result.stderr.str() + result.stdout.str()
    finally:
        holder.kill()
        holder.wait()
    assert (run_dir / HOLDER_FILE).read_text().strip() == str(holder.pid)  # the dead holder's stale record
    result = run(project, "--crucible-resume", "-k", "R00 or R01")     # taken over
    result.assert_outcomes(passed=2)
    assert asked(loopback) == ["Question 01"]
    hold_run_dir(run_dir).release()  # free again once the run ended


def test_sigkill_with_many_requests_in_flight_leaves_no_torn_row_and_resume_asks_each_item_once(pytester, loopback):
    """Rows are written as items end and synced to the disk later, on a thread (results/store.py): a killed
    process still loses no row it wrote. Killed with 16 requests in flight and rows arriving fast, the file
    has no damaged line, and the resumed run asks exactly the items without a row, once each."""
    n = 96
    pytester.makefile(".yaml", models=models_yaml(loopback.base_url).replace("max_retries: 0", "concurrency: 16, "
                                                                                              "max_retries: 0"))
    (pytester.path / "math").mkdir()
    (pytester.path / "math" / "resume_cases.py").write_text(CASES.replace(f"range({N})", f"range({n})"))
    loopback.script(handler=lambda body: Reply(right_answer(body).content, first_token_delay=0.05))
    run_and_kill(pytester, rows=n // 3, timeout=120, poll=0.005)
    damaged: list[str] = []
    written = {r["case_id"] for r in read_rows(rows_file(pytester), warn=damaged.append)}
    assert not damaged
    assert n // 3 <= len(written) < n
    # the killed run's last requests may still be on their way into the server: let them land before counting
    quiet = time.monotonic() + 10
    while (loopback.in_flight or len(loopback.chat_requests) != settled(loopback)) and time.monotonic() < quiet:
        time.sleep(0.05)
    loopback.reset()
    result = run(pytester, "-q", "--crucible-resume")
    assert result.ret == 0, result.stdout.str()[-2000:]
    rows = read_rows(rows_file(pytester), warn=damaged.append)
    assert not damaged
    assert len(rows) == n and len({r["case_id"] for r in rows}) == n
    again = [f"R{int(q.split()[1]):02d}" for q in asked(loopback)]
    assert sorted(again) == sorted({f"R{i:02d}" for i in range(n)} - written)


def settled(loopback) -> int:
    """How many requests the server has, once 0.3 s pass without a new one."""
    while True:
        count = len(loopback.chat_requests)
        time.sleep(0.3)
        if len(loopback.chat_requests) == count:
            return count
