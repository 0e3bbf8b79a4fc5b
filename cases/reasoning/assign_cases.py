"""Assignment: 6-8 couriers and as many routes, a table of what each courier would charge for each route
(some pairs impossible); every route gets exactly one courier and every courier one route. The answer is
the least total charge.

The generator solves it with a dynamic program over the set of routes already taken, courier by courier,
and keeps tables where the shortcuts miss: couriers choosing in turn the cheapest route still free, the
globally cheapest remaining pair taken first, and the sum of each courier's cheapest charge (a lower
bound that ignores clashes). `verify.solver` parses the table out of the prompt and tries every
permutation of routes with itertools.
"""

from __future__ import annotations

import math

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-assign"
SHAPES = [(6, 3), (7, 4), (8, 5)]  # (couriers, impossible pairs)
COURIERS = ["Ansel", "Beatriz", "Cyrus", "Dagny", "Emeka", "Freya", "Goran", "Hana"]


def least(table) -> int | None:
    n = len(table)
    best = {0: 0}
    for row in table:
        following: dict = {}
        for used, cost in best.items():
            for j, price in enumerate(row):
                if price is not None and not used >> j & 1:
                    key = used | 1 << j
                    if cost + price < following.get(key, math.inf):
                        following[key] = cost + price
        best = following
    return best.get((1 << n) - 1)


def in_turn(table) -> int | None:
    taken, total = set(), 0
    for row in table:
        options = [(p, j) for j, p in enumerate(row) if p is not None and j not in taken]
        if not options:
            return None
        price, j = min(options)
        taken.add(j)
        total += price
    return total


def cheapest_pair_first(table) -> int | None:
    pairs = sorted((p, i, j) for i, row in enumerate(table) for j, p in enumerate(row) if p is not None)
    rows, cols, total = set(), set(), 0
    for p, i, j in pairs:
        if i not in rows and j not in cols:
            rows.add(i)
            cols.add(j)
            total += p
    return total if len(rows) == len(table) else None


def _instance(rng, n: int, blocked: int):
    while True:
        table = [[rng.randint(10, 60) for _ in range(n)] for _ in range(n)]
        for i, j in rng.sample([(i, j) for i in range(n) for j in range(n)], blocked):
            table[i][j] = None
        best = least(table)
        if best is None:
            continue
        traps = [in_turn(table), cheapest_pair_first(table), sum(min(p for p in row if p is not None) for row in table)]
        if all(t is not None and t != best for t in traps):
            return table, best, traps


SOLVER = r'''
import re
from itertools import permutations
rows = re.findall(r"^\| (\w+) \|(.*)\|$", PROMPT, re.M)[1:]
table = [[None if cell.strip() == "-" else int(cell) for cell in body.split("|")] for _, body in rows]
best = None
for order in permutations(range(len(table))):
    prices = [table[i][j] for i, j in enumerate(order)]
    if None not in prices and (best is None or sum(prices) < best):
        best = sum(prices)
print(best)
'''


def _case(index: int, rng, n: int, blocked: int) -> dict:
    table, best, (turns, pairs, floor) = _instance(rng, n, blocked)
    head = "| Courier | " + " | ".join(f"R{j + 1}" for j in range(n)) + " |"
    rule = "|---" * (n + 1) + "|"
    body = "\n".join(f"| {COURIERS[i]} | " + " | ".join("-" if p is None else str(p) for p in row) + " |"
                     for i, row in enumerate(table))
    prompt = f"""\
        A dispatcher must give each of {n} routes (R1 to R{n}) to exactly one of {n} couriers, one route per
        courier. The table gives what each courier charges for each route, in euros; "-" means that
        courier cannot take that route.

        __TABLE__

        What is the least total the dispatcher can pay?
        """
    hardness = {"steps": n, "search": math.factorial(n), "traps": 3}
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="", hardness=hardness,
        reference=f"""\
            Letting the couriers pick in turn the cheapest free route costs {turns}, and taking the cheapest
            pairs first costs {pairs}; neither is optimal. Each courier's cheapest route adds up to only
            {floor}, but those clash. Comparing the assignments (by the best cost for each set of routes
            already given out), the least total is {best}.

            Answer: {best}""",
        traps=[turns, pairs, floor],
        notes=f"""Generated {n}x{n} table with {blocked} impossible pairs, {math.factorial(n):,} assignments. Picking in
            turn ({turns}), cheapest pair first ({pairs}) and the row-minimum bound ({floor}) all miss the
            optimum {best}; it needs the Hungarian method or a search over assignments with careful bookkeeping
            of which routes are taken.""",
        max_tokens=16384, title=f"Assigning {n} routes to {n} couriers at least cost")
    case["prompt"] = case["prompt"].replace("__TABLE__", "\n".join([head, rule, body]))
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
