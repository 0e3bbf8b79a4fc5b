"""Provider concurrency, resume after SIGKILL and the cost cap, measured side by side in one run.

    python benchmarks/concurrency.py [--items 256] [--delay 1.0] [--concurrency 16] [--rounds 3]

A loopback OpenAI-compatible server (tests/loopback.py, in its own process) answers every request after
`--delay` seconds and counts the requests in flight. Against it:

1. `pytest --models bench` over `--items` cases, provider `concurrency: 16`, no -n: the request phase
   (the server's first request received to its last answer sent) against the ideal
   items x delay / concurrency; the most requests in flight the server saw; the rows graded; start-up
   (launching pytest to the first request) and the peak RSS of the pytest process;
2. the same with `-n 2` (peak RSS of the controlling process only);
3. the same requests from a bare `openai.AsyncOpenAI` and an asyncio semaphore of `concurrency`;
Each of 1-3 runs `--rounds` times; the table shows medians (the most in flight and the peak RSS: the
largest seen).

4. a run SIGKILLed after about half its rows, then `--crucible-resume`: distinct rows, duplicates, and
   requests repeated for rows written before the kill;
5. `--crucible-max-cost=0.01` against priced requests: the recorded cost, the cap, one in-flight batch's
   worst case, and the items skipped.

pytest runs with `-p no:hypothesispytest -p no:benchmark`: those plugins come with the project's dev
extras, not with pytest-crucible, and hypothesis alone takes seconds to import. Start-up is measured
warm, as on a user's second run: one `--collect-only` run first, and the child processes may write
bytecode (PYTHONDONTWRITEBYTECODE is dropped for them; an installed package has its .pyc files).
Targets (issue 9): ratio <= 1.06 with and without -n, never more than `concurrency` in flight, start-up
<= 3 s, peak RSS <= 120 MB.

    python benchmarks/concurrency.py --high [--rounds 3] [--no-xdist]
    python benchmarks/concurrency.py --clients [--rounds 3]

The high-concurrency mode (issue 23): 8,192 items answered after 0.5 s at provider concurrency 256 (ideal
16 s), against benchmarks/fast_loopback.py (one asyncio loop: tests/loopback.py's thread per request would
compete with the client being measured; its own CPU time per request is printed, about 0.5 ms). Each round
runs the bare AsyncOpenAI loop (in a process of its own, so both walls count a process start), pytest, and
pytest -n 2, one after the other; it prints each one's wall (launch to exit) and request phase, both as a
ratio to the bare loop's of the same round, the controlling process's CPU time per item (alone, and with the
processes it waited for), its peak RSS, and how many rows were graded. Target: wall <= 1.25 x the bare loop's.
`--clients` runs the clients alone, sized as --high: the project's ChatClient on one thread per request in
flight (as the run asks) and the bare loop, each in a process of its own, and prints their CPU per request.

Where the time goes (2,048 items of this mode, no -n; CPU seconds by time.thread_time and process_time in a
wrapper around pytest.main, cProfile on the main thread; the shared 2-core machine at load 6-9). Before
(commit abe5c98): main thread 4.65 ms per item in the run loop, the 256 asking threads 5.9 ms, start-up 1.6 s,
the end (report.json, report.html, charts) 1.8 s. Of the main thread (py-spy and yappi): the fsync of every
row about half of its busy samples, Row.to_dict (dataclasses.asdict) 4 times per item, the ask-ahead
looking over the next 512 items again for every item (about 450 Python calls per item), grading. Fixed:
rows are written at once and synced by a thread at most every 0.1 s (results/store.py), a case item's row
dict is made once for its reports and written as it is, Row.to_dict skips deep copies of scalars (3x), the
ask-ahead skips settled items in C with a cursor, an item asked ahead is prepared once. After: main thread
3.1 ms per item (-33 %); what is left of it: pytest's own per-item protocol about 40 % (14 FixtureDef
objects and inspect.signature calls per item for the 7 fixtures of a case item, capture and logging
around each phase, reports), grading about 20 % (grading.get_grader's runtime Protocol isinstance 3 times
per item, request_metrics' quantiles), starting items ahead 9 %, recording 7 %. The asking threads are now
the larger part: 7.0 ms per request (more than before: the main thread holds the GIL less, the 256 threads
contend for it more), spent in the openai package (request building and a pydantic model per streamed
chunk, as in the bare loop) and httpx over 256 threads; the bare AsyncOpenAI loop needs about 5.7 ms per
request in all. With -n 2 each worker runs 256 asking threads of its own and the provider's slots are
shared through file locks: more CPU in all, and slower (one round: 268 s against the bare loop's 86 s).
The slot pool tried every slot another process held, one lock call each, before a free one, per request:
now the slot this process gave back last is tried first (common/filelocks.py). With -n 2, 2,048 items, one
run of each while other tests ran: the CPU of all the run's processes went from 26.0 to 21.0 ms per item and
the request phase from 56.1 to 47.6 s (the walls, 91.6 and 104.9 s, were the busy machine's).

Measured before the change below (8,192 items, 3 rounds, --no-xdist, load 6-9 from other work on the 2
cores): wall median 105.9 s against the bare loop's 102.6 s, 1.03 x; controller CPU 11.1 ms per item against
the bare loop's 6.3 ms (1.74 x). The busy machine flattered the wall ratio: every process got a share of the
2 cores, the bare loop too.

The asking threads were then the larger part: the openai package's per-request work (request building, its
SSE decoding, a pydantic model per streamed chunk) on 256 threads. Side by side, 2,048 requests at 256 in
flight on a quiet machine, CPU per request: the project's client through the openai package 4.3 ms; the same
client speaking HTTP through httpx2 itself (client/transport.py, client/sse.py) 1.7 ms; a bare AsyncOpenAI
loop 2.8-3.0 ms. The client now does that (`--clients`, 8,192 requests, 3 rounds: the ChatClient 1.53 ms
per request and 16.9 s wall, the bare loop 2.73 ms and 23.0 s: 0.56 x its CPU). One round of this mode on
the quiet machine, the code before it against after: the project's wall 55.1 s -> 39.0 s, CPU 6.9 -> 4.9 ms
per item, against the bare loop's 22.3-22.9 s and 2.6-2.7 ms.

Measured after it (8,192 items, 3 rounds, quiet machine, load 1): project wall median 39.0 s against the
bare loop's 22.3 s: 1.75 x; controller CPU 4.9 ms per item against 2.6 ms; with -n 2 42.2 s (1.85 x).

Where that time went (yappi on the CPU clock over every thread, cProfile on the main thread, counts of
lock calls; 4,096 items). The run is bound by the GIL: its wall is about the CPU of all its threads.
- The main thread, 2.0 ms per item: pytest's protocol per case item. Each of its three phases captures
  output (four dup2 calls, and reads that fstat, seek and truncate), sets up logging, and the setup fills
  fixtures (a FixtureDef per `request` a fixture takes). Every system call gives up the GIL and waits for
  it behind 256 asking threads: cProfile had fstat at 100 us on average, and capture at about 1 ms per item.
- The asking threads, 2.6 ms per request (the client alone needs 1.5): httpcore's pool went over all its
  256 connections each time a request started and ended, a sixth of the process's CPU.
- Against a local endpoint (this loopback is one) every request took the endpoint's shared lock: two
  files opened, three flock calls, two closes (sys time 4.7 s of a run; 2.7 s without them).
- The cyclic garbage collector: 3.2 s of a run, mostly its 13 full collections going over every item.
- With -n 2 (60 s after the first fix below): every request woken by another's end looked through
  every slot of the provider, one lock call each, most held by the other worker: about 100,000 failed
  lock calls per worker per 2,048 items.

What changed:
- pytest_plugin/case_protocol.py: a case item asked through the plugin's own fixtures runs without
  pytest's per-phase machinery; the same reports go through pytest_runtest_makereport and logreport
  (main thread 17.7 -> 10.3 s of CPU on 8,192 items);
- client/thread_pools.py: the connections are split into 16 pools by thread (the pool scan went from
  13.8 s to 2.0 s of yappi's 105 s; the ChatClient alone, `--clients`: 1.53 -> 1.0 ms per request);
- filelocks.SharedHold: a process's requests to a local endpoint join one shared hold of its lock while
  no speed item waits at the gate;
- gc.freeze over what collection made, for the run (garbage collection 3.2 -> 2.1 s);
- quantile() takes its one cut point (statistics.quantiles made up to 99), the grader lookup checks the
  concrete BaseGrader before the runtime Protocol, the chunk reader skips the ABC check for dicts;
- with -n, each worker takes the slots of its own block first and borrows another's only through its one
  looking request, which scans less often the longer it finds none; near the end a worker is sent no more
  than its part of what is left.
Measured what flushing each row costs (the row handed to the OS at once, what makes a killed process lose
no row): no difference within the noise, so rows are still flushed one by one.

Measured after these (3 rounds, medians, quiet machine): project wall 25.87 s against the bare loop's
23.02 s: 1.084 x (rounds 1.070, 1.084, 1.158; target 1.25), request phase 0.916 x; every row graded;
controller CPU 3.06 ms per item against 2.73; peak RSS 236 MB (the bare loop 87 MB); 256 in flight. With
-n 2: 32.07 s, 1.393 x (rounds 1.314 to 1.470), 6.1 ms of CPU per item in all its processes.

The 256-item mode after the client change (3 rounds, medians, quiet machine): request phase 1.008 x ideal
without -n and 1.014 x with -n 2 (the bare loop 1.005); whole wall 17.7 s without -n and 18.3 s with -n 2, both
within ideal x 1.06 + 4 s = 21.0 s; start-up 0.55 s and 1.09 s. Before, on the loaded machine: 19.7 s and
23.1 s. After the changes above: 1.006 x and 1.014 x, walls 17.7 s and 18.9 s. (A lane of each worker's
share alone, tried first, gave 1.068 x with -n 2: a worker that fell behind was not made up for.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = ROOT / "tests" / "loopback.py"
FAST_LOOPBACK = ROOT / "benchmarks" / "fast_loopback.py"   # one asyncio loop: keeps up with 256 in flight
STATS_PATH = "/_loopback/stats"
EXTRA_PLUGINS_OFF = ("-p", "no:hypothesispytest", "-p", "no:benchmark", "-p", "no:cacheprovider")
REPLY = "Answer: 42"
PROMPT = "Item {i:04d}: what is 40 + 2? End with 'Answer: N'."  # each case's prompt, and each bare request's

CASES = """\
def cases():
    return [{{"id": f"B{{i:04d}}", "category": "math", "difficulty": "easy", "max_tokens": {max_tokens},
             "prompt": {prompt!r}.format(i=i),
             "grader": {{"type": "numeric", "answer": 42}}}} for i in range({items})]
