"""Road inspection: a generated road map of 7-9 towns and 11-14 two-way roads; an inspector leaves the
depot, drives along every road at least once and returns. The answer is the shortest total distance
(the Chinese postman tour).

The generator uses the textbook construction: the total road length plus the cheapest way to pair up the
towns with an odd number of roads by shortest paths (a dynamic program over sets of unpaired towns). It
keeps maps where the shortcuts miss: the road total alone (right only when every town has an even number
of roads), and pairing the odd towns greedily, the closest pair first. `verify.solver` parses the roads
out of the prompt and searches the tours themselves: Dijkstra's algorithm over (town, set of roads
driven so far), finishing at the depot with every road driven.
"""

from __future__ import annotations

from functools import cache

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-postman"
SHAPES = [(7, 11, 4), (8, 13, 6), (9, 14, 6)]  # (towns, roads, odd towns wanted at least)
TOWNS = ["Alder", "Brook", "Cairn", "Dunmore", "Elm", "Fairby", "Glenn", "Hollow", "Ivybridge", "Juniper"]


def _distances(n: int, roads: dict) -> list[list[float]]:
    dist = [[0.0 if i == j else float("inf") for j in range(n)] for i in range(n)]
    for (a, b), length in roads.items():
        dist[a][b] = dist[b][a] = min(dist[a][b], length)
    for k in range(n):
        for i in range(n):
            for j in range(n):
                dist[i][j] = min(dist[i][j], dist[i][k] + dist[k][j])
    return dist


def _odd(n: int, roads: dict) -> list[int]:
    degree = [0] * n
    for a, b in roads:
        degree[a] += 1
        degree[b] += 1
    return [v for v in range(n) if degree[v] % 2]


def cheapest_pairing(odd: list[int], dist) -> int:
    @cache
    def best(left: frozenset) -> int:
        if not left:
            return 0
        first = min(left)
        return min(int(dist[first][v]) + best(left - {first, v}) for v in left if v != first)
    return best(frozenset(odd))


def greedy_pairing(odd: list[int], dist) -> int:
    left, total = set(odd), 0
    while left:
        a, b = min(((a, b) for a in left for b in left if a < b), key=lambda p: (dist[p[0]][p[1]], p))
        total += int(dist[a][b])
        left -= {a, b}
    return total


def _instance(rng, n: int, count: int, odd_least: int):
    while True:
        roads: dict = {}
        order = rng.sample(range(n), n)
        for i in range(1, n):
            roads[tuple(sorted((order[i], rng.choice(order[:i]))))] = rng.randint(2, 12)
        while len(roads) < count:
            roads.setdefault(tuple(sorted(rng.sample(range(n), 2))), rng.randint(2, 12))
        odd = _odd(n, roads)
        if len(odd) < odd_least:
            continue
        dist = _distances(n, roads)
        total = sum(roads.values())
        best = total + cheapest_pairing(odd, dist)
        greedy = total + greedy_pairing(odd, dist)
        if greedy > best:
            return roads, odd, total, best, greedy


SOLVER = r'''
import heapq, re
roads = [(a, b, int(c)) for a, b, c in re.findall(r"- (\w+) - (\w+): (\d+) km", PROMPT)]
depot = re.search(r"depot\s+is\s+in\s+(\w+)", PROMPT).group(1)
full = (1 << len(roads)) - 1
heap, done = [(0, depot, 0)], set()
while heap:
    cost, town, driven = heapq.heappop(heap)
    if town == depot and driven == full:
        print(cost)
        break
    if (town, driven) in done:
        continue
    done.add((town, driven))
    for k, (a, b, length) in enumerate(roads):
        if town in (a, b):
            other = b if town == a else a
            state = (other, driven | 1 << k)
            if state not in done:
                heapq.heappush(heap, (cost + length, other, driven | 1 << k))
'''


def _case(index: int, rng, n: int, count: int, odd_least: int) -> dict:
    roads, odd, total, best, greedy = _instance(rng, n, count, odd_least)
    depot = rng.randrange(n)
    lines = "\n".join(f"- {TOWNS[a]} - {TOWNS[b]}: {c} km" for (a, b), c in sorted(roads.items()))
    prompt = f"""\
        A road inspector must drive along every one of the following two-way roads at least once. Her depot
        is in {TOWNS[depot]}; she starts there and must end there. Roads (with their lengths):
        __LIST__
        She may drive a road more than once and pass through any town as often as she likes, but roads
        meet only at the towns listed. What is the shortest total distance, in km, of such a round trip?
        """
    pairings = 1
    for k in range(len(odd) - 1, 0, -2):
        pairings *= k
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": len(odd) // 2 + len(odd) * (len(odd) - 1) // 2, "search": 2 ** count, "traps": 2},
        reference=f"""\
            The roads add up to {total} km. The towns with an odd number of roads
            ({", ".join(TOWNS[v] for v in odd)}) must be paired up, each pair joined by repeated roads along a
            shortest path; the cheapest of the {pairings} pairings adds {best - total} km.

            Answer: {best}""",
        traps=[total, greedy],
        notes=f"""Generated map: {n} towns, {count} roads, {len(odd)} towns of odd degree. The road total ({total})
            would be right only if every degree were even, and pairing the closest odd towns first gives {greedy};
            the shortest tour, {best}, needs the idea (pair the odd towns by shortest paths) and then the best of
            {pairings} pairings over {len(odd) * (len(odd) - 1) // 2} shortest-path distances; without it the
            space of routes is that of {2 ** count:,} sets of roads driven.""",
        max_tokens=32768, title=f"Inspecting every road of {n} towns: shortest round trip")
    case["prompt"] = case["prompt"].replace("__LIST__", lines)
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
