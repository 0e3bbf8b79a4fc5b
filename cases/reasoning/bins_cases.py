"""Loading vans: 10-13 parcels, each with a generated weight and volume; every van carries at most 100 kg
and 100 litres. The answer is the fewest vans that carry every parcel (two-dimensional bin packing).

The generator proves the optimum with a depth-first branch and bound (parcels by weight, heaviest first,
each into a van already opened or into one new van) and keeps instances where the shortcuts miss:
first-fit decreasing by weight, and the counting bound (total weight or total volume over 100, whichever
is larger). `verify.solver` parses the parcels out of the prompt and runs a dynamic program over sets of
parcels instead (each van's load a feasible set, the fewest sets that cover all).
"""

from __future__ import annotations

import math

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-bins"
SHAPES = [10, 12, 13]  # parcels
LIMIT = 100


def fewest_vans(parcels: list[tuple[int, int]], budget: int = 10**9) -> int | None:
    """The fewest vans; None when the search would take more than `budget` steps (the instance is skipped)."""
    order = sorted(parcels, reverse=True)
    best = [len(order)]
    spent = [0]

    def place(i: int, loads: list[list[int]]):
        spent[0] += 1
        if len(loads) >= best[0] or spent[0] > budget:
            return
        if i == len(order):
            best[0] = len(loads)
            return
        weight, volume = order[i]
        tried = set()
        for van in loads:
            if tuple(van) in tried or van[0] + weight > LIMIT or van[1] + volume > LIMIT:
                continue
            tried.add(tuple(van))
            van[0] += weight
            van[1] += volume
            place(i + 1, loads)
            van[0] -= weight
            van[1] -= volume
        loads.append([weight, volume])
        place(i + 1, loads)
        loads.pop()

    place(0, [])
    return best[0] if spent[0] <= budget else None


def first_fit_decreasing(parcels: list[tuple[int, int]]) -> int:
    vans: list[list[int]] = []
    for weight, volume in sorted(parcels, reverse=True):
        for van in vans:
            if van[0] + weight <= LIMIT and van[1] + volume <= LIMIT:
                van[0] += weight
                van[1] += volume
                break
        else:
            vans.append([weight, volume])
    return len(vans)


def groupings(n: int) -> int:
    """The ways to split n parcels into groups (Bell numbers: what a blind search compares)."""
    row = [1]
    for _ in range(n - 1):
        following = [row[-1]]
        for value in row:
            following.append(following[-1] + value)
        row = following
    return row[-1]


def _instance(rng, n: int):
    while True:
        parcels = [(rng.randint(10, 60), rng.randint(10, 60)) for _ in range(n)]
        best = fewest_vans(parcels, budget=5000)
        if best is None:
            continue
        ffd = first_fit_decreasing(parcels)
        bound = max(math.ceil(sum(w for w, _ in parcels) / LIMIT), math.ceil(sum(v for _, v in parcels) / LIMIT))
        if ffd > best > bound:
            return parcels, best, ffd, bound


SOLVER = r'''
import re
parcels = [(int(w), int(v)) for w, v in re.findall(r"parcel \d+: (\d+) kg and (\d+) litres", PROMPT)]
limit_w, limit_v = map(int, re.search(r"at most (\d+) kg and (\d+) litres in total", PROMPT).groups())
n = len(parcels)
fits = [False] * (1 << n)
for mask in range(1 << n):
    chosen = [parcels[i] for i in range(n) if mask >> i & 1]
    fits[mask] = sum(w for w, _ in chosen) <= limit_w and sum(v for _, v in chosen) <= limit_v
fewest = [0] + [n + 1] * ((1 << n) - 1)
for mask in range(1, 1 << n):
    low = mask & -mask
    sub = mask
    while sub:
        if sub & low and fits[sub] and fewest[mask ^ sub] + 1 < fewest[mask]:
            fewest[mask] = fewest[mask ^ sub] + 1
        sub = (sub - 1) & mask
print(fewest[(1 << n) - 1])
'''


def _case(index: int, rng, n: int) -> dict:
    parcels, best, ffd, bound = _instance(rng, n)
    listing = "\n".join(f"- parcel {i}: {w} kg and {v} litres" for i, (w, v) in enumerate(parcels, 1))
    prompt = f"""\
        A courier must send {n} parcels today:
        __LIST__
        Each van carries at most {LIMIT} kg and {LIMIT} litres in total (both limits hold at once), and a
        parcel cannot be split. What is the fewest vans needed to carry all {n} parcels?
        """
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": n, "search": groupings(n), "traps": 2},
        reference=f"""\
            Total weight and total volume give at least {bound} vans, but the parcels cannot be split that
            evenly under both limits at once; loading the heaviest first into the first van with room takes
            {ffd}. Searching the loadings (heaviest parcel first, each into an open van or a new one) shows
            {best} vans suffice and {best - 1} do not.

            Answer: {best}""",
        traps=[bound, ffd],
        notes=f"""{n} generated parcels, vans of {LIMIT} kg and {LIMIT} litres. The counting bound ({bound}) cannot be
            met and first-fit decreasing by weight uses {ffd} vans; proving {best} means finding a packing and
            showing that none into {best - 1} vans exists, a search over up to {groupings(n):,} ways to group
            {n} parcels (cut short by bounds) with two sums checked per van.""",
        max_tokens=16384, title=f"{n} parcels into vans of {LIMIT} kg and {LIMIT} litres")
    case["prompt"] = case["prompt"].replace("__LIST__", listing)
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, n) for i, n in enumerate(SHAPES, 1)]
