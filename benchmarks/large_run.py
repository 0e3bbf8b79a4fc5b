"""The 100,000-row case of `python benchmarks/report_html.py --large`: a nightly run of 10 models x 1,000
cases x 10 repeats (tests/synthetic_run.py, about 500 MB of rows.jsonl) beside a small one (3 x 60), read
the ways a user reads them, each in a process of its own as a user starts it:

  - `crucible report BIG`: wall time and peak RSS (os.wait4's rusage of that child alone);
  - `crucible gui`: the run list (the first load, then later loads), the big run's page (each time after
    report.json is touched, so the page is rendered again, not served from the cache), the small run's page
    alone and while the big one is rendering (the per-run locks: it must not wait for the big one), and
    the server's peak RSS;
  - `crucible compare BIG BIG` (both sides read): wall time and peak RSS.

Times are medians of --runs tries, wall and CPU (user + system of the process that did the work: on a
shared 2-core machine the wall time says as much about the neighbours as about the code). The last column
is each median against the issue's target; a target is met when the wall or CPU median meets it.

Where the time went before (cProfile and peak RSS of `crucible report` on the same rows, 47 s, 1.5 GB): a
dict copy of every row (dataclasses.asdict, a deep copy) for the page, 55% of the time; every reply held
in memory, twice over; rows turned into Row objects twice (aggregate and page), each line's shape checked
field by field in Python, with a new JSON decoder made for every line. The run list re-read
every row of a run without a fresh report.json on every load; one lock serialised every page's render.

Where it goes now (session 9; the phases timed in process, CPU s with the machine at load 8-11): reading
rows.jsonl 4.0 s, of which json's C scanner is about 2.4 (24 us a line: 5 for the reply and reasoning
texts, the rest the ~60 small values around them), making the lean Rows about 1 and the shape check,
clipping and bookkeeping the rest; aggregate 0.8, report.json 0.4 (json's indenting encoder), the page
1.1 (matplotlib's five charts 0.6) plus 0.4 importing matplotlib. What came off (same machine, same load,
old and new code interleaved, medians of 3):
  - a Row made from keyword names that are the class's own strings: CPython matches those by identity,
    json's names letter by letter (Row(**values) 7.3 -> 3.6 us); what to take from, share in and fill
    into a row worked out once per field list (results/lean_rows.py), not per row;
  - the texts clipped only for rows the page's lists can still show (the first 10,000 per list by model
    and case: 78% of the rows' texts never made, and 70 MB less);
  - _tally and the model totals in one pass each instead of eight; report.json dumped without the NaN
    walk when it holds none (it is retried with it if json refuses);
  - the run list: a run without report.json is counted for at most COUNT_BUDGET_S (0.5 s) per load and
    the rest on a thread (the list says "counting rows"), each line counted from its fields without a
    Row (3.4 -> 2.0 s CPU for the whole count).
  `crucible report` CPU 8.95 -> 7.60 s and wall 25.9 -> 19.4 s at load 10, 7.48 -> 6.35 s and
  15.7 -> 11.0 s at load 3-5; peak RSS 383 -> 310 MB; the big run's page (the GUI's render, in process)
  CPU 6.8 -> 5.6 s at load 10, 5.85 -> 5.01 s at load 3-5; counting the big run's rows for the run list
  3.5 -> 1.9 s CPU, and the list's first load 7.9 -> 0.6 s wall. This benchmark at load 3-8: report
  6.4 s CPU (7.6 wall), 310 MB; the page 5.1 s CPU; compare 6.5 s CPU.
  Every report byte-identical to the old code's but for the written time (checked on these rows).
Tried and left out: orjson parses these lines in half the time (12 against 25 us a line), but reads an
integer past 64 bits as a float without a word (a graded answer can be one), and telling such a line
apart (a regular expression for 19 digits) costs more than it saves; a shape check cached per field
signature saved nothing at these rows' 25 fields.
"""

from __future__ import annotations

import json
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from synthetic_run import write_run  # noqa: E402

BIG, SMALL = "20250102-120000-big", "20250101-120000-small"
TARGETS = {"report_s": 10.0, "report_mb": 500.0, "list_s": 1.0, "page_s": 10.0}
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
CLI = [sys.executable, "-m", "pytest_crucible.apps.cli"]


