"""CO-algo-critical: the roads that lie on every shortest route between two places.

Hidden small networks come from the seed; their answers come from closing each road in turn and
recomputing the shortest time with Floyd-Warshall (the reference needs two Dijkstra runs and an
interval sweep). The perf networks are fixed, their answers pinned.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-critical"

# Hardness (README "How tiers are assigned", coding): distances from both ends, the roads on some fastest
# trip, their time intervals, overlap test; touching intervals, parallel roads, unreachable target; the perf
# graph. Traps: the wrong solutions.
HARDNESS = {"steps": 8, "search": 20000, "traps": 4}

PROMPT = """
Places 0..n-1 are joined by two-way roads; `roads[j] = (u, v, minutes)` with minutes >= 1 (there may be
several roads between the same two places, and roads from a place to itself). A road is *critical* for
a trip from `source` to `target` when closing that one road makes the fastest trip strictly slower or
impossible.

Write a Python function `critical_roads(n: int, roads: list[tuple[int, int, int]], source: int, target: int) -> list[int]`
returning the indices of the critical roads in increasing order (an empty list when source == target or
target cannot be reached at all). n is up to 8,000 and there are up to 30,000 roads; the function must
finish within a second or two, so closing every road and searching again is too slow.

Example:
    critical_roads(4, [(0, 1, 1), (1, 3, 1), (0, 2, 1), (2, 3, 2)], 0, 3) == [0, 1]
