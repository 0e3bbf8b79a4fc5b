"""The bfcl_multi_turn grader against BFCL's own multi_turn_checker, on the ground truth and mutants of it.

    python benchmarks/bfcl_multi_turn_agreement.py [--per-category N] [--seed S]

For each multi-turn entry (or a seeded sample of N per category): its ground truth as a script (each call a
step, then a short answer, per user turn), and mutants of it: each turn with calls skipped, its first call
dropped, and its first call's first argument changed. Each script is run through the agent loop and graded
by the bfcl_multi_turn grader, and given to bfcl-eval's multi_turn_checker as the decoded calls it grades.
BFCL's checker evaluates call texts as Python: it is given only the texts this script writes from BFCL's own
ground truth, never a model's output. Target: 100 % agreement. Exits 1 when it is missed.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pytest_crucible.grading import grade  # noqa: E402
from pytest_crucible.suite.agent_loop import run_case_loop, scripted  # noqa: E402
from pytest_crucible.suite.importers import import_files, load_import  # noqa: E402
from pytest_crucible.verify import response_from  # noqa: E402

Turns = list[list[list[tuple[str, dict]]]]  # per user turn, per step, the calls


def turns_of(script: list) -> Turns:
    out: Turns = []
    steps: list[list[tuple[str, dict]]] = []
    for step in script:
        if isinstance(step, str):  # the answer that ends a user turn
            out.append(steps)
            steps = []
        else:
            steps.append([(c["name"], c["arguments"]) for c in step["tool_calls"]])
    return out


def script_of(turns: Turns) -> list:
    return [s for steps in turns for s in
            [{"tool_calls": [{"name": n, "arguments": a} for n, a in step]} for step in steps] + ["Done."]]


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    return value[:-1] if isinstance(value, list) else value


def candidates(truth: Turns) -> list[tuple[str, Turns]]:
    out = [("ground truth", truth)]
    for t, steps in enumerate(truth):
        if not steps:
            continue
        out.append(("turn skipped", [s if i != t else [] for i, s in enumerate(truth)]))
        dropped = copy.deepcopy(truth)
        dropped[t] = dropped[t][1:] if len(dropped[t]) > 1 else [dropped[t][0][1:]] if len(dropped[t][0]) > 1 else []
        out.append(("first call dropped", dropped))
        name, args = truth[t][0][0]
        if args:
            changed = copy.deepcopy(truth)
            key = next(iter(args))
            changed[t][0][0] = (name, {**args, key: _changed(args[key])})
            out.append(("value changed", changed))
    return out


def run(per_category: int | None, seed: int) -> tuple[int, Counter, list[str]]:
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    rng, agreed, counts, shown = random.Random(seed), 0, Counter(), []
    for path in (f for f in import_files("bfcl") if "_multi_turn_" in f.name):
        entries = {e["id"]: e for e in map(json.loads, filter(str.strip, path.read_text().splitlines()))}
        cases = load_import("bfcl", path)
        for case in rng.sample(cases, per_category) if per_category else cases:
            entry = entries[case.title]
            for kind, turns in candidates(turns_of(case.verify["reference"])):
                trace = run_case_loop(case, scripted([response_from(s) for s in script_of(turns)]))
                ours = grade(case, None, trace).passed
                decoded = [[[f"{n}({','.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in step]
                            for step in steps] for steps in turns]
                # a name of its own per candidate: BFCL keeps its instances in module globals under it
                theirs = multi_turn_checker(decoded, case.grader["ground_truth"], entry,
                                            entry["id"].rsplit("_", 1)[0], f"agreement_{sum(counts.values())}")["valid"]
                counts[(kind, ours == theirs)] += 1
                agreed += ours == theirs
                if ours != theirs:
                    shown.append(f"{case.id} {kind}: ours {'passes' if ours else 'fails'}, BFCL the opposite")
    return agreed, counts, shown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-category", type=int, help="a seeded sample of this many entries per category")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    agreed, counts, shown = run(args.per_category, args.seed)
    total = sum(counts.values())
    print(f"BFCL multi-turn: {agreed:,} of {total:,} scripts graded alike by bfcl_multi_turn and BFCL's "
          f"multi_turn_checker ({agreed / max(total, 1):.2%})")
    for kind in dict.fromkeys(k for k, _ in counts):
        print(f"  {kind:20} {counts[(kind, True)] + counts[(kind, False)]:6,}  {counts[(kind, False)]} differ")
    print("\n".join(shown[:20]))
    return 0 if agreed == total else 1


if __name__ == "__main__":
    sys.exit(main())
