"""Fire stations: 12-16 villages and the roads between them; every village must have a station or be one
road from a village that has one, and a few villages cannot host a station. The answer is the fewest
stations (a minimum dominating set with forbidden sites).

The generator branches on the uncovered village with the fewest possible covering sites (one of them must
get a station), with a bound from the most villages one station can cover, and keeps maps where the
greedy rule (build where the most uncovered villages get covered) uses more stations than needed.
`verify.solver` parses the roads out of the prompt and tries sets of allowed sites by increasing size
until one covers every village.
"""

from __future__ import annotations

import math

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-stations"
SHAPES = [(12, 15, 2), (14, 18, 3), (16, 21, 3)]  # (villages, roads, villages that cannot host)
VILLAGES = ["Ashby", "Bexley", "Colby", "Dorrin", "Edgeley", "Farrow", "Gilby", "Haddon", "Irton", "Kelby",
            "Lathom", "Marden", "Norley", "Oakham", "Pelham", "Quorn", "Rydal", "Sutton"]


def _covers(n: int, roads: set, barred: set) -> dict[int, int]:
    """For each allowed site, the bitmask of villages a station there covers."""
    near = {v: 1 << v for v in range(n)}
    for a, b in roads:
        near[a] |= 1 << b
        near[b] |= 1 << a
    return {v: mask for v, mask in near.items() if v not in barred}


def fewest(n: int, covers: dict[int, int]) -> int | None:
    full = (1 << n) - 1
    widest = max(bin(m).count("1") for m in covers.values())
    best = [math.inf]

    def branch(covered: int, used: int):
        if covered == full:
            best[0] = min(best[0], used)
            return
        left = n - bin(covered).count("1")
        if used + -(-left // widest) >= best[0]:
            return
        sites_for = {v: [s for s, m in covers.items() if m >> v & 1] for v in range(n) if not covered >> v & 1}
        village = min(sites_for, key=lambda v: len(sites_for[v]))
        for site in sites_for[village]:
            branch(covered | covers[site], used + 1)

    branch(0, 0)
    return None if best[0] == math.inf else int(best[0])


def greedy(n: int, covers: dict[int, int]) -> int:
    covered, used = 0, 0
    while covered != (1 << n) - 1:
        site = max(sorted(covers), key=lambda s: bin(covers[s] & ~covered).count("1"))
        covered |= covers[site]
        used += 1
    return used


def _instance(rng, n: int, count: int, barred_count: int):
    while True:
        roads: set = set()
        order = rng.sample(range(n), n)
        for i in range(1, n):
            roads.add(tuple(sorted((order[i], rng.choice(order[:i])))))
        while len(roads) < count:
            roads.add(tuple(sorted(rng.sample(range(n), 2))))
        barred = set(rng.sample(range(n), barred_count))
        covers = _covers(n, roads, barred)
        best = fewest(n, covers)
        if best is None:
            continue
        rough = greedy(n, covers)
        if rough > best:
            return sorted(roads), barred, best, rough


SOLVER = r'''
import re
from itertools import combinations
roads = re.findall(r"- (\w+) - (\w+)", PROMPT)
barred = set(re.search(r"cannot host a station: ([\w, ]+)\.", PROMPT).group(1).replace(" and ", ", ").split(", "))
villages = sorted({a for a, _ in roads} | {b for _, b in roads})
near = {v: {v} for v in villages}
for a, b in roads:
    near[a].add(b)
    near[b].add(a)
sites = [v for v in villages if v not in barred]
for size in range(1, len(sites) + 1):
    if any(set().union(*(near[s] for s in chosen)) == set(villages) for chosen in combinations(sites, size)):
        print(size)
        break
'''


def _case(index: int, rng, n: int, count: int, barred_count: int) -> dict:
    roads, barred, best, rough = _instance(rng, n, count, barred_count)
    lines = "\n".join(f"- {VILLAGES[a]} - {VILLAGES[b]}" for a, b in roads)
    names = sorted(VILLAGES[v] for v in barred)
    prompt = f"""\
        A district has {n} villages joined by these two-way roads:
        __LIST__
        Fire stations are to be built so that every village either has a station or is joined by one of
        the roads above directly to a village with a station. These villages cannot host a station: __BARRED__.
        What is the fewest stations that achieve this?
        """
    search = sum(math.comb(n - barred_count, k) for k in range(1, best + 1))
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": best + 3, "search": search, "traps": 1},
        reference=f"""\
            Building first where the most villages get covered needs {rough} stations. Looking instead at
            the villages with the fewest ways to be covered (a dead-end village is covered only by itself or
            its neighbour) and branching on those choices, {best} stations cover every village, and no set of
            {best - 1} allowed sites does.

            Answer: {best}""",
        traps=[rough],
        notes=f"""Generated map: {n} villages, {len(roads)} roads, {barred_count} barred sites. The greedy rule
            (most newly covered first) needs {rough} stations, the optimum is {best}; proving that {best - 1}
            cannot work means ruling out every set of that size among {search:,} candidate sets, and the barred
            sites break the usual leaf-neighbour shortcuts.""",
        max_tokens=16384, title=f"Fire stations for {n} villages: fewest stations")
    barred_text = f"{', '.join(names[:-1])} and {names[-1]}"
    case["prompt"] = case["prompt"].replace("__LIST__", lines).replace("__BARRED__", barred_text)
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