"""

SOLUTION = '''
import heapq

def critical_roads(n, roads, source, target):
    if source == target:
        return []
    adj = [[] for _ in range(n)]
    for u, v, w in roads:
        adj[u].append((v, w))
        adj[v].append((u, w))

    def dijkstra(start):
        dist = [None] * n
        dist[start] = 0
        heap = [(0, start)]
        while heap:
            d, u = heapq.heappop(heap)
            if d > dist[u]:
                continue
            for v, w in adj[u]:
                if dist[v] is None or d + w < dist[v]:
                    dist[v] = d + w
                    heapq.heappush(heap, (d + w, v))
        return dist

    ds, dt = dijkstra(source), dijkstra(target)
    total = ds[target]
    if total is None:
        return []
    spans = []                                # (enter, leave, index) of roads on some fastest trip
    for j, (u, v, w) in enumerate(roads):
        for a, b in ((u, v), (v, u)):
            if ds[a] is not None and dt[b] is not None and ds[a] + w + dt[b] == total:
                spans.append((ds[a], ds[a] + w, j))
                break
    spans.sort()
    critical = []
    reach = -1                                # furthest leave time among earlier spans
    for i, (enter, leave, j) in enumerate(spans):
        clear_before = reach <= enter
        clear_after = i + 1 == len(spans) or spans[i + 1][0] >= leave
        if clear_before and clear_after:
            critical.append(j)
        reach = max(reach, leave)
    return sorted(critical)
'''

WRONG = [
    # every road on some fastest trip reported, not only those on all of them
    mutate(SOLUTION, ("        if clear_before and clear_after:", "        if True:")),
    # spans that only touch at an end treated as overlapping
    mutate(SOLUTION, ("        clear_before = reach <= enter\n        clear_after = i + 1 == len(spans) or spans[i + 1][0] >= leave",
                      "        clear_before = reach < enter\n        clear_after = i + 1 == len(spans) or spans[i + 1][0] > leave")),
    # parallel roads merged: a doubled road looks critical
    mutate(SOLUTION, ('''    spans.sort()''', '''    unique = {}
    for enter, leave, j in spans:
        a, b = roads[j][0], roads[j][1]
        unique.setdefault((min(a, b), max(a, b), enter), (enter, leave, j))
    spans = list(unique.values())
    spans.sort()''')),
    # roads that continue a fastest path from the source, even if they lead away from the target
    mutate(SOLUTION, ("            if ds[a] is not None and dt[b] is not None and ds[a] + w + dt[b] == total:",
                      "            if ds[a] is not None and ds[b] == ds[a] + w and ds[b] <= total:")),
]

TESTS = '''
def test_small():
    assert critical_roads(4, [(0, 1, 1), (1, 3, 1), (0, 2, 1), (2, 3, 2)], 0, 3) == [0, 1]
    assert critical_roads(4, [(0, 1, 1), (1, 3, 1), (0, 2, 1), (2, 3, 1)], 0, 3) == []
    assert critical_roads(3, [(0, 1, 5)], 0, 2) == []
    assert critical_roads(2, [(0, 1, 5)], 1, 1) == []
    assert critical_roads(2, [(0, 1, 5)], 1, 0) == [0]

def test_parallel_and_loops():
    roads = [(0, 1, 2), (1, 0, 2), (1, 2, 3), (2, 2, 1), (1, 2, 4)]
    assert critical_roads(3, roads, 0, 2) == [2]
    roads = [(0, 1, 2), (1, 0, 3), (1, 2, 3)]
    assert critical_roads(3, roads, 0, 2) == [0, 2]

def test_overlapping_spans():
    roads = [(0, 1, 2), (1, 3, 2), (0, 2, 1), (2, 3, 3), (3, 4, 1), (4, 5, 1), (3, 5, 2), (5, 6, 1)]
    assert critical_roads(7, roads, 0, 6) == [7]
    roads = [(0, 1, 1), (1, 2, 1), (2, 3, 1), (0, 3, 4)]
    assert critical_roads(4, roads, 0, 3) == [0, 1, 2]

def test_dead_ends_are_not_critical():
    roads = [(0, 1, 1), (1, 2, 1), (1, 3, 1)]
    assert critical_roads(4, roads, 0, 2) == [0, 1]

def test_seeded_networks():
    for n, roads, source, target, want in SEEDED:
        assert critical_roads(n, roads, source, target) == want, (n, roads, source, target)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
n = 5000
roads = [(v, v + 1, rng.randrange(1, 4)) for v in range(n - 1)]
roads += [(rng.randrange(n), rng.randrange(n), rng.randrange(1, 40)) for _ in range(12000)]
rng.shuffle(roads)
args = (n, roads, 0, n - 1)
'''


def _closing_each(n, roads, source, target):
    big = 10 ** 9

    def fastest(skip):
        dist = [[0 if i == j else big for j in range(n)] for i in range(n)]
        for j, (u, v, w) in enumerate(roads):
            if j != skip:
                dist[u][v] = min(dist[u][v], w)
                dist[v][u] = min(dist[v][u], w)
        for k in range(n):
            for i in range(n):
                for j in range(n):
                    if dist[i][k] + dist[k][j] < dist[i][j]:
                        dist[i][j] = dist[i][k] + dist[k][j]
        return dist[source][target]

    if source == target:
        return []
    base = fastest(None)
    if base >= big:
        return []
    return [j for j in range(len(roads)) if fastest(j) > base]


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    while len(seeded) < 20:
        n = rng.randrange(2, 7)
        roads = [(rng.randrange(n), rng.randrange(n), rng.randrange(1, 4)) for _ in range(rng.randrange(1, 10))]
        source, target = rng.randrange(n), rng.randrange(n)
        want = _closing_each(n, roads, source, target)
        if not want and rng.random() < 0.6:
            continue
        seeded.append((n, roads, source, target, want))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Roads that every fastest trip needs",
        prompt=PROMPT, entry_point="critical_roads", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "roads-17k-a", "input": PERF_INPUT.format(seed=141), "check": "assert len(result) == 4 and sum(result) == 51560"},
              {"name": "roads-17k-b", "input": PERF_INPUT.format(seed=142), "check": "assert len(result) == 1 and sum(result) == 15319"}],
        notes="""Not the bridge problem: a road is critical when it is on every fastest trip, which needs
        distances from both ends to find the roads on some fastest trip and then an argument over the
        time intervals they cover (a road is on all of them iff no other such road's interval
        overlaps its own). Closing each road and searching again is correct but quadratic. Traps:
        intervals that merely touch do not overlap, parallel equal roads are both non-critical, and
        roads that continue a fastest path from the source but never reach the target do not count.
        Twenty seeded networks are checked by closing each road and rerunning Floyd-Warshall.""",
    )]
