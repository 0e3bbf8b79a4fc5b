"""CO-algo-merges: the cheapest way to merge piles when one merge may take from 2 up to k piles.

The seeded answers come from a search over every way to merge (memoised on the sorted multiset of pile
weights, on up to 7 piles); the reference is k-ary Huffman merging with zero-weight piles padded in
first. The perf inputs are fixed, their answers pinned.
"""

from functools import cache
from itertools import combinations

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-merges"

# Hardness (README "How tiers are assigned", coding): a heap of pile weights, padding with zero piles
# so that (n - 1) is a multiple of (k - 1), merging the k lightest each round: 3 steps; 60,000 piles.
# Traps: the wrong solutions.
HARDNESS = {"steps": 3, "search": 60000, "traps": 4}

PROMPT = """
There are `n` piles of sand with the given weights. One merge takes at least 2 and at most `k` of the
current piles and turns them into one pile; it costs the total weight of the piles it takes. Write a
Python function `cheapest_merge(weights: list[int], k: int) -> int` returning the smallest total cost
of merging all piles into one (0 when there is at most one pile). Any piles may be merged together,
not only neighbours; weights are >= 0 and 2 <= k <= n (or n <= 1).

There are up to 60,000 piles; the function must finish within a couple of seconds.

Examples:

    cheapest_merge([1, 2, 3], 2) == 9
    cheapest_merge([1, 2, 3, 4], 3) == 13
"""

SOLUTION = '''
import heapq


def cheapest_merge(weights, k):
    if len(weights) <= 1:
        return 0
    heap = list(weights)
    while (len(heap) - 1) % (k - 1):
        heap.append(0)                      # a zero pile makes the first merge take fewer real piles
    heapq.heapify(heap)
    total = 0
    while len(heap) > 1:
        merged = sum(heapq.heappop(heap) for _ in range(k))
        total += merged
        heapq.heappush(heap, merged)
    return total
'''

WRONG = [
    # no padding: the last merge takes whatever is left, so a big pile is moved once too often
    '''
    import heapq

    def cheapest_merge(weights, k):
        if len(weights) <= 1:
            return 0
        heap = list(weights)
        heapq.heapify(heap)
        total = 0
        while len(heap) > 1:
            merged = sum(heapq.heappop(heap) for _ in range(min(k, len(heap))))
            total += merged
            heapq.heappush(heap, merged)
        return total
    ''',
    # always two at a time: k ignored
    mutate(SOLUTION, ("        merged = sum(heapq.heappop(heap) for _ in range(k))",
                      "        merged = heapq.heappop(heap) + heapq.heappop(heap)"),
           ("    while (len(heap) - 1) % (k - 1):\n", "    while False:\n")),
    # padding counted the wrong way: n % k instead of (n - 1) % (k - 1)
    mutate(SOLUTION, ("    while (len(heap) - 1) % (k - 1):", "    while len(heap) % k:")),
    # right, but the list is sorted again after every merge
    '''
    def cheapest_merge(weights, k):
        if len(weights) <= 1:
            return 0
        piles = list(weights)
        while (len(piles) - 1) % (k - 1):
            piles.append(0)
        total = 0
        while len(piles) > 1:
            piles.sort()
            merged = sum(piles[:k])
            total += merged
            piles = piles[k:] + [merged]
        return total
    ''',
]

TESTS = '''
def test_examples():
    assert cheapest_merge([1, 2, 3], 2) == 9
    assert cheapest_merge([1, 2, 3, 4], 3) == 13

def test_edges():
    assert cheapest_merge([], 2) == 0
    assert cheapest_merge([7], 3) == 0
    assert cheapest_merge([5, 5], 2) == 10
    assert cheapest_merge([0, 0, 0, 9], 4) == 9
    assert cheapest_merge([1, 1, 1, 1, 10], 3) == 17

def test_seeded():
    for weights, k, want in SEEDED:
        assert cheapest_merge(list(weights), k) == want, (weights, k)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
args = ([rng.randrange(10**9) for _ in range(60000)], {k})
'''


@cache
def _search(piles: tuple, k: int) -> int:
    if len(piles) <= 1:
        return 0
    best = None
    for size in range(2, min(k, len(piles)) + 1):
        for pick in set(combinations(range(len(piles)), size)):
            merged = sum(piles[i] for i in pick)
            rest = tuple(sorted([p for i, p in enumerate(piles) if i not in pick] + [merged]))
            cost = merged + _search(rest, k)
            if best is None or cost < best:
                best = cost
    return best


# (seed, k) -> answer, from the reference, checked once against a sort-every-round merge
PERF = {(101, 3): 298376104175943, (102, 7): 170956867046013}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(30):
        n = rng.randrange(2, 8)
        k = rng.randrange(2, n + 1)
        weights = [rng.choice([0, 1, 2, 3, 5, 8, 13, 40, 100]) for _ in range(n)]
        seeded.append((weights, k, _search(tuple(sorted(weights)), k)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Cheapest merging of piles, up to k at a time",
        prompt=PROMPT, entry_point="cheapest_merge", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": f"piles-60k-k{k}", "input": PERF_INPUT.format(seed=s, k=k),
               "check": f"assert result == {want}"} for (s, k), want in PERF.items()],
        notes="""Two-at-a-time merging is Huffman's algorithm, well known; with up to k piles per merge
        the greedy is only optimal after padding with zero piles until (n - 1) is a multiple of
        (k - 1), the step replies miss (merging the k lightest without padding, or padding to a
        multiple of k). Sorting again after each merge is right and quadratic in n.""",
    )]
