"""CO-algo-alerts: how many prices in a window are at most a threshold, for many windows (offline).

Hidden small series and queries come from the seed; their answers come from scanning each window
(the reference sorts queries by threshold and uses a Fenwick tree). The perf input is fixed, its
answers pinned by a sum and a checksum.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-alerts"

# Hardness (README "How tiers are assigned", coding): sort alerts by limit, sort prices, sweep into a Fenwick
# tree, answer by prefix difference; arguments untouched; 20,000 prices and alerts. Traps: the wrong
# solutions.
HARDNESS = {"steps": 5, "search": 20000, "traps": 3}

PROMPT = """
A price series `prices` (integers, possibly negative) is checked by alerts. An alert `(first, last, limit)`
asks how many of prices[first], ..., prices[last] (0-based, both ends included) are at most `limit`.

Write a Python function `count_alerts(prices: list[int], alerts: list[tuple[int, int, int]]) -> list[int]`
that returns the answers in the order of the alerts. There are up to 20,000 prices and 20,000 alerts
with long windows, so scanning every window is too slow; the function must finish within a couple of
seconds. Do not modify the arguments.

Example:
    count_alerts([5, 1, 4, 4], [(0, 3, 4), (1, 2, 0)]) == [3, 0]
"""

SOLUTION = '''
def count_alerts(prices, alerts):
    n = len(prices)
    tree = [0] * (n + 1)
    by_price = sorted(range(n), key=prices.__getitem__)
    order = sorted(range(len(alerts)), key=lambda k: alerts[k][2])
    answers = [0] * len(alerts)

    def prefix(i):                       # how many marked positions < i
        total = 0
        while i > 0:
            total += tree[i]
            i -= i & -i
        return total

    p = 0
    for k in order:
        first, last, limit = alerts[k]
        while p < n and prices[by_price[p]] <= limit:
            i = by_price[p] + 1
            while i <= n:
                tree[i] += 1
                i += i & -i
            p += 1
        answers[k] = prefix(last + 1) - prefix(first)
    return answers
'''

WRONG = [
    # strictly below the limit
    mutate(SOLUTION, ("while p < n and prices[by_price[p]] <= limit:", "while p < n and prices[by_price[p]] < limit:")),
    # the window's last position left out
    mutate(SOLUTION, ("answers[k] = prefix(last + 1) - prefix(first)", "answers[k] = prefix(last) - prefix(first)")),
    # answers handed back in threshold order, not alert order
    mutate(SOLUTION, ('''    p = 0
    for k in order:''', '''    p = 0
    answers = []
    for k in order:'''), ("        answers[k] = prefix(last + 1) - prefix(first)", "        answers.append(prefix(last + 1) - prefix(first))")),
]

TESTS = '''
def test_small():
    assert count_alerts([5, 1, 4, 4], [(0, 3, 4), (1, 2, 0)]) == [3, 0]
    assert count_alerts([7], [(0, 0, 7), (0, 0, 6)]) == [1, 0]
    assert count_alerts([3, 3, 3], []) == []

def test_order_and_bounds():
    prices = [-2, 9, 0, 9, 5, -2]
    alerts = [(0, 5, 9), (0, 5, -3), (5, 5, -2), (1, 3, 8), (0, 0, -2), (2, 4, 5)]
    assert count_alerts(prices, alerts) == [6, 0, 1, 1, 1, 2]

def test_arguments_untouched():
    prices, alerts = [4, 1, 3], [(0, 2, 3), (0, 1, 1)]
    assert count_alerts(prices, alerts) == [2, 1]
    assert prices == [4, 1, 3] and alerts == [(0, 2, 3), (0, 1, 1)]

def test_seeded():
    for prices, alerts, want in SEEDED:
        assert count_alerts(prices, alerts) == want, (prices, alerts)
'''

PERF_INPUT = '''
import random
rng = random.Random(91)
n = 20000
prices = [rng.randrange(-10**6, 10**6) for _ in range(n)]
alerts = []
for _ in range(20000):
    first = rng.randrange(0, n // 2)
    alerts.append((first, rng.randrange(n // 2, n), rng.randrange(-10**6, 10**6)))
args = (prices, alerts)
'''


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(25):
        prices = [rng.randrange(-5, 6) for _ in range(rng.randrange(1, 12))]
        alerts = []
        for _ in range(rng.randrange(1, 8)):
            first = rng.randrange(len(prices))
            alerts.append((first, rng.randrange(first, len(prices)), rng.randrange(-6, 7)))
        want = [sum(1 for i in range(a, b + 1) if prices[i] <= x) for a, b, x in alerts]
        seeded.append((prices, alerts, want))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Window counts below a limit for 20,000 alerts",
        prompt=PROMPT, entry_point="count_alerts", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "alerts-20k", "input": PERF_INPUT,
               "check": "assert sum(result) == 101310028 and sum(i * a for i, a in enumerate(result)) == 1011551126528"}],
        notes="""An offline sweep (queries sorted by limit, a Fenwick tree over positions) or
        a merge-sort tree is needed, since scanning is about 2 * 10^8 steps on the perf input. Traps:
        "at most" is inclusive, the window includes both ends, and answers must return in alert
        order after the queries were sorted.""",
    )]

