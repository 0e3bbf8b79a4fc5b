"""CO-algo-augment: the fewest one-way links to add so that every node reaches every other, and which.

Any minimal set of links passes: the tests add the links and check by two searches that the network is
strongly connected, and compare the count with the minimum. The generator gets that minimum by trying
every set of links on tiny networks, and on larger ones from strongly connected parts found by
mutual reachability (a transitive closure over bit sets); the reference uses Tarjan's algorithm and
the Eswaran-Tarjan pairing. The perf networks are fixed, their minimum pinned.
"""

from itertools import combinations

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-augment"

# Hardness (README "How tiers are assigned", coding): strongly connected parts without recursion,
# in/out degrees of the condensation, sources and sinks (an isolated part is both), a pairing of
# sources with sinks they reach, the cycle through the pairs, the leftovers, the one-part case: 7 steps;
# 100,000 nodes in long chains. Traps: the wrong solutions.
HARDNESS = {"steps": 7, "search": 100000, "traps": 4}

PROMPT = """
A network has `n` nodes `0 .. n-1` and one-way links `(u, v)` (from u to v; there may be repeated links
and links from a node to itself). Write a Python function
`links_to_add(n: int, links: list[tuple[int, int]]) -> list[tuple[int, int]]` returning a list of new
one-way links such that, once they are added, every node can reach every other node along links, and
such that no shorter list does this. When several such lists exist, any of them is accepted; when the
network already has the property (or n == 1), return an empty list.

n is up to 100,000 and there are up to 200,000 links; the function must finish within a couple of
seconds.

Example:

    links_to_add(3, [(0, 1), (0, 2)])   # e.g. [(1, 0), (2, 0)]: two links are needed
"""

SOLUTION = '''
def links_to_add(n, links):
    adj = [[] for _ in range(n)]
    for u, v in links:
        adj[u].append(v)
    comp, count = _strong_parts(n, adj)
    if count == 1:
        return []
    has_in, has_out = [False] * count, [False] * count
    dag = [[] for _ in range(count)]
    for u, v in links:
        if comp[u] != comp[v]:
            has_out[comp[u]] = has_in[comp[v]] = True
            dag[comp[u]].append(comp[v])
    agent = [0] * count                       # one node of each part
    for node in range(n):
        agent[comp[node]] = node
    sources = [c for c in range(count) if not has_in[c]]
    sinks = [c for c in range(count) if not has_out[c]]
    # pair sources with distinct sinks they reach, one search over parts not visited before
    seen = [False] * count
    pairs = []
    for s in sources:
        seen[s] = True
        found = None if has_out[s] else s
        path = [iter(dag[s])]                 # depth first: every part left on it reaches `found`
        while path and found is None:
            for d in path[-1]:
                if not seen[d]:
                    seen[d] = True
                    if has_out[d]:
                        path.append(iter(dag[d]))
                    else:
                        found = d
                    break
            else:
                path.pop()
        if found is not None:
            pairs.append((s, found))
    paired_sources = {s for s, _ in pairs}
    paired_sinks = {t for _, t in pairs}
    lone_sources = [s for s in sources if s not in paired_sources]
    lone_sinks = [t for t in sinks if t not in paired_sinks]
    added = []
    for i, (_, t) in enumerate(pairs):        # t_i -> s_(i+1), closing the cycle
        added.append((agent[t], agent[pairs[(i + 1) % len(pairs)][0]]))
    both = min(len(lone_sources), len(lone_sinks))
    for j in range(both):
        added.append((agent[lone_sinks[j]], agent[lone_sources[j]]))
    for s in lone_sources[both:]:
        added.append((agent[pairs[0][1]], agent[s]))
    for t in lone_sinks[both:]:
        added.append((agent[t], agent[pairs[0][0]]))
    return added


def _strong_parts(n, adj):
    """Tarjan's algorithm with an explicit stack: part number per node, and the number of parts."""
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    comp = [-1] * n
    stack, counter, count = [], 0, 0
    for root in range(n):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack[node] = True
            recurse = False
            edges = adj[node]
            while i < len(edges):
                nxt = edges[i]
                i += 1
                if index[nxt] == -1:
                    work.append((node, i))
                    work.append((nxt, 0))
                    recurse = True
                    break
                if on_stack[nxt]:
                    low[node] = min(low[node], index[nxt])
            if recurse:
                continue
            if low[node] == index[node]:
                while True:
                    top = stack.pop()
                    on_stack[top] = False
                    comp[top] = count
                    if top == node:
                        break
                count += 1
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return comp, count
'''

