"""CO-algo-windows: the courier tour with time windows and service times, over subsets of customers.

Hidden small instances come from the seed; their answers come from trying every visiting order (the
reference is a dynamic programme over subsets). The perf instance is fixed, its answer pinned.
"""

import itertools

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-windows"

# Hardness (README "How tiers are assigned", coding): DP over (served set, last customer) with earliest
# finish, waiting allowed, windows bound the start, return to the depot; 11! orders. Traps: the wrong
# solutions.
HARDNESS = {"steps": 7, "search": 39916800, "traps": 4}

PROMPT = """
A courier leaves the depot (location 0) at time 0, must serve each of the customers 1..n exactly once,
and then drive back to the depot. `travel[i][j]` is the driving time from location i to location j
(a square list of lists of non-negative integers of size n + 1, not necessarily symmetric, already the
fastest way between the two). Customer i has a window `windows[i - 1] = (open, close, service)`: the
service must *start* at a time t with open <= t <= close (the courier may arrive early and wait until
`open`), and takes `service` time units, after which the courier drives on.

Write a Python function `earliest_return(travel: list[list[int]], windows: list[tuple[int, int, int]]) -> int`
that returns the earliest time the courier can be back at the depot having served every customer, or -1
if no order of visits respects the windows. With no customers the answer is 0. n is at most 11, and the
function must return within a second or two even then.

Example:
    travel = [[0, 5, 9], [5, 0, 3], [9, 3, 0]]
    earliest_return(travel, [(12, 20, 1), (0, 100, 2)]) == 20   # serve customer 2 first
"""

SOLUTION = '''
def earliest_return(travel, windows):
    n = len(windows)
    full = (1 << n) - 1
    inf = float("inf")
    # done[mask][j]: earliest time the service of customer j + 1 ends, having served exactly `mask`
    done = [[inf] * n for _ in range(1 << n)]
    for j, (open_, close, service) in enumerate(windows):
        start = max(travel[0][j + 1], open_)
        if start <= close:
            done[1 << j][j] = start + service
    for mask in range(1, 1 << n):
        row = done[mask]
        for last in range(n):
            t = row[last]
            if t == inf:
                continue
            here = travel[last + 1]
            for j in range(n):
                if mask >> j & 1:
                    continue
                open_, close, service = windows[j]
                start = max(t + here[j + 1], open_)
                if start <= close and start + service < done[mask | 1 << j][j]:
                    done[mask | 1 << j][j] = start + service
    if n == 0:
        return 0
    best = min(done[full][j] + travel[j + 1][0] for j in range(n))
    return -1 if best == inf else best
'''

WRONG = [
    # the whole service (not its start) must fit in the window
    mutate(SOLUTION, ("if start <= close and start + service < done[mask | 1 << j][j]:",
                      "if start + service <= close and start + service < done[mask | 1 << j][j]:"),
           ("        if start <= close:\n            done[1 << j][j]", "        if start + service <= close:\n            done[1 << j][j]")),
    # the drive back to the depot forgotten
    mutate(SOLUTION, ("best = min(done[full][j] + travel[j + 1][0] for j in range(n))",
                      "best = min(done[full][j] for j in range(n))")),
    # one state per subset: the earliest time, wherever the courier stands
    '''
    def earliest_return(travel, windows):
        n = len(windows)
        inf = float("inf")
        best = {0: (0, 0)}                       # mask -> (time, location)
        for mask in range(1 << n):
            if mask not in best:
                continue
            t, here = best[mask]
            for j in range(n):
                if mask >> j & 1:
                    continue
                open_, close, service = windows[j]
                start = max(t + travel[here][j + 1], open_)
                if start <= close:
                    nxt = mask | 1 << j
                    if start + service < best.get(nxt, (inf, 0))[0]:
                        best[nxt] = (start + service, j + 1)
        full = (1 << n) - 1
        if full not in best:
            return -1
        t, here = best[full]
        return t + travel[here][0]
    ''',
    # every visiting order: right, but 11! orders
    '''
    from itertools import permutations

    def earliest_return(travel, windows):
        best = None
        for order in permutations(range(1, len(windows) + 1)):
            t, here, ok = 0, 0, True
            for c in order:
                open_, close, service = windows[c - 1]
                t = max(t + travel[here][c], open_)
                if t > close:
                    ok = False
                    break
                t += service
                here = c
            if ok:
                t += travel[here][0]
                best = t if best is None else min(best, t)
        return -1 if best is None else best
    ''',
]

