"""CO-algo-digits: numbers up to 10^18 with no two equal neighbouring digits and a digit sum divisible by k.

Hidden small ranges come from the seed, answered by checking every number. Large ranges are pinned; a
forward DP over digit strings (_forward, a different formulation from the reference's memoised
recursion) confirmed them.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-digits"

# Hardness (README "How tiers are assigned", coding): digit DP over the bound, neighbour rule without leading
# zeros, stop when the bound breaks the rule, f(high) - f(low - 1) with 0; ranges to 10^18. Traps: the wrong
# solutions.
HARDNESS = {"steps": 7, "search": 1000000000000000000, "traps": 4}

PROMPT = """
Call a non-negative integer *smooth for k* when, written in decimal without leading zeros (zero is
written "0"), no two neighbouring digits are equal, and the sum of its digits is divisible by k.

Write a Python function `count_smooth(low: int, high: int, k: int) -> int` returning how many integers
x with low <= x <= high are smooth for k. 0 <= low <= high <= 10**18 and 1 <= k <= 100; the function must
return within a second.

Example:
    count_smooth(10, 30, 3) == 7     # 12, 15, 18, 21, 24, 27, 30
"""

SOLUTION = '''
from functools import lru_cache

def count_smooth(low, high, k):
    def upto(n):                        # smooth numbers in [0, n]
        if n <= 0:
            return n + 1                # [0, 0] holds only 0, which is smooth for every k
        digits = list(map(int, str(n)))
        size = len(digits)

        @lru_cache(maxsize=None)
        def free(pos, prev, rem):       # ways to fill positions pos.. freely after a started prefix
            if pos == size:
                return 1 if rem == 0 else 0
            return sum(free(pos + 1, d, (rem + d) % k) for d in range(10) if d != prev)

        total = 1                       # the number 0
        # numbers with fewer digits than n
        for length in range(1, size):
            for first in range(1, 10):
                total += free(size - length + 1, first, first % k)
        # numbers with exactly size digits and at most n, walking n's digits
        prev, rem = -1, 0
        for pos, limit in enumerate(digits):
            for d in range(1 if pos == 0 else 0, limit):
                if d != prev:
                    total += free(pos + 1, d, (rem + d) % k)
            if limit == prev:
                break
            prev, rem = limit, (rem + limit) % k
        else:
            total += 1 if rem == 0 else 0
        return total

    return upto(high) - upto(low - 1)
'''

WRONG = [
    # numbers padded with leading zeros, which then count as equal neighbours
    '''
    from functools import lru_cache

    def count_smooth(low, high, k):
        def upto(n):
            if n < 0:
                return 0
            digits = list(map(int, str(n).zfill(19)))

            @lru_cache(maxsize=None)
            def walk(pos, prev, rem, tight):
                if pos == len(digits):
                    return 1 if rem == 0 else 0
                top = digits[pos] if tight else 9
                return sum(walk(pos + 1, d, (rem + d) % k, tight and d == top)
                           for d in range(top + 1) if d != prev)

            return walk(0, -1, 0, True)

        return upto(high) - upto(low - 1)
    ''',
    # the lower end left out of the range
    mutate(SOLUTION, ("    return upto(high) - upto(low - 1)", "    return upto(high) - upto(low)")),
    # zero forgotten
    mutate(SOLUTION, ("        total = 1                       # the number 0", "        total = 0")),
    # the walk does not stop once n itself has two equal neighbours
    mutate(SOLUTION, ('''            if limit == prev:
                break
            prev, rem''', '''            prev, rem''')),
]

TESTS = '''
def test_small():
    assert count_smooth(10, 30, 3) == 7
    assert count_smooth(0, 0, 7) == 1
    assert count_smooth(0, 9, 1) == 10
    assert count_smooth(11, 11, 1) == 0
    assert count_smooth(5, 5, 5) == 1
    assert count_smooth(5, 5, 3) == 0

def test_bounds_inclusive():
    assert count_smooth(12, 12, 3) == 1
    assert count_smooth(100, 121, 1) == 11
    assert count_smooth(1, 1000, 1) == 819

def test_pinned_large():
    for args, want in PINNED:
        assert count_smooth(*args) == want, args

def test_seeded_ranges():
    for low, high, k, want in SEEDED:
        assert count_smooth(low, high, k) == want, (low, high, k)
'''

# computed by the reference and confirmed by _forward (too slow to rerun at every load)
PINNED = [((0, 10 ** 18, 1), 168856464709124011), ((0, 10 ** 18, 7), 24122352101256113),
          ((123456789, 987654321987, 13), 24399300074), ((10 ** 17, 10 ** 18, 100), 1317116430672827),
          ((999999999999999999, 10 ** 18, 1), 0), ((55555, 5555555555555, 9), 178261852836)]


def _smooth(x, k):
    s = str(x)
    return all(a != b for a, b in zip(s, s[1:])) and sum(map(int, s)) % k == 0


def _forward(n, k):
    """Smooth numbers in [0, n], by a forward DP over digit strings of each length (no recursion)."""
    if n < 0:
        return 0
    text = str(n)
    total = 1 if 0 % k == 0 else 0
    for length in range(1, len(text) + 1):
        # state: (last digit, sum mod k, still equal to n's prefix) -> count of prefixes
        states = {}
        for d in range(1, 10):
            if length < len(text) or d <= int(text[0]):
                key = (d, d % k, length == len(text) and d == int(text[0]))
                states[key] = states.get(key, 0) + 1
        for pos in range(1, length):
            nxt = {}
            for (last, rem, tight), count in states.items():
                top = int(text[pos]) if tight else 9
                for d in range(top + 1):
                    if d != last:
                        key = (d, (rem + d) % k, tight and d == top)
                        nxt[key] = nxt.get(key, 0) + count
            states = nxt
        total += sum(c for (_, rem, _), c in states.items() if rem == 0)
    return total


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(25):
        low = rng.choice([0, rng.randrange(0, 50), rng.randrange(0, 2000)])
        high = low + rng.randrange(0, 1500)
        k = rng.randrange(1, 12)
        seeded.append((low, high, k, sum(1 for x in range(low, high + 1) if _smooth(x, k))))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Counting smooth numbers up to 10^18 by digit DP",
        prompt=PROMPT, entry_point="count_smooth",
        tests=TESTS, data={"PINNED": PINNED, "SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "wide-ranges", "input": "args = (123456789012345678, 10 ** 18, 97)",
               "check": "assert result == 2012184024264605"}],
        notes="""A digit DP with three interacting conditions: the neighbour rule must ignore leading
        zeros (padding to a fixed width wrongly rejects 5, written 00...05), the
        prefix walk along the bound must stop once the bound itself has two equal neighbours, and the
        range needs f(high) - f(low - 1) with 0 counted. Ranges up to 10^18 rule out enumeration.
        Large answers are computed by a forward DP written separately from the reference.""",
    )]
