"""CO-ds-spans: a set of integers kept as disjoint half-open spans, with add, remove (splitting),
membership and covered length, fast enough for 100,000 calls.

The seeded scripts' expected results come from a plain Python set of the covered integers (coordinates
below 40); the reference keeps two sorted lists of span ends and cuts them with bisect. The perf
script is fixed and pinned by a checksum that a set of integers computed once.
"""

from pytest_crucible import code_case, family_rng, mutate, script_tests

FAMILY = "CO-ds-spans"

# Hardness (README "How tiers are assigned", coding): the affected spans found by bisection, merging
# (touching spans included), cutting with a split, covered length clipped at both ends: 4 steps;
# 100,000 calls over thousands of spans. Traps: the wrong solutions.
HARDNESS = {"steps": 4, "search": 100000, "traps": 5}

PROMPT = """
Write a Python class `Spans`, a set of integers stored as disjoint half-open spans `[lo, hi)` (lo
included, hi excluded). `Spans()` starts empty; its methods:

- `add(lo, hi)`: put every integer x with lo <= x < hi in the set; returns None.
- `remove(lo, hi)`: take every such integer out (a span may be split in two); returns None.
- `contains(x)`: whether x is in the set.
- `covered(lo, hi)`: how many integers x with lo <= x < hi are in the set.
- `spans()`: the set as a sorted list of `[lo, hi]` pairs, as few as possible: spans that overlap or
  touch (`[1, 3]` and `[3, 5]`) are one span `[1, 5]`.

When lo >= hi the range is empty: add and remove change nothing and covered returns 0. Coordinates can
be any ints (up to 10^9 in size, negative too). A script makes up to 100,000 calls with thousands of
spans in the set; it must finish within a couple of seconds, so a call may not scan every span.

Example:

    s = Spans()
    s.add(1, 5); s.add(5, 8); s.add(10, 12)
    s.remove(3, 4)
    s.spans()          # [[1, 3], [4, 8], [10, 12]]
    s.covered(2, 11)   # 6
    s.contains(8)      # False
"""

SOLUTION = '''
from bisect import bisect_left, bisect_right


class Spans:
    def __init__(self):
        self.los, self.his = [], []           # sorted, disjoint, not touching

    def add(self, lo, hi):
        if lo >= hi:
            return None
        i = bisect_left(self.his, lo)         # first span ending at or after lo (touching)
        j = bisect_right(self.los, hi)        # spans starting at or before hi
        if i < j:
            lo = min(lo, self.los[i])
            hi = max(hi, self.his[j - 1])
        self.los[i:j] = [lo]
        self.his[i:j] = [hi]
        return None

    def remove(self, lo, hi):
        if lo >= hi:
            return None
        i = bisect_right(self.his, lo)        # first span ending after lo
        j = bisect_left(self.los, hi)         # spans starting before hi
        if i >= j:
            return None
        keep_lo, keep_hi = [], []
        if self.los[i] < lo:
            keep_lo.append(self.los[i])
            keep_hi.append(lo)
        if self.his[j - 1] > hi:
            keep_lo.append(hi)
            keep_hi.append(self.his[j - 1])
        self.los[i:j] = keep_lo
        self.his[i:j] = keep_hi
        return None

    def contains(self, x):
        i = bisect_right(self.los, x) - 1
        return i >= 0 and x < self.his[i]

    def covered(self, lo, hi):
        if lo >= hi:
            return 0
        i = bisect_right(self.his, lo)
        total = 0
        while i < len(self.los) and self.los[i] < hi:
            total += min(hi, self.his[i]) - max(lo, self.los[i])
            i += 1
        return total

    def spans(self):
        return [[a, b] for a, b in zip(self.los, self.his)]
'''

