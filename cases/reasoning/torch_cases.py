"""Bridge and torch, generalised: 6-8 walkers with generated crossing times and a bridge that holds two or
three at once; every crossing needs the one torch, and a group walks at its slowest member's pace. The
answer is the least total time to get everyone across.

The generator runs Dijkstra's algorithm over (who is across, where the torch is), with groups of up to
the bridge's capacity going over and one walker bringing the torch back, and keeps times where the two
shortcuts lose: the fastest walker escorting the slowest across each time, and the textbook two-person
rule (for a bridge of two: the two fastest always shuttle; for a bridge of three: the best plan two at a
time). `verify.solver` parses the times out of the prompt and
relaxes every move (any group either way) until no time improves, a Bellman-Ford pass.
"""

from __future__ import annotations

import heapq
from itertools import combinations

from pytest_crucible.suite.families import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "RE-torch"
SHAPES = [(6, 2), (8, 2), (7, 3), (8, 3)]  # (walkers, bridge capacity)
NAMES = ["Ansel", "Bodil", "Caspar", "Dagny", "Evander", "Freja", "Gunnar", "Hilde", "Ivo", "Jorun", "Kasimir",
         "Liesel", "Magnus", "Nell"]


def least_time(times: list[int], capacity: int) -> tuple[int, int, int]:
    """(least total time, crossings of that plan, product of the choices open along it)."""
    n = len(times)
    everyone = (1 << n) - 1
    groups = [(sum(1 << i for i in g), max(times[i] for i in g))
              for size in range(1, capacity + 1) for g in combinations(range(n), size)]
    best = {(0, 0): (0, 0, 1)}
    heap = [(0, 0, 0, 0, 1)]
    while heap:
        spent, crossings, across, torch, choices = heapq.heappop(heap)
        if across == everyone:
            return spent, crossings, choices
        if (spent, crossings) > best[(across, torch)][:2]:
            continue
        if torch == 0:
            moves = [(across | g, cost) for g, cost in groups if not g & across]
        else:
            moves = [(across & ~(1 << i), times[i]) for i in range(n) if across >> i & 1]
        for nxt, cost in moves:
            key = (nxt, 1 - torch)
            entry = (spent + cost, crossings + 1, choices * len(moves))
            if entry[:2] < best.get(key, (10**9, 0))[:2]:
                best[key] = entry
                heapq.heappush(heap, (*entry[:2], nxt, 1 - torch, entry[2]))
    raise ValueError("everyone can always cross")


def escorted(times: list[int], capacity: int) -> int:
    """The fastest walker takes the slowest ones across in groups and walks back alone each time."""
    rest = sorted(times)
    lead, total = rest.pop(0), 0
    while len(rest) > capacity - 1:
        group = [rest.pop() for _ in range(capacity - 1)]
        total += max(group + [lead]) + lead
    return total + max(rest + [lead])


def two_fastest_shuttle(times: list[int]) -> int:
    """Two at a time: the two fastest go over, one returns, the two slowest go over, the other returns."""
    t = sorted(times)
    total = 0
    while len(t) > 3:
        total += t[0] + 2 * t[1] + t[-1]
        t = t[:-2]
    return total + (sum(t) if len(t) == 3 else t[-1])


def two_at_a_time(times: list[int]) -> int:
    """The textbook optimum for a bridge of two: each step sends the slowest one with an escort, or the
    slowest two with the two fastest shuttling, whichever the recurrence prefers."""
    t = sorted(times)
    best = [0, t[0], t[1], t[0] + t[1] + t[2]]
    for k in range(4, len(t) + 1):
        best.append(min(best[k - 1] + t[0] + t[k - 1], best[k - 2] + t[0] + 2 * t[1] + t[k - 1]))
    return best[len(t)]


def _instance(rng, n: int, capacity: int):
    while True:
        times = sorted(rng.sample(range(1, 10), 2) + rng.sample(range(10, 45), n - 2))
        if capacity == 2 and two_at_a_time(times) in (escorted(times, 2), two_fastest_shuttle(times)):
            continue  # the textbook recurrence is exact for two: a cheap test before the search
        best, crossings, choices = least_time(times, capacity)
        traps = [escorted(times, capacity), two_fastest_shuttle(times) if capacity == 2 else two_at_a_time(times)]
        if all(t > best for t in traps) and len(set(traps)) == 2:
            return times, best, traps, crossings, choices


SOLVER = r'''
import re
from itertools import combinations
times = [int(t) for _, t in re.findall(r"(\w+) takes (\d+) minutes", PROMPT)]
capacity = int(re.search(r"at most (\d+) people", PROMPT).group(1))
n = len(times)
groups = [(sum(1 << i for i in g), max(times[i] for i in g))
          for size in range(1, capacity + 1) for g in combinations(range(n), size)]
INF = float("inf")
dist = {(mask, torch): INF for mask in range(1 << n) for torch in (0, 1)}
dist[(0, 0)] = 0
changed = True
while changed:
    changed = False
    for (mask, torch), d in list(dist.items()):
        if d == INF:
            continue
        for g, cost in groups:
            if torch == 0 and not g & mask:
                key = (mask | g, 1)
            elif torch == 1 and g & mask == g:
                key = (mask & ~g, 0)
            else:
                continue
            if d + cost < dist[key]:
                dist[key] = d + cost
                changed = True
print(dist[((1 << n) - 1, 1)])
'''


def _case(index: int, rng, n: int, capacity: int) -> dict:
    times, best, (escort, classic), crossings, choices = _instance(rng, n, capacity)
    names = rng.sample(NAMES, n)
    walkers = "; ".join(f"{name} takes {t} minutes" for name, t in zip(names, times))
    prompt = f"""\
        {n} people must cross a narrow bridge at night. The bridge holds at most {capacity} people at a time, and
        every crossing (either way) needs the group's one torch, which must be carried across, not thrown. A
        group walks at the pace of its slowest member. Alone, {walkers}.
        What is the least total time, in minutes, in which all {n} can be on the far side?
        """
    hardness = {"steps": crossings, "search": 2 ** (n + 1), "traps": 2}  # states of a search over who is across
    difficulty = tier_of(hardness)
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=best,
        solver="",
        reference=f"""\
            Sending the slowest walkers over together, so their times overlap, is worth a fast walker waiting
            on the far side to bring the torch back; weighing that against the fastest walker escorting each
            group, and checking the plans by their running totals, the best schedule takes {best} minutes.

            **Answer:** {best} minutes""",
        traps=[escort, classic, best - 1],
        notes=f"""Generated times {times} with a bridge for {capacity}: the fastest walker escorting the slowest
            ones gives {escort}, and the textbook two-person rule gives {classic}
            ({"the two fastest always shuttling" if capacity == 2 else "the best plan two at a time"}); the
            optimum {best} takes {crossings} crossings and mixes the ideas (slow walkers cross together while a
            fast one waits on the far side, but not every time). The choices open along that plan multiply to
            {choices:,} (over 2^{n + 1} distinct states); only comparing plans, not a rule, finds it.""",
        max_tokens=32768 if difficulty == "hard" else 16384,
        title=f"Bridge and torch: {n} walkers, {capacity} on the bridge")
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
