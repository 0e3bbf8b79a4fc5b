"""CO-ds-lfu: a least-frequently-used cache with recency tie-breaks, peeks and O(1) operations.

The hidden scripts come from the seed; their expected results come from a plain model that keeps a use
count and a last-use stamp per key and scans all keys on every eviction. The reference keeps one
ordered bucket per use count and the lowest count in use. The perf script (200,000 calls against a
cache of 4,000 keys) is fixed, its answers pinned by a checksum.
"""

from pytest_crucible import code_case, family_rng, mutate, script_tests

FAMILY = "CO-ds-lfu"

# Hardness (README "How tiers are assigned", coding): count per key, buckets per count, the lowest
# count kept up to date (reset on insert), recency inside a bucket, updates counting as uses, peeks not
# counting, capacity 0: 7 steps; no search beyond the perf size the scan fails. Traps: the wrong ones.
HARDNESS = {"steps": 7, "search": 1, "traps": 4}

PROMPT = """
Write a Python class `LFUCache` with these methods:

- `LFUCache(capacity)`: an empty cache holding at most `capacity` keys (`capacity >= 0`).
- `get(key)`: the key's value, or `None` when the key is not held. A successful get is one use of the key.
- `peek(key)`: like get, but it is not a use and changes nothing.
- `put(key, value)`: store the value. Putting a key that is held replaces its value and is one use of
  it. Putting a new key when the cache is full first evicts one key: the one with the fewest uses; among
  those, the one whose last use (or insertion) is oldest. A new key starts with one use. Return the
  evicted key, or `None` when nothing was evicted. With capacity 0 nothing is ever stored (put returns
  `None`).
- `count(key)`: the key's number of uses so far (its insertion counts as one), or 0 when not held.

Every method must take O(1) time on average: the tests make 200,000 calls on a cache of 4,000 keys.

Example:

    c = LFUCache(2)
    c.put("a", 1); c.put("b", 2)
    c.get("a")          # 1; "a" has 2 uses, "b" 1
    c.put("c", 3)       # returns "b"
    c.put("a", 10)      # "a" now has 3 uses
    c.put("d", 4)       # returns "c"
"""

SOLUTION = '''
from collections import OrderedDict


class LFUCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self.values = {}
        self.uses = {}
        self.buckets = {}          # use count -> OrderedDict of keys, least recent first
        self.low = 0

    def _touch(self, key):
        n = self.uses[key]
        bucket = self.buckets[n]
        del bucket[key]
        if not bucket:
            del self.buckets[n]
            if self.low == n:
                self.low = n + 1
        self.uses[key] = n + 1
        self.buckets.setdefault(n + 1, OrderedDict())[key] = None

    def get(self, key):
        if key not in self.values:
            return None
        self._touch(key)
        return self.values[key]

    def peek(self, key):
        return self.values.get(key)

    def count(self, key):
        return self.uses.get(key, 0)

    def put(self, key, value):
        if self.capacity <= 0:
            return None
        if key in self.values:
            self.values[key] = value
            self._touch(key)
            return None
        evicted = None
        if len(self.values) >= self.capacity:
            bucket = self.buckets[self.low]
            evicted, _ = bucket.popitem(last=False)
            if not bucket:
                del self.buckets[self.low]
            del self.values[evicted]
            del self.uses[evicted]
        self.values[key] = value
        self.uses[key] = 1
        self.buckets.setdefault(1, OrderedDict())[key] = None
        self.low = 1
        return evicted
'''

WRONG = [
    # the lowest count is not reset when a new key arrives: a stale bucket number is used for eviction
    mutate(SOLUTION, ("        self.low = 1\n        return evicted",
                      "        self.low = self.low or 1\n        return evicted"),
           ("            bucket = self.buckets[self.low]",
            "            bucket = self.buckets.get(self.low) or self.buckets[min(self.buckets)]")),
    # ties broken the wrong way: the most recently used of the least used keys is evicted
    mutate(SOLUTION, ("popitem(last=False)", "popitem(last=True)")),
    # replacing a held key's value is not counted as a use
    mutate(SOLUTION, ("            self.values[key] = value\n            self._touch(key)\n",
                      "            self.values[key] = value\n")),
    # peek counted as a use
    mutate(SOLUTION, ("    def peek(self, key):\n        return self.values.get(key)",
                      "    def peek(self, key):\n        return self.get(key)")),
    # right, but every eviction scans all keys: O(capacity) per put
    """
    class LFUCache:
        def __init__(self, capacity):
            self.capacity = capacity
            self.rows = {}        # key -> [value, uses, stamp]
            self.clock = 0

        def _use(self, key):
            self.clock += 1
            row = self.rows[key]
            row[1] += 1
            row[2] = self.clock

        def get(self, key):
            if key not in self.rows:
                return None
            self._use(key)
            return self.rows[key][0]

        def peek(self, key):
            row = self.rows.get(key)
            return row[0] if row else None

        def count(self, key):
            row = self.rows.get(key)
            return row[1] if row else 0

        def put(self, key, value):
            if self.capacity <= 0:
                return None
            if key in self.rows:
                self.rows[key][0] = value
                self._use(key)
                return None
            evicted = None
            if len(self.rows) >= self.capacity:
                evicted = min(self.rows, key=lambda k: (self.rows[k][1], self.rows[k][2]))
                del self.rows[evicted]
            self.clock += 1
            self.rows[key] = [value, 1, self.clock]
            return evicted
    """,
]


