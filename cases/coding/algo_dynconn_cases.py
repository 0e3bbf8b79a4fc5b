"""CO-algo-dynconn: connectivity questions while undirected links are added and removed (offline).

The seeded event lists come from the seed; their answers come from rebuilding a union-find over the
links present at each question (a multiset kept in order). The reference gives each link copy its
lifetime, hangs it on a segment tree over the questions and walks the tree with a union-find that
undoes its unions. The perf lists are fixed, their answers pinned by checksums.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-dynconn"

# Hardness (README "How tiers are assigned", coding): lifetimes per link copy (repeated links,
# either orientation), questions located inside lifetimes, a segment tree over the questions, a
# union-find with union by size and no path compression, the tree walk that undoes unions on the way
# out, counts and yes/no answers in order: 6 steps; 40,000 events with thousands of questions. Traps:
# the wrong solutions.
HARDNESS = {"steps": 6, "search": 40000, "traps": 4}

PROMPT = """
Write a Python function `connectivity(n: int, events: list[tuple]) -> list` for a network of nodes
`0 .. n-1` whose undirected links change over time. The events, in order, are:

- `("add", u, v)`: a link between u and v appears (the same pair may be linked several times; each
  copy is a separate link, and u may equal v);
- `("remove", u, v)`: one copy of a link between u and v (in either order of the two nodes)
  disappears; it always names a link that is present;
- `("count",)`: a question: how many connected groups the nodes form right now (a node without links
  is a group of its own);
- `("ask", u, v)`: a question: can u reach v right now (True or False; a node always reaches itself).

Return the answers to the questions in order (an int for each count, a bool for each ask).

n is up to 5,000 and there are up to 40,000 events, a third of them questions; the function must
finish within a couple of seconds, so rebuilding the groups at every question is too slow.

Example:

    connectivity(3, [("add", 0, 1), ("count",), ("add", 1, 0), ("remove", 0, 1), ("ask", 0, 1),
                     ("remove", 1, 0), ("ask", 1, 0), ("count",)]) == [2, True, False, 3]