WRONG = [
    # spans that only touch are kept apart
    mutate(SOLUTION, ('''        i = bisect_left(self.his, lo)         # first span ending at or after lo (touching)
        j = bisect_right(self.los, hi)        # spans starting at or before hi''',
                      '''        i = bisect_right(self.his, lo)
        j = bisect_left(self.los, hi)''')),
    # a removal inside one span drops the whole span instead of splitting it
    mutate(SOLUTION, ('''        if self.his[j - 1] > hi:
            keep_lo.append(hi)
            keep_hi.append(self.his[j - 1])
''', '')),
    # covered length not clipped to the asked range
    mutate(SOLUTION, ("            total += min(hi, self.his[i]) - max(lo, self.los[i])",
                      "            total += self.his[i] - self.los[i]")),
    # spans read as closed: the end itself is a member
    mutate(SOLUTION, ("        return i >= 0 and x < self.his[i]", "        return i >= 0 and x <= self.his[i]")),
    # right, but every call walks all spans
    """
    class Spans:
        def __init__(self):
            self.items = []

        def add(self, lo, hi):
            if lo >= hi:
                return None
            kept = []
            for a, b in self.items:
                if b < lo or a > hi:
                    kept.append([a, b])
                else:
                    lo, hi = min(lo, a), max(hi, b)
            kept.append([lo, hi])
            self.items = sorted(kept)

        def remove(self, lo, hi):
            if lo >= hi:
                return None
            kept = []
            for a, b in self.items:
                if a < lo:
                    kept.append([a, min(b, lo)])
                if b > hi:
                    kept.append([max(a, hi), b])
            self.items = kept

        def contains(self, x):
            return any(a <= x < b for a, b in self.items)

        def covered(self, lo, hi):
            return sum(max(0, min(hi, b) - max(lo, a)) for a, b in self.items)

        def spans(self):
            return [list(p) for p in self.items]
    """,
]


class _Model:
    def __init__(self):
        self.members = set()

    def add(self, lo, hi):
        self.members.update(range(lo, hi))

    def remove(self, lo, hi):
        self.members.difference_update(range(lo, hi))

    def contains(self, x):
        return x in self.members

    def covered(self, lo, hi):
        return sum(1 for x in range(lo, hi) if x in self.members)

    def spans(self):
        out = []
        for x in sorted(self.members):
            if out and out[-1][1] == x:
                out[-1][1] = x + 1
            else:
                out.append([x, x + 1])
        return out


def _script(rng):
    model, steps = _Model(), []
    for _ in range(rng.randrange(10, 40)):
        method = rng.choice(["add", "add", "remove", "contains", "covered", "spans"])
        if method == "spans":
            args = []
        elif method == "contains":
            args = [rng.randrange(-3, 42)]
        else:
            lo = rng.randrange(-3, 40)
            args = [lo, lo + rng.randrange(-2, 12)]
        steps.append((method, args, getattr(model, method)(*args)))
    return [], steps


FIXED = [
    [("add", [1, 5]), ("add", [5, 8]), ("add", [10, 12]), ("remove", [3, 4]), ("spans", []),
     ("covered", [2, 11]), ("contains", [8]), ("contains", [7]), ("contains", [0])],
    [("add", [5, 5]), ("add", [6, 2]), ("spans", []), ("covered", [3, 1]), ("add", [-5, -1]), ("add", [0, 2]),
     ("spans", []), ("add", [-1, 0]), ("spans", []), ("remove", [-10, 10]), ("spans", [])],
    [("add", [0, 10]), ("remove", [2, 3]), ("remove", [5, 7]), ("remove", [2, 3]), ("spans", []),
     ("covered", [0, 10]), ("remove", [0, 2]), ("remove", [9, 12]), ("spans", []), ("add", [3, 5]),
     ("spans", []), ("covered", [4, 8])],
]

PERF_INPUT = '''
args = ()
'''
PERF_CHECK = '''
import random
rng = random.Random(91)
total = 0
for step in range(60000):
    roll = rng.random()
    lo = rng.randrange(-10**9, 10**9)
    if roll < 0.45:
        result.add(lo, lo + rng.randrange(1, 200000))
    elif roll < 0.7:
        result.remove(lo, lo + rng.randrange(1, 100000))
    elif roll < 0.85:
        total += result.contains(lo)
    else:
        total += result.covered(lo, lo + rng.randrange(1, 3000000))
assert total == {total}
assert len(result.spans()) == {count}
'''


# (checksum, spans left) of the perf script: the reference, checked once against the scanning class over
# 100,000 calls of the same random stream
PERF = (5522822635, 9996)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    scripts = []
    for ops in FIXED:
        model = _Model()
        scripts.append(([], [(m, a, getattr(model, m)(*a)) for m, a in ops]))
    scripts += [_script(rng) for _ in range(12)]
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Integer set as half-open spans: add, remove, covered length",
        prompt=PROMPT, entry_point="Spans", what="class", tests=script_tests("Spans", scripts),
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "calls-60k", "input": PERF_INPUT,
               "check": PERF_CHECK.format(total=PERF[0], count=PERF[1])}],
        notes="""Interval merging is a known exercise; the class adds the other half (removal that
        splits a span) and the boundaries that go wrong with half-open spans: touching spans merge,
        the end is not a member, covered length is clipped to the asked range. A scan of every span
        per call is right but about 3 x 10^8 span visits on the perf script.""",
    )]