class _Model:
    def __init__(self, capacity):
        self.capacity, self.rows, self.stamp = capacity, [], 0   # rows: [key, value, uses, stamp]

    def _find(self, key):
        return next((r for r in self.rows if r[0] == key), None)

    def _use(self, row):
        self.stamp += 1
        row[2] += 1
        row[3] = self.stamp

    def get(self, key):
        row = self._find(key)
        if row is None:
            return None
        self._use(row)
        return row[1]

    def peek(self, key):
        row = self._find(key)
        return None if row is None else row[1]

    def count(self, key):
        row = self._find(key)
        return 0 if row is None else row[2]

    def put(self, key, value):
        if self.capacity == 0:
            return None
        row = self._find(key)
        if row is not None:
            row[1] = value
            self._use(row)
            return None
        evicted = None
        if len(self.rows) == self.capacity:
            victim = min(self.rows, key=lambda r: (r[2], r[3]))
            self.rows.remove(victim)
            evicted = victim[0]
        self.stamp += 1
        self.rows.append([key, value, 1, self.stamp])
        return evicted


def _script(capacity, ops):
    model = _Model(capacity)
    return [capacity], [(m, list(a), getattr(model, m)(*a)) for m, a in ops]


FIXED = [
    (2, [("put", ["a", 1]), ("put", ["b", 2]), ("get", ["a"]), ("put", ["c", 3]), ("put", ["a", 10]),
         ("put", ["d", 4]), ("get", ["a"]), ("count", ["a"]), ("count", ["c"])]),
    (0, [("put", ["a", 1]), ("get", ["a"]), ("count", ["a"])]),
    (3, [("put", [1, "x"]), ("get", [1]), ("get", [1]), ("put", [2, "y"]), ("put", [3, "z"]),
         ("put", [4, "w"]), ("peek", [3]), ("peek", [2]), ("put", [5, "v"]), ("count", [1])]),
]

PERF_INPUT = '''
import random
rng = random.Random(7)
OPS = []
for _ in range(200000):
    key = int(rng.paretovariate(1.2) * 50) if rng.random() < 0.6 else rng.randrange(40000)
    OPS.append((rng.random() < 0.5, key))
args = (4000,)
'''
PERF_CHECK = '''
total = 0
for i, (is_put, key) in enumerate(OPS):
    got = result.put(key, i) if is_put else result.get(key)
    if got is not None:
        total = (total * 31 + got + 1) % 1000000007
assert total == {total}
'''


def cases(seed):
    rng = family_rng(FAMILY, seed)
    scripts = [_script(c, [(m, a) for m, a in ops]) for c, ops in FIXED]
    for _ in range(12):
        capacity = rng.randrange(1, 6)
        keys = rng.randrange(capacity + 1, capacity + 6)
        ops = []
        for i in range(rng.randrange(20, 60)):
            kind = rng.choice(["put", "put", "get", "get", "peek", "count"])
            key = rng.randrange(keys)
            ops.append((kind, [key, i] if kind == "put" else [key]))
        scripts.append(_script(capacity, ops))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="LFU cache with recency ties, peeks and O(1) calls",
        prompt=PROMPT, entry_point="LFUCache", what="class", tests=script_tests("LFUCache", scripts),
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "calls-200k", "input": PERF_INPUT, "check": PERF_CHECK.format(total=820115042)}],
        notes="""An LFU cache is a known interview structure, but its O(1) form has three places that
        go wrong together: the lowest use count must drop back to 1 when a new key arrives, ties among
        the least used keys go to the least recent, and an update of a held key is a use. Peeks must not
        count. A scan for the victim is right but O(capacity) per eviction (about 10^8 row visits on
        the perf script).""",
    )]

