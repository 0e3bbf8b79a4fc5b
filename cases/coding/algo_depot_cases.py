"""CO-algo-depot: the tree node minimising population-weighted travel, with every node's cost (rerooting).

Hidden small trees come from the seed; their answers come from a breadth-first search from every node
(the reference reroots once). The perf trees are fixed, their answers pinned.
"""

from collections import deque

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-depot"

# Hardness (README "How tiers are assigned", coding): root the tree iteratively, subtree populations,
# rerooting identity, distance sum; weighted lengths, ties to the smallest village, the 20,000 chain; 25,000
# villages. Traps: the wrong solutions.
HARDNESS = {"steps": 7, "search": 25000, "traps": 4}

PROMPT = """
Villages 0..n-1 are joined by n - 1 two-way roads `(u, v, length)` that form a tree (lengths are
positive integers). Village i has `people[i] >= 0` inhabitants. A depot placed in village d costs
sum(people[i] * distance(d, i) for every village i), where distance is the total road length between
them.

Write a Python function `best_depot(people: list[int], roads: list[tuple[int, int, int]]) -> tuple[int, int]`
that returns `(d, cost)`: the village with the smallest cost and that cost; when several villages tie,
the smallest village number. n is between 1 and 100,000 and the roads may form one long chain, so the
function must be close to linear and must not recurse once per village.

Example:
    best_depot([1, 1, 5], [(0, 1, 2), (1, 2, 1)]) == (2, 4)
"""

SOLUTION = '''
def best_depot(people, roads):
    n = len(people)
    adj = [[] for _ in range(n)]
    for u, v, w in roads:
        adj[u].append((v, w))
        adj[v].append((u, w))
    parent, up_length, order = [-1] * n, [0] * n, [0]
    seen = [False] * n
    seen[0] = True
    for v in order:
        for w, length in adj[v]:
            if not seen[w]:
                seen[w] = True
                parent[w], up_length[w] = v, length
                order.append(w)
    below = list(people)                      # people in each subtree (rooted at 0)
    for v in reversed(order):
        if parent[v] >= 0:
            below[parent[v]] += below[v]
    total = below[0]
    cost = [0] * n
    cost[0] = sum(people[v] * d for v, d in _depths(order, parent, up_length))
    for v in order[1:]:                       # moving the depot across one road
        p = parent[v]
        cost[v] = cost[p] + up_length[v] * (total - 2 * below[v])
    best = min(range(n), key=lambda v: (cost[v], v))
    return (best, cost[best])


def _depths(order, parent, up_length):
    depth = [0] * len(order)
    for v in order[1:]:
        depth[v] = depth[parent[v]] + up_length[v]
    return enumerate(depth)
'''

WRONG = [
    # road lengths ignored: distances counted in roads
    mutate(SOLUTION, ("        adj[u].append((v, w))\n        adj[v].append((u, w))",
                      "        adj[u].append((v, 1))\n        adj[v].append((u, 1))")),
    # ties go to the village found last
    mutate(SOLUTION, ("    best = min(range(n), key=lambda v: (cost[v], v))",
                      "    best = min(range(n), key=lambda v: (cost[v], -v))")),
    # a recursive depth-first search: the long chain exhausts the stack
    '''
    def best_depot(people, roads):
        n = len(people)
        adj = [[] for _ in range(n)]
        for u, v, w in roads:
            adj[u].append((v, w))
            adj[v].append((u, w))
        below, cost = list(people), [0] * n

        def down(v, p, depth):
            cost[0] += people[v] * depth
            for w, length in adj[v]:
                if w != p:
                    down(w, v, depth + length)
                    below[v] += below[w]

        def spread(v, p):
            for w, length in adj[v]:
                if w != p:
                    cost[w] = cost[v] + length * (below[0] - 2 * below[w])
                    spread(w, v)

        down(0, -1, 0)
        spread(0, -1)
        best = min(range(n), key=lambda v: (cost[v], v))
        return (best, cost[best])
    ''',
    # the rerooting step with its sign turned round
    mutate(SOLUTION, ("cost[v] = cost[p] + up_length[v] * (total - 2 * below[v])",
                      "cost[v] = cost[p] + up_length[v] * (2 * below[v] - total)")),
]