TESTS = '''
def test_small():
    travel = [[0, 5, 9], [5, 0, 3], [9, 3, 0]]
    assert earliest_return(travel, [(12, 20, 1), (0, 100, 2)]) == 20
    assert earliest_return(travel, [(0, 100, 1), (4, 6, 2)]) == -1
    assert earliest_return(travel, [(0, 100, 1), (4, 9, 2)]) == 20
    assert earliest_return(travel, [(16, 20, 1), (0, 100, 2)]) == 22
    assert earliest_return(travel, [(0, 100, 1), (0, 100, 2)]) == 20
    assert earliest_return([[0]], []) == 0
    assert earliest_return([[0, 4], [6, 0]], [(10, 10, 5)]) == 21
    assert earliest_return([[0, 4], [6, 0]], [(0, 3, 5)]) == -1

def test_service_may_run_past_close():
    assert earliest_return([[0, 2], [2, 0]], [(0, 2, 10)]) == 14

def test_waiting_then_order_matters():
    travel = [[0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]]
    windows = [(20, 30, 1), (0, 5, 1), (0, 25, 1)]
    assert earliest_return(travel, windows) == 22
    windows = [(20, 21, 1), (0, 5, 1), (22, 23, 1)]
    assert earliest_return(travel, windows) == 24
    windows = [(20, 21, 1), (0, 5, 1), (3, 4, 1)]
    assert earliest_return(travel, windows) == 22

def test_state_needs_the_location():
    travel = [[0, 4, 4, 6], [4, 0, 0, 2], [4, 0, 0, 2], [6, 2, 2, 0]]
    assert earliest_return(travel, [(11, 16, 1), (7, 10, 1), (12, 17, 2)]) == 21

def test_seeded_instances():
    for travel, windows, want in SEEDED:
        assert earliest_return(travel, windows) == want, (travel, windows)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
n = 11
points = [(rng.randrange(100), rng.randrange(100)) for _ in range(n + 1)]
travel = [[abs(a - c) + abs(b - d) for (c, d) in points] for (a, b) in points]
windows = []
for i in range(n):
    open_ = rng.randrange(0, 300)
    windows.append((open_, open_ + rng.randrange(200, 600), rng.randrange(1, 20)))
args = (travel, windows)
'''


def _every_order(travel, windows):
    best = -1
    for order in itertools.permutations(range(1, len(windows) + 1)):
        t, here = 0, 0
        for c in order:
            open_, close, service = windows[c - 1]
            t = max(t + travel[here][c], open_)
            if t > close:
                break
            t += service
            here = c
        else:
            t += travel[here][0]
            best = t if best < 0 else min(best, t)
    return best


def _closure(m):
    size = len(m)
    for k in range(size):
        for i in range(size):
            for j in range(size):
                m[i][j] = min(m[i][j], m[i][k] + m[k][j])
    return m


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    while len(seeded) < 30:
        n = rng.randrange(1, 6)
        travel = _closure([[0 if i == j else rng.randrange(1, 15) for j in range(n + 1)] for i in range(n + 1)])
        windows = []
        for _ in range(n):
            open_ = rng.randrange(0, 40)
            windows.append((open_, open_ + rng.randrange(0, 25), rng.randrange(0, 6)))
        want = _every_order(travel, windows)
        if want < 0 and rng.random() < 0.6:
            continue
        seeded.append((travel, windows, want))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Courier tour with time windows, service times and a return",
        prompt=PROMPT, entry_point="earliest_return", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "eleven-customers", "input": PERF_INPUT.format(seed=51), "check": "assert result == 489"}],
        notes="""A travelling-salesman variant with time windows: the model must see that the earliest
        finishing time per (served set, last customer) dominates (waiting is allowed and windows only
        bound start times), giving a 2^n * n^2 dynamic programme; 11! orders time out. Traps: the window
        bounds the start of service, not its end; the return to the depot; and collapsing the state to
        the served set alone (keeping only the earliest time, wherever the courier stands) loses
        optimal tours. Thirty seeded instances are checked against trying every order.""",
    )]
