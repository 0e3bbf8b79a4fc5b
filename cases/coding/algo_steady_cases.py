"""CO-algo-steady: how many windows of at least m readings keep their spread (max - min) within k.

Hidden small series come from the seed; their answers come from checking every window. The perf input
is fixed, its answer pinned.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-steady"

# Hardness (README "How tiers are assigned", coding): two pointers, two monotone deques of indices, count per
# right end clipped at m, inclusive bound; 100,000 readings. Traps: the wrong solutions.
HARDNESS = {"steps": 5, "search": 100000, "traps": 4}

PROMPT = """
A sensor logged integer readings. Write a Python function
`steady_windows(readings: list[int], k: int, m: int) -> int` that counts the windows (runs of
consecutive readings, readings[i:j] with j - i >= m) whose largest and smallest readings differ by at
most k. k >= 0 and m >= 1. There are up to 200,000 readings, so checking every window is far too slow;
the function must finish within a second or two.

Example:
    steady_windows([3, 5, 4, 9], 2, 2) == 3      # [3, 5], [5, 4], [3, 5, 4]
"""

SOLUTION = '''
from collections import deque

def steady_windows(readings, k, m):
    highs, lows = deque(), deque()            # indices with decreasing / increasing readings
    left = 0
    total = 0
    for right, x in enumerate(readings):
        while highs and readings[highs[-1]] <= x:
            highs.pop()
        highs.append(right)
        while lows and readings[lows[-1]] >= x:
            lows.pop()
        lows.append(right)
        while readings[highs[0]] - readings[lows[0]] > k:
            left += 1
            if highs[0] < left:
                highs.popleft()
            if lows[0] < left:
                lows.popleft()
        # windows ending at `right` start anywhere in [left, right - m + 1]
        total += max(0, right - m + 2 - left)
    return total
'''

WRONG = [
    # windows of length exactly m - 1 counted too
    mutate(SOLUTION, ("        total += max(0, right - m + 2 - left)", "        total += max(0, right - m + 3 - left)")),
    # deques of values that drop equal readings: when a value slides out, its later copy goes too
    '''
    from collections import deque

    def steady_windows(readings, k, m):
        highs, lows = deque(), deque()
        left = total = 0
        for right, x in enumerate(readings):
            while highs and highs[-1] <= x:
                highs.pop()
            highs.append(x)
            while lows and lows[-1] >= x:
                lows.pop()
            lows.append(x)
            while highs[0] - lows[0] > k:
                if highs[0] == readings[left]:
                    highs.popleft()
                if lows[0] == readings[left]:
                    lows.popleft()
                left += 1
            total += max(0, right - m + 2 - left)
        return total
    ''',
    # "at most k" read as "less than k"
    mutate(SOLUTION, ("        while readings[highs[0]] - readings[lows[0]] > k:",
                      "        while readings[highs[0]] - readings[lows[0]] >= k:")),
    # the minimum length applied to the whole count instead of per window
    mutate(SOLUTION, ("        total += max(0, right - m + 2 - left)", "        total += right + 1 - left"),
           ("    return total\n", "    return max(0, total - (m - 1) * len(readings))\n")),
]

TESTS = '''
def test_small():
    assert steady_windows([3, 5, 4, 9], 2, 2) == 3
    assert steady_windows([], 5, 1) == 0
    assert steady_windows([7], 0, 1) == 1
    assert steady_windows([7], 0, 2) == 0
    assert steady_windows([1, 1, 1], 0, 1) == 6

def test_bounds():
    assert steady_windows([1, 3, 1, 3], 2, 1) == 10
    assert steady_windows([1, 3, 1, 3], 1, 1) == 4
    assert steady_windows([5, 1, 5, 1, 5], 4, 3) == 6
    assert steady_windows([2, 2, 9, 2, 2, 2], 0, 2) == 4

def test_duplicates_slide_out_correctly():
    assert steady_windows([1, 1, 3, 4, 4], 1, 2) == 4
    assert steady_windows([1, 4, 2, 2, 0, 0], 1, 2) == 2
    assert steady_windows([4, 6, 6, 2, 6, 5], 1, 1) == 8

def test_seeded():
    for readings, k, m, want in SEEDED:
        assert steady_windows(readings, k, m) == want, (readings, k, m)
'''

PERF_INPUT = '''
import random
rng = random.Random(171)
x, readings = 0, []
for _ in range(100000):
    x += rng.randrange(-3, 4)
    readings.append(x)
args = (readings, 12, 5)
'''


def _every_window(readings, k, m):
    n = len(readings)
    return sum(1 for i in range(n) for j in range(i + m, n + 1)
               if max(readings[i:j]) - min(readings[i:j]) <= k)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(30):
        readings = [rng.randrange(0, 6) for _ in range(rng.randrange(0, 12))]
        k, m = rng.randrange(0, 4), rng.randrange(1, 4)
        seeded.append((readings, k, m, _every_window(readings, k, m)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Windows of at least m readings with a bounded spread",
        prompt=PROMPT, entry_point="steady_windows", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "walk-100k", "input": PERF_INPUT, "check": "assert result == 2279627"}],
        notes="""Two pointers with monotone deques of indices give O(n); the twists over the
        textbook version are the minimum length m (count per right end, clipped at zero) and an
        inclusive bound. Value deques evict the wrong copy of a repeated reading. Checking every
        window is quadratic on 100,000 readings.""",
    )]
