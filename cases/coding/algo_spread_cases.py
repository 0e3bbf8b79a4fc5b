"""CO-algo-spread: the heaviest set of tree nodes with every two chosen nodes more than 2 edges apart.

Hidden small trees come from the seed; their answers come from trying every subset against all-pairs
distances (the reference is a three-state tree DP). The perf trees are fixed, their answers pinned.
"""

import itertools
from collections import deque

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-spread"

# Hardness (README "How tiers are assigned", coding): three states per node, the sibling rule, iterative post-
# order, negative profits, the empty set; the 5,000-node path. Traps: the wrong solutions.
HARDNESS = {"steps": 7, "search": 5000, "traps": 4}

PROMPT = """
A chain wants to open shops at the nodes of a tree network. The nodes are 0..n-1, `profit[i]` (an
integer, possibly negative) is what a shop at node i earns, and `edges` lists the n - 1 undirected
edges as pairs `(u, v)`. Two shops may not be too close: the path between any two shops must have at
least 3 edges (so shops are neither neighbours nor share a neighbour).

Write a Python function `best_spread(profit: list[int], edges: list[tuple[int, int]]) -> int` that
returns the largest total profit of an allowed set of shops (0 for no shops). n is between 1 and
100,000, and the tree may be a single long path.

Example:
    best_spread([5, 1, 4, 6], [(0, 1), (1, 2), (2, 3)]) == 11     # nodes 0 and 3
"""

SOLUTION = '''
def best_spread(profit, edges):
    n = len(profit)
    neighbours = [[] for _ in range(n)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    parent = [-1] * n
    order = [0]
    seen = [False] * n
    seen[0] = True
    for v in order:                                  # breadth-first: parents before children
        for w in neighbours[v]:
            if not seen[w]:
                seen[w] = True
                parent[w] = v
                order.append(w)
    # chosen: v has a shop; near: no shop at v, one at a child; free: no shop at v or its children
    chosen = list(profit)
    free = [0] * n
    gain = [float("-inf")] * n                       # best (chosen - max(near, free)) over children
    near = [float("-inf")] * n
    for v in reversed(order):
        near[v] = free[v] + gain[v]
        p = parent[v]
        if p >= 0:
            relaxed = max(near[v], free[v])
            chosen[p] += free[v]
            free[p] += relaxed
            gain[p] = max(gain[p], chosen[v] - relaxed)
    return max(0, chosen[0], near[0], free[0])
'''

WRONG = [
    # a recursive DFS: the 5,000-node path runs out of stack
    '''
    def best_spread(profit, edges):
        n = len(profit)
        neighbours = [[] for _ in range(n)]
        for u, v in edges:
            neighbours[u].append(v)
            neighbours[v].append(u)

        def solve(v, parent):
            chosen, free, gain = profit[v], 0, float("-inf")
            for w in neighbours[v]:
                if w != parent:
                    c, near, f = solve(w, v)
                    relaxed = max(near, f)
                    chosen += f
                    free += relaxed
                    gain = max(gain, c - relaxed)
            return chosen, free + gain, free

        return max(0, *solve(0, -1))
    ''',
    # a shop's grandchildren not ruled out (only neighbours are)
    mutate(SOLUTION, ("            chosen[p] += free[v]", "            chosen[p] += max(near[v], free[v])")),
    # two sibling shops allowed under an empty parent: they share a neighbour
    mutate(SOLUTION, ("            free[p] += relaxed\n", "            free[p] += max(relaxed, chosen[v])\n")),
    # each edge read as (parent, child)
    mutate(SOLUTION, ("        neighbours[v].append(u)\n", "")),
]