"""

MODELS = """\
providers:
  loop: {{base_url: "{base_url}", concurrency: {concurrency}, max_retries: 0, timeout: 60}}
models:
  - {{name: bench, provider: loop, model_id: bench, price: {{input: {price_in}, output: {price_out}}}}}
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def loopback(delay: float, server: Path = LOOPBACK):
    """tests/loopback.py (or `server`) in its own process, answering every request after `delay` seconds."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, str(server), "--port", str(port), "--reply", REPLY,
                             "--first-token-delay", str(delay)], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if "loopback endpoint at" not in line:
            raise RuntimeError(f"loopback server did not start: {line!r}")
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait(10)


def stats(base_url: str) -> dict:
    with urllib.request.urlopen(base_url.rsplit("/v1", 1)[0] + STATS_PATH, timeout=10) as response:
        return json.loads(response.read())


def project(folder: Path, base_url: str, args, *, price=(0, 0), max_tokens: int = 16) -> Path:
    (folder / "math").mkdir(parents=True, exist_ok=True)
    (folder / "math" / "bench_cases.py").write_text(CASES.format(items=args.items, max_tokens=max_tokens,
                                                                  prompt=PROMPT))
    (folder / "models.yaml").write_text(MODELS.format(base_url=base_url, concurrency=args.concurrency,
                                                      price_in=price[0], price_out=price[1]))
    return folder


def pytest_command(*extra: str) -> list[str]:
    return [sys.executable, "-m", "pytest", *EXTRA_PLUGINS_OFF, "--models", "bench", "--crucible-no-builtin-cases", "math",
            "-q", *extra]


def environment() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(ROOT), "CRUCIBLE_LOCK_DIR": tempfile.mkdtemp(prefix="crucible-locks-")}


def warm_up(args) -> None:
    """One collection run: bytecode written, files in the page cache."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = project(Path(tmp), "http://127.0.0.1:9/v1", args)
        subprocess.run(pytest_command("--collect-only"), cwd=folder, env=environment(), capture_output=True)


def peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_pytest(folder: Path, *extra: str, kill_after_rows: int | None = None, base_url: str | None = None,
               command: list[str] | None = None) -> dict:
    """Run pytest (or `command`) in `folder`; its start and end time, exit code, the peak RSS and CPU time of
    its (controlling) process, the CPU time of it and every child it waited for, and, given the server's
    `base_url`, the CPU time that process had used when the first request arrived."""
    launched = time.perf_counter()
    output = tempfile.TemporaryFile()  # noqa: SIM115 (read back below): a pipe could fill and stall pytest
    proc = subprocess.Popen(command or pytest_command(*extra), cwd=folder, env=environment(), stdout=output,
                            stderr=subprocess.STDOUT, start_new_session=True)
    peak, startup_cpu, cpu = 0.0, None, None
    rows = folder / "crucible-results" / "latest" / "rows.jsonl"
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            break
        peak = max(peak, peak_rss_mb(proc.pid) or 0.0)
        cpu = cpu_seconds(proc.pid) or cpu
        if base_url is not None and startup_cpu is None and stats(base_url)["chat_count"]:
            startup_cpu = cpu_seconds(proc.pid)
        if kill_after_rows is not None and rows.is_file() and len(rows.read_text().splitlines()) >= kill_after_rows:
            os.killpg(proc.pid, signal.SIGKILL)
            kill_after_rows = None
        time.sleep(0.02)
    ended = time.perf_counter()
    output.seek(0)
    out = output.read().decode("utf-8", "replace")
    output.close()
    return {"launched": launched, "ended": ended, "returncode": proc.returncode, "peak_rss_mb": peak,
            "output": out, "startup_cpu_s": startup_cpu, "cpu_s": cpu,
            "all_cpu_s": usage.ru_utime + usage.ru_stime}


