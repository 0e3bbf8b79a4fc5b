"""Cable network: 9-11 sites and the trenches that could be dug between them, each with a cost; 4-5 of
the sites must end up connected, the others may serve as relay points or be left out. The answer is the
least cost of trenches that connects the required sites (a Steiner tree in a graph).

The generator runs the Dreyfus-Wagner dynamic program (best tree for each set of required sites plus one
more site, growing sets by merging and by shortest paths) and keeps maps where the shortcuts miss: the
minimum spanning tree over every site, and joining the required sites by a spanning tree of their
shortest-path distances (the two-approximation, which pays shared stretches twice). `verify.solver`
parses the map out of the prompt and tries every set of optional sites, taking a minimum spanning tree
(Kruskal) of the required sites plus that set whenever it is connected.
"""

from __future__ import annotations

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-steiner"
SHAPES = [(9, 16, 4), (10, 18, 5), (11, 20, 5)]  # (sites, trenches, required sites)
SITES = ["Abbey", "Bakery", "Chapel", "Depot", "Estate", "Forge", "Granary", "Hall", "Inn", "Jetty", "Kiln",
         "Lodge"]


def _shortest(n: int, edges: dict) -> list[list[int]]:
    big = 10**6
    dist = [[0 if i == j else big for j in range(n)] for i in range(n)]
    for (a, b), c in edges.items():
        dist[a][b] = dist[b][a] = min(dist[a][b], c)
    for k in range(n):
        for i in range(n):
            for j in range(n):
                dist[i][j] = min(dist[i][j], dist[i][k] + dist[k][j])
    return dist


def steiner(n: int, edges: dict, required: list[int]) -> int:
    dist = _shortest(n, edges)
    k = len(required)
    big = 10**6
    dp = [[big] * n for _ in range(1 << k)]
    for i, t in enumerate(required):
        for v in range(n):
            dp[1 << i][v] = dist[t][v]
    for mask in range(1, 1 << k):
        if mask & (mask - 1) == 0:
            continue
        row = dp[mask]
        sub = (mask - 1) & mask
        while sub:
            if sub < mask ^ sub:  # each split once
                other = dp[mask ^ sub]
                part = dp[sub]
                for v in range(n):
                    row[v] = min(row[v], part[v] + other[v])
            sub = (sub - 1) & mask
        for v in range(n):
            row[v] = min(row[u] + dist[u][v] for u in range(n))
    return min(dp[(1 << k) - 1])


def _mst(nodes: list[int], weight) -> int | None:
    """Prim's tree over `nodes` with weight(a, b) (None: no edge); None when they are not connected."""
    inside, total = {nodes[0]}, 0
    while len(inside) < len(nodes):
        options = [(w, b) for a in inside for b in nodes if b not in inside
                   for w in [weight(a, b)] if w is not None]
        if not options:
            return None
        w, b = min(options)
        inside.add(b)
        total += w
    return total


def _instance(rng, n: int, count: int, k: int):
    while True:
        edges: dict = {}
        order = rng.sample(range(n), n)
        for i in range(1, n):
            edges[tuple(sorted((order[i], rng.choice(order[:i]))))] = rng.randint(3, 20)
        while len(edges) < count:
            edges.setdefault(tuple(sorted(rng.sample(range(n), 2))), rng.randint(3, 20))
        required = sorted(rng.sample(range(n), k))
        best = steiner(n, edges, required)
        dist = _shortest(n, edges)
        everything = _mst(list(range(n)), lambda a, b, edges=edges: edges.get((min(a, b), max(a, b))))
        closure = _mst(required, lambda a, b, dist=dist: dist[a][b])
        if everything is not None and closure is not None and best < min(everything, closure):
            return edges, required, best, everything, closure


SOLVER = r'''
import re
edges = [(a, b, int(c)) for a, b, c in re.findall(r"- (\w+) to (\w+): (\d+)", PROMPT)]
required = re.search(r"must be connected: ([\w, ]+)\.", PROMPT).group(1).replace(" and ", ", ").split(", ")
required = [r.strip() for r in required if r.strip()]
sites = sorted({a for a, _, _ in edges} | {b for _, b, _ in edges})
optional = [s for s in sites if s not in required]
best = None
for mask in range(1 << len(optional)):
    chosen = set(required) | {s for i, s in enumerate(optional) if mask >> i & 1}
    parent = {s: s for s in chosen}
    def root(s):
        while parent[s] != s:
            s = parent[s]
        return s
    total = joined = 0
    for a, b, c in sorted((e for e in edges if e[0] in chosen and e[1] in chosen), key=lambda e: e[2]):
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[ra] = rb
            total += c
            joined += 1
    if joined == len(chosen) - 1 and (best is None or total < best):
        best = total
print(best)
'''


def _case(index: int, rng, n: int, count: int, k: int) -> dict:
    edges, required, best, everything, closure = _instance(rng, n, count, k)
    lines = "\n".join(f"- {SITES[a]} to {SITES[b]}: {c}" for (a, b), c in sorted(edges.items()))
    names = [SITES[v] for v in required]
    prompt = f"""\
        A village is laying fibre cable in trenches. These trenches could be dug, each joining two sites,
        with its cost in thousands:
        __LIST__
        These sites must be connected: {", ".join(names[:-1])} and {names[-1]}.
        The other sites may be used as relay points (cable may run through them) or left out. Cable runs
        only along dug trenches, and every required site must be able to reach every other through them.
        What is the least total cost of the trenches to dig?
        """
    optional = n - k
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": 2 * k - 1, "search": 2 ** optional, "traps": 2},
        reference=f"""\
            Joining everything with a spanning tree costs {everything}, and chaining the required sites along
            shortest paths costs {closure}, paying for shared stretches twice. The cheapest tree uses a few
            relay sites as branch points; comparing the choices of relay sites, the least cost is {best}.

            Answer: {best}""",
        traps=[everything, closure],
        notes=f"""Generated map of {n} sites and {count} trenches with {k} required sites. The spanning tree over
            all sites ({everything}) and the spanning tree of shortest-path distances between required sites
            ({closure}) both overpay; the optimum {best} is a Steiner tree: which of the {2 ** optional} sets of
            relay sites to use, each with its own spanning tree, and the branch points are not obvious.""",
        max_tokens=32768, title=f"Connecting {k} of {n} sites at least cost")
    case["prompt"] = case["prompt"].replace("__LIST__", lines)
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
