"""CO-algo-portfolio: the best set of projects under a budget when projects depend on parent projects.

Hidden small forests come from the seed; their answers come from trying every subset closed under the
parent rule (the reference is a knapsack over a pre-order of the forest). The perf input is fixed, its
answer pinned.
"""

import itertools

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-portfolio"

# Hardness (README "How tiers are assigned", coding): pre-order with subtree skips, knapsack over it, budget
# as an upper bound; parents after children, zero-value parents, the 2,000 chain without recursion. Traps: the
# wrong solutions.
HARDNESS = {"steps": 7, "search": 2000, "traps": 4}

PROMPT = """
A fund chooses projects. `projects[i] = (cost, value, parent)`: cost >= 1 and value >= 0 are integers,
and parent is -1 or the index of another project that must also be chosen whenever project i is (the
parents form a forest: following parents from any project never loops). Write a Python function
`best_portfolio(projects: list[tuple[int, int, int]], budget: int) -> int` returning the largest total
value of a set of projects whose total cost is at most `budget` (0 <= budget <= 600) and which contains
the parent of each of its projects. There are up to 2,000 projects, dependency chains can be that long,
and the function must finish within a couple of seconds.

Example:
    best_portfolio([(3, 1, -1), (2, 10, 0), (4, 6, -1)], 5) == 11
"""

SOLUTION = '''
def best_portfolio(projects, budget):
    n = len(projects)
    children = [[] for _ in range(n)]
    roots = []
    for i, (_, _, parent) in enumerate(projects):
        (roots if parent < 0 else children[parent]).append(i)
    order, end = [], [0] * n                 # pre-order, and where each subtree ends in it
    stack = [(r, False) for r in reversed(roots)]
    while stack:
        v, done = stack.pop()
        if done:
            end[v] = len(order)
            continue
        order.append(v)
        stack.append((v, True))
        stack.extend((c, False) for c in reversed(children[v]))
    position = {v: k for k, v in enumerate(order)}
    # best[k][b]: best value from order[k:] with budget b, where order[k] is still free to take
    best = [[0] * (budget + 1) for _ in range(n + 1)]
    for k in range(n - 1, -1, -1):
        v = order[k]
        cost, value, _ = projects[v]
        skip = best[end[v]]                    # leave v and its whole subtree out
        take = best[k + 1]                     # take v, go on inside its subtree
        row = list(skip)
        for b in range(cost, budget + 1):
            candidate = take[b - cost] + value
            if candidate > row[b]:
                row[b] = candidate
        best[k] = row
    return best[0][budget] if n else 0
'''

WRONG = [
    # dependencies ignored: a plain knapsack
    '''
    def best_portfolio(projects, budget):
        best = [0] * (budget + 1)
        for cost, value, _ in projects:
            for b in range(budget, cost - 1, -1):
                best[b] = max(best[b], best[b - cost] + value)
        return best[budget]
    ''',
    # a recursive walk over the forest: a 2,000-long chain exhausts the stack
    '''
    def best_portfolio(projects, budget):
        n = len(projects)
        children = [[] for _ in range(n)]
        roots = []
        for i, (_, _, parent) in enumerate(projects):
            (roots if parent < 0 else children[parent]).append(i)

        def solve(v):
            cost, value, _ = projects[v]
            inside = [0] * (budget + 1)
            for c in children[v]:
                sub = solve(c)
                inside = [max(inside[b - k] + sub[k] for k in range(b + 1)) for b in range(budget + 1)]
            return [0 if b < cost else max(0, inside[b - cost] + value) for b in range(budget + 1)]

        total = [0] * (budget + 1)
        for r in roots:
            sub = solve(r)
            total = [max(total[b - k] + sub[k] for k in range(b + 1)) for b in range(budget + 1)]
        return total[budget]
    ''',
    # tables of "exactly b" (unreachable totals at -inf) read as "at most b"
    mutate(SOLUTION, ("    best = [[0] * (budget + 1) for _ in range(n + 1)]",
                      "    best = [[0] + [float(\"-inf\")] * budget for _ in range(n + 1)]"),
           ("    return best[0][budget] if n else 0", "    return max(0, best[0][budget]) if n else 0")),
    # a subtree taken to end one step too late: skipping a project also skips its next sibling
    mutate(SOLUTION, ("            end[v] = len(order)\n", "            end[v] = min(len(order) + 1, len(projects))\n")),
]

TESTS = '''
def test_small():
    assert best_portfolio([(3, 1, -1), (2, 10, 0), (4, 6, -1)], 5) == 11
    assert best_portfolio([], 10) == 0
    assert best_portfolio([(5, 9, -1)], 4) == 0
    assert best_portfolio([(5, 9, -1)], 5) == 9
    assert best_portfolio([(1, 0, -1), (1, 0, 0), (1, 7, 1)], 2) == 0
    assert best_portfolio([(1, 0, -1), (1, 0, 0), (1, 7, 1)], 3) == 7

def test_parent_order_and_siblings():
    projects = [(2, 1, 2), (2, 8, 2), (1, 1, -1), (3, 9, 1)]
    assert best_portfolio(projects, 6) == 18
    assert best_portfolio(projects, 5) == 10
    assert best_portfolio(projects, 8) == 19

def test_budget_not_spent_exactly():
    assert best_portfolio([(4, 5, -1), (4, 5, -1), (3, 1, -1)], 9) == 10
    assert best_portfolio([(2, 3, -1), (2, 3, 0)], 3) == 3

def test_long_chain():
    n = 2000
    projects = [(1, i % 7, i - 1) for i in range(n)]
    assert best_portfolio(projects, 300) == sum(i % 7 for i in range(300))

def test_seeded_forests():
    for projects, budget, want in SEEDED:
        assert best_portfolio(projects, budget) == want, (projects, budget)
'''

PERF_INPUT = '''
import random
rng = random.Random(161)
projects = []
for i in range(2000):
    parent = rng.randrange(-1, i) if i and rng.random() < 0.9 else -1
    projects.append((rng.randrange(1, 40), rng.randrange(0, 100), parent))
args = (projects, 600)
'''


def _every_closed_subset(projects, budget):
    n = len(projects)
    best = 0
    for size in range(1, n + 1):
        for chosen in itertools.combinations(range(n), size):
            picked = set(chosen)
            if all(projects[i][2] < 0 or projects[i][2] in picked for i in chosen) and \
                    sum(projects[i][0] for i in chosen) <= budget:
                best = max(best, sum(projects[i][1] for i in chosen))
    return best


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(25):
        n = rng.randrange(0, 9)
        labels = list(range(n))
        rng.shuffle(labels)
        parents = [-1] * n
        for k in range(1, n):
            if rng.random() < 0.75:
                parents[labels[k]] = labels[rng.randrange(k)]
        projects = [(rng.randrange(1, 6), rng.randrange(0, 10), parents[i]) for i in range(n)]
        budget = rng.randrange(0, 15)
        seeded.append((projects, budget, _every_closed_subset(projects, budget)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Projects with prerequisite projects under a budget (tree knapsack)",
        prompt=PROMPT, entry_point="best_portfolio", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "forest-2000", "input": PERF_INPUT, "check": "assert result == 5910"}],
        notes="""A knapsack over a forest with "child needs parent" constraints: the efficient form runs
        the knapsack over a pre-order where skipping a project jumps past its whole subtree (n * B);
        merging children's tables is n * B^2 and recursion breaks on the 2,000-long chain. Traps: the
        budget is an upper bound (tables of "exactly b" need care), parents may come after children
        in the list, zero-value parents still have to be paid for. Twenty-five seeded forests are
        checked against all closed subsets.""",
    )]