def read_rows(folder: Path) -> list[dict]:
    path = folder / "crucible-results" / "latest" / "rows.jsonl"
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue
    return rows


def concurrency_run(args, *extra: str) -> dict:
    with loopback(args.delay) as base_url, tempfile.TemporaryDirectory() as tmp:
        folder = project(Path(tmp), base_url, args)
        result = run_pytest(folder, *extra, base_url=base_url)
        seen = stats(base_url)
        rows = read_rows(folder)
    if result["returncode"] not in (0, 1):
        raise RuntimeError(f"pytest {' '.join(extra)} exited {result['returncode']}:\n{result['output'][-3000:]}")
    phase = seen["last_done"] - seen["first_received"]
    return {"phase_s": phase, "ratio": phase / ideal(args), "max_in_flight": seen["max_in_flight"],
            "requests": seen["chat_count"], "graded": sum(r["outcome"] in ("passed", "failed") for r in rows),
            "startup_s": seen["first_received"] - result["launched"], "startup_cpu_s": result["startup_cpu_s"],
            "peak_rss_mb": result["peak_rss_mb"], "wall_s": result["ended"] - result["launched"]}


async def bare_loop(base_url: str, items: int, concurrency: int) -> int:
    """The same requests from a bare `openai.AsyncOpenAI` and an asyncio semaphore; how many answers say 42."""
    import openai

    client = openai.AsyncOpenAI(base_url=base_url, api_key="unused", max_retries=0)
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> bool:
        async with gate:
            stream = await client.chat.completions.create(
                model="bench", stream=True, max_tokens=16,
                messages=[{"role": "user", "content": PROMPT.format(i=i)}])
            text = [chunk.choices[0].delta.content or "" async for chunk in stream if chunk.choices]
        return "".join(text).strip().endswith("42")

    answers = await asyncio.gather(*(one(i) for i in range(items)), return_exceptions=True)
    await client.close()
    failed = [a for a in answers if isinstance(a, BaseException)]
    if failed:
        print(f"{len(failed)} requests failed, the first: {failed[0]!r}", file=sys.stderr)
    return sum(a is True for a in answers)


def project_clients(base_url: str, items: int, concurrency: int) -> int:
    """The same requests from the project's ChatClient on `concurrency` threads (as the run asks them); how
    many answers say 42."""
    from pytest_crucible.client.chat import ChatClient

    def one(i: int) -> str:
        return client.chat([{"role": "user", "content": PROMPT.format(i=i)}], max_tokens=16).content

    with ChatClient(base_url, None, model_id="bench", timeout=60) as client, \
            ThreadPoolExecutor(concurrency) as pool:
        return sum(answer.strip().endswith("42") for answer in pool.map(one, range(items)))