def child(*args: str) -> tuple[float, float, float]:
    """(wall s, peak RSS MB, CPU s) of `crucible ARGS` in a process of its own."""
    start = time.perf_counter()
    proc = subprocess.Popen([*CLI, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):  # compare exits 1 when its gate fails: still a measurement
        raise SystemExit(f"crucible {' '.join(args)} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """`crucible gui RESULTS` in a child process."""

    def __init__(self, results: Path):
        self.port = free_port()
        self.proc = subprocess.Popen([*CLI, "gui", str(results), "--port", str(self.port)], env=ENV,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.2)
        raise SystemExit("crucible gui did not start")

    def get(self, path: str, cpu: list[float] | None = None) -> float:
        """Wall seconds of one request; its CPU seconds in the server appended to `cpu`."""
        before, start = self.cpu_s(), time.perf_counter()
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=600) as resp:
            resp.read()
        wall = time.perf_counter() - start
        if cpu is not None:
            cpu.append(self.cpu_s() - before)
        return wall

    def cpu_s(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def peak_mb(self) -> float:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        found = re.search(r"VmHWM:\s+(\d+) kB", status)
        return int(found.group(1)) / 1024 if found else float("nan")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def touch(path: Path) -> None:
    """A newer mtime: the GUI renders the page again instead of serving it from its cache."""
    now = time.time()
    os.utime(path, (now, now))


def list_without_report(results: Path, runs: int) -> tuple[float, float]:
    """(first, later) run-list loads while the big run has no report.json: its rows are counted once."""
    server = Server(results)
    try:
        first = server.get("/")
        return first, statistics.median(server.get("/") for _ in range(runs))
    finally:
        server.stop()


def gui_times(results: Path, runs: int) -> dict[str, list[float]]:
    server = Server(results)
    out: dict[str, list[float]] = {"list_first": [], "list": [], "page": [], "small": [], "small_during": [],
                                   "big_during": [], "peak_mb": [], "page_cpu": [], "small_cpu": []}
    try:
        out["list_first"].append(server.get("/"))
        out["list"] += [server.get("/") for _ in range(runs)]
        for _ in range(runs):
            touch(results / BIG / "report.json")
            out["page"].append(server.get(f"/runs/{BIG}", out["page_cpu"]))
            touch(results / SMALL / "report.json")
            out["small"].append(server.get(f"/runs/{SMALL}", out["small_cpu"]))
            touch(results / BIG / "report.json")
            touch(results / SMALL / "report.json")
            thread = threading.Thread(target=lambda: out["big_during"].append(server.get(f"/runs/{BIG}")))
            thread.start()
            time.sleep(1.0)  # the big page is being rendered
            out["small_during"].append(server.get(f"/runs/{SMALL}"))
            thread.join()
        out["peak_mb"].append(server.peak_mb())
    finally:
        server.stop()
    return out


def large_case(tmp: Path, runs: int) -> bool:
    results = tmp / "results"
    start = time.perf_counter()
    big = write_run(results, BIG, models=10, cases=1000, repeats=10)
    small = write_run(results, SMALL, models=3, cases=60)
    with open(big / "rows.jsonl", "rb") as fh:
        rows = sum(1 for _ in fh)
    print(f"wrote {rows:,} rows ({(big / 'rows.jsonl').stat().st_size / 1e6:.0f} MB) in "
          f"{time.perf_counter() - start:.0f} s; medians of {runs} tries", flush=True)
    unreported = list_without_report(results, runs)
    child("report", str(small))
    report = [child("report", str(big)) for _ in range(runs)]
    model = sorted(json.loads((big / "report.json").read_text())["models"])[0]
    compare = [child("compare", str(big), str(big), "--base-model", model, "--new-model", model)
               for _ in range(runs)]
    gui = gui_times(results, runs)

    def med(values: list[float]) -> float:
        return statistics.median(values)

    # (label, median, target, what the target is for: met when the wall or the CPU median meets it)
    lines = [("crucible report: wall s", med([w for w, _, _ in report]), TARGETS["report_s"], "report"),
             ("crucible report: CPU s", med([c for _, _, c in report]), TARGETS["report_s"], "report"),
             ("crucible report: peak RSS MB", med([m for _, m, _ in report]), TARGETS["report_mb"], "rss"),
             ("gui run list, no report.json: first s", unreported[0], None, ""),
             ("gui run list, no report.json: later s", unreported[1], TARGETS["list_s"], "list0"),
             ("gui run list: first load s", med(gui["list_first"]), TARGETS["list_s"], "list1"),
             ("gui run list: later loads s", med(gui["list"]), TARGETS["list_s"], "list2"),
             ("gui big run's page s", med(gui["page"]), TARGETS["page_s"], "page"),
             ("gui big run's page: CPU s", med(gui["page_cpu"]), TARGETS["page_s"], "page"),
             ("gui small run's page alone s", med(gui["small"]), None, ""),
             ("gui small run's page alone: CPU s", med(gui["small_cpu"]), None, ""),
             ("gui small page, big rendering s", med(gui["small_during"]), None, ""),
             ("gui big page, small asked s", med(gui["big_during"]), None, ""),
             ("gui server peak RSS MB", med(gui["peak_mb"]), None, ""),
             ("crucible compare BIG BIG: wall s", med([w for w, _, _ in compare]), None, ""),
             ("crucible compare: CPU s", med([c for _, _, c in compare]), None, ""),
             ("crucible compare: peak RSS MB", med([m for _, m, _ in compare]), None, "")]
    met = {group: False for _, _, _, group in lines if group}
    print(f"{'100,000 rows':<40} {'median':>9} {'of target':>10}")
    for label, value, target, group in lines:
        if target and value <= target:
            met[group] = True
        print(f"{label:<40} {value:>9.2f} {f'{value / target:.0%}' if target else '':>10}")
    ok = all(met.values())
    # not delayed: the small page answered while the big one was still rendering, in a fraction of its time
    waited = med(gui["small_during"]) / med(gui["big_during"])
    ok &= waited < 0.5
    print(f"small page while the big one renders: {waited:.0%} of the big page's time "
          f"({med(gui['small_during']) / med(gui['small']):.1f}x its time alone)")
    print("targets met" if ok else "TARGET MISSED")
    return ok
