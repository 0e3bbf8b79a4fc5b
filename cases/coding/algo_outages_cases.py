"""CO-algo-outages: the number of connected groups after each link failure, offline in reverse.

Hidden small networks come from the seed; their answers come from a fresh graph search after every
failure (the reference replays the failures backwards with union-find). The perf networks are fixed,
their answers pinned by a sum and a checksum.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-outages"

# Hardness (README "How tiers are assigned", coding): replay the failures backwards with union-find, count
# before restoring, a link restored at its first failure, self-loops and parallel links; 40,000 steps. Traps:
# the wrong solutions.
HARDNESS = {"steps": 5, "search": 40000, "traps": 3}

PROMPT = """
A network has hubs 0..n-1 and links; `links[j] = (u, v)` joins hubs u and v in both directions (there
may be several links between the same two hubs, and a link may join a hub to itself). The links fail
one at a time: `failures[k]` is the index of the link that fails at step k. A failed link stays failed;
the same index may appear again later, which changes nothing.

Write a Python function `groups_after(n: int, links: list[tuple[int, int]], failures: list[int]) -> list[int]`
that returns, for each step k, the number of connected groups of hubs right after failure k (a hub
with no working link is a group of its own). n, len(links) and len(failures) are up to 40,000; the
function must finish within a second or two.

Example:
    groups_after(3, [(0, 1), (1, 2), (0, 1)], [0, 2, 1]) == [1, 2, 3]
"""

SOLUTION = '''
def groups_after(n, links, failures):
    parent = list(range(n))

    def find(x):
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    groups = n

    def join(u, v):
        nonlocal groups
        a, b = find(u), find(v)
        if a != b:
            parent[a] = b
            groups -= 1

    first_failure = {}
    for k, j in enumerate(failures):
        first_failure.setdefault(j, k)
    for j, (u, v) in enumerate(links):
        if j not in first_failure:
            join(u, v)
    answers = [0] * len(failures)
    for k in range(len(failures) - 1, -1, -1):
        answers[k] = groups
        j = failures[k]
        if first_failure[j] == k:           # before step k this link was still working
            join(*links[j])
    return answers
'''

WRONG = [
    # a repeated failure brings the link back too early when replayed backwards
    mutate(SOLUTION, ("        if first_failure[j] == k:           # before step k this link was still working\n            join(*links[j])",
                      "        join(*links[j])")),
    # every union counted, even when both ends are already connected
    mutate(SOLUTION, ('''        if a != b:
            parent[a] = b
            groups -= 1''', '''        parent[a] = b
        groups -= 1''')),
    # the answer recorded after the link is back: off by one step
    mutate(SOLUTION, ('''        answers[k] = groups
        j = failures[k]
        if first_failure[j] == k:           # before step k this link was still working
            join(*links[j])''', '''        j = failures[k]
        if first_failure[j] == k:           # before step k this link was still working
            join(*links[j])
        answers[k] = groups''')),
]

TESTS = '''
def test_small():
    assert groups_after(3, [(0, 1), (1, 2), (0, 1)], [0, 2, 1]) == [1, 2, 3]
    assert groups_after(1, [(0, 0)], [0, 0]) == [1, 1]
    assert groups_after(4, [], []) == []

def test_repeated_failures():
    links = [(0, 1), (1, 2), (2, 3)]
    assert groups_after(4, links, [1, 0, 1, 2, 1]) == [2, 3, 3, 4, 4]

def test_self_loops_and_parallel_links():
    links = [(0, 0), (0, 1), (1, 0), (2, 2), (1, 2)]
    assert groups_after(3, links, [0, 3, 1, 4, 2]) == [1, 1, 1, 2, 3]

def test_seeded_networks():
    for n, links, failures, want in SEEDED:
        assert groups_after(n, links, failures) == want, (n, links, failures)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
n = 40000
links = [(rng.randrange(n), rng.randrange(n)) for _ in range(40000)]
failures = [rng.randrange(len(links)) for _ in range(40000)]
args = (n, links, failures)
'''
PERF_CHECK = '''
assert len(result) == 40000
assert sum(result) == {total} and sum(i * g for i, g in enumerate(result)) == {weighted}
'''


def _recount(n, links, failures):
    answers, dead = [], set()
    for j in failures:
        dead.add(j)
        label = list(range(n))
        changed = True
        while changed:                                # label propagation until stable
            changed = False
            for i, (u, v) in enumerate(links):
                if i not in dead and label[u] != label[v]:
                    low = min(label[u], label[v])
                    label[u] = label[v] = low
                    changed = True
        answers.append(len(set(label)))
    return answers


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(25):
        n = rng.randrange(1, 8)
        links = [(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randrange(0, 10))]
        failures = [rng.randrange(len(links)) for _ in range(rng.randrange(0, len(links) + 3))] if links else []
        seeded.append((n, links, failures, _recount(n, links, failures)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Connected groups after each of 40,000 link failures",
        prompt=PROMPT, entry_point="groups_after", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "failures-40k", "input": PERF_INPUT.format(seed=81),
               "check": PERF_CHECK.format(total=634160546, weighted=15305787696889)}],
        notes="""Deletions are hard for union-find, so the model must replay the failures
        backwards (a known trick, not a known statement). Traps: a link that fails twice is restored
        only at its first failure, unions inside one group must not lower the count (self-loops,
        parallel links), and the count is taken before the link is restored. A fresh search per
        failure is quadratic on the 40,000-step perf input.""",
    )]