TESTS = '''
def test_small():
    assert best_depot([1, 1, 5], [(0, 1, 2), (1, 2, 1)]) == (2, 4)
    assert best_depot([7], []) == (0, 0)
    assert best_depot([0, 0], [(1, 0, 9)]) == (0, 0)
    assert best_depot([3, 3], [(1, 0, 4)]) == (0, 12)

def test_lengths_matter():
    people = [2, 1, 1, 2]
    roads = [(0, 1, 10), (1, 2, 1), (2, 3, 1)]
    assert best_depot(people, roads) == (1, 25)
    roads = [(0, 1, 1), (1, 2, 1), (2, 3, 10)]
    assert best_depot(people, roads) == (1, 25)

def test_ties_pick_the_smallest():
    assert best_depot([1, 0, 0, 1], [(3, 2, 1), (2, 1, 1), (1, 0, 1)]) == (0, 3)
    assert best_depot([0, 5, 0, 5, 0], [(0, 1, 1), (1, 2, 1), (2, 3, 1), (3, 4, 1)]) == (1, 10)

def test_long_chain():
    n = 20000
    roads = [(i, i + 1, 1 + i % 3) for i in range(n - 1)]
    assert best_depot([1] * n, roads) == CHAIN_ANSWER

def test_seeded_trees():
    for people, roads, want in SEEDED:
        assert tuple(best_depot(people, roads)) == tuple(want), (people, roads)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
n = 25000
roads = [(rng.randrange(max(0, v - {reach}), v), v, rng.randrange(1, 100)) for v in range(1, n)]
rng.shuffle(roads)
args = ([rng.randrange(0, 1000) for _ in range(n)], roads)
'''


def _every_start(people, roads):
    n = len(people)
    adj = [[] for _ in range(n)]
    for u, v, w in roads:
        adj[u].append((v, w))
        adj[v].append((u, w))
    best = None
    for d in range(n):
        dist = {d: 0}
        queue = deque([d])
        while queue:
            x = queue.popleft()
            for y, w in adj[x]:
                if y not in dist:
                    dist[y] = dist[x] + w
                    queue.append(y)
        cost = sum(people[i] * dist[i] for i in range(n))
        if best is None or cost < best[1]:
            best = (d, cost)
    return best


def _chain_answer():
    n = 20000
    people = [1] * n
    positions = [0] * n
    for i in range(1, n):
        positions[i] = positions[i - 1] + 1 + (i - 1) % 3
    # on a path the weighted median minimises the cost; with n even both middles tie, pick the first
    d = (n - 1) // 2
    return (d, sum(abs(positions[i] - positions[d]) for i in range(n)))


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(25):
        n = rng.randrange(1, 10)
        roads = [(rng.randrange(v), v, rng.randrange(1, 6)) for v in range(1, n)]
        labels = list(range(n))
        rng.shuffle(labels)
        roads = [(labels[u], labels[v], w) for u, v, w in roads]
        people = [rng.randrange(0, 5) for _ in range(n)]
        seeded.append((people, roads, list(_every_start(people, roads))))
    tests = TESTS.replace("CHAIN_ANSWER", repr(_chain_answer()))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Best depot on a weighted tree by rerooting",
        prompt=PROMPT, entry_point="best_depot", tests=tests, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "bushy-25k", "input": PERF_INPUT.format(seed=131, reach=25000), "check": "assert tuple(result) == (3, 5846303736)"},
              {"name": "stringy-25k", "input": PERF_INPUT.format(seed=132, reach=2), "check": "assert tuple(result) == (12557, 2601935252997)"}],
        notes="""Needs the rerooting identity cost(child) = cost(parent) + length * (total - 2 * below)
        (or the weighted-median insight plus one distance sweep); a search from every village is
        quadratic on 25,000 villages. Traps: road lengths weight the distances but not the median
        condition, ties go to the smallest village (zero-population villages create many), and the
        20,000-village chain in the tests breaks recursive DFS. Twenty-five seeded trees are checked
        against a search from every village.""",
    )]
