"""CO-algo-switches: switch settings meeting "at least one of two" rules (2-satisfiability).

Hidden small rule sets come from the seed; whether each can be met is decided by trying every setting
(the reference finds strongly connected components of the implication graph). Any valid setting is
accepted: the tests check the returned setting against the rules.
"""

import itertools

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-switches"

# Hardness (README "How tiers are assigned", coding): implication graph with both directions, iterative SCC,
# unsatisfiable check, assignment from the component order; 6,000-switch chains. Traps: the wrong solutions.
HARDNESS = {"steps": 7, "search": 6000, "traps": 4}

PROMPT = """
A control panel has n switches, numbered 0..n-1, each on (True) or off (False). Each rule is a tuple
`(a, want_a, b, want_b)` meaning "switch a is set to want_a, or switch b is set to want_b (or both)";
a and b may be the same switch.

Write a Python function `settle(n: int, rules: list[tuple[int, bool, int, bool]]) -> list[bool] | None`
that returns a list of n booleans meeting every rule, or None if no setting meets them all. When
several settings work, any one of them is accepted. n is up to 8,000 and there are up to 30,000 rules,
and rules can chain through thousands of switches; the function must finish within a second or two.

Example:
    settle(2, [(0, True, 1, True), (0, False, 0, False)]) == [False, True]
"""

SOLUTION = '''
def settle(n, rules):
    # literal 2 * x means "x is on", 2 * x + 1 means "x is off"
    graph = [[] for _ in range(2 * n)]
    for a, want_a, b, want_b in rules:
        la = 2 * a + (0 if want_a else 1)
        lb = 2 * b + (0 if want_b else 1)
        graph[la ^ 1].append(lb)          # not la  ->  lb
        graph[lb ^ 1].append(la)          # not lb  ->  la
    # iterative Tarjan; components are numbered in reverse topological order
    size = 2 * n
    index = [-1] * size
    low = [0] * size
    comp = [-1] * size
    on_stack = [False] * size
    stack, counter, components = [], 0, 0
    for root in range(size):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack[v] = True
            else:
                w = graph[v][i - 1]
                low[v] = min(low[v], low[w])
            edges = graph[v]
            while i < len(edges):
                w = edges[i]
                i += 1
                if index[w] == -1:
                    work.append((v, i))
                    work.append((w, 0))
                    break
                if on_stack[w]:
                    low[v] = min(low[v], index[w])
            else:
                if low[v] == index[v]:
                    while True:
                        w = stack.pop()
                        on_stack[w] = False
                        comp[w] = components
                        if w == v:
                            break
                    components += 1
    setting = []
    for x in range(n):
        if comp[2 * x] == comp[2 * x + 1]:
            return None
        setting.append(comp[2 * x] < comp[2 * x + 1])
    return setting
'''

WRONG = [
    # the classic sign slip: with Tarjan's numbering the literal in the earlier component is true
    mutate(SOLUTION, ("        setting.append(comp[2 * x] < comp[2 * x + 1])",
                      "        setting.append(comp[2 * x] > comp[2 * x + 1])")),
    # only one of the two implications of each rule
    mutate(SOLUTION, ("        graph[lb ^ 1].append(la)          # not lb  ->  la\n", "")),
    # a recursive Tarjan: long implication chains exhaust the stack
    '''
    def settle(n, rules):
        graph = [[] for _ in range(2 * n)]
        for a, want_a, b, want_b in rules:
            la = 2 * a + (0 if want_a else 1)
            lb = 2 * b + (0 if want_b else 1)
            graph[la ^ 1].append(lb)
            graph[lb ^ 1].append(la)
        index, low, comp, on_stack, stack = {}, {}, {}, set(), []
        counter = [0, 0]

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on_stack.add(v)
            for w in graph[v]:
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = counter[1]
                    if w == v:
                        break
                counter[1] += 1

        for v in range(2 * n):
            if v not in index:
                visit(v)
        if any(comp[2 * x] == comp[2 * x + 1] for x in range(n)):
            return None
        return [comp[2 * x] < comp[2 * x + 1] for x in range(n)]
    ''',
    # Kosaraju with the second pass on the original graph instead of the reversed one
    '''
    def settle(n, rules):
        size = 2 * n
        graph = [[] for _ in range(size)]
        for a, want_a, b, want_b in rules:
            la = 2 * a + (0 if want_a else 1)
            lb = 2 * b + (0 if want_b else 1)
            graph[la ^ 1].append(lb)
            graph[lb ^ 1].append(la)
        seen, order = [False] * size, []
        for root in range(size):
            if seen[root]:
                continue
            seen[root] = True
            work = [(root, iter(graph[root]))]
            while work:
                v, it = work[-1]
                for w in it:
                    if not seen[w]:
                        seen[w] = True
                        work.append((w, iter(graph[w])))
                        break
                else:
                    work.pop()
                    order.append(v)
        comp = [-1] * size
        count = 0
        for root in reversed(order):
            if comp[root] != -1:
                continue
            comp[root] = count
            todo = [root]
            while todo:
                v = todo.pop()
                for w in graph[v]:
                    if comp[w] == -1:
                        comp[w] = count
                        todo.append(w)
            count += 1
        if any(comp[2 * x] == comp[2 * x + 1] for x in range(n)):
            return None
        return [comp[2 * x] > comp[2 * x + 1] for x in range(n)]
    ''',
]

