"""Pipe network: 9-13 junctions joined by one-way pipes of generated capacities; the answer is the
greatest steady flow from the source junction to the sink (a maximum flow).

The generator computes the flow with the Edmonds-Karp algorithm (shortest augmenting paths in the
residual network, undoing flow along reverse edges) and keeps networks where the shortcuts miss: the
smaller of what leaves the source and what enters the sink, and the greedy that saturates the widest
path again and again without ever rerouting flow already sent. `verify.solver` parses the pipes out of
the prompt and finds the smallest cut instead, trying every set of junctions that holds the source and
not the sink (the max-flow min-cut theorem makes the two equal).
"""

from __future__ import annotations

from collections import deque

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-pipes"
SHAPES = [(9, 17, 4), (12, 25, 6), (13, 28, 6)]  # (junctions, pipes, fewest augmenting paths)
LETTERS = "SABCDEFGHJKLMN"  # no I beside 1


def max_flow(n: int, pipes: dict) -> tuple[int, int]:
    """The maximum flow from 0 to n-1 and the number of augmenting paths Edmonds-Karp takes."""
    residual = dict(pipes)
    for a, b in list(pipes):
        residual.setdefault((b, a), 0)
    near = {v: [b for a, b in residual if a == v] for v in range(n)}
    total = paths = 0
    while True:
        parent = {0: None}
        queue = deque([0])
        while queue and n - 1 not in parent:
            v = queue.popleft()
            for w in near[v]:
                if w not in parent and residual[(v, w)] > 0:
                    parent[w] = v
                    queue.append(w)
        if n - 1 not in parent:
            return total, paths
        edges, v = [], n - 1
        while parent[v] is not None:
            edges.append((parent[v], v))
            v = parent[v]
        push = min(residual[e] for e in edges)
        for a, b in edges:
            residual[(a, b)] -= push
            residual[(b, a)] += push
        total += push
        paths += 1


def greedy_widest(n: int, pipes: dict) -> int:
    """Saturate the widest source-sink path, again and again, never sending flow back (a trap)."""
    left = dict(pipes)
    total = 0
    while True:
        width = {0: float("inf")}
        parent: dict = {0: None}
        changed = True
        while changed:  # Bellman-Ford style widening until no path gets wider
            changed = False
            for (a, b), cap in left.items():
                if a in width and cap > 0 and min(width[a], cap) > width.get(b, 0):
                    width[b], parent[b] = min(width[a], cap), a
                    changed = True
        if n - 1 not in width:
            return total
        push, v = int(width[n - 1]), n - 1
        while parent[v] is not None:
            left[(parent[v], v)] -= push
            v = parent[v]
        total += push


def _instance(rng, n: int, count: int, least: int):
    while True:
        pipes: dict = {}
        middle = list(range(1, n - 1))
        rng.shuffle(middle)
        chain = [0, *middle, n - 1]
        for i in range(len(chain) - 1):  # a path through every junction keeps the network connected
            pipes[(chain[i], chain[i + 1])] = rng.randint(2, 15)
        while len(pipes) < count:
            a, b = rng.sample(range(n), 2)
            if a != n - 1 and b != 0 and (b, a) not in pipes:
                pipes.setdefault((a, b), rng.randint(2, 15))
        best, paths = max_flow(n, pipes)
        ends = min(sum(c for (a, _), c in pipes.items() if a == 0), sum(c for (_, b), c in pipes.items() if b == n - 1))
        if best >= ends or paths < least:
            continue
        greedy = greedy_widest(n, pipes)
        if greedy < best:
            return pipes, best, paths, ends, greedy


SOLVER = r'''
import re
pipes = [(a, b, int(c)) for a, b, c in re.findall(r"from (\w) to (\w): (\d+)", PROMPT)]
nodes = sorted({a for a, _, _ in pipes} | {b for _, b, _ in pipes})
middle = [v for v in nodes if v not in ("S", "T")]
best = None
for mask in range(1 << len(middle)):
    side = {"S"} | {v for i, v in enumerate(middle) if mask >> i & 1}
    cut = sum(c for a, b, c in pipes if a in side and b not in side)
    best = cut if best is None else min(best, cut)
print(best)
'''


def _case(index: int, rng, n: int, count: int, least: int) -> dict:
    pipes, best, paths, ends, greedy = _instance(rng, n, count, least)
    names = LETTERS[: n - 1] + "T"
    listing = "\n".join(f"- from {names[a]} to {names[b]}: {c}" for (a, b), c in sorted(pipes.items()))
    prompt = f"""\
        A water network has {n} junctions: the source S, the sink T and junctions {", ".join(names[1:n - 1])}.
        Each pipe carries water one way only, at most the given number of litres per second:
        {{LIST}}
        Water is neither stored nor lost at a junction other than S and T (what flows in flows out).
        What is the greatest number of litres per second that can flow from S to T?
        """
    hardness = {"steps": paths, "search": 2 ** (n - 2), "traps": 2}
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt.replace("{LIST}", "__LIST__"), answer=best, solver="",
        hardness=hardness,
        reference=f"""\
            Send flow along augmenting paths, allowing flow already sent to be rerouted; after {paths}
            augmentations no path with spare capacity is left, and the junctions still reachable from S
            form a cut whose pipes out carry exactly the flow. That cut and the flow agree:

            Answer: {best}""",
        traps=[ends, greedy],
        notes=f"""Generated network of {n} junctions and {len(pipes)} one-way pipes. The capacity at the ends
            ({ends}) overstates the flow, and filling the widest path again and again without rerouting stops
            at {greedy}; the maximum {best} needs {paths} augmenting paths with flow pushed back along a pipe,
            or a proof by the smallest of {2 ** (n - 2):,} cuts.""",
        max_tokens=16384, title=f"Maximum flow through {n} junctions")
    case["prompt"] = case["prompt"].replace("__LIST__", listing)
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
