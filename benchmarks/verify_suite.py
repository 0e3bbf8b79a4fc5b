"""How long `crucible cases verify` takes over the built-in suite, per category and whole, in one run.

    python benchmarks/verify_suite.py [--runs 3] [--seed N]

Each round verifies every category on its own and then the whole suite at once (interleaved, so a noisy
machine slows all of them alike), and prints the median wall time next to the 60 s target for the whole
suite on 2 cores. The first round runs with an empty calibration cache (a new machine: the time limits of
`perf` cases are measured first); the medians are of the later, warm rounds when there are any.
Loading (building every family's cases) is timed apart.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_crucible.suite.case import load_cases  # noqa: E402
from pytest_crucible.verify import verify_cases  # noqa: E402

TARGET_S = 60.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="rounds (the first is cold); default 3")
    parser.add_argument("--seed", type=int, help="case families' seed (default: the suite's)")
    args = parser.parse_args()
    os.environ["CRUCIBLE_CACHE_DIR"] = tempfile.mkdtemp(prefix="crucible-verify-bench-")

    started = time.perf_counter()
    suite = load_cases(seed=args.seed)
    load_s = time.perf_counter() - started
    categories = sorted({c.category for c in suite})
    times: dict[str, list[float]] = {name: [] for name in [*categories, "whole suite"]}
    problems = 0
    for _ in range(args.runs):
        for name in times:
            cases = suite if name == "whole suite" else [c for c in suite if c.category == name]
            started = time.perf_counter()
            report = verify_cases(cases)
            times[name].append(time.perf_counter() - started)
            problems += len(report.problems)

    print(f"{len(suite)} cases, loaded in {load_s:.2f} s; {os.cpu_count()} CPUs; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'':<12} {'cases':>6} {'cold s':>8} {'warm s':>8}")
    for name, runs in times.items():
        n = len(suite) if name == "whole suite" else sum(c.category == name for c in suite)
        warm = statistics.median(runs[1:]) if len(runs) > 1 else runs[0]
        print(f"{name:<12} {n:>6} {runs[0]:>8.1f} {warm:>8.1f}")
    whole = times["whole suite"]
    warm = statistics.median(whole[1:]) if len(whole) > 1 else whole[0]
    print(f"whole suite warm / target {TARGET_S:g} s: {warm / TARGET_S:.2f}; problems found: {problems}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