TESTS = '''
def test_small():
    assert best_spread([5, 1, 4, 6], [(0, 1), (1, 2), (2, 3)]) == 11
    assert best_spread([7], []) == 7
    assert best_spread([-7], []) == 0
    assert best_spread([3, 4], [(1, 0)]) == 4

def test_star_and_siblings():
    star = [(0, i) for i in range(1, 6)]
    assert best_spread([1, 5, 5, 5, 5, 5], star) == 5
    assert best_spread([30, 5, 5, 5, 5, 5], star) == 30
    assert best_spread([1, 5, 5, 5, 5, 5] + [4], star + [(6, 1)]) == 9
    assert best_spread([1, 5, 5, 5, 5, 5] + [4, 4], star + [(6, 1), (7, 6)]) == 9

def test_grandparent_rule():
    assert best_spread([10, 1, 10], [(0, 1), (1, 2)]) == 10
    assert best_spread([10, 1, 1, 10], [(0, 1), (1, 2), (2, 3)]) == 20
    assert best_spread([-1, 8, -2, 9, 3], [(0, 1), (0, 2), (2, 3), (2, 4)]) == 17

def test_long_path():
    n = 5000
    edges = [(i, i + 1) for i in range(n - 1)]
    assert best_spread([1] * n, edges) == 1667
    assert best_spread([(i * 7919) % 13 - 3 for i in range(n)], edges[::-1]) == BIG_PATH

def test_seeded_trees():
    for profit, edges, want in SEEDED:
        assert best_spread(profit, edges) == want, (profit, edges)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
n = 30000
edges = [(rng.randrange(max(0, v - {reach}), v), v) for v in range(1, n)]
rng.shuffle(edges)
args = ([rng.randrange(-50, 1000) for _ in range(n)], edges)
'''


def _every_subset(profit, edges):
    n = len(profit)
    neighbours = [[] for _ in range(n)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    close = []
    for s in range(n):
        dist = {s: 0}
        queue = deque([s])
        while queue:
            v = queue.popleft()
            for w in neighbours[v]:
                if w not in dist:
                    dist[w] = dist[v] + 1
                    queue.append(w)
        close.append({t for t, d in dist.items() if 0 < d <= 2})
    best = 0
    for size in range(1, n + 1):
        for chosen in itertools.combinations(range(n), size):
            if all(b not in close[a] for a, b in itertools.combinations(chosen, 2)):
                best = max(best, sum(profit[i] for i in chosen))
    return best


def _path_answer(weights):
    """Best set on a path with gaps of at least 3 positions, by a linear scan (for the fixed test)."""
    best = [0] * (len(weights) + 3)
    for i, w in enumerate(weights):
        best[i + 3] = max(best[i + 2], best[i] + w)
    return best[-1]


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(25):
        n = rng.randrange(1, 11)
        edges = [(rng.randrange(v), v) for v in range(1, n)]
        labels = list(range(n))
        rng.shuffle(labels)
        edges = [(labels[u], labels[v]) if rng.random() < 0.5 else (labels[v], labels[u]) for u, v in edges]
        profit = [rng.randrange(-4, 12) for _ in range(n)]
        seeded.append((profit, edges, _every_subset(profit, edges)))
    n = 5000
    big_path = _path_answer([(i * 7919) % 13 - 3 for i in range(n)])
    tests = TESTS.replace("BIG_PATH", str(big_path))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Heaviest node set with pairwise distance at least 3 in a tree",
        prompt=PROMPT, entry_point="best_spread", tests=tests, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "bushy-30k", "input": PERF_INPUT.format(seed=61, reach=30000),
               "check": "assert result == 6647294"},
              {"name": "stringy-30k", "input": PERF_INPUT.format(seed=62, reach=3),
               "check": "assert result == 6368008"}],
        notes="""Distance-2 independence on a tree needs three states per node (shop here; no shop here
        but one at a child; neither), with the sibling rule (two children under an empty node are
        two apart) that the textbook independent-set DP misses. The tree may be a 5,000-node path, so
        a recursive DFS overflows the default stack; negative profits make the empty set a candidate.
        Twenty-five seeded trees are checked against all subsets.""",
    )]
