"""CO-algo-portals: the fastest time and the number of fastest routes when one portal ride is allowed.

Hidden small networks come from the seed; their answers come from Bellman-Ford relaxation for the time
and a count of walks by exact total time (a DP over time values), not from Dijkstra. The perf networks
are fixed, their answers pinned.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-portals"

# Hardness (README "How tiers are assigned", coding): two-layer state, Dijkstra, counts passed once per
# settled state, both layers added at ties, parallel roads, modulus; the perf network. Traps: the wrong
# solutions.
HARDNESS = {"steps": 7, "search": 10000, "traps": 4}
MOD = 1_000_000_007

PROMPT = """
A city has places 0..n-1. `roads` lists two-way roads `(u, v, minutes)` and `portals` lists one-way
portals `(u, v, minutes)` from u to v; all minutes are integers >= 1, and there may be several roads or
portals between the same places. A route from `source` to `target` is a sequence of roads and portals,
each starting where the previous one ended, that uses at most one portal in total. Two routes are
different if their sequences of roads and portals differ (two parallel roads make two routes).

Write a Python function
`fastest_routes(n: int, roads: list, portals: list, source: int, target: int) -> tuple[int, int]`
returning `(minutes, count)`: the least total minutes of a route, and how many routes take exactly that
long, modulo 1_000_000_007. If source == target the answer is (0, 1); if target cannot be reached it
is (-1, 0). n is up to 6,000 with up to 20,000 roads and portals, and the function must finish within
a second or two.

Example:
    fastest_routes(3, [(0, 1, 2), (1, 2, 2)], [(0, 2, 4)], 0, 2) == (4, 2)
