"""Fuel on a budget: a car with a small tank crosses a generated road map (9-14 towns) from the first town
to the last; each road burns a litre per kilometre-unit, and towns sell fuel at their own price (some sell
none). The answer is the least money spent on fuel for the trip.

The generator runs Dijkstra's algorithm over (town, litres in the tank), buying one litre or driving one
road at a time, and keeps maps where the tank binds (the cheapest plan with an unlimited tank is a trap);
the cheapest way along the shortest road route is the other trap, when it differs. `verify.solver` parses
the map, prices and tank out of the prompt and relaxes the same moves over all states until nothing
improves (Bellman-Ford).
"""

from __future__ import annotations

import heapq

from pytest_crucible.suite.families import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "RE-fuel"
SHAPES = [(7, 3, 14), (10, 5, 18), (12, 7, 20), (14, 8, 22)]  # (towns, roads beyond a tree, tank litres)


def cheapest(n, roads, prices, tank, allowed=None) -> int | None:
    """Least cost from town 1 (empty tank) to town n; `allowed`: the only towns the trip may use."""
    near: dict[int, list] = {t: [] for t in range(1, n + 1)}
    for a, b, d in roads:
        near[a].append((b, d))
        near[b].append((a, d))
    best = {(1, 0): 0}
    heap = [(0, 1, 0)]
    while heap:
        cost, town, fuel = heapq.heappop(heap)
        if town == n:
            return cost
        if cost > best[(town, fuel)]:
            continue
        moves = [((nxt, fuel - d), 0) for nxt, d in near[town] if d <= fuel and (allowed is None or nxt in allowed)]
        if prices.get(town) and fuel < tank:
            moves.append(((town, fuel + 1), prices[town]))
        for state, extra in moves:
            if cost + extra < best.get(state, 10**9):
                best[state] = cost + extra
                heapq.heappush(heap, (cost + extra, *state))
    return None


def unlimited_tank(n, roads, prices) -> int:
    """With no tank limit, every km is paid at the cheapest price met so far: Dijkstra over (town, that price)."""
    near: dict[int, list] = {t: [] for t in range(1, n + 1)}
    for a, b, d in roads:
        near[a].append((b, d))
        near[b].append((a, d))
    start = (1, prices[1])
    best = {start: 0}
    heap = [(0, *start)]
    while heap:
        cost, town, price = heapq.heappop(heap)
        if town == n:
            return cost
        if cost > best[(town, price)]:
            continue
        for nxt, d in near[town]:
            state = (nxt, min(price, prices.get(nxt, price)))
            if cost + d * price < best.get(state, 10**9):
                best[state] = cost + d * price
                heapq.heappush(heap, (cost + d * price, *state))
    raise ValueError("the map is connected")


def _shortest_route(n, roads) -> set[int]:
    near: dict[int, list] = {t: [] for t in range(1, n + 1)}
    for a, b, d in roads:
        near[a].append((b, d))
        near[b].append((a, d))
    dist, back = {1: 0}, {}
    heap = [(0, 1)]
    while heap:
        d, town = heapq.heappop(heap)
        if d > dist[town]:
            continue
        for nxt, length in near[town]:
            if d + length < dist.get(nxt, 10**9):
                dist[nxt], back[nxt] = d + length, town
                heapq.heappush(heap, (d + length, nxt))
    route, town = {n}, n
    while town != 1:
        town = back[town]
        route.add(town)
    return route


def _instance(rng, n: int, extra: int, tank: int):
    while True:
        roads = {}
        for t in range(2, n + 1):
            roads[tuple(sorted((t, rng.randint(max(1, t - 3), t - 1))))] = rng.randint(4, tank - 2)
        while len(roads) < n - 1 + extra:
            a, b = sorted(rng.sample(range(1, n + 1), 2))
            roads.setdefault((a, b), rng.randint(4, tank - 2))
        road_list = [(a, b, d) for (a, b), d in sorted(roads.items())]
        prices = {t: rng.choice([2, 3, 4, 9, 10, 11, 12]) for t in range(1, n) if t == 1 or rng.random() < 0.6}
        best = cheapest(n, road_list, prices, tank)
        if best is None:
            continue
        unlimited = unlimited_tank(n, road_list, prices)
        if unlimited == best:  # the tank must bind
            continue
        on_shortest = cheapest(n, road_list, prices, tank, _shortest_route(n, road_list))
        return road_list, prices, best, unlimited, on_shortest


