"""How long `crucible compare` takes on two 10,000-row runs (target: under 2 s).

    python benchmarks/compare_speed.py [--runs 5] [--rows 10000]

Two run folders are written with rows shaped like real ones (answer text, reasoning, timings, tokens,
backend): once as 10,000 cases answered once, once as 2,500 cases answered 4 times. For each it prints
the median wall time and CPU time (user + system) of
  - the whole command, `python -m pytest_crucible.apps.cli compare BASE NEW --json --gate`, in a fresh
    interpreter (start-up and imports included: what CI waits for), and
  - the work inside it (read both runs, compare, render the JSON),
next to the target. The command is single-threaded, so on an idle machine its wall time is its CPU time;
on a shared machine the CPU time is the figure to hold against the target. Runs are interleaved so a
noisy machine slows both alike.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pytest_crucible.analysis.compare import compare_runs, load_run  # noqa: E402

TARGET_S = 2.0
CATEGORIES = ("coding", "math", "reasoning", "tooluse", "instruct", "longctx", "agent")


def make_row(rng: random.Random, model: str, case: int, repeat: int, passed: bool, slow: float) -> dict:
    ttft = rng.lognormvariate(-1.5, 0.4) * slow
    return {
        "run_id": "bench", "model": model, "model_id": model, "provider": "local", "case_id": f"BX-{case:05d}",
        "case_hash": f"{case:08x}", "category": CATEGORIES[case % len(CATEGORIES)],
        "difficulty": ("easy", "medium", "hard")[case % 3], "tags": [], "repeat": repeat,
        "outcome": "passed" if passed else "failed", "reason": "" if passed else f"answer {case}, expected {case + 1}",
        "answer_text": f"Working through the steps for case {case}. " * 8 + f"\nAnswer: {case}",
        "reasoning": "Let me think about this carefully. " * 20,
        "timings": {"ttft_s": ttft, "ttft_answer_s": ttft * 1.8, "e2e_s": ttft + 3.0,
                    "decode_tps": rng.gauss(42.0, 2.0) / slow, "prefill_tps": 900.0, "itl_p50_s": 0.024},
        "tokens": {"prompt": 300 + case % 700, "completion": 240, "reasoning": 120, "cached": 0, "estimated": False},
        "backend": {"model": model, "system_fingerprint": "b4589", "server": "llama.cpp"},
        "cost_usd": 0.0, "params": {"max_tokens": 4096, "temperature": 0},
    }


def write_runs(folder: Path, rows: int, repeats: int) -> tuple[Path, Path]:
    rng = random.Random(7)
    cases = rows // repeats
    paths = []
    for name, wrong_share, slow in (("base", 0.30, 1.0), ("new", 0.33, 1.05)):
        path = folder / f"{name}-{repeats}"
        path.mkdir()
        with open(path / "rows.jsonl", "w", encoding="utf-8") as fh:
            for case in range(cases):
                for repeat in range(1, repeats + 1):
                    fh.write(json.dumps(make_row(rng, name, case, repeat, rng.random() > wrong_share, slow)) + "\n")
        (path / "meta.json").write_text(json.dumps({"run_id": path.name, "models": {name: {}}}))
        paths.append(path)
    return paths[0], paths[1]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_command(base: Path, new: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of the whole command in a fresh interpreter."""
    started, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run([sys.executable, "-m", "pytest_crucible.apps.cli", "compare", str(base), str(new), "--json",
                           "--gate"], cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - started, _children_cpu() - cpu
    if done.returncode not in (0, 1) or '"gate"' not in done.stdout:
        raise SystemExit(f"crucible compare failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed


def time_inside(base: Path, new: Path) -> tuple[float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    json.dumps(compare_runs(load_run(base), load_run(new)))
    return time.perf_counter() - started, time.process_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rows", type=int, default=10000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        shapes = {f"{args.rows} cases x 1": write_runs(Path(tmp), args.rows, 1),
                  f"{args.rows // 4} cases x 4": write_runs(Path(tmp), args.rows, 4)}
        size = sum(p.stat().st_size for pair in shapes.values() for p in (pair[0] / "rows.jsonl", pair[1] / "rows.jsonl"))
        print(f"{args.rows} rows per run, {size / 4e6:.1f} MB of rows.jsonl per run; median of {args.runs} runs")
        times = {shape: {"command": [], "inside": []} for shape in shapes}
        for _ in range(args.runs):
            for shape, (base, new) in shapes.items():
                times[shape]["command"].append(time_command(base, new))
                times[shape]["inside"].append(time_inside(base, new))
        worst = 0.0
        for shape, measured in times.items():
            (wall, cpu), (in_wall, in_cpu) = ([statistics.median(x) for x in zip(*measured[part])]
                                              for part in ("command", "inside"))
            worst = max(worst, cpu)
            print(f"{shape:<18} whole command: wall {wall:5.2f} s, CPU {cpu:5.2f} s ({cpu / TARGET_S:.0%} of the "
                  f"{TARGET_S:.0f} s target)   read + compare + JSON: wall {in_wall:5.2f} s, CPU {in_cpu:5.2f} s")
    return 0 if worst < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