def client_command(flag: str, base_url: str, args) -> list[str]:
    """This script, run as one of the client processes (`--bare-client` or `--project-client`)."""
    return [sys.executable, __file__, flag, base_url, "--items", str(args.items), "--concurrency",
            str(args.concurrency)]


def answers_of(output: str) -> int:
    """How many answers a client process said were right (its last line: `answered N`)."""
    return int(output.rsplit("answered ", 1)[-1].split()[0])


def clients_mode(args) -> None:
    """The clients alone, no pytest: the project's ChatClient on threads against the bare AsyncOpenAI loop,
    each in a process of its own against the same endpoint, one after the other in each round."""
    clients = {"ChatClient on threads": "--project-client", "AsyncOpenAI + semaphore": "--bare-client"}
    runs: dict[str, list[dict]] = {name: [] for name in clients}
    for _ in range(args.rounds):
        for name, flag in clients.items():
            with loopback(args.delay, FAST_LOOPBACK) as base_url, tempfile.TemporaryDirectory() as tmp:
                result = run_pytest(Path(tmp), command=client_command(flag, base_url, args))
            answered = answers_of(result["output"])
            runs[name].append({"wall_s": result["ended"] - result["launched"], "answered": answered,
                               "cpu_ms": result["all_cpu_s"] * 1000 / args.items})
    bare = statistics.median(r["cpu_ms"] for r in runs["AsyncOpenAI + semaphore"])
    print(f"\n{'':<26}{'wall s':>8}{'CPU ms/request':>16}{'x bare':>8}{'answered':>10}")
    for name, rounds in runs.items():
        cpu = statistics.median(r["cpu_ms"] for r in rounds)
        print(f"{name:<26}{statistics.median(r['wall_s'] for r in rounds):>8.2f}{cpu:>16.3f}{cpu / bare:>8.3f}"
              f"{min(r['answered'] for r in rounds):>10}")
    print(f"medians of {args.rounds} rounds; CPU: the client's process from start to exit, imports included")


def bare_openai_run(args) -> dict:
    with loopback(args.delay) as base_url:
        asyncio.run(bare_loop(base_url, args.items, args.concurrency))
        seen = stats(base_url)
    phase = seen["last_done"] - seen["first_received"]
    return {"phase_s": phase, "ratio": phase / ideal(args), "max_in_flight": seen["max_in_flight"],
            "requests": seen["chat_count"]}