SOLVER = r'''
import re
n = int(re.search(r"(\d+) towns", PROMPT).group(1))
tank = int(re.search(r"tank holds (\d+) litres", PROMPT).group(1))
roads = [(int(a), int(b), int(d)) for a, b, d in re.findall(r"(\d+)-(\d+): (\d+) km", PROMPT)]
prices = {int(t): int(p) for t, p in re.findall(r"town (\d+) at (\d+) coins a litre", PROMPT)}
INF = float("inf")
cost = {(t, f): INF for t in range(1, n + 1) for f in range(tank + 1)}
cost[(1, 0)] = 0
changed = True
while changed:
    changed = False
    for (town, fuel), c in list(cost.items()):
        if c == INF:
            continue
        steps = []
        if town in prices and fuel < tank:
            steps.append(((town, fuel + 1), c + prices[town]))
        for a, b, d in roads:
            if town in (a, b) and d <= fuel:
                steps.append(((b if town == a else a, fuel - d), c))
        for state, value in steps:
            if value < cost[state]:
                cost[state] = value
                changed = True
print(min(cost[(n, f)] for f in range(tank + 1)))
'''


def _case(index: int, rng, n: int, extra: int, tank: int) -> dict:
    roads, prices, best, unlimited, on_shortest = _instance(rng, n, extra, tank)
    traps = [t for t in dict.fromkeys([unlimited, on_shortest]) if t is not None and t != best]
    shortest_text = (f"the shortest road route costs {on_shortest} coins at best" if on_shortest is not None
                     else "the shortest road route cannot be driven with this tank")
    if on_shortest == best:
        shortest_text = "the shortest road route happens to be the cheapest too"
    road_text = ", ".join(f"{a}-{b}: {d} km" for a, b, d in roads)
    price_text = "; ".join(f"town {t} at {p} coins a litre" for t, p in sorted(prices.items()))
    prompt = f"""\
        A map has {n} towns, numbered 1 to {n}, and two-way roads between some of them: {road_text}.
        A car starts in town 1 with an empty tank and must reach town {n}. It burns exactly one litre per km,
        its tank holds {tank} litres, and it cannot run dry on a road. Fuel is sold in whole litres, as much or as
        little as wanted, only in these towns: {price_text}. No other town sells fuel.
        What is the least amount of money, in coins, the car can spend on fuel to reach town {n}?
        """
    hardness = {"steps": 2 * len(_shortest_route(n, roads)), "search": n * (tank + 1), "traps": len(traps)}
    difficulty = tier_of(hardness)
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=best,
        solver="",
        reference=f"""\
            With an unlimited tank {unlimited} coins would do, but the {tank}-litre tank forces stops at dearer
            towns ({shortest_text}). Buying only what is needed at dear towns and
            filling up at cheap ones, the cheapest trip costs {best} coins.

            Answer: {best}""",
        traps=[*traps, best - 1],
        notes=f"""{n} towns, {len(roads)} roads, a {tank}-litre tank, prices from {min(prices.values())} to
            {max(prices.values())}. The unlimited-tank cost ({unlimited}) misses, and {shortest_text}; the
            optimum {best} decides at each stop how many litres to buy (filling up where fuel is cheap, buying
            just enough where it is dear), a search over (town, litres) states, not a shortest path.""",
        max_tokens=32768 if difficulty == "hard" else 16384,
        title=f"Fuel on a budget: {n} towns, a {tank}-litre tank")
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
