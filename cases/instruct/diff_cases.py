"""IN-diff: two versions of a stock list compared item by item and the changes written as a sorted change list
(+ added, - removed, ~ changed with old and new quantity) and a count line; compared exactly.

Items are matched by name without regard to case or extra spaces, so an item whose name was only re-cased in
the new list is the same item (changed or unchanged), not a removal and an addition; unchanged items are not
listed; the lines are sorted by name, not by where the items stand. The traps, each stored: names matched
case-sensitively, unchanged items listed as changes, the lines in list order, the count line counting every
line. `verify.solver` parses both lists from the prompt and compares them with dictionaries.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-diff"
REFUSAL = "I'm sorry, but I can't help with that request."
ITEMS = ("oak beams", "slate tiles", "lime mortar", "clay pipes", "iron nails", "flint blocks", "reed thatch",
         "glass panes", "copper wire", "sand bags", "brass hinges", "cedar shingles", "roof felt", "wall ties",
         "door latches", "gutter brackets", "sash cords", "stone sills")
# (items in the old list, added, removed, changed, re-cased)
SHAPES = ((6, 1, 1, 1, 1), (10, 2, 2, 3, 2), (13, 3, 2, 4, 3))


def _title(name: str) -> str:
    return " ".join(w.capitalize() for w in name.split())


def _diff(old: list[tuple], new: list[tuple], mode: str = "right") -> list[str]:
    """mode "case": names matched case-sensitively; "same": unchanged items listed as ~ x -> x; "order": lines in
    the order the items stand (old list, then additions); "count": the count line counts every line."""
    key = (lambda s: s) if mode == "case" else (lambda s: " ".join(s.split()).casefold())
    before = {key(n): (n, q) for n, q in old}
    after = {key(n): (n, q) for n, q in new}
    lines: list[tuple[str, str]] = []
    for k in [*before, *(k for k in after if k not in before)]:
        if k not in after:
            lines.append((k, f"- {before[k][0]}"))
        elif k not in before:
            lines.append((k, f"+ {after[k][0]} {after[k][1]}"))
        elif before[k][1] != after[k][1] or mode == "same":
            lines.append((k, f"~ {after[k][0]} {before[k][1]} -> {after[k][1]}"))
    if mode != "order":
        lines.sort(key=lambda kv: key(kv[0]).casefold())
    added = sum(ln.startswith("+") for _, ln in lines)
    removed = sum(ln.startswith("-") for _, ln in lines)
    changed = sum(ln.startswith("~") for _, ln in lines)
    if mode == "count":
        changed = sum(1 for k in after if k in before)
    return [ln for _, ln in lines] + [f"{added} added, {removed} removed, {changed} changed"]


SOLVER = r'''
import re
PROMPT = __PROMPT__
def read(title):
    block = PROMPT.split(title + ":\n")[1].split("\n\n")[0]
    out = {}
    for name, qty in re.findall(r"^- (.+?): (\d+)$", block, re.M):
        out[" ".join(name.split()).lower()] = (name.strip(), int(qty))
    return out
old, new = read("Last week"), read("This week")
rows = []
for k in sorted(set(old) | set(new)):
    if k not in new:
        rows.append("- " + old[k][0])
    elif k not in old:
        rows.append("+ %s %d" % new[k])
    elif old[k][1] != new[k][1]:
        rows.append("~ %s %d -> %d" % (new[k][0], old[k][1], new[k][1]))
signs = [r[0] for r in rows]
rows.append("%d added, %d removed, %d changed" % (signs.count("+"), signs.count("-"), signs.count("~")))
print("\n".join(rows))
'''


def _case(index: int, rng: random.Random, n: int, n_add: int, n_remove: int, n_change: int, n_case: int) -> dict:
    for _ in range(500):
        names = rng.sample(ITEMS, n + n_add)
        old = [(_title(x), rng.randint(2, 90)) for x in names[:n]]
        removed = set(rng.sample(range(n), n_remove))
        kept = [k for k in range(n) if k not in removed]
        changed = set(rng.sample(kept, n_change))
        recased = set(rng.sample(kept, n_case))
        new = []
        for k in kept:
            name, qty = old[k]
            if k in recased:
                name = name.lower() if rng.random() < 0.5 else name.upper()
            new.append((name, qty + rng.choice((-1, 1)) * rng.randint(1, 12) if k in changed else qty))
        new = [(x, max(q, 1)) for x, q in new]
        new += [(_title(x), rng.randint(2, 90)) for x in names[n:]]
        rng.shuffle(new)
        final = _diff(old, new)
        traps = {m: _diff(old, new, m) for m in ("case", "same", "order", "count")}
        if all(t != final for t in traps.values()) and recased - changed:
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw")
    prompt = ("Compare two stock lists.\n\nLast week:\n" + "\n".join(f"- {x}: {q}" for x, q in old)
              + "\n\nThis week:\n" + "\n".join(f"- {x}: {q}" for x, q in new) + "\n\n"
              "Items are the same item when their names match ignoring upper and lower case. Write one line per "
              "difference, sorted by item name in alphabetical order (ignoring case):\n"
              "- `+ NAME QTY` for an item only this week has,\n- `- NAME` for an item only last week has,\n"
              "- `~ NAME OLD -> NEW` for an item whose quantity changed.\n"
              "Write NAME as this week's list spells it (last week's for a removed item). Leave out items that did "
              "not change. After the differences write one line `A added, R removed, C changed` with the counts. "
              "Write nothing after that line.\n")
    constraints = [{"kind": "lines_equal", "lines": final}]
    wrong = [REFUSAL, *("\n".join(t) for t in traps.values()), "\n".join(final[:-1]),
             "\n".join(ln.replace("~ ", "* ", 1) for ln in final),
             "\n".join(final) + "\n\nIf names are matched exactly as written:\n" + "\n".join(traps["case"])]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    # each difference is found and added to the running counts; then the matching rule and the sort
    hardness = {"steps": len(final) - 1 + 2, "search": 1, "traps": len(traps)}
    notes = (f"{n} items last week, {len(new)} this week: {n_add} added, {n_remove} removed, {n_change} changed and "
             f"{n_case} re-cased (the same item). Every item of both lists must be matched against the other list "
             "(a look-up per item), each difference added to a running count, then the lines sorted by name. "
             "Stored traps: names matched "
             "case-sensitively (a re-cased item becomes a removal and an addition), unchanged items listed, the "
             "lines in list order, the count line counting every matched item.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"Change list between two stock lists of {n} and {len(new)} items", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 8192, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "Here are the differences:\n\n```diff\n" + "\n".join(final) + "\n```",
                       "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
