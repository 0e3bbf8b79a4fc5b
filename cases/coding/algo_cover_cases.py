"""CO-algo-cover: the cheapest set of priced intervals whose union covers [0, length].

Hidden small instances come from the seed; their answers come from trying every subset and checking
its union directly. The perf input is fixed, its answer pinned.
"""

import itertools

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-cover"

# Hardness (README "How tiers are assigned", coding): sort by end, DP over offers, range minimum by monotone
# stack and binary search; touching stretches, integer points, unreachable road, ties; 30,000 offers. Traps:
# the wrong solutions.
HARDNESS = {"steps": 8, "search": 30000, "traps": 4}

PROMPT = """
A road of the given `length` (from position 0 to position `length`) needs lighting. Each offer
`(start, end, cost)` lights the closed stretch from `start` to `end` (integers, start < end; an offer may
reach beyond either end of the road) for an integer cost >= 0. Write a Python function
`cheapest_cover(length: int, offers: list[tuple[int, int, int]]) -> int` that returns the least total cost
of a set of offers whose lit stretches together cover every point of [0, length] (two stretches that
meet at a single point, like [0, 3] and [3, 7], leave no gap), or -1 if no set does. length >= 1.
There are up to 30,000 offers, so the function must be near-linear (a quadratic DP is too slow).

Example:
    cheapest_cover(10, [(0, 6, 5), (5, 10, 4), (0, 10, 12), (6, 10, 1)]) == 6
"""

SOLUTION = '''
from bisect import bisect_left

def cheapest_cover(length, offers):
    # best[i]: cheapest cost of covering [0, end] with an offer ending at `end` as the furthest one;
    # the stack keeps (end, best) with ends and costs both increasing (dominated entries dropped)
    ends, costs = [], []
    answer = -1
    for start, end, cost in sorted(offers, key=lambda o: (o[1], o[0])):
        if start <= 0:
            total = cost
        else:
            k = bisect_left(ends, start)         # earlier offers reaching at least `start`
            if k == len(ends):
                continue
            total = costs[k] + cost
        if end >= length and (answer < 0 or total < answer):
            answer = total
        while costs and costs[-1] >= total:
            costs.pop()
            ends.pop()
        ends.append(end)
        costs.append(total)
    return answer
'''

WRONG = [
    # integer points: [0, 3] and [4, 7] taken to cover [0, 7]
    mutate(SOLUTION, ("            k = bisect_left(ends, start)         # earlier offers reaching at least `start`",
                      "            k = bisect_left(ends, start - 1)")),
    # stretches must overlap, not just meet
    mutate(SOLUTION, ("            k = bisect_left(ends, start)         # earlier offers reaching at least `start`",
                      "            k = bisect_left(ends, start + 1)")),
    # the classic greedy for the fewest offers, ignoring prices
    '''
    def cheapest_cover(length, offers):
        reach, total = 0, 0
        chosen = None
        while True:
            best = None
            for start, end, cost in offers:
                if start <= reach and end > reach and (best is None or end > best[1]):
                    best = (start, end, cost)
            if best is None:
                return -1
            total += best[2]
            reach = best[1]
            if reach >= length:
                return total
    ''',
    # offers must start exactly at 0 (or exactly meet) and end exactly at length
    mutate(SOLUTION, ("        if start <= 0:\n", "        if start == 0:\n"),
           ("        if end >= length and (answer < 0 or total < answer):", "        if end == length and (answer < 0 or total < answer):")),
]

TESTS = '''
def test_small():
    assert cheapest_cover(10, [(0, 6, 5), (5, 10, 4), (0, 10, 12), (6, 10, 1)]) == 6
    assert cheapest_cover(5, []) == -1
    assert cheapest_cover(5, [(0, 4, 1)]) == -1
    assert cheapest_cover(5, [(-3, 9, 7)]) == 7
    assert cheapest_cover(1, [(0, 1, 0)]) == 0

def test_touching_points():
    assert cheapest_cover(7, [(0, 3, 1), (3, 7, 1)]) == 2
    assert cheapest_cover(7, [(0, 3, 1), (4, 7, 1)]) == -1
    assert cheapest_cover(7, [(0, 3, 1), (4, 7, 1), (2, 5, 10)]) == 12

def test_prices_beat_reach():
    offers = [(0, 9, 100), (0, 4, 1), (4, 8, 1), (8, 12, 1), (9, 12, 1)]
    assert cheapest_cover(12, offers) == 3
    offers = [(0, 2, 5), (1, 3, 5), (0, 3, 11), (2, 6, 1), (3, 6, 1)]
    assert cheapest_cover(6, offers) == 6

def test_beyond_the_road():
    assert cheapest_cover(10, [(-5, 2, 3), (2, 20, 4)]) == 7
    assert cheapest_cover(10, [(1, 20, 4)]) == -1

def test_seeded():
    for length, offers, want in SEEDED:
        assert cheapest_cover(length, offers) == want, (length, offers)
'''

PERF_INPUT = '''
import random
rng = random.Random(181)
offers = []
for _ in range(30000):
    start = rng.randrange(-50, 6 * 10**5)
    offers.append((start, start + rng.randrange(1, 3000), rng.randrange(0, 1000)))
args = (6 * 10**5, offers)
'''


def _covers(length, chosen):
    reach = 0
    for start, end, _ in sorted(chosen):
        if start > reach:
            return False
        reach = max(reach, end)
    return reach >= length


def _every_subset(length, offers):
    best = -1
    for size in range(1, len(offers) + 1):
        for chosen in itertools.combinations(offers, size):
            if _covers(length, chosen):
                total = sum(c for _, _, c in chosen)
                best = total if best < 0 else min(best, total)
    return best


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    while len(seeded) < 25:
        length = rng.randrange(1, 12)
        offers = []
        for _ in range(rng.randrange(1, 9)):
            start = rng.randrange(-2, length + 1)
            offers.append((start, start + rng.randrange(1, 7), rng.randrange(0, 10)))
        want = _every_subset(length, offers)
        if want < 0 and rng.random() < 0.6:
            continue
        seeded.append((length, offers, want))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Cheapest priced intervals covering a road",
        prompt=PROMPT, entry_point="cheapest_cover", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "offers-30k", "input": PERF_INPUT, "check": "assert result == 8351"}],
        notes="""The weighted version of the interval-cover greedy, where the greedy fails: it needs a DP
        over offers sorted by end with a range minimum over earlier offers that reach the current
        start, done in O(n log n) with a monotone stack and binary search (or a segment tree); the
        plain DP is quadratic on 30,000 offers. Traps: stretches that only meet still cover, integer
        points must not be treated as separate cells, offers may stick out past either end, and zero
        costs are allowed. Twenty-five seeded instances are checked against all subsets.""",
    )]