WRONG = [
    # sources and sinks joined in the order they were found, not by what they reach
    mutate(SOLUTION, ('''        if found is not None:
            pairs.append((s, found))''', '''        if found is not None:
            pairs.append((s, found))
    pairs = list(zip(sources, sinks))''')),
    # every sink linked to one hub source and that source's sink to every other source: not the fewest
    mutate(SOLUTION, ('''    both = min(len(lone_sources), len(lone_sinks))''',
                      '''    lone_sources = [s for s in sources if s != pairs[0][0]]
    lone_sinks = [t for t in sinks if t != pairs[0][1]]
    added = [(agent[pairs[0][1]], agent[pairs[0][0]])]
    both = 0''')),
    # a network that is already one part gets a link from its part to itself
    mutate(SOLUTION, ('''    if count == 1:
        return []
''', '')),
    # Tarjan written recursively: Python's recursion limit on long chains
    '''
    import sys


    def links_to_add(n, links):
        sys.setrecursionlimit(10000)
        adj = [[] for _ in range(n)]
        for u, v in links:
            adj[u].append(v)
        index, low, on_stack, comp = [-1] * n, [0] * n, [False] * n, [-1] * n
        stack, state = [], {"counter": 0, "count": 0}

        def visit(node):
            index[node] = low[node] = state["counter"]
            state["counter"] += 1
            stack.append(node)
            on_stack[node] = True
            for nxt in adj[node]:
                if index[nxt] == -1:
                    visit(nxt)
                    low[node] = min(low[node], low[nxt])
                elif on_stack[nxt]:
                    low[node] = min(low[node], index[nxt])
            if low[node] == index[node]:
                while True:
                    top = stack.pop()
                    on_stack[top] = False
                    comp[top] = state["count"]
                    if top == node:
                        break
                state["count"] += 1

        for root in range(n):
            if index[root] == -1:
                visit(root)
        count = state["count"]
        if count == 1:
            return []
        has_in, has_out, dag = [False] * count, [False] * count, [[] for _ in range(count)]
        for u, v in links:
            if comp[u] != comp[v]:
                has_out[comp[u]] = has_in[comp[v]] = True
                dag[comp[u]].append(comp[v])
        agent = [0] * count
        for node in range(n):
            agent[comp[node]] = node
        sources = [c for c in range(count) if not has_in[c]]
        sinks = [c for c in range(count) if not has_out[c]]
        seen, pairs = [False] * count, []

        def find_sink(c):
            seen[c] = True
            if not has_out[c]:
                return c
            for d in dag[c]:
                if not seen[d]:
                    got = find_sink(d)
                    if got is not None:
                        return got
            return None

        for s in sources:
            t = find_sink(s)
            if t is not None:
                pairs.append((s, t))
        ps, pt = {s for s, _ in pairs}, {t for _, t in pairs}
        lone_s = [s for s in sources if s not in ps]
        lone_t = [t for t in sinks if t not in pt]
        added = [(agent[t], agent[pairs[(i + 1) % len(pairs)][0]]) for i, (_, t) in enumerate(pairs)]
        both = min(len(lone_s), len(lone_t))
        added += [(agent[lone_t[j]], agent[lone_s[j]]) for j in range(both)]
        added += [(agent[pairs[0][1]], agent[s]) for s in lone_s[both:]]
        added += [(agent[t], agent[pairs[0][0]]) for t in lone_t[both:]]
        return added
    ''',
]

