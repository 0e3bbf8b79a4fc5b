"""CO-algo-subsets: how many subsets of up to 30 signed weights have a sum inside a range.

Hidden small instances come from the seed; their answers come from listing every subset (the reference
meets in the middle). The perf instance is fixed, its answer pinned.
"""

import itertools

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-subsets"

# Hardness (README "How tiers are assigned", coding): split in halves, enumerate each, sort one, two binary
# searches; the empty subset and inclusive ends; 2^30 subsets. Traps: the wrong solutions.
HARDNESS = {"steps": 5, "search": 1073741824, "traps": 4}

PROMPT = """
Write a Python function `count_subsets(weights: list[int], low: int, high: int) -> int` that returns how
many subsets of the positions of `weights` have a total weight w with low <= w <= high. Positions are
what is chosen, so equal weights at different positions make different subsets, and the empty subset
(total 0) counts too. There are at most 30 weights; they are integers between -10**12 and 10**12
(negative ones included), and the function must return within a second or two.

Example:
    count_subsets([3, -1, 3], 2, 3) == 4        # {3}, {3}, {3, -1}, {-1, 3}
"""

SOLUTION = '''
from bisect import bisect_left, bisect_right

def count_subsets(weights, low, high):
    def sums(part):
        out = [0]
        for w in part:
            out += [s + w for s in out]
        return out

    half = len(weights) // 2
    left, right = sums(weights[:half]), sorted(sums(weights[half:]))
    total = 0
    for s in left:
        total += bisect_right(right, high - s) - bisect_left(right, low - s)
    return total
'''

WRONG = [
    # the empty subset left out
    mutate(SOLUTION, ("    return total\n", "    return total - (low <= 0 <= high)\n")),
    # the upper end treated as exclusive
    mutate(SOLUTION, ("bisect_right(right, high - s)", "bisect_left(right, high - s)")),
    # pruning on overshoot, which is only valid for non-negative weights
    '''
    def count_subsets(weights, low, high):
        count = 0

        def walk(i, total):
            nonlocal count
            if total > high:
                return
            if i == len(weights):
                count += total >= low
                return
            walk(i + 1, total)
            walk(i + 1, total + weights[i])

        walk(0, 0)
        return count
    ''',
    # sums collected in sets: subsets with equal totals counted once
    mutate(SOLUTION, ('''    left, right = sums(weights[:half]), sorted(sums(weights[half:]))''',
                      '''    left, right = set(sums(weights[:half])), sorted(set(sums(weights[half:])))''')),
]

TESTS = '''
def test_small():
    assert count_subsets([3, -1, 3], 2, 3) == 4
    assert count_subsets([], 0, 0) == 1
    assert count_subsets([], 1, 5) == 0
    assert count_subsets([5], 0, 5) == 2
    assert count_subsets([5], 1, 4) == 0

def test_negative_weights():
    assert count_subsets([-4, 2, 7], -4, -2) == 2
    assert count_subsets([10, -10, 10, -10], 0, 0) == 6
    assert count_subsets([-3, -3, -3], -6, -6) == 3

def test_range_ends_are_inclusive():
    assert count_subsets([1, 2, 3, 4], 3, 6) == 8
    assert count_subsets([1, 2, 3, 4], 10, 10) == 1
    assert count_subsets([2, 2, 2, 2], 4, 4) == 6

def test_big_values():
    w = [10**12, -10**12, 999_999_999_999, 1, -1]
    assert count_subsets(w, -1, 1) == 11
    assert count_subsets(w, 10**12, 10**12) == 4

def test_seeded():
    for weights, low, high, want in SEEDED:
        assert count_subsets(weights, low, high) == want, (weights, low, high)
'''

PERF_INPUT = '''
import random
rng = random.Random(101)
weights = [rng.randrange(-10**12, 10**12) for _ in range(30)]
args = (weights, -3 * 10**11, 5 * 10**11)
'''


def _every_subset(weights, low, high):
    return sum(1 for r in range(len(weights) + 1) for c in itertools.combinations(weights, r)
               if low <= sum(c) <= high)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(30):
        weights = [rng.randrange(-9, 10) for _ in range(rng.randrange(0, 11))]
        low = rng.randrange(-12, 12)
        high = low + rng.randrange(0, 10)
        seeded.append((weights, low, high, _every_subset(weights, low, high)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Subsets of 30 signed weights with a sum in range",
        prompt=PROMPT, entry_point="count_subsets", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "thirty-weights", "input": PERF_INPUT, "check": "assert result == 214862148"}],
        notes="""2^30 subsets rule out enumeration, weights up to 10^12 rule out a DP over sums,
        and negative weights defeat branch-and-bound pruning, which leaves meet-in-the-middle with
        sorting and two binary searches. Traps: the empty subset counts, both range ends are
        inclusive, and equal totals from different subsets all count.""",
    )]
