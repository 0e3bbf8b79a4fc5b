"""A run against endpoints that misbehave: does every item end by its deadline, in bounded memory, with a row?

    python benchmarks/hostile_endpoints.py [--modes keepalive,trickle] [--timeout 2] [--max-tokens 16]

For each mode of tests/hostile_server.py (an endpoint served from this process) it runs
`pytest --models h` in a subprocess over three cases; the middle one is answered in the bad mode, the
other two normally:

    keepalive     an SSE comment every 0.5 s, forever
    empty_delta   an empty-delta chunk every 0.5 s, forever
    trickle       one content character every 0.5 s, forever
    endless_line  one `data:` line that never ends (cut by the server at 16 GiB)
    huge_chunk    one 100 MB chunk
    huge_tool     100 MB of tool-call arguments in 4 KiB pieces
    echo_key      a reply that quotes the API key

and prints per mode: the run's wall time, the bad item's time (its row's wall_s) against its deadline
(client/limits.py: timeout + max_tokens x 1 s), the peak RSS of the pytest process (its VmHWM, read
every 10 ms until it exits; os.wait4's ru_maxrss would count this process's own peak too, as a child
spawned by vfork inherits it), every item's outcome, whether the two other items got their rows, and
whether the key shows up in rows.jsonl, report.json or report.html. Targets (issue 22): the bad item
ends within its deadline + 2 s, peak RSS under 300 MB, no row lost, no key stored. The run's own time
adds pytest's start-up and the end-of-run report to the bad item's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from hostile_server import HostileServer  # noqa: E402

from pytest_crucible.client.limits import deadline_s  # noqa: E402

MODES = ("keepalive", "empty_delta", "trickle", "endless_line", "huge_chunk", "huge_tool", "echo_key")
SIZES = {"endless_line": 16 << 30}  # the other modes send 100 MB
KEY = "sk-hostile-benchmark-key-0000"
RSS_TARGET_MB = 300
PLUGINS_OFF = ("-p", "no:hypothesispytest", "-p", "no:benchmark", "-p", "no:cacheprovider")

CASES = """\
def cases():
    return [{{"id": f"H{{i}}", "category": "math", "difficulty": "easy", "max_tokens": {max_tokens},
             "prompt": ("HOSTILE " if i == 1 else "") + f"item {{i}}: what is 40 + 2?",
             "grader": {{"type": "numeric", "answer": 42}}}} for i in range(3)]
"""
MODELS = """\
providers:
  loop: {{base_url: "{base_url}", api_key_env: HOSTILE_KEY, timeout: {timeout}, concurrency: 2}}
models:
  - {{name: h, provider: loop, model_id: hostile}}
"""


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory so far (0 once it has exited)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def run_mode(mode: str, args) -> dict:
    with tempfile.TemporaryDirectory() as tmp, \
            HostileServer(mode, trigger="HOSTILE", size=SIZES.get(mode, 100 << 20)) as server:
        folder = Path(tmp)
        (folder / "models.yaml").write_text(MODELS.format(base_url=server.base_url, timeout=args.timeout))
        (folder / "math").mkdir()
        (folder / "math" / "hostile_cases.py").write_text(CASES.format(max_tokens=args.max_tokens))
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HOSTILE_KEY": KEY,
               "CRUCIBLE_LOCK_DIR": str(folder / "locks")}
        log = folder / "pytest.log"
        started = time.perf_counter()
        with open(log, "wb") as out:
            proc = subprocess.Popen([sys.executable, "-m", "pytest", *PLUGINS_OFF, "--models", "h",
                                     "--crucible-no-builtin-cases", "math", "-q"], cwd=folder, env=env,
                                    stdout=out, stderr=subprocess.STDOUT)
            peak = 0.0
            while proc.poll() is None:
                peak = max(peak, peak_rss_mb(proc.pid))
                time.sleep(0.01)
        wall = time.perf_counter() - started
        output = log.read_bytes()
        latest = folder / "crucible-results" / "latest"
        rows_file = latest / "rows.jsonl"
        rows = [json.loads(line) for line in rows_file.read_text().splitlines()] if rows_file.is_file() else []
        stored = [latest / name for name in ("rows.jsonl", "report.json", "report.html")]
        leaked = [p.name for p in stored if p.is_file() and KEY.encode() in p.read_bytes()]
        biggest_row = max((len(json.dumps(r)) for r in rows), default=0)
    by_case = {r["case_id"]: r for r in rows}
    bad = by_case.get("H1", {})
    return {"mode": mode, "exit": proc.returncode, "wall_s": wall,
            "bad_item_s": bad.get("wall_s"), "peak_rss_mb": peak,
            "outcomes": " ".join(f"{c}={by_case[c]['outcome']}" for c in sorted(by_case)),
            "others_kept": all(by_case.get(c, {}).get("outcome") == "passed" for c in ("H0", "H2")),
            "reason": (bad.get("reason") or "")[:150], "key_stored_in": leaked, "biggest_row_bytes": biggest_row,
            "output_tail": output.decode(errors="replace")[-1500:]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--timeout", type=float, default=2.0, help="the provider's timeout (idle gap), seconds")
    parser.add_argument("--max-tokens", type=int, default=16)
    args = parser.parse_args(argv)
    deadline = deadline_s(args.timeout, args.max_tokens)
    print(f"timeout {args.timeout:g} s, max_tokens {args.max_tokens}: deadline {deadline:g} s per request")
    header = (f"{'mode':13s} {'run s':>6s} {'bad s':>6s} {'in time':>7s} {'RSS MB':>7s} {'rows kept':>9s} "
              f"{'key':>5s} {'row B':>6s}  outcomes / the bad item's reason")
    print(header)
    failed = False
    for mode in args.modes.split(","):
        result = run_mode(mode, args)
        bad_s = result["bad_item_s"]
        in_time = bad_s is not None and bad_s <= deadline + 2
        ok = in_time and result["peak_rss_mb"] < RSS_TARGET_MB and result["others_kept"] and not result["key_stored_in"]
        failed = failed or not ok
        print(f"{mode:13s} {result['wall_s']:6.1f} {bad_s if bad_s is not None else float('nan'):6.2f} "
              f"{'yes' if in_time else 'NO':>7s} {result['peak_rss_mb']:7.0f} "
              f"{'yes' if result['others_kept'] else 'NO':>9s} "
              f"{'leak' if result['key_stored_in'] else 'none':>5s} {result['biggest_row_bytes']:6d}  "
              f"{result['outcomes']}: {result['reason']}", flush=True)
        if not ok:
            print(result["output_tail"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
