"""Delivery route with time windows: a van leaves the depot at minute 0, must serve 6-8 customers, each
within its window (arriving early it waits for the window to open; arriving late is not allowed), and
returns to the depot. Travel times come as a table. The answer is the earliest minute it can be back.

The generator computes earliest finishing times with a dynamic program over (customers served, last
customer), valid because waiting is allowed and an earlier arrival never hurts; it builds the windows
around a random feasible route and keeps instances where the shortcuts miss: the nearest-next route,
the earliest-deadline-first route (when they are feasible at all) and the shortest route ignoring the
windows. `verify.solver` parses the table and windows out of the prompt and simulates every order.
"""

from __future__ import annotations

import math

from pytest_crucible.suite.families import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "RE-tsptw"
SERVICE = 5
SHAPES = [5, 7, 7, 8]  # customers
INF = 10**9


def _run(order, travel, windows) -> int:
    """Minute back at the depot after serving `order`, or INF if a window is missed."""
    time, here = 0, 0
    for c in order:
        time = max(time + travel[here][c], windows[c][0])
        if time > windows[c][1]:
            return INF
        time += SERVICE
        here = c
    return time + travel[here][0]


def earliest_return(travel, windows, k: int) -> int:
    finish = {(1 << c, c): _run([c], travel, windows) - travel[c][0] for c in range(1, k + 1)}
    finish = {key: t for key, t in finish.items() if t < INF}
    for mask in range(2, 1 << (k + 1), 2):
        for last in range(1, k + 1):
            t = finish.get((mask, last))
            if t is None:
                continue
            for c in range(1, k + 1):
                if not (mask >> c) & 1:
                    arrive = max(t + travel[last][c], windows[c][0])
                    if arrive <= windows[c][1]:
                        key = (mask | 1 << c, c)
                        finish[key] = min(finish.get(key, INF), arrive + SERVICE)
    full = (1 << (k + 1)) - 2
    return min((finish[(full, c)] + travel[c][0] for c in range(1, k + 1) if (full, c) in finish), default=INF)


def _greedy(travel, windows, k: int, key) -> int:
    order, here = [], 0
    left = set(range(1, k + 1))
    while left:
        nxt = min(left, key=lambda c: key(here, c))
        order.append(nxt)
        left.discard(nxt)
        here = nxt
    return _run(order, travel, windows)


def _instance(rng, k: int):
    while True:
        points = [(rng.randint(0, 12), rng.randint(0, 12)) for _ in range(k + 1)]
        travel = [[max(3, round(3 * math.dist(p, q))) if p != q or i != j else 0 for j, q in enumerate(points)]
                  for i, p in enumerate(points)]
        route = rng.sample(range(1, k + 1), k)
        windows = {0: (0, INF)}
        time, here = 0, 0
        for c in route:
            time += travel[here][c] + rng.randint(0, 12)
            width = rng.randint(25, 70)
            start = max(0, time - rng.randint(0, width))
            windows[c] = (start, start + width)
            time = max(time, start) + SERVICE
            here = c
        nearest = _greedy(travel, windows, k, lambda here, c, table=travel: (table[here][c], c))
        deadline = _greedy(travel, windows, k, lambda here, c, open_=windows: (open_[c][1], c))
        if nearest == deadline == INF:
            continue
        best = earliest_return(travel, windows, k)
        if all(t in (best, INF) for t in (nearest, deadline)):
            continue  # the windowless optimum alone cannot make two traps
        free = earliest_return(travel, {c: (0, INF) for c in range(k + 1)}, k)
        named = {"the nearest-next route": nearest, "the earliest-deadline route": deadline,
                 "the shortest round ignoring the windows": free}
        traps = {label: t for label, t in named.items() if t < INF and t != best}
        if len(set(traps.values())) >= 2:
            return travel, windows, best, traps


SOLVER = r'''
import re
from itertools import permutations
rows = re.findall(r"^\| (\w+) \|((?: *\d+ *\|)+)$", PROMPT, re.M)
travel = [[int(x) for x in cells.split("|") if x.strip()] for _, cells in rows]
found = re.findall(r"customer (\d+): from minute (\d+) to minute (\d+)", PROMPT)
windows = {int(c): (int(a), int(b)) for c, a, b in found}
service = int(re.search(r"takes (\d+) minutes", PROMPT).group(1))
best = None
for order in permutations(sorted(windows)):
    time, here, ok = 0, 0, True
    for c in order:
        time = max(time + travel[here][c], windows[c][0])
        if time > windows[c][1]:
            ok = False
            break
        time += service
        here = c
    if ok:
        back = time + travel[here][0]
        best = back if best is None else min(best, back)
print(best)
'''


def _table(travel) -> str:
    names = ["depot"] + [f"c{c}" for c in range(1, len(travel))]
    head = "| from \\ to | " + " | ".join(names) + " |\n|" + "---|" * (len(names) + 1)
    body = "\n".join(f"| {name} | " + " | ".join(f"{t}" for t in row) + " |" for name, row in zip(names, travel))
    return head + "\n" + body


def _case(index: int, rng, k: int) -> dict:
    travel, windows, best, traps = _instance(rng, k)
    window_lines = "\n".join(f"- customer {c}: from minute {windows[c][0]} to minute {windows[c][1]}"
                             for c in range(1, k + 1))
    prompt = f"""\
        A van leaves the depot at minute 0 and must deliver to {k} customers (c1 to c{k} in the table), then
        return to the depot. Driving times in minutes (the same both ways):

        {_table(travel).replace(chr(10), chr(10) + "        ")}

        Each delivery must start within the customer's window; a van that arrives early waits until the
        window opens, and it may not arrive after the window closes. Each delivery takes {SERVICE} minutes.
        Windows:
        {window_lines.replace(chr(10), chr(10) + "        ")}
        What is the earliest minute at which the van can be back at the depot with every delivery made?
        """
    hardness = {"steps": k + 1, "search": math.factorial(k), "traps": len(set(traps.values()))}
    trap_text = "; ".join(f"{label} gives {t}" for label, t in traps.items())
    difficulty = tier_of(hardness)
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=best,
        solver="",
        reference=f"""\
            Tracking, for each set of customers served and the last one, the earliest time the van can be free
            (waiting never helps later, so earliest is best), and extending only within the windows, the best
            complete round gets back to the depot at minute {best}.

            Answer: {best}""",
        traps=[*traps.values(), best - 1],
        notes=f"""{k} customers, {math.factorial(k):,} delivery orders, most of them missing a window.
            {trap_text[0].upper() + trap_text[1:]}, not the optimum {best} (a route
            that misses a window is no answer at all); each order takes {k + 1} dependent legs (arrival, wait,
            service) to check, and the windows make pruning by distance unreliable.""",
        max_tokens=32768 if difficulty == "hard" else 16384,
        title=f"Delivery route with time windows: {k} customers, earliest return")
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, k) for i, k in enumerate(SHAPES, 1)]