TESTS = '''
def _meets(n, rules, setting):
    return (isinstance(setting, list) and len(setting) == n and all(type(s) is bool for s in setting)
            and all(setting[a] == wa or setting[b] == wb for a, wa, b, wb in rules))

def test_small():
    rules = [(0, True, 1, True), (0, False, 0, False)]
    assert settle(2, rules) == [False, True]
    assert settle(1, [(0, True, 0, True), (0, False, 0, False)]) is None
    assert _meets(3, [], settle(3, []))
    rules = [(0, True, 1, True), (0, False, 1, True), (0, True, 1, False)]
    assert settle(2, rules) == [True, True]
    rules.append((0, False, 1, False))
    assert settle(2, rules) is None

def test_forced_through_a_chain():
    n = 6000
    rules = [(i, False, i + 1, True) for i in range(n - 1)]        # i on -> i+1 on
    rules.append((n - 1, False, 0, False))                        # last on -> first off
    setting = settle(n, rules)
    assert _meets(n, rules, setting)
    assert setting[0] is False
    rules.append((0, True, 0, True))                              # first on
    assert settle(n, rules) is None

def test_seeded_rule_sets():
    for n, rules, possible in SEEDED:
        setting = settle(n, rules)
        if possible:
            assert _meets(n, rules, setting), (n, rules, setting)
        else:
            assert setting is None, (n, rules)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
n = 8000
hidden = [rng.random() < 0.5 for _ in range(n)]
rules = []
for _ in range(16000):
    a, b = rng.randrange(n), rng.randrange(n)
    wa, wb = rng.random() < 0.5, rng.random() < 0.5
    if hidden[a] != wa and hidden[b] != wb:
        wa = hidden[a]
    rules.append((a, wa, b, wb))
for i in range(0, n - 1, 2):
    rules.append((i, not hidden[i], i + 1, hidden[i + 1]))     # a long chain of implications
{extra}
args = (n, rules)
'''
PERF_CHECK_OK = '''
n, rules = args
assert result is not None and len(result) == n
assert all(result[a] == wa or result[b] == wb for a, wa, b, wb in rules)
'''


def _possible(n, rules):
    return any(all(s[a] == wa or s[b] == wb for a, wa, b, wb in rules)
               for s in itertools.product([False, True], repeat=n))


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(30):
        n = rng.randrange(1, 7)
        rules = [(rng.randrange(n), rng.random() < 0.5, rng.randrange(n), rng.random() < 0.5)
                 for _ in range(rng.randrange(0, 3 * n + 2))]
        seeded.append((n, rules, _possible(n, rules)))
    contradiction = ("for i in range(n - 1):\n    rules.append((i, False, i + 1, True))\n"
                     "rules.append((n - 1, False, 0, False))\nrules.append((0, True, 0, True))")
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Switch settings meeting thousands of two-way rules",
        prompt=PROMPT, entry_point="settle", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "planted-8k", "input": PERF_INPUT.format(seed=71, extra=""), "check": PERF_CHECK_OK},
              {"name": "contradiction-8k", "input": PERF_INPUT.format(seed=72, extra=contradiction),
               "check": "assert result is None"}],
        notes="""2-satisfiability in disguise: the model must see the implication graph and strongly
        connected components (backtracking search is exponential in the worst case), read an assignment
        off the component order in the right direction, add both implications of every rule, and avoid
        recursion on 6,000-switch implication chains. Any valid setting passes, so the tests check the
        setting against the rules; thirty seeded rule sets are decided by trying every setting.""",
    )]
