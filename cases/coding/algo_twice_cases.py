"""CO-algo-twice: offline range queries counting the values that occur exactly twice in a window.

Hidden small arrays and queries come from the seed; their answers come from counting each window
directly (the reference sweeps with a Fenwick tree). The perf inputs are fixed, their answers pinned by
a sum and a weighted checksum.
"""

from collections import Counter

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-twice"

# Hardness (README "How tiers are assigned", coding): offline by right end, third-last and second-last
# occurrences, +1/-1 weights moved in a Fenwick tree; 20,000 windows. Traps: the wrong solutions.
HARDNESS = {"steps": 6, "search": 20000, "traps": 4}

PROMPT = """
Write a Python function `exactly_twice(values: list[int], queries: list[tuple[int, int]]) -> list[int]`.
For each query `(l, r)` (0-based, inclusive, 0 <= l <= r < len(values)) return the number of distinct
values that occur exactly twice in values[l], values[l + 1], ..., values[r]; the answers come in the
order of the queries.

There are up to 20,000 values and 20,000 queries, and the windows are long, so counting each window
separately is too slow: the whole call must finish within a couple of seconds.

Example:
    exactly_twice([4, 1, 4, 4, 1], [(0, 2), (0, 4), (1, 4)]) == [1, 1, 2]
"""

SOLUTION = '''
def exactly_twice(values, queries):
    n = len(values)
    tree = [0] * (n + 1)

    def add(i, delta):
        i += 1
        while i <= n:
            tree[i] += delta
            i += i & -i

    def prefix(i):                      # sum of weights at positions 0..i
        i += 1
        total = 0
        while i > 0:
            total += tree[i]
            i -= i & -i
        return total

    # For a value whose last two occurrences up to r are at p < q (and the one before at o, or -1),
    # it occurs exactly twice in [l, r] iff o < l <= p: weight +1 at p and -1 at o.
    order = sorted(range(len(queries)), key=lambda k: queries[k][1])
    answers = [0] * len(queries)
    seen = {}
    k = 0
    for r, v in enumerate(values):
        pos = seen.setdefault(v, [])
        if len(pos) >= 2:
            add(pos[-2], -1)
            if len(pos) >= 3:
                add(pos[-3], +1)
        pos.append(r)
        if len(pos) >= 2:
            add(pos[-2], +1)
            if len(pos) >= 3:
                add(pos[-3], -1)
        while k < len(order) and queries[order[k]][1] == r:
            l = queries[order[k]][0]
            answers[order[k]] = prefix(r) - (prefix(l - 1) if l else 0)
            k += 1
    return answers
'''

WRONG = [
    # the -1 weight forgotten: counts values that occur at least twice
    mutate(SOLUTION, ('''            if len(pos) >= 3:
                add(pos[-3], +1)
''', ''), ('''            if len(pos) >= 3:
                add(pos[-3], -1)
''', '')),
    # the stale +1 of the older pair is not taken back when a value shows up a third time
    mutate(SOLUTION, ('''        if len(pos) >= 2:
            add(pos[-2], -1)
            if len(pos) >= 3:
                add(pos[-3], +1)
''', '''        if len(pos) >= 3:
            add(pos[-3], +1)
''')),
    # each query answered before values[r] itself is added: r treated as exclusive
    mutate(SOLUTION, ('''        while k < len(order) and queries[order[k]][1] == r:
            l = queries[order[k]][0]
            answers[order[k]] = prefix(r) - (prefix(l - 1) if l else 0)
            k += 1
''', ''),
           ("        pos = seen.setdefault(v, [])", '''        while k < len(order) and queries[order[k]][1] == r:
            l = queries[order[k]][0]
            answers[order[k]] = prefix(r) - (prefix(l - 1) if l else 0)
            k += 1
        pos = seen.setdefault(v, [])''')),
    # counting each window: right, and far too slow
    '''
    from collections import Counter

    def exactly_twice(values, queries):
        return [sum(1 for c in Counter(values[l:r + 1]).values() if c == 2) for l, r in queries]
    ''',
]

TESTS = '''
def test_small():
    assert exactly_twice([4, 1, 4, 4, 1], [(0, 2), (0, 4), (1, 4)]) == [1, 1, 2]
    assert exactly_twice([7], [(0, 0)]) == [0]
    assert exactly_twice([2, 2], [(0, 1), (1, 1), (0, 0)]) == [1, 0, 0]

def test_three_and_four_occurrences():
    values = [5, 5, 5, 5, 6, 6]
    assert exactly_twice(values, [(0, 1), (0, 2), (0, 3), (1, 3), (2, 3), (2, 5), (3, 5), (0, 5)]) == \\
        [1, 0, 0, 0, 1, 2, 1, 1]

def test_many_values():
    values = [1, 2, 1, 3, 2, 3, 1, 3, 2, 2]
    queries = [(0, 9), (0, 5), (1, 7), (3, 9), (4, 8), (6, 9), (2, 2)]
    assert exactly_twice(values, queries) == [0, 3, 2, 0, 2, 1, 0]

def test_seeded_queries():
    for values, queries, want in SEEDED:
        assert exactly_twice(values, queries) == want, (values, queries)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
n = 20000
values = [rng.randrange({distinct}) for _ in range(n)]
queries = []
for _ in range(20000):
    l = rng.randrange(0, n // 2)
    queries.append((l, rng.randrange(n // 2, n)))
args = (values, queries)
'''
PERF_CHECK = '''
assert len(result) == 20000
assert sum(result) == {total}
assert sum(i * a for i, a in enumerate(result)) == {weighted}
'''


def _windows(values, queries):
    return [sum(1 for c in Counter(values[l:r + 1]).values() if c == 2) for l, r in queries]


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(25):
        n = rng.randrange(1, 16)
        values = [rng.randrange(rng.randrange(1, 6)) for _ in range(n)]
        queries = []
        for _ in range(rng.randrange(1, 8)):
            l = rng.randrange(n)
            queries.append((l, rng.randrange(l, n)))
        seeded.append((values, queries, _windows(values, queries)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Values occurring exactly twice in each of 20,000 windows",
        prompt=PROMPT, entry_point="exactly_twice", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "windows-20k", "input": PERF_INPUT.format(seed=31, distinct=6000),
               "check": PERF_CHECK.format(total=27006065, weighted=270416563838)},
              {"name": "sparser-20k", "input": PERF_INPUT.format(seed=32, distinct=9000),
               "check": PERF_CHECK.format(total=33622028, weighted=335861034346)}],
        notes="""Distinct-count queries are a known offline technique; "exactly twice" is not: it needs
        the insight that a value counts iff the window's left end lies between its third-last and
        second-last occurrence, kept as +1/-1 weights in a Fenwick tree that must be moved on every new
        occurrence. Forgetting the -1 counts "at least twice"; forgetting to retract the older pair
        leaves stale weights once a value occurs three or four times. Counting each window is right but
        about 2 x 10^8 element visits per perf input (over 10 s here, against
        about 0.4 s for the reference).""",
    )]