TESTS = '''
def strongly_connected(n, links):
    for flip in (False, True):
        adj = [[] for _ in range(n)]
        for u, v in links:
            if flip:
                u, v = v, u
            adj[u].append(v)
        seen = [False] * n
        seen[0] = True
        stack = [0]
        while stack:
            for v in adj[stack.pop()]:
                if not seen[v]:
                    seen[v] = True
                    stack.append(v)
        if not all(seen):
            return False
    return True

def check(n, links, want):
    added = [tuple(link) for link in links_to_add(n, [tuple(link) for link in links])]
    assert all(len(link) == 2 and 0 <= link[0] < n and 0 <= link[1] < n for link in added), added
    assert len(added) == want, (n, links, added, want)
    assert strongly_connected(n, list(links) + added), (n, links, added)

def test_example_and_edges():
    check(3, [(0, 1), (0, 2)], 2)
    check(1, [], 0)
    check(1, [(0, 0)], 0)
    check(3, [(0, 1), (1, 2), (2, 0), (0, 0)], 0)
    check(4, [], 4)
    check(2, [(0, 1), (0, 1)], 1)

def test_pairing_matters():
    # two sources and two sinks where the first source reaches only the second sink
    check(6, [(0, 3), (1, 2), (1, 3), (4, 5), (5, 4)], 3)
    check(4, [(0, 2), (1, 3), (1, 2)], 2)

def test_seeded():
    for n, links, want in SEEDED:
        check(n, links, want)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
n = 60000
links = []
for start in range(0, n, {chain}):
    end = min(n, start + {chain})
    links += [(i, i + 1) for i in range(start, end - 1)]
    if rng.random() < 0.5:
        links.append((end - 1, start))
while len(links) < 120000:
    u = rng.randrange(n)
    v = rng.randrange(n)
    if u // {chain} <= v // {chain}:
        links.append((u, v))
args = (n, links)
'''
PERF_CHECK = '''
n, links = args
assert len(result) == {want}
adj_f, adj_r = [[] for _ in range(n)], [[] for _ in range(n)]
for u, v in list(links) + [tuple(link) for link in result]:
    adj_f[u].append(v)
    adj_r[v].append(u)
for adj in (adj_f, adj_r):
    seen = [False] * n
    seen[0] = True
    stack = [0]
    while stack:
        for v in adj[stack.pop()]:
            if not seen[v]:
                seen[v] = True
                stack.append(v)
    assert all(seen)
'''


def _minimum_by_closure(n, links) -> int:
    reach = [1 << v for v in range(n)]
    for u, v in links:
        reach[u] |= 1 << v
    for k in range(n):
        bit = 1 << k
        for u in range(n):
            if reach[u] & bit:
                reach[u] |= reach[k]
    part = {}
    for u in range(n):
        part[u] = min(v for v in range(n) if reach[u] >> v & 1 and reach[v] >> u & 1)
    parts = set(part.values())
    if len(parts) == 1:
        return 0
    has_in = {part[v] for u, v in links if part[u] != part[v]}
    has_out = {part[u] for u, v in links if part[u] != part[v]}
    return max(len(parts - has_in), len(parts - has_out))


def _strong(n, links) -> bool:
    reach = [1 << v for v in range(n)]
    for u, v in links:
        reach[u] |= 1 << v
    for k in range(n):
        for u in range(n):
            if reach[u] >> k & 1:
                reach[u] |= reach[k]
    return all(r == (1 << n) - 1 for r in reach)


def _minimum_by_trying(n, links) -> int:
    candidates = [(u, v) for u in range(n) for v in range(n) if u != v]
    for size in range(n + 1):
        for extra in combinations(candidates, size):
            if _strong(n, links + list(extra)):
                return size
    raise AssertionError("n links always suffice")


def _network(rng, n):
    links = []
    for _ in range(rng.randrange(0, 2 * n + 1)):
        u, v = rng.randrange(n), rng.randrange(n)
        if rng.random() < 0.8 and u > v:
            u, v = v, u
        links.append((u, v))
    return links


PERF_WANT = {61: 267, 62: 3}   # by an iterative Kosaraju pass, run once


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(15):
        n = rng.randrange(1, 5)
        links = _network(rng, n)
        seeded.append((n, links, _minimum_by_trying(n, links)))
    for _ in range(25):
        n = rng.randrange(5, 30)
        links = _network(rng, n)
        seeded.append((n, links, _minimum_by_closure(n, links)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Fewest one-way links making a network strongly connected",
        prompt=PROMPT, entry_point="links_to_add", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "chains-60k", "input": PERF_INPUT.format(seed=61, chain=50),
               "check": PERF_CHECK.format(want=PERF_WANT[61])},
              {"name": "long-chains-60k", "input": PERF_INPUT.format(seed=62, chain=5000),
               "check": PERF_CHECK.format(want=PERF_WANT[62])}],
        notes="""The count alone is a known contest result (the larger of the numbers of source and
        sink parts of the condensation, 0 for one part); this task asks for the links themselves,
        which needs the Eswaran-Tarjan construction: sources must be paired with sinks they actually
        reach before the pairs are chained into a cycle. Joining sources and sinks in the order found
        gives the right count and a network that is still not strongly connected (the hidden
        networks with crossed reachability catch it). A hub linking every sink and source is not
        minimal, a single part must get no link, and the 5,000-node chains of the perf networks
        break a recursive Tarjan.""",
    )]