"""

SOLUTION = '''
import heapq

def fastest_routes(n, roads, portals, source, target):
    mod = 1_000_000_007
    if source == target:
        return (0, 1)
    road_adj = [[] for _ in range(n)]
    for u, v, w in roads:
        road_adj[u].append((v, w))
        road_adj[v].append((u, w))
    portal_adj = [[] for _ in range(n)]
    for u, v, w in portals:
        portal_adj[u].append((v, w))
    inf = float("inf")
    dist = [[inf] * n, [inf] * n]             # layer 0: no portal used yet, layer 1: used
    ways = [[0] * n, [0] * n]
    dist[0][source], ways[0][source] = 0, 1
    heap = [(0, 0, source)]
    while heap:
        d, layer, u = heapq.heappop(heap)
        if d > dist[layer][u]:
            continue
        moves = [(v, w, layer) for v, w in road_adj[u]]
        if layer == 0:
            moves += [(v, w, 1) for v, w in portal_adj[u]]
        for v, w, to in moves:
            nd = d + w
            if nd < dist[to][v]:
                dist[to][v], ways[to][v] = nd, ways[layer][u]
                heapq.heappush(heap, (nd, to, v))
            elif nd == dist[to][v]:
                ways[to][v] = (ways[to][v] + ways[layer][u]) % mod
    best = min(dist[0][target], dist[1][target])
    if best == inf:
        return (-1, 0)
    count = sum(ways[k][target] for k in (0, 1) if dist[k][target] == best) % mod
    return (best, count)
'''

WRONG = [
    # a place pushed again on a tie is settled twice, and its routes are passed on twice
    mutate(SOLUTION, ('''            elif nd == dist[to][v]:
                ways[to][v] = (ways[to][v] + ways[layer][u]) % mod''', '''            elif nd == dist[to][v]:
                ways[to][v] = (ways[to][v] + ways[layer][u]) % mod
                heapq.heappush(heap, (nd, to, v))''')),
    # routes with and without a portal not added up on a tie
    mutate(SOLUTION, ("    count = sum(ways[k][target] for k in (0, 1) if dist[k][target] == best) % mod",
                      "    count = ways[0][target] if dist[0][target] == best else ways[1][target]")),
    # portals used as often as one likes
    mutate(SOLUTION, ('''        if layer == 0:
            moves += [(v, w, 1) for v, w in portal_adj[u]]''', '''        moves += [(v, w, 1) for v, w in portal_adj[u]]''')),
    # parallel roads merged into one (keeping the shortest)
    mutate(SOLUTION, ('''    road_adj = [[] for _ in range(n)]
    for u, v, w in roads:
        road_adj[u].append((v, w))
        road_adj[v].append((u, w))''', '''    shortest = {}
    for u, v, w in roads:
        for a, b in ((u, v), (v, u)):
            shortest[(a, b)] = min(w, shortest.get((a, b), w))
    road_adj = [[] for _ in range(n)]
    for (a, b), w in shortest.items():
        road_adj[a].append((b, w))''')),
]

TESTS = '''
def test_small():
    assert fastest_routes(3, [(0, 1, 2), (1, 2, 2)], [(0, 2, 4)], 0, 2) == (4, 2)
    assert fastest_routes(2, [], [], 1, 1) == (0, 1)
    assert fastest_routes(2, [], [(1, 0, 1)], 0, 1) == (-1, 0)
    assert fastest_routes(2, [(0, 1, 3), (1, 0, 3), (0, 1, 4)], [], 0, 1) == (3, 2)

def test_one_portal_only():
    portals = [(0, 1, 1), (1, 2, 1)]
    assert fastest_routes(3, [(0, 2, 5)], portals, 0, 2) == (5, 1)
    assert fastest_routes(3, [(0, 2, 5), (1, 2, 3)], portals, 0, 2) == (4, 1)
    assert fastest_routes(3, [(0, 2, 5), (1, 2, 4)], portals, 0, 2) == (5, 2)

def test_portal_after_roads():
    roads = [(0, 1, 1), (0, 1, 1), (2, 3, 1)]
    portals = [(1, 2, 1), (1, 3, 3)]
    assert fastest_routes(4, roads, portals, 0, 3) == (3, 2)
    assert fastest_routes(4, roads, portals + [(0, 3, 3)], 0, 3) == (3, 3)

def test_seeded_networks():
    for n, roads, portals, source, target, want in SEEDED:
        assert fastest_routes(n, roads, portals, source, target) == tuple(want), (n, roads, portals, source, target)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
n = 6000
roads = [(rng.randrange(n), rng.randrange(n), rng.randrange(1, 3)) for _ in range(12000)]
portals = [(rng.randrange(n), rng.randrange(n), rng.randrange(1, 3)) for _ in range(800)]
args = (n, roads, portals, 0, n - 1)
'''


def _oracle(n, roads, portals, source, target):
    if source == target:
        return (0, 1)
    moves = []                                   # ((node, layer), (node, layer), minutes)
    for u, v, w in roads:
        for layer in (0, 1):
            moves.append(((u, layer), (v, layer), w))
            moves.append(((v, layer), (u, layer), w))
    for u, v, w in portals:
        moves.append(((u, 0), (v, 1), w))
    big = 10 ** 9
    dist = {(source, 0): 0}
    for _ in range(2 * n):                       # Bellman-Ford
        for a, b, w in moves:
            if a in dist and dist[a] + w < dist.get(b, big):
                dist[b] = dist[a] + w
    best = min(dist.get((target, 0), big), dist.get((target, 1), big))
    if best == big:
        return (-1, 0)
    ways = [dict() for _ in range(best + 1)]     # ways[t][state]: walks of total time t
    ways[0][(source, 0)] = 1
    for t in range(best + 1):
        for a, b, w in moves:
            if t + w <= best and a in ways[t]:
                ways[t + w][b] = ways[t + w].get(b, 0) + ways[t][a]
    return (best, (ways[best].get((target, 0), 0) + ways[best].get((target, 1), 0)) % MOD)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    while len(seeded) < 25:
        n = rng.randrange(2, 7)
        roads = [(rng.randrange(n), rng.randrange(n), rng.randrange(1, 4)) for _ in range(rng.randrange(0, 9))]
        portals = [(rng.randrange(n), rng.randrange(n), rng.randrange(1, 4)) for _ in range(rng.randrange(0, 4))]
        source, target = rng.randrange(n), rng.randrange(n)
        want = _oracle(n, roads, portals, source, target)
        if want[0] < 1 and rng.random() < 0.7:
            continue
        seeded.append((n, roads, portals, source, target, list(want)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Fastest time and number of fastest routes with one portal ride",
        prompt=PROMPT, entry_point="fastest_routes", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "city-6000-a", "input": PERF_INPUT.format(seed=121), "check": "assert tuple(result) == (7, 1)"},
              {"name": "city-6000-b", "input": PERF_INPUT.format(seed=122), "check": "assert tuple(result) == (10, 1)"}],
        notes="""Shortest-path counting on a two-layer state graph (portal used or not): the model must
        augment the state, pass counts on once per settled state (pushing a state again on a tie
        settles it twice and double-counts), add the counts of both layers when they tie at the
        target, keep parallel roads as separate routes and reduce modulo p. Twenty-five seeded networks are
        checked against Bellman-Ford plus a count of walks by exact total time.""",
    )]
