"""IN-outline: a flat list of headings with depth markers becomes a numbered outline (1., 1.1, 1.1.1), with
items marked (drop) left out together with everything under them and the numbering closing the gap.

Each number depends on the ones before it (a sibling counts on, a deeper item starts at 1, a shallower one
resumes its parent's count), so the list is a chain. The traps: children of a dropped item kept, the gap
left in the numbering, deeper counters not restarted. `verify.solver` parses the markers from the prompt
and numbers the kept items with an explicit stack.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-outline"
REFUSAL = "I'm sorry, but I can't help with that request."
TOPICS = ("Budget", "Staffing", "Venue hire", "Catering", "Transport", "Insurance", "Publicity", "Safety",
          "Tickets", "Volunteers", "Signage", "Power supply", "Water points", "First aid", "Waste", "Parking",
          "Stewards", "Lighting", "Sound", "Access", "Weather plan", "Radios", "Permits", "Cash handling",
          "Lost property", "Toilets", "Stage", "Seating", "Security", "Cleaning")
# (items, deepest level, dropped items)
SHAPES = ((7, 2, 0), (12, 3, 1), (15, 3, 2), (18, 4, 2))


def _depths(rng: random.Random, n: int, deepest: int) -> list[int]:
    out = [1]
    while len(out) < n:
        out.append(rng.randint(1, min(deepest, out[-1] + 1)))
    return out


def _number(items: list[tuple[int, str, bool]], mode: str = "right") -> list[str]:
    """mode "right"; "keep": dropped items' children kept (renumbered as if the parent were there); "gap":
    dropped items still take their number; "flat": counters never restart below a new parent."""
    counters: list[int] = []
    out, dropping_below = [], None
    totals: dict[int, int] = {}
    for depth, title, dropped in items:
        if dropping_below is not None and depth > dropping_below and mode != "keep":
            continue
        dropping_below = None
        if dropped:
            dropping_below = depth
            if mode == "gap":
                counters = counters[:depth - 1] + [counters[depth - 1] + 1 if len(counters) >= depth else 1]
            continue
        if mode == "flat":
            totals[depth] = totals.get(depth, 0) + 1
            counters = counters[:depth - 1] + [totals[depth]]
        else:
            counters = counters[:depth - 1] + [counters[depth - 1] + 1 if len(counters) >= depth else 1]
        label = ".".join(map(str, counters)) + ("." if depth == 1 else "")
        out.append(f"{label} {title}")
    return out


SOLVER = r'''
import re
PROMPT = __PROMPT__
block = PROMPT.split("\n\n")[1]
stack, out, skip = [], [], None
for line in block.split("\n"):
    m = re.match(r"^(>+) (.+?)( \(drop\))?$", line)
    depth, title, dropped = len(m.group(1)), m.group(2), bool(m.group(3))
    if skip is not None:
        if depth > skip:
            continue
        skip = None
    if dropped:
        skip = depth
        continue
    while len(stack) > depth:
        stack.pop()
    if len(stack) == depth:
        stack[-1] += 1
    else:
        stack.append(1)
    out.append(".".join(str(x) for x in stack) + ("." if depth == 1 else "") + " " + title)
print("\n".join(out))
'''


def _case(index: int, rng: random.Random, n: int, deepest: int, n_dropped: int) -> dict:
    for _ in range(500):
        depths = _depths(rng, n, deepest)
        titles = rng.sample(TOPICS, n)
        # a dropped item has children, and is not the first item
        parents = [k for k in range(1, n - 1) if depths[k + 1] > depths[k]]
        if len(parents) < n_dropped or max(depths) < deepest:
            continue
        dropped = set(rng.sample(parents, n_dropped))
        items = [(d, t, k in dropped) for k, (d, t) in enumerate(zip(depths, titles))]
        final = _number(items)
        traps = {m: _number(items, m) for m in ("keep", "gap", "flat")}
        if n_dropped and len(final) < 8:  # the hard shapes keep at least eight numbers to chain
            continue
        if all(t != final for m, t in traps.items() if n_dropped or m == "flat"):
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw")
    listing = "\n".join(">" * d + f" {t}" + (" (drop)" if x else "") for d, t, x in items)
    drop_rule = ("An item marked (drop) is left out, together with every item under it (the items after it "
                 "that are deeper, up to the next item at its depth or shallower); number the remaining items "
                 "as if the dropped ones had never been there. " if n_dropped else "")
    prompt = (f"Here is a plan as a flat list; the number of > signs is an item's depth:\n\n{listing}\n\n"
              "Turn it into a numbered outline. A top-level item is numbered 1., 2., 3., ...; an item one level "
              "deeper is numbered after its parent: 1.1, 1.2, then 1.2.1 and so on (numbers below the top "
              "level have no final dot). The count of a level starts again at 1 under each new parent. "
              f"{drop_rule}Write one item per line as `NUMBER TITLE` (for example `2.1.3 Parking`), with no "
              "indentation, no bullets and no other text.\n")
    constraints = [{"kind": "lines_equal", "lines": final}, {"kind": "no_preamble"}]
    wrong = [REFUSAL, *("\n".join(t) for t in traps.values()),
             "\n".join(f"- {ln}" for ln in final), "\n".join(final[:-1]),
             "\n".join(t for d, t, x in items if not x)]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    n_traps = sum(t != final for t in traps.values())
    hardness = {"steps": len(final), "search": 1, "traps": n_traps}
    notes = (f"{n} items up to depth {deepest}" + (f", {n_dropped} dropped with their sub-items" if n_dropped else "")
             + f": {len(final)} numbers, each following from the one before (count on, go deeper and restart, "
               "come back up and resume). Stored traps: "
             + ", ".join({"keep": "dropped items' children kept", "gap": "the dropped number left as a gap",
                          "flat": "counters never restarted"}[m] for m, t in traps.items() if t != final) + ".")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"Outline numbering of {n} items to depth {deepest}", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 8192, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "```\n" + "\n".join(final) + "\n```", "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
