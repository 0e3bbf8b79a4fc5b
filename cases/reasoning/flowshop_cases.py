"""Flow line: 6-8 orders pass through three stations in a fixed sequence (cut, weld, paint), every station
taking the orders in one common order; the answer is the earliest time the last order leaves the paint
station (the least makespan of a three-machine permutation flow shop).

The generator finds the optimum with a depth-first branch and bound over order prefixes (bound: each
station's remaining work after its current finishing time, plus the shortest tail after it) and keeps
instances where the shortcuts miss: Johnson's two-station rule applied to the sums (cut + weld,
weld + paint), the orders in their listed sequence, and the largest station load plus the shortest
head and tail (a lower bound). `verify.solver` parses the times out of the prompt and computes the
finishing time of every permutation with itertools.
"""

from __future__ import annotations

import math

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-flowshop"
SHAPES = [6, 7, 8]  # orders
NAMES = ["Aster", "Birch", "Cobalt", "Delta", "Ember", "Fable", "Gale", "Harbor", "Iris", "Juno"]


def makespan(order, times) -> int:
    done = [0, 0, 0]
    for job in order:
        done[0] += times[job][0]
        done[1] = max(done[1], done[0]) + times[job][1]
        done[2] = max(done[2], done[1]) + times[job][2]
    return done[2]


def optimum(times) -> int:
    n = len(times)
    best = [makespan(range(n), times)]

    def bound(done, left):
        loads = [sum(times[j][s] for j in left) for s in range(3)]
        heads = [min((sum(times[j][:s]) for j in left), default=0) for s in range(3)]
        tails = [min((sum(times[j][s + 1:]) for j in left), default=0) for s in range(3)]
        starts = [max(done[s], heads[s]) for s in range(3)]
        return max(starts[s] + loads[s] + tails[s] for s in range(3))

    def branch(done, left):
        if not left:
            best[0] = min(best[0], done[2])
            return
        if bound(done, left) >= best[0]:
            return
        for job in sorted(left, key=lambda j: times[j][0]):
            a = done[0] + times[job][0]
            b = max(done[1], a) + times[job][1]
            c = max(done[2], b) + times[job][2]
            branch((a, b, c), left - {job})

    branch((0, 0, 0), frozenset(range(n)))
    return best[0]


def johnson_sums(times) -> int:
    """Johnson's rule on the two summed stations: a shortcut, exact only for two stations."""
    first = [(t[0] + t[1], j) for j, t in enumerate(times) if t[0] + t[1] <= t[1] + t[2]]
    last = [(t[1] + t[2], j) for j, t in enumerate(times) if t[0] + t[1] > t[1] + t[2]]
    order = [j for _, j in sorted(first)] + [j for _, j in sorted(last, reverse=True)]
    return makespan(order, times)


def lower_bound(times) -> int:
    return max(sum(t[s] for t in times) + min(sum(t[:s]) for t in times) + min(sum(t[s + 1:]) for t in times)
               for s in range(3))


def _instance(rng, n: int):
    while True:
        times = [(rng.randint(2, 12), rng.randint(2, 12), rng.randint(2, 12)) for _ in range(n)]
        best = optimum(times)
        traps = [johnson_sums(times), makespan(range(n), times), lower_bound(times)]
        if all(t != best for t in traps):
            return times, best, traps


SOLVER = r'''
import re
from itertools import permutations
times = [tuple(map(int, row)) for row in re.findall(r"cut (\d+), weld (\d+), paint (\d+)", PROMPT)]
best = None
for order in permutations(range(len(times))):
    a = b = c = 0
    for job in order:
        a += times[job][0]
        b = max(b, a) + times[job][1]
        c = max(c, b) + times[job][2]
    best = c if best is None else min(best, c)
print(best)
'''


def _case(index: int, rng, n: int) -> dict:
    times, best, (johnson, listed, lower) = _instance(rng, n)
    rows = "\n".join(f"- {NAMES[j]}: cut {t[0]}, weld {t[1]}, paint {t[2]}" for j, t in enumerate(times))
    prompt = f"""\
        A workshop has three stations in a line: cutting, welding and painting. {n} orders must each go
        through cutting, then welding, then painting. Times in minutes:
        {{ROWS}}
        Each station works on one order at a time and never interrupts it; an order may wait between
        stations. Every station handles the orders in the same sequence, which you choose. Work starts at
        minute 0. What is the earliest minute at which all {n} orders are painted?
        """
    hardness = {"steps": n, "search": math.factorial(n), "traps": 3}
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt.replace("{ROWS}", "__ROWS__"), answer=best, solver="",
        hardness=hardness,
        reference=f"""\
            No sequence can beat the busiest station's load plus the shortest lead-in and tail ({lower}).
            Johnson's rule on the summed stations gives a sequence finishing at {johnson}, which is not
            optimal here; searching the sequences (pruning any prefix whose bound is no better) gives
            the least finishing time.

            Answer: {best}""",
        traps=[johnson, listed, lower],
        notes=f"""{n} orders with generated times, {math.factorial(n):,} sequences. Johnson's rule is exact only
            for two stations; applied to the summed stations it gives {johnson}, the listed order {listed}, and
            the load bound {lower}, while the optimum is {best}: finding it means comparing many sequences,
            each a chain of {3 * n} dependent finishing times.""",
        max_tokens=16384, title=f"Three-station flow line with {n} orders: least makespan")
    case["prompt"] = case["prompt"].replace("__ROWS__", rows)
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, n) for i, n in enumerate(SHAPES, 1)]
