"""CO-algo-shifts: weighted job selection with a rest gap and no two consecutive jobs for one client.

Hidden small instances come from the seed; their answers come from enumerating every subset of jobs
(a different method from the reference's sweep). The perf inputs are fixed, their answers pinned.
"""

import itertools

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-shifts"

# Hardness (README "How tiers are assigned", coding): sort by end, binary search with the rest gap, running
# top-two over distinct clients, DP; the start == end + rest boundary, one client only; 30,000 jobs. Traps:
# the wrong solutions.
HARDNESS = {"steps": 7, "search": 30000, "traps": 4}

PROMPT = """
A freelancer picks jobs from a list. Each job is a tuple `(start, end, pay, client)` of integers with
0 <= start < end <= 10**9, pay >= 1 and client >= 0. The freelancer works on one job at a time and
does every chosen job from its start to its end. After finishing a job at time `end` they must rest
for `rest` time units: the next chosen job must have start >= end + rest. Two jobs done one right after
the other must be for different clients (the same client may come back later, with another client's
job in between).

Write a Python function `best_plan(jobs: list[tuple[int, int, int, int]], rest: int) -> int` that
returns the largest total pay of a valid selection (0 when no job is chosen). `rest` is >= 0. There are
up to 30,000 jobs, and the function must finish within a few seconds, so anything quadratic is too
slow. Do not modify the `jobs` list.

Example:
    best_plan([(0, 4, 5, 1), (5, 8, 6, 1), (4, 9, 4, 2)], 1) == 6   # the first two share a client
"""

SOLUTION = '''
import heapq

def best_plan(jobs, rest):
    order = sorted(jobs)                       # by start
    ready = []                                 # (free_at, value, client) of jobs that ended
    top_value, top_client = 0, -1              # best finished value, and its client
    second_value = 0                           # best finished value of any other client
    best = 0
    for start, end, pay, client in order:
        while ready and ready[0][0] <= start:
            _, value, owner = heapq.heappop(ready)
            if owner == top_client:
                top_value = max(top_value, value)
            elif value > top_value:
                second_value, top_value, top_client = top_value, value, owner
            elif value > second_value:
                second_value = value
        before = top_value if top_client != client else second_value
        value = pay + before
        best = max(best, value)
        heapq.heappush(ready, (end + rest, value, client))
    return best
'''

WRONG = [
    # the client rule checked against the single best predecessor only: falls back to 0
    mutate(SOLUTION, ("before = top_value if top_client != client else second_value",
                      "before = top_value if top_client != client else 0")),
    # the runner-up may belong to the same client as the leader
    mutate(SOLUTION, ('''            if owner == top_client:
                top_value = max(top_value, value)
            elif value > top_value:''', '''            if value > top_value:''')),
    # off by one: the next job must start strictly after the rest ends
    mutate(SOLUTION, ("while ready and ready[0][0] <= start:", "while ready and ready[0][0] < start:")),
    # sorts the caller's list in place
    mutate(SOLUTION, ("    order = sorted(jobs)                       # by start",
                      "    jobs.sort()\n    order = jobs")),
]

TESTS = '''
def test_small():
    assert best_plan([], 3) == 0
    assert best_plan([(2, 5, 7, 0)], 100) == 7
    assert best_plan([(0, 4, 5, 1), (5, 8, 6, 1), (4, 9, 4, 2)], 1) == 6
    assert best_plan([(0, 4, 5, 1), (5, 8, 6, 2), (4, 9, 4, 2)], 1) == 11

def test_rest_boundary():
    assert best_plan([(0, 3, 5, 1), (5, 6, 5, 2)], 2) == 10
    assert best_plan([(0, 3, 5, 1), (5, 6, 5, 2)], 3) == 5
    assert best_plan([(0, 3, 5, 1), (3, 6, 5, 2)], 0) == 10

def test_same_client_needs_someone_between():
    jobs = [(0, 1, 10, 7), (2, 3, 10, 7), (4, 5, 10, 7), (1, 2, 1, 3)]
    assert best_plan(jobs, 0) == 21
    jobs = [(0, 1, 10, 7), (0, 1, 9, 7), (0, 1, 3, 4), (5, 6, 10, 7)]
    assert best_plan(jobs, 1) == 13
    jobs = [(0, 1, 10, 7), (0, 1, 9, 7), (0, 1, 3, 4), (5, 6, 10, 4)]
    assert best_plan(jobs, 1) == 20

def test_input_not_modified():
    jobs = [(9, 12, 4, 1), (0, 2, 3, 2), (4, 6, 5, 1)]
    copy = list(jobs)
    assert best_plan(jobs, 1) == 8
    assert jobs == copy

def test_seeded_instances():
    for jobs, rest, want in SEEDED:
        assert best_plan(jobs, rest) == want, (jobs, rest)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
jobs = []
for _ in range(30000):
    start = rng.randrange(0, 10**7)
    jobs.append((start, start + rng.randrange(1, 2000), rng.randrange(1, 1000), rng.randrange({clients})))
args = (jobs, {rest})
'''


def _brute_force(jobs, rest):
    """Every subset, in start order, checked against the rules."""
    best = 0
    for size in range(1, len(jobs) + 1):
        for chosen in itertools.combinations(sorted(jobs), size):
            if all(b[0] >= a[1] + rest and b[3] != a[3] for a, b in zip(chosen, chosen[1:])):
                best = max(best, sum(j[2] for j in chosen))
    return best


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(30):
        clients = rng.randrange(1, 4)
        jobs = []
        for _ in range(rng.randrange(1, 9)):
            start = rng.randrange(0, 20)
            jobs.append((start, start + rng.randrange(1, 6), rng.randrange(1, 20), rng.randrange(clients)))
        rest = rng.randrange(0, 4)
        seeded.append((jobs, rest, _brute_force(jobs, rest)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Weighted jobs with a rest gap and alternating clients",
        prompt=PROMPT, entry_point="best_plan", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "many-clients-30k", "input": PERF_INPUT.format(seed=11, clients=50, rest=30),
               "check": "assert result == 5814547"},
              {"name": "two-clients-30k", "input": PERF_INPUT.format(seed=12, clients=2, rest=0),
               "check": "assert result == 4490863"}],
        notes="""Weighted interval scheduling with two twists that break the textbook DP over the
        previous compatible job: a rest gap (an off-by-one trap at start == end + rest) and a ban on
        consecutive jobs for one client, which needs the best finished value of a *different* client,
        i.e. a running top-two over distinct clients. The natural quadratic DP is right but 30,000 jobs
        make it time out (about 4.5 * 10^8 steps; not stored as a wrong reply to keep verify fast);
        sorting the caller's list in place is caught. Thirty seeded instances are
        checked against subset enumeration.""",
    )]