"""

SOLUTION = '''
from bisect import bisect_left


def connectivity(n, events):
    questions = [i for i, e in enumerate(events) if e[0] in ("count", "ask")]
    k = len(questions)
    if k == 0:
        return []
    alive = {}                                  # link -> add positions of copies still present
    spans = []
    for i, e in enumerate(events):
        if e[0] in ("add", "remove"):
            link = (min(e[1], e[2]), max(e[1], e[2]))
            if e[0] == "add":
                alive.setdefault(link, []).append(i)
            else:
                spans.append((alive[link].pop(), i, link))
    for link, starts in alive.items():
        spans += [(start, len(events), link) for start in starts]
    size = 1
    while size < k:
        size *= 2
    tree = [[] for _ in range(2 * size)]
    for start, end, link in spans:              # questions strictly between the add and the removal
        lo, hi = bisect_left(questions, start) + size, bisect_left(questions, end) + size
        while lo < hi:
            if lo & 1:
                tree[lo].append(link)
                lo += 1
            if hi & 1:
                hi -= 1
                tree[hi].append(link)
            lo >>= 1
            hi >>= 1
    parent, weight = list(range(n)), [1] * n
    undo, groups, answers = [], [n], [None] * k

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    stack = [(1, -1)]
    while stack:
        node, mark = stack.pop()
        if mark >= 0:                           # leaving: undo this node's unions
            while len(undo) > mark:
                child = undo.pop()
                weight[parent[child]] -= weight[child]
                parent[child] = child
                groups[0] += 1
            continue
        stack.append((node, len(undo)))
        for u, v in tree[node]:
            ru, rv = find(u), find(v)
            if ru != rv:
                if weight[ru] < weight[rv]:
                    ru, rv = rv, ru
                parent[rv] = ru
                weight[ru] += weight[rv]
                groups[0] -= 1
                undo.append(rv)
        if node >= size:
            q = node - size
            if q < k:
                e = events[questions[q]]
                answers[q] = groups[0] if e[0] == "count" else find(e[1]) == find(e[2])
        else:
            stack.append((2 * node + 1, -1))
            stack.append((2 * node, -1))
    return answers
'''

WRONG = [
    # a removal takes away every copy of the link
    mutate(SOLUTION, ("                spans.append((alive[link].pop(), i, link))",
                      "                spans += [(start, i, link) for start in alive.pop(link)]\n"
                      "                alive[link] = []")),
    # links keyed in the order written: a removal naming (v, u) finds no copy
    mutate(SOLUTION, ("            link = (min(e[1], e[2]), max(e[1], e[2]))",
                      "            link = (e[1], e[2])"),
           ("                spans.append((alive[link].pop(), i, link))",
            "                if alive.get(link):\n                    spans.append((alive[link].pop(), i, link))")),
    # removals ignored: a union-find cannot split, so links only accumulate
    '''
    def connectivity(n, events):
        parent = list(range(n))

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        groups, answers = n, []
        for e in events:
            if e[0] == "add":
                ru, rv = find(e[1]), find(e[2])
                if ru != rv:
                    parent[ru] = rv
                    groups -= 1
            elif e[0] == "count":
                answers.append(groups)
            elif e[0] == "ask":
                answers.append(find(e[1]) == find(e[2]))
        return answers
    ''',
    # right, but the groups are rebuilt from the present links at every question
    '''
    from collections import Counter

    def connectivity(n, events):
        present, answers = Counter(), []
        for e in events:
            if e[0] in ("add", "remove"):
                link = (min(e[1], e[2]), max(e[1], e[2]))
                present[link] += 1 if e[0] == "add" else -1
                continue
            parent = list(range(n))

            def find(x):
                while parent[x] != x:
                    parent[x] = parent[parent[x]]
                    x = parent[x]
                return x

            groups = n
            for (u, v), copies in present.items():
                if copies:
                    ru, rv = find(u), find(v)
                    if ru != rv:
                        parent[ru] = rv
                        groups -= 1
            answers.append(groups if e[0] == "count" else find(e[1]) == find(e[2]))
        return answers
    ''',
]

TESTS = '''
def test_example():
    assert connectivity(3, [("add", 0, 1), ("count",), ("add", 1, 0), ("remove", 0, 1), ("ask", 0, 1),
                            ("remove", 1, 0), ("ask", 1, 0), ("count",)]) == [2, True, False, 3]

def test_edges():
    assert connectivity(1, [("count",), ("ask", 0, 0), ("add", 0, 0), ("count",), ("remove", 0, 0)]) == [1, True, 1]
    assert connectivity(4, []) == []
    assert connectivity(4, [("add", 0, 1), ("add", 1, 2), ("add", 2, 3), ("remove", 1, 2), ("count",),
                            ("ask", 0, 3), ("add", 3, 0), ("ask", 1, 2), ("count",)]) == [2, False, True, 1]

def test_seeded():
    for n, events, want in SEEDED:
        got = connectivity(n, [tuple(e) for e in events])
        assert [type(a).__name__ for a in got] == [type(a).__name__ for a in want], (n, events)
        assert list(got) == want, (n, events)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
n = {n}
events, live = [], []
while len(events) < 40000:
    roll = rng.random()
    if roll < 0.5 or not live:
        u, v = rng.randrange(n), rng.randrange(n)
        live.append((u, v))
        events.append(("add", u, v))
    elif roll < 0.7:
        u, v = live.pop(rng.randrange(len(live)))
        events.append(("remove", v, u) if rng.random() < 0.5 else ("remove", u, v))
    elif roll < 0.85:
        events.append(("count",))
    else:
        events.append(("ask", rng.randrange(n), rng.randrange(n)))
args = (n, events)
'''
PERF_CHECK = '''
assert len(result) == {length}
assert sum(int(a) for a in result) == {total}
assert sum(i * int(a) for i, a in enumerate(result)) % 1000000007 == {weighted}
'''


def _rebuild(n, events):
    present, answers = [], []
    for e in events:
        if e[0] == "add":
            present.append({e[1], e[2]})
        elif e[0] == "remove":
            present.remove({e[1], e[2]})
        else:
            label = list(range(n))
            changed = True
            while changed:                      # labels flood to the smallest node of each group
                changed = False
                for link in present:
                    u, v = (tuple(link) * 2)[:2]
                    low = min(label[u], label[v])
                    if label[u] != low or label[v] != low:
                        label[u] = label[v] = low
                        changed = True
            answers.append(len(set(label)) if e[0] == "count" else label[e[1]] == label[e[2]])
    return answers


# (seed, n) -> (number of answers, their sum, weighted sum): from the reference, checked once against a
# union-find rebuilt at every question
PERF = {(71, 3000): (11972, 2809581, 306348610), (72, 5000): (12025, 7609466, 596508877)}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(30):
        n = rng.randrange(1, 8)
        events, live = [], []
        for _ in range(rng.randrange(1, 25)):
            roll = rng.random()
            if roll < 0.4 or not live and roll < 0.6:
                u, v = rng.randrange(n), rng.randrange(n)
                live.append((u, v))
                events.append(("add", u, v))
            elif roll < 0.6:
                u, v = live.pop(rng.randrange(len(live)))
                events.append(("remove", v, u) if rng.random() < 0.5 else ("remove", u, v))
            elif roll < 0.8:
                events.append(("count",))
            else:
                events.append(("ask", rng.randrange(n), rng.randrange(n)))
        seeded.append((n, events, _rebuild(n, events)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Connectivity while links are added and removed, offline",
        prompt=PROMPT, entry_point="connectivity", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": f"events-20k-n{n}", "input": PERF_INPUT.format(seed=s, n=n),
               "check": PERF_CHECK.format(length=length, total=total, weighted=weighted)}
              for (s, n), (length, total, weighted) in PERF.items()],
        notes="""A union-find cannot split a group, so removals need an idea: offline, each link copy
        lives over an interval of questions, the intervals are hung on a segment tree over the
        questions, and a walk of the tree joins groups with a union-find that undoes its joins on the
        way back up (union by size, no path compression). Few replies reach this; the usual ones
        ignore removals, drop every copy of a repeated link, miss removals that name the pair in the
        other order, or rebuild the groups at each question (right, and about 2 x 10^7 joins on the perf
        lists).""",
    )]