def resume_run(args) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        with loopback(args.delay) as base_url:
            folder = project(Path(tmp), base_url, args)
            run_pytest(folder, kill_after_rows=args.items // 2)
        written = {r["case_id"] for r in read_rows(folder)}
        before = len(read_rows(folder))
        with loopback(args.delay) as base_url:   # a fresh server: it sees only what the resumed run asks
            project(folder, base_url, args)
            result = run_pytest(folder, "--crucible-resume")
            asked_again = [p.split(":")[0].split()[1] for p in stats(base_url)["prompts"]]
        rows = read_rows(folder)
    ids = [r["case_id"] for r in rows]
    return {"rows_at_kill": before, "rows": len(rows), "distinct": len(set(ids)), "duplicates": len(ids) - len(set(ids)),
            "asked_again": len(asked_again), "repeated_for_written_rows": len({f"B{a}" for a in asked_again} & written),
            "returncode": result["returncode"]}


def cost_run(args, cap: float = 0.01) -> dict:
    price = (50.0, 100.0)   # USD per million tokens: about $0.001 per request here
    max_tokens = 8
    with loopback(args.delay) as base_url, tempfile.TemporaryDirectory() as tmp:
        folder = project(Path(tmp), base_url, args, price=price, max_tokens=max_tokens)
        run_pytest(folder, f"--crucible-max-cost={cap}")
        rows = read_rows(folder)
        requests = stats(base_url)["chat_count"]
    spent = sum(r.get("cost_usd") or 0 for r in rows)
    prompt_tokens = max(-(-len(PROMPT.format(i=0)) // 4), 1)
    worst = (prompt_tokens * price[0] + max_tokens * price[1]) / 1e6
    skipped = sum(r["outcome"] == "skipped" and r["reason"].startswith("cost cap $") for r in rows)
    batch = min(args.concurrency, int(cap // worst)) * worst
    return {"cap": cap, "spent": spent, "requests": requests, "skipped": skipped, "worst_request": worst,
            "batch_worst": batch, "within": cap - batch <= spent <= cap}


def high_run(args, *extra: str, bare: bool = False) -> dict:
    """One run of the high-concurrency mode against benchmarks/fast_loopback.py: pytest (with `extra`), or
    with `bare` the bare AsyncOpenAI loop in a process of its own (so both walls count a process start)."""
    with loopback(args.delay, FAST_LOOPBACK) as base_url, tempfile.TemporaryDirectory() as tmp:
        folder = project(Path(tmp), base_url, args)
        command = client_command("--bare-client", base_url, args) if bare else None
        result = run_pytest(folder, *extra, command=command)
        seen = stats(base_url)
        if result["returncode"] not in (0, 1):
            raise RuntimeError(f"{' '.join(command or extra)} exited {result['returncode']}:\n"
                               f"{result['output'][-3000:]}")
        graded = (answers_of(result["output"]) if bare
                  else sum(r["outcome"] in ("passed", "failed") for r in read_rows(folder)))
    per_item = 1000 / args.items
    return {"wall_s": result["ended"] - result["launched"], "phase_s": seen["last_done"] - seen["first_received"],
            "cpu_ms": (result["cpu_s"] or 0) * per_item, "all_cpu_ms": result["all_cpu_s"] * per_item,
            "peak_rss_mb": result["peak_rss_mb"], "graded": graded, "max_in_flight": seen["max_in_flight"],
            "server_cpu_ms": seen["cpu_s"] * per_item}


def high_mode(args) -> None:
    """Each round runs the project, the project with -n 2 and the bare loop, one after the other (the same
    load on the machine); walls and request phases are compared within a round, then the median taken."""
    modes = {"crucible": (), "crucible -n 2": ("-n", "2")}
    if args.no_xdist:
        del modes["crucible -n 2"]
    runs: dict[str, list[dict]] = {**{name: [] for name in modes}, "AsyncOpenAI + semaphore": []}
    for round_no in range(1, args.rounds + 1):
        bare = high_run(args, bare=True)
        for name, extra in modes.items():
            run = high_run(args, *extra)
            runs[name].append({**run, "wall_x": run["wall_s"] / bare["wall_s"], "phase_x": run["phase_s"] /
                               bare["phase_s"]})
        runs["AsyncOpenAI + semaphore"].append({**bare, "wall_x": 1.0, "phase_x": 1.0})
        print(f"round {round_no}: wall s " + ", ".join(f"{name} {rounds[-1]['wall_s']:.1f}"
                                                    for name, rounds in runs.items()), flush=True)
    print(f"\n{'':<26}{'wall s':>8}{'phase s':>9}{'wall x bare':>13}{'phase x bare':>14}{'CPU ms/item':>13}"
          f"{'(all procs)':>13}{'peak RSS MB':>13}{'graded':>8}{'in flight':>11}{'server CPU ms/req':>19}")
    for name, rounds in runs.items():
        r = {key: statistics.median(x[key] for x in rounds) for key in rounds[0]}
        r["peak_rss_mb"] = max(x["peak_rss_mb"] for x in rounds)
        print(f"{name:<26}{r['wall_s']:>8.2f}{r['phase_s']:>9.2f}{r['wall_x']:>13.3f}{r['phase_x']:>14.3f}"
              f"{r['cpu_ms']:>13.3f}{r['all_cpu_ms']:>13.3f}{r['peak_rss_mb']:>13.1f}{r['graded']:>8.0f}"
              f"{r['max_in_flight']:>11.0f}{r['server_cpu_ms']:>19.3f}   wall x bare per round: "
              + " ".join(f"{x['wall_x']:.3f}" for x in rounds))
    print(f"medians of {args.rounds} rounds (peak RSS: the largest). Target (issue 23): the project's wall <= 1.25 x "
          "the bare loop's. CPU ms/item: the controlling process alone; (all procs): with the processes it "
          "waited for (xdist's workers). Server CPU: the loopback's own, per request.")


def summarise(results: list[dict]) -> dict:
    """Medians over the rounds; the most in flight and the peak RSS: the largest seen."""
    out = {}
    for key in results[0]:
        values = [r[key] for r in results if r[key] is not None]
        if not values:
            out[key] = None
        elif key in ("max_in_flight", "peak_rss_mb"):
            out[key] = max(values)
        else:
            out[key] = statistics.median(values)
    out["ratios"] = [round(r["ratio"], 3) for r in results]
    return out


def ideal(args) -> float:
    return args.items * args.delay / args.concurrency


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=256)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--high", action="store_true", help="8,192 items, 0.5 s, concurrency 256 (unless given): "
                        "the project against a bare AsyncOpenAI loop, walls and CPU per item")
    parser.add_argument("--no-xdist", action="store_true", help="--high without its -n 2 runs")
    parser.add_argument("--clients", action="store_true", help="the clients alone, as --high sizes them: the "
                        "project's ChatClient on threads against the bare AsyncOpenAI loop, CPU per request")
    parser.add_argument("--bare-client", metavar="BASE_URL", help=argparse.SUPPRESS)  # the bare loop's process
    parser.add_argument("--project-client", metavar="BASE_URL", help=argparse.SUPPRESS)  # --clients' own
    args = parser.parse_args(argv)
    if args.bare_client:
        print(f"answered {asyncio.run(bare_loop(args.bare_client, args.items, args.concurrency))}")
        return 0
    if args.project_client:
        print(f"answered {project_clients(args.project_client, args.items, args.concurrency)}")
        return 0
    if args.high or args.clients:
        given = {a.split("=")[0] for a in (argv if argv is not None else sys.argv[1:])}
        for flag, value in (("--items", 8192), ("--delay", 0.5), ("--concurrency", 256)):
            if flag not in given:
                setattr(args, flag[2:], value)
    print(f"{args.items} items, each answered after {args.delay:g} s, provider concurrency {args.concurrency}: "
          f"ideal request phase {ideal(args):.1f} s; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    if args.clients:
        clients_mode(args)
        return 0
    warm_up(args)
    if args.high:
        high_mode(args)
        return 0
    runs = {"crucible": lambda: concurrency_run(args), "crucible -n 2": lambda: concurrency_run(args, "-n", "2"),
            "AsyncOpenAI + semaphore": lambda: bare_openai_run(args)}
    runs = {name: summarise([run() for _ in range(args.rounds)]) for name, run in runs.items()}
    print(f"\n{'':<26}{'phase s':>9}{'ratio':>8}{'in flight':>11}{'requests':>10}{'graded':>8}"
          f"{'start-up s':>12}{'(CPU s)':>9}{'peak RSS MB':>13}{'wall s':>8}   ratio of each round")
    for name, r in runs.items():
        print(f"{name:<26}{r['phase_s']:>9.2f}{r['ratio']:>8.3f}{r['max_in_flight']:>11}{r['requests']:>10g}"
              f"{_num(r.get('graded'), 0):>8}{_num(r.get('startup_s'), 2):>12}{_num(r.get('startup_cpu_s'), 2):>9}"
              f"{_num(r.get('peak_rss_mb'), 1):>13}{_num(r.get('wall_s'), 2):>8}   {' '.join(map(str, r['ratios']))}")
    print(f"targets: ratio <= 1.06 (with and without -n), in flight <= concurrency, start-up <= 3 s, "
          f"peak RSS <= 120 MB, wall (pytest launched to exited) <= ideal x 1.06 + 4 s = {ideal(args) * 1.06 + 4:.1f} s. "
          "Start-up CPU s: what the pytest process itself used until the first request (the wall time on a "
          "busy machine is more).")
    resumed = resume_run(args)
    print(f"\nSIGKILL at {resumed['rows_at_kill']} rows, then --crucible-resume: {resumed['rows']} rows, "
          f"{resumed['distinct']} distinct, {resumed['duplicates']} duplicates; asked again "
          f"{resumed['asked_again']}, of them {resumed['repeated_for_written_rows']} for rows written before "
          f"the kill (exit {resumed['returncode']})")
    cost = cost_run(args)
    print(f"\ncost cap ${cost['cap']:g}: recorded ${cost['spent']:.5f} in {cost['requests']} requests, "
          f"{cost['skipped']} items skipped; one request's worst case ${cost['worst_request']:.5f}, one "
          f"in-flight batch's ${cost['batch_worst']:.5f}: stopped within one batch of the cap: "
          f"{'yes' if cost['within'] else 'NO'}")
    return 0


def _num(value, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


if __name__ == "__main__":
    sys.exit(main())
