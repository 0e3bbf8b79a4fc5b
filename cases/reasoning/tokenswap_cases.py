"""Token swapping: 7-8 sidings joined by a generated network of tracks (a random tree plus a few extra
tracks), each siding holding one numbered wagon; a move swaps the wagons at the two ends of one track.
The answer is the fewest moves that bring every wagon home (wagon k to siding k).

The generator proves the optimum with an A* search whose bound is half the total track distance of
the wagons from home (one swap moves two wagons one track each), and keeps instances where both
shortcuts miss: that bound, and the count with free swaps (wagons minus cycles of the permutation,
right only when any two sidings are joined). `verify.solver` parses the tracks and the wagons out of
the prompt and runs a breadth-first search over arrangements.
"""

from __future__ import annotations

import heapq
import math
from collections import deque

from pytest_crucible.suite.families import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "RE-tokens"
SHAPES = [(6, 1), (7, 2), (8, 2), (8, 3)]  # (sidings, tracks beyond a tree)


def _distances(n: int, tracks: list[tuple[int, int]]) -> list[list[int]]:
    near = {v: [b for a, b in tracks if a == v] + [a for a, b in tracks if b == v] for v in range(1, n + 1)}
    table = [[0] * (n + 1) for _ in range(n + 1)]
    for start in range(1, n + 1):
        seen = {start: 0}
        queue = deque([start])
        while queue:
            v = queue.popleft()
            for w in near[v]:
                if w not in seen:
                    seen[w] = seen[v] + 1
                    queue.append(w)
        for v, d in seen.items():
            table[start][v] = d
    return table


def _bound(wagons: tuple[int, ...], dist) -> int:
    return (sum(dist[i + 1][w] for i, w in enumerate(wagons)) + 1) // 2


def fewest_swaps(wagons: tuple[int, ...], tracks: list[tuple[int, int]], dist) -> int:
    goal = tuple(range(1, len(wagons) + 1))
    best = {wagons: 0}
    heap = [(_bound(wagons, dist), 0, wagons)]
    while heap:
        _, spent, state = heapq.heappop(heap)
        if state == goal:
            return spent
        if spent > best[state]:
            continue
        for a, b in tracks:
            nxt = list(state)
            nxt[a - 1], nxt[b - 1] = nxt[b - 1], nxt[a - 1]
            key = tuple(nxt)
            if spent + 1 < best.get(key, math.inf):
                best[key] = spent + 1
                heapq.heappush(heap, (spent + 1 + _bound(key, dist), spent + 1, key))
    raise ValueError("the network is connected, so every arrangement is solvable")


def free_swaps(wagons: tuple[int, ...]) -> int:
    seen, cycles = set(), 0
    for start in range(1, len(wagons) + 1):
        if start not in seen:
            cycles += 1
            v = start
            while v not in seen:
                seen.add(v)
                v = wagons[v - 1]
    return len(wagons) - cycles


def _instance(rng, n: int, extra: int):
    while True:
        order = rng.sample(range(1, n + 1), n)
        tracks = {tuple(sorted((order[i], rng.choice(order[:i])))) for i in range(1, n)}
        while len(tracks) < n - 1 + extra:
            tracks.add(tuple(sorted(rng.sample(range(1, n + 1), 2))))
        tracks_list = sorted(tracks)
        dist = _distances(n, tracks_list)
        wagons = tuple(rng.sample(range(1, n + 1), n))
        if any(w == i + 1 for i, w in enumerate(wagons)) and n > 6:
            continue
        best = fewest_swaps(wagons, tracks_list, dist)
        if best > _bound(wagons, dist) and best > free_swaps(wagons) and best >= n:
            return tracks_list, wagons, best, dist


SOLVER = r'''
import re
from collections import deque
tracks = [(int(a), int(b)) for a, b in re.findall(r"(\d+)-(\d+)", PROMPT.split("Tracks:")[1].split("\n")[0])]
start = tuple(int(w) for _, w in re.findall(r"siding (\d+) holds wagon (\d+)", PROMPT))
goal = tuple(range(1, len(start) + 1))
seen = {start: 0}
queue = deque([start])
while queue:
    state = queue.popleft()
    if state == goal:
        print(seen[state])
        break
    for a, b in tracks:
        nxt = list(state)
        nxt[a - 1], nxt[b - 1] = nxt[b - 1], nxt[a - 1]
        nxt = tuple(nxt)
        if nxt not in seen:
            seen[nxt] = seen[state] + 1
            queue.append(nxt)
'''


def _case(index: int, rng, n: int, extra: int) -> dict:
    tracks, wagons, best, dist = _instance(rng, n, extra)
    lower, free = _bound(wagons, dist), free_swaps(wagons)
    total = sum(dist[i + 1][w] for i, w in enumerate(wagons))
    holds = "; ".join(f"siding {i} holds wagon {w}" for i, w in enumerate(wagons, 1))
    prompt = f"""\
        A shunting yard has {n} sidings, numbered 1 to {n}, joined by tracks.
        Tracks: {", ".join(f"{a}-{b}" for a, b in tracks)}
        Each siding holds one wagon, and the wagons are numbered 1 to {n} too: {holds}.
        One move swaps the two wagons at the ends of one track (no other pair of sidings can swap directly).
        What is the fewest moves after which every wagon stands on the siding with its own number?
        """
    hardness = {"steps": best, "search": math.factorial(n), "traps": 2}
    difficulty = tier_of(hardness)
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=best,
        solver="",
        reference=f"""\
            Each wagon is some number of tracks from home; the distances add up to {total}, and one swap
            moves two wagons one track each, so at least {lower} moves are needed. Wagons that must pass
            through each other's sidings cost extra swaps; a level-by-level search over the arrangements
            finds the first solution after {best} moves.

            Answer: {best}""",
        traps=[lower, free, best - 1],
        notes=f"""{n} sidings, {len(tracks)} tracks, {math.factorial(n):,} arrangements. The distance bound
            ({lower}) and the count when any two sidings could swap ({free}) both fall short of the optimum
            {best}: wagons travelling in opposite directions along the same path block each other, and only a
            search shows how many extra swaps the detours cost.""",
        max_tokens=32768 if difficulty == "hard" else 16384,
        title=f"Token swapping on {n} sidings: fewest swaps home")
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
