"""Coding, stateful classes driven by an injected clock: a TTL + LRU cache, a sliding-window rate
limiter, a token bucket, a circuit breaker, a job scheduler, stock reservations and login sessions.

The tests drive each class through scripts of calls at given clock readings (see
`pytest_crucible.suite.code_family.script_tests`): a few short scripts aimed at one rule each, then long
seeded random ones. The expected results come from a model written here in the plainest way (lists
scanned on every call, full recomputation); the reference solution run by `crucible cases verify` is
written the way a real implementation would be (ordered dicts, deques, heaps, lazy state), so a
mistake in either shows up as a disagreement.
"""

from __future__ import annotations

import math
from fractions import Fraction

from pytest_crucible import STANDARD_LIBRARY_ONLY, family_rng, flow, script_tests
from pytest_crucible.suite.tiers import ruled

REPLY = "Reply with the complete class in a single ```python code block."
CLOCK = ("The constructor's last argument `clock` is a function with no arguments that returns the current "
         "time as an int; read it whenever you need the time (it never goes backwards).")


def _expect(model, ops) -> list:
    """(time, method, args, expected) steps: each op applied to the model at its time."""
    steps = []
    for t, method, args in ops:
        assert t >= model.now, "clock readings never go backwards"
        model.now = t
        try:
            want = getattr(model, method)(*args)
        except (KeyError, ValueError, IndexError) as exc:
            want = "!" + type(exc).__name__
        steps.append((t, method, list(args), want))
    return steps


# Hardness per family (steps, search): the rules the hidden scripts pin, one step each (they interact on
# one object's state); no input size rules out a plain implementation (search 1); traps: the wrong
# solutions, each breaking one rule.
HARDNESS = {"CO-class-ttlcache": (6, 1), "CO-class-ratelimit": (5, 1), "CO-class-tokenbucket": (5, 1),
            "CO-class-breaker": (6, 1), "CO-class-scheduler": (5, 1), "CO-class-inventory": (5, 1),
            "CO-class-sessions": (5, 1)}


def _case(id_, title, prompt, entry, scripts, solution, wrongs, notes, errors=None):
    solution = solution.lstrip()
    wrongs = [w.lstrip() for w in wrongs]
    for w in wrongs:
        assert w != solution, id_
    tests = script_tests(entry, scripts, clock=True, **({"errors": errors} if errors else {}))
    family = id_.rsplit("-", 1)[0]
    facts = ruled(*HARDNESS[family], len(wrongs))
    return {"id": id_, "family": family, **facts, "title": title,
            "max_tokens": 16384 if facts["difficulty"] == "hard" else 8192, "prompt": flow(prompt),
            "grader": {"type": "code", "entry_point": entry, "tests": tests},
            "verify": {"solution": solution, "wrong": wrongs}, "notes": notes}


def _times(rng, count: int, gaps: list[int]) -> list[int]:
    t, out = rng.randrange(0, 50), []
    for _ in range(count):
        t += rng.choice(gaps)
        out.append(t)
    return out


# ----------------------------------------------------------------------------------- TTL + LRU cache

class _CacheModel:
    def __init__(self, capacity, ttl):
        self.capacity, self.ttl, self.now, self.seq = capacity, ttl, 0, 0
        self.rows = []   # [key, value, expires, last_use]

    def _live(self):
        return [r for r in self.rows if self.now < r[2]]

    def _use(self, row):
        self.seq += 1
        row[3] = self.seq

    def get(self, key):
        for r in self._live():
            if r[0] == key:
                self._use(r)
                return r[1]
        return None

    def put(self, key, value):
        self.rows = self._live()
        for r in self.rows:
            if r[0] == key:
                r[1], r[2] = value, self.now + self.ttl
                self._use(r)
                return None
        if len(self.rows) == self.capacity:
            self.rows.remove(min(self.rows, key=lambda r: r[3]))
        row = [key, value, self.now + self.ttl, 0]
        self._use(row)
        self.rows.append(row)
        return None

    def delete(self, key):
        live = self._live()
        self.rows = [r for r in live if r[0] != key]
        return len(self.rows) != len(live)

    def keys(self):
        return [r[0] for r in sorted(self._live(), key=lambda r: r[3])]

    def __len__(self):
        return len(self._live())


_CACHE_SOLUTION = '''
from collections import OrderedDict


class TTLCache:
    def __init__(self, capacity, ttl, clock):
        self.capacity, self.ttl, self.clock = capacity, ttl, clock
        self.entries = OrderedDict()   # key -> (value, expires); least recently used first

    def _purge(self):
        now = self.clock()
        for key in [k for k, (_, expires) in self.entries.items() if expires <= now]:
            del self.entries[key]

    def get(self, key):
        self._purge()
        if key not in self.entries:
            return None
        self.entries.move_to_end(key)
        return self.entries[key][0]

    def put(self, key, value):
        self._purge()
        if key not in self.entries and len(self.entries) >= self.capacity:
            self.entries.popitem(last=False)
        self.entries[key] = (value, self.clock() + self.ttl)
        self.entries.move_to_end(key)

    def delete(self, key):
        self._purge()
        return self.entries.pop(key, None) is not None

    def keys(self):
        self._purge()
        return list(self.entries)

    def __len__(self):
        self._purge()
        return len(self.entries)
'''


def _cache_case(rng) -> dict:
    capacity, ttl = rng.randrange(2, 5), rng.choice([10, 15, 20, 30])
    keys = ["a", "b", "c", "d", "e", "f"][:capacity + 2]
    scripts = []
    # one rule each: expiry exactly at put + ttl, a get that must not extend the ttl, an expired entry
    # that frees its slot (no eviction), recency from gets, a re-put that refreshes recency
    t0 = 100
    focused = [
        [(t0, "put", ("a", 1)), (t0 + ttl - 1, "get", ("a",)), (t0 + ttl, "get", ("a",)), (t0 + ttl, "__len__", ())],
        [(t0, "put", ("a", 1)), (t0 + ttl - 2, "get", ("a",)), (t0 + ttl + 1, "get", ("a",)),
         (t0 + ttl + 1, "delete", ("a",))],
        [(t0 + i, "put", (keys[i], i)) for i in range(capacity)] +
        [(t0 + capacity, "get", ("a",)), (t0 + ttl, "put", ("x", 9)), (t0 + ttl, "keys", ()),
         (t0 + ttl + 1, "put", ("y", 8)), (t0 + ttl + 1, "keys", ())],
        [(t0 + i, "put", (keys[i], i)) for i in range(capacity)] +
        [(t0 + capacity, "get", ("a",)), (t0 + capacity, "put", ("z", 7)), (t0 + capacity, "keys", ())],
        [(t0 + i, "put", (keys[i], i)) for i in range(capacity)] +
        [(t0 + capacity, "put", ("a", 5)), (t0 + capacity + 1, "put", ("z", 7)), (t0 + capacity + 1, "keys", ()),
         (t0 + capacity + 1, "get", ("a",))],
    ]
    for ops in focused:
        scripts.append(((capacity, ttl), _expect(_CacheModel(capacity, ttl), ops)))
    for _ in range(3):
        ops = []
        for t in _times(rng, 70, [0, 1, 1, 2, 3, ttl // 2, ttl]):
            r = rng.random()
            if r < 0.45:
                ops.append((t, "put", (rng.choice(keys), rng.randrange(100))))
            elif r < 0.8:
                ops.append((t, "get", (rng.choice(keys),)))
            elif r < 0.87:
                ops.append((t, "delete", (rng.choice(keys),)))
            else:
                ops.append((t, rng.choice(["keys", "__len__"]), ()))
        scripts.append(((capacity, ttl), _expect(_CacheModel(capacity, ttl), ops)))
    prompt = f"""Write a Python class `TTLCache(capacity, ttl, clock)`: a key-value cache whose entries expire and
whose size is bounded, evicting the least recently used entry. {CLOCK}

Methods:
- `put(key, value)`: store the value; returns None.
- `get(key)`: the value, or None if the key is missing or expired.
- `delete(key)`: remove the key; True if an unexpired entry was removed, otherwise False.
- `keys()`: the unexpired keys as a list, least recently used first.
- `len(cache)`: the number of unexpired entries.

Rules:
1. An entry put at time t expires at time t + ttl: at that time and later it no longer exists. Only
   `put` sets the expiry time; `get` does not extend it.
2. A `put` or a `get` that finds the key counts as a use. Recency follows the order of calls, even
   when several calls happen at the same clock time.
3. A `put` of a key that exists replaces its value and expiry and never evicts anything.
4. A `put` of a new key when `capacity` unexpired entries exist first evicts the least recently used
   unexpired entry. Expired entries never count toward the capacity.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    s = _CACHE_SOLUTION
    wrongs = [
        # get extends the ttl
        s.replace("        self.entries.move_to_end(key)\n        return self.entries[key][0]\n",
                  "        self.entries.move_to_end(key)\n        value = self.entries[key][0]\n"
                  "        self.entries[key] = (value, self.clock() + self.ttl)\n        return value\n"),
        # expired entries still take a slot when a new key arrives
        s.replace("    def put(self, key, value):\n        self._purge()\n", "    def put(self, key, value):\n"),
        # an entry is still alive at exactly put + ttl
        s.replace("if expires <= now]", "if expires < now]"),
        # a get is not a use: first-in first-out eviction
        s.replace("        self.entries.move_to_end(key)\n        return self.entries[key][0]\n",
                  "        return self.entries[key][0]\n"),
        # a re-put keeps the old position
        s.replace("        self.entries[key] = (value, self.clock() + self.ttl)\n        self.entries.move_to_end(key)\n",
                  "        self.entries[key] = (value, self.clock() + self.ttl)\n"),
    ]
    return _case("CO-class-ttlcache-01", "TTL cache with LRU eviction and an injected clock", prompt, "TTLCache",
                 scripts, s, wrongs,
                 "Five interacting rules: the expiry boundary (t + ttl is already expired), gets that "
                 "must not extend the ttl, expired entries that free their slot (so no eviction), "
                 "recency by call order within one clock tick, and re-puts that refresh recency without "
                 "evicting. Five focused scripts pin one rule each; three seeded 70-call scripts mix "
                 "them. Capacity and ttl are re-rolled per seed.")


# ----------------------------------------------------------------------------------- sliding window

class _LimiterModel:
    def __init__(self, limit, window):
        self.limit, self.window, self.now = limit, window, 0
        self.log = []   # (key, time) of allowed requests

    def _recent(self, key):
        return sorted(t for k, t in self.log if k == key and self.now - self.window < t <= self.now)

    def allow(self, key):
        if len(self._recent(key)) < self.limit:
            self.log.append((key, self.now))
            return True
        return False

    def count(self, key):
        return len(self._recent(key))

    def retry_after(self, key):
        recent = self._recent(key)
        for wait in range(0, self.window + 1):   # the first moment with a free slot
            if sum(1 for t in recent if self.now + wait - self.window < t) < self.limit:
                return wait
        raise AssertionError("unreachable")


_LIMITER_SOLUTION = '''
from collections import defaultdict, deque


class RateLimiter:
    def __init__(self, limit, window, clock):
        self.limit, self.window, self.clock = limit, window, clock
        self.allowed = defaultdict(deque)   # key -> times of allowed requests, oldest first

    def _recent(self, key):
        times, now = self.allowed[key], self.clock()
        while times and times[0] <= now - self.window:
            times.popleft()
        return times

    def allow(self, key):
        times = self._recent(key)
        if len(times) >= self.limit:
            return False
        times.append(self.clock())
        return True

    def count(self, key):
        return len(self._recent(key))

    def retry_after(self, key):
        times = self._recent(key)
        if len(times) < self.limit:
            return 0
        return times[len(times) - self.limit] + self.window - self.clock()
'''


def _limiter_case(rng) -> dict:
    limit, window = rng.randrange(2, 5), rng.choice([10, 30, 60])
    scripts = []
    focused = [
        # the oldest request leaves the window exactly `window` later
        [(10, "allow", ("u",))] + [(10 + i, "allow", ("u",)) for i in range(1, limit)] +
        [(10 + window - 1, "allow", ("u",)), (10 + window - 1, "retry_after", ("u",)), (10 + window, "allow", ("u",))],
        # rejected requests do not count
        [(0, "allow", ("u",)) for _ in range(limit)] + [(window // 2, "allow", ("u",)) for _ in range(3)] +
        [(window, "count", ("u",)), (window, "allow", ("u",)), (window, "allow", ("u",))],
        # keys are independent, and retry_after names the slot that frees first
        [(5, "allow", ("a",)), (6, "allow", ("b",))] + [(7 + i, "allow", ("a",)) for i in range(limit)] +
        [(8 + limit, "retry_after", ("a",)), (8 + limit, "retry_after", ("b",)), (8 + limit, "count", ("b",))],
    ]
    for ops in focused:
        scripts.append(((limit, window), _expect(_LimiterModel(limit, window), ops)))
    for _ in range(3):
        ops = []
        for t in _times(rng, 80, [0, 0, 1, 2, 3, window // 4, window // 2]):
            key = rng.choice(["a", "a", "b", "c"])
            r = rng.random()
            ops.append((t, "allow" if r < 0.7 else "retry_after" if r < 0.88 else "count", (key,)))
        scripts.append(((limit, window), _expect(_LimiterModel(limit, window), ops)))
    prompt = f"""Write a Python class `RateLimiter(limit, window, clock)`: a sliding-window rate limiter that allows
at most `limit` requests per key in any window of `window` time units. {CLOCK}

Methods:
- `allow(key)`: True if a request for `key` is allowed now (and records it), otherwise False.
- `count(key)`: how many allowed requests for `key` are inside the window now.
- `retry_after(key)`: 0 if a request for `key` would be allowed now; otherwise the smallest number
  of time units to wait until one would be allowed (assuming no other calls).

Rules:
1. At time `now` the window is the half-open span (now - window, now]: a request allowed at time t
   still counts at time t + window - 1 and no longer counts at time t + window.
2. Only allowed requests are recorded; a rejected request never counts.
3. Every key has its own window; keys never affect each other.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    s = _LIMITER_SOLUTION
    wrongs = [
        # rejected requests are recorded too
        s.replace("        if len(times) >= self.limit:\n            return False\n        times.append(self.clock())\n",
                  "        times.append(self.clock())\n        if len(times) > self.limit:\n            return False\n"),
        # the window's old end is included: [now - window, now]
        s.replace("while times and times[0] <= now - self.window:", "while times and times[0] < now - self.window:"),
        # retry_after waits for the newest request to leave
        s.replace("return times[len(times) - self.limit] + self.window - self.clock()",
                  "return times[-1] + self.window - self.clock()"),
        # one window shared by every key
        s.replace("times, now = self.allowed[key], self.clock()", "times, now = self.allowed[None], self.clock()"),
    ]
    return _case("CO-class-ratelimit-01", "Sliding-window rate limiter per key, with retry_after",
                 prompt, "RateLimiter", scripts, s, wrongs,
                 "The half-open window boundary, rejected requests that must not be recorded, per-key "
                 "isolation and a retry_after that depends on which recorded request leaves first "
                 "(with limit > 1 it is not the newest or the oldest in general). Three focused "
                 "scripts pin the boundary cases, three seeded 80-call scripts with bursts at one "
                 "clock tick mix them; limit and window are re-rolled per seed.")


# ----------------------------------------------------------------------------------- token bucket

class _BucketModel:
    """Recomputes the level from the full history on every call (the reference keeps a running level)."""

    def __init__(self, capacity, rate):
        self.capacity, self.rate, self.now = capacity, Fraction(rate, 1000), 0
        self.events = []   # (time, tokens taken)

    def _level(self, at):
        level, last = Fraction(self.capacity), 0
        for t, taken in self.events + [(at, 0)]:
            level = min(Fraction(self.capacity), level + (t - last) * self.rate) - taken
            last = t
        return level

    def take(self, n):
        if self._level(self.now) >= n:
            self.events.append((self.now, n))
            return True
        return False

    def tokens(self):
        return math.floor(self._level(self.now))

    def wait_ms(self, n):
        if n > self.capacity:
            return -1
        missing = n - self._level(self.now)
        return 0 if missing <= 0 else math.ceil(missing / self.rate)


_BUCKET_SOLUTION = '''
from fractions import Fraction
import math


class TokenBucket:
    def __init__(self, capacity, rate, clock):
        self.capacity, self.clock = capacity, clock
        self.per_ms = Fraction(rate, 1000)
        self.level = Fraction(capacity)
        self.last = clock()

    def _refill(self):
        now = self.clock()
        self.level = min(Fraction(self.capacity), self.level + (now - self.last) * self.per_ms)
        self.last = now

    def take(self, n):
        self._refill()
        if self.level < n:
            return False
        self.level -= n
        return True

    def tokens(self):
        self._refill()
        return math.floor(self.level)

    def wait_ms(self, n):
        if n > self.capacity:
            return -1
        self._refill()
        if self.level >= n:
            return 0
        return math.ceil((n - self.level) / self.per_ms)
'''


def _bucket_case(rng) -> dict:
    # rates whose ten 100 ms refills add up, in binary floats, to just under `rate`; room for them
    rate = rng.choice([3, 6, 11])
    capacity = rate + rng.randrange(1, 5)
    scripts = []
    focused = [
        # many small refills that sum exactly to whole tokens
        [(0, "take", (capacity,))] + [(100 * i, "tokens", ()) for i in range(1, 11)] +
        [(1000, "take", (rate,)), (1000, "tokens", ())],
        # a failed take changes nothing, and the level is capped at capacity
        [(0, "take", (capacity,)), (10, "take", (1,)), (10, "wait_ms", (1,)), (5000, "tokens", ()),
         (5000, "take", (capacity + 1,)), (5000, "wait_ms", (capacity + 1,)), (5000, "take", (capacity,))],
        # waits are rounded up to whole ms
        [(0, "take", (capacity,)), (1, "wait_ms", (1,)), (1, "wait_ms", (2,)), (333, "wait_ms", (1,)),
         (334, "wait_ms", (1,)), (334, "take", (1,))],
    ]
    for ops in focused:
        scripts.append(((capacity, rate), _expect(_BucketModel(capacity, rate), ops)))
    for _ in range(3):
        ops = []
        for t in _times(rng, 60, [0, 1, 7, 33, 100, 143, 250, 600]):
            r = rng.random()
            if r < 0.6:
                ops.append((t, "take", (rng.randrange(1, capacity + 1),)))
            elif r < 0.8:
                ops.append((t, "tokens", ()))
            else:
                ops.append((t, "wait_ms", (rng.randrange(1, capacity + 2),)))
        scripts.append(((capacity, rate), _expect(_BucketModel(capacity, rate), ops)))
    prompt = f"""Write a Python class `TokenBucket(capacity, rate, clock)`: a token bucket that starts full with
`capacity` tokens and refills continuously at `rate` tokens per second. The clock reads
milliseconds. {CLOCK}

Methods:
- `take(n)`: if at least n tokens are available now, remove n and return True; otherwise return
  False and change nothing.
- `tokens()`: the number of whole tokens available now (rounded down).
- `wait_ms(n)`: 0 if n tokens are available now; -1 if n is more than `capacity`; otherwise the
  number of whole milliseconds (rounded up) until n tokens will be available.

Rules:
1. Refilling is exact and continuous: after d milliseconds the bucket has gained d * rate / 1000
   tokens, fractions included, but it never holds more than `capacity`. Use exact arithmetic: a
   level that should be exactly 3 must not come out as 2.9999999.
2. Only `take` changes the level; asking never does.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    s = _BUCKET_SOLUTION
    wrongs = [
        # floats
        s.replace("self.per_ms = Fraction(rate, 1000)", "self.per_ms = rate / 1000").replace(
            "self.level = Fraction(capacity)", "self.level = float(capacity)").replace(
            "min(Fraction(self.capacity),", "min(float(self.capacity),"),
        # whole tokens only: the fraction earned so far is lost at every refill
        s.replace("self.level + (now - self.last) * self.per_ms)", "self.level + (now - self.last) * self.per_ms // 1)"),
        # waits rounded down
        s.replace("return math.ceil((n - self.level) / self.per_ms)", "return math.floor((n - self.level) / self.per_ms)"),
        # capped before the refill is added, so a long pause overfills the bucket
        s.replace("self.level = min(Fraction(self.capacity), self.level + (now - self.last) * self.per_ms)",
                  "self.level = min(Fraction(self.capacity), self.level) + (now - self.last) * self.per_ms"),
    ]
    return _case("CO-class-tokenbucket-01", "Token bucket with exact fractional refill and waits in ms",
                 prompt, "TokenBucket", scripts, s, wrongs,
                 "Rates of 3, 6 or 7 per second refill 0.003-0.007 tokens per ms, which no binary float "
                 "adds up exactly; a focused script sums ten 100 ms refills to a whole level, another "
                 "pins the cap, a failed take and a request above capacity, a third the rounding of "
                 "waits. Three seeded scripts mix takes, reads and waits at irregular times. Floats, "
                 "whole-token refills, rounded-down waits and a cap applied before the refill each "
                 "fail.")


# ----------------------------------------------------------------------------------- circuit breaker

class _BreakerModel:
    def __init__(self, threshold, cooldown, max_cooldown):
        self.threshold, self.base, self.cap, self.now = threshold, cooldown, max_cooldown, 0
        self.mode, self.failures, self.cooldown, self.opened, self.trial = "closed", 0, cooldown, 0, False

    def state(self):
        if self.mode == "open" and self.now >= self.opened + self.cooldown:
            self.mode, self.trial = "half-open", False
        return self.mode

    def allow(self):
        mode = self.state()
        if mode == "closed":
            return True
        if mode == "half-open" and not self.trial:
            self.trial = True
            return True
        return False

    def success(self):
        mode = self.state()
        if mode == "closed":
            self.failures = 0
        elif mode == "half-open" and self.trial:
            self.mode, self.failures, self.cooldown = "closed", 0, self.base
        return None

    def failure(self):
        mode = self.state()
        if mode == "closed":
            self.failures += 1
            if self.failures >= self.threshold:
                self.mode, self.opened = "open", self.now
        elif mode == "half-open" and self.trial:
            self.mode, self.opened, self.cooldown = "open", self.now, min(self.cap, self.cooldown * 2)
        return None


_BREAKER_SOLUTION = '''
class CircuitBreaker:
    def __init__(self, threshold, cooldown, max_cooldown, clock):
        self.threshold, self.base, self.cap, self.clock = threshold, cooldown, max_cooldown, clock
        self.failures = 0
        self.cooldown = cooldown
        self.open_until = None     # set while open (or half-open once the time has come)
        self.trial_out = False

    def state(self):
        if self.open_until is None:
            return "closed"
        return "open" if self.clock() < self.open_until else "half-open"

    def allow(self):
        state = self.state()
        if state == "closed":
            return True
        if state == "half-open" and not self.trial_out:
            self.trial_out = True
            return True
        return False

    def _trip(self, cooldown):
        self.cooldown = cooldown
        self.open_until = self.clock() + cooldown
        self.trial_out = False

    def success(self):
        state = self.state()
        if state == "closed":
            self.failures = 0
        elif state == "half-open" and self.trial_out:
            self.open_until, self.trial_out, self.failures, self.cooldown = None, False, 0, self.base

    def failure(self):
        state = self.state()
        if state == "closed":
            self.failures += 1
            if self.failures >= self.threshold:
                self._trip(self.cooldown)
        elif state == "half-open" and self.trial_out:
            self._trip(min(self.cap, self.cooldown * 2))
'''


def _breaker_case(rng) -> dict:
    threshold, cooldown = rng.randrange(2, 5), rng.choice([10, 20, 30])
    max_cooldown = cooldown * rng.choice([4, 8])
    init = (threshold, cooldown, max_cooldown)
    trip = [(i, "failure", ()) for i in range(threshold)]
    scripts = []
    focused = [
        # consecutive failures only: a success in between resets the count
        [(0, "failure", ()) for _ in range(threshold - 1)] + [(1, "success", ()), (2, "failure", ()), (2, "state", ()),
                                                              (3, "allow", ())],
        # exactly at the end of the cooldown the breaker is half-open and lets one trial through
        trip + [(threshold - 1 + cooldown - 1, "state", ()), (threshold - 1 + cooldown - 1, "allow", ()),
                (threshold - 1 + cooldown, "state", ()), (threshold - 1 + cooldown, "allow", ()),
                (threshold - 1 + cooldown, "allow", ()), (threshold + cooldown, "success", ()),
                (threshold + cooldown, "state", ())],
        # failed trials double the cooldown up to the cap; a success resets it
        trip + [(1000, "allow", ()), (1000, "failure", ()), (1000 + 2 * cooldown - 1, "state", ()),
                (1000 + 2 * cooldown, "allow", ()), (1000 + 2 * cooldown, "failure", ()),
                (1000 + 6 * cooldown - 1, "state", ()), (1000 + 6 * cooldown, "allow", ()),
                (1000 + 6 * cooldown, "success", ())] + [(2000, "failure", ()) for _ in range(threshold)] +
        [(2000 + cooldown, "state", ())],
        # results reported while open, or with no trial out, are ignored
        trip + [(threshold, "success", ()), (threshold, "state", ()), (threshold + cooldown, "success", ()),
                (threshold + cooldown, "failure", ()), (threshold + cooldown, "state", ()),
                (threshold + cooldown, "allow", ())],
    ]
    for ops in focused:
        scripts.append((init, _expect(_BreakerModel(*init), ops)))
    for _ in range(3):
        ops = []
        for t in _times(rng, 90, [0, 1, 2, cooldown // 2, cooldown, 2 * cooldown]):
            r = rng.random()
            method = "allow" if r < 0.35 else "failure" if r < 0.7 else "success" if r < 0.88 else "state"
            ops.append((t, method, ()))
        scripts.append((init, _expect(_BreakerModel(*init), ops)))
    prompt = f"""Write a Python class `CircuitBreaker(threshold, cooldown, max_cooldown, clock)` that protects calls to
a failing service. {CLOCK}

Methods:
- `allow()`: True if a request may be sent now.
- `success()` and `failure()`: report the result of a request; they return None.
- `state()`: "closed", "open" or "half-open".

Rules:
1. Closed: every request is allowed. A failure adds one to a count of consecutive failures and a
   success resets that count to 0. When the count reaches `threshold`, the breaker opens.
2. Open: no request is allowed. When the current cooldown has passed since it opened (at time
   opened + cooldown exactly), it is half-open; `state()` reports that even if nothing was called in
   between.
3. Half-open: `allow()` returns True once, for a single trial request, and False after that until the
   trial's result is reported. A successful trial closes the breaker, resets the failure count and
   resets the cooldown to its initial value. A failed trial opens it again with the cooldown doubled,
   but never more than `max_cooldown`.
4. A result reported while the breaker is open, or while it is half-open with no trial out, is
   ignored.
5. The cooldown starts at `cooldown`; it only changes by rule 3.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    s = _BREAKER_SOLUTION
    wrongs = [
        # failures counted in total, not consecutively
        s.replace("        if state == \"closed\":\n            self.failures = 0\n", "        if state == \"closed\":\n            pass\n"),
        # half-open lets every request through
        s.replace("        if state == \"half-open\" and not self.trial_out:\n", "        if state == \"half-open\":\n"),
        # the cooldown keeps its doubled value after the breaker closes
        s.replace("self.open_until, self.trial_out, self.failures, self.cooldown = None, False, 0, self.base",
                  "self.open_until, self.trial_out, self.failures = None, False, 0"),
        # half-open only after the cooldown has strictly passed
        s.replace('return "open" if self.clock() < self.open_until else "half-open"',
                  'return "open" if self.clock() <= self.open_until else "half-open"'),
        # late results while open still count
        s.replace("        elif state == \"half-open\" and self.trial_out:\n            self._trip(",
                  "        elif state != \"closed\":\n            self._trip("),
    ]
    return _case("CO-class-breaker-01", "Circuit breaker: consecutive failures, one half-open trial, backoff",
                 prompt, "CircuitBreaker", scripts, s, wrongs,
                 "A three-state machine with a lazy time transition, a single trial in half-open, "
                 "doubling capped backoff that resets on success, and results to ignore (late ones while "
                 "open, ones with no trial out). Four focused scripts pin those rules at exact boundary "
                 "times; three seeded 90-call scripts mix them. Each wrong solution breaks one rule.")


# ----------------------------------------------------------------------------------- scheduler

class _SchedulerModel:
    """Enumerates every run of every job up to now and keeps those not yet returned."""

    def __init__(self):
        self.now, self.jobs, self.done = 0, {}, set()   # id -> [name, first_due, every, cancelled_at]

    def schedule(self, name, delay, every):
        job = len(self.jobs) + 1
        self.jobs[job] = [name, self.now + delay, every, None]
        return job

    def cancel(self, job):
        if job not in self.jobs or self._next_run(job) is None:
            return False
        self.jobs[job][3] = self.now
        return True

    def _runs_until(self, job, until):
        """Every run of the job due at or before `until` that was not returned yet."""
        name, due, every, cancelled = self.jobs[job]
        out = []
        while cancelled is None and due <= until:
            if (job, due) not in self.done:
                out.append((due, job, name))
            if not every:
                break
            due += every
        return out

    def _next_run(self, job):
        name, due, every, cancelled = self.jobs[job]
        if cancelled is not None:
            return None
        while (job, due) in self.done:
            if not every:
                return None
            due += every
        return due

    def run_due(self):
        runs = sorted(r for job in self.jobs for r in self._runs_until(job, self.now))
        self.done |= {(job, due) for due, job, _ in runs}
        return [name for _, _, name in runs]

    def next_due(self):
        upcoming = [d for d in map(self._next_run, self.jobs) if d is not None]
        return min(upcoming) if upcoming else None


_SCHEDULER_SOLUTION = '''
import heapq


class Scheduler:
    def __init__(self, clock):
        self.clock = clock
        self.queue = []          # (due, job id, name, every)
        self.next_id = 1
        self.active = set()

    def schedule(self, name, delay, every=0):
        job = self.next_id
        self.next_id += 1
        heapq.heappush(self.queue, (self.clock() + delay, job, name, every))
        self.active.add(job)
        return job

    def cancel(self, job):
        if job in self.active:
            self.active.discard(job)
            return True
        return False

    def run_due(self):
        now, ran = self.clock(), []
        while self.queue and self.queue[0][0] <= now:
            due, job, name, every = heapq.heappop(self.queue)
            if job not in self.active:
                continue
            ran.append(name)
            if every:
                heapq.heappush(self.queue, (due + every, job, name, every))
            else:
                self.active.discard(job)
        return ran

    def next_due(self):
        while self.queue and self.queue[0][1] not in self.active:
            heapq.heappop(self.queue)
        return self.queue[0][0] if self.queue else None
'''


def _scheduler_case(rng) -> dict:
    scripts = []
    focused = [
        # a late run_due catches up every missed period, interleaved by time with other jobs
        [(0, "schedule", ("tick", 5, 10)), (0, "schedule", ("once", 12, 0)), (1, "schedule", ("tock", 3, 7)),
         (40, "run_due", ()), (40, "next_due", ()), (50, "run_due", ())],
        # equal due times run in job order, not name order; a job due exactly now runs
        [(0, "schedule", ("zulu", 5, 0)), (0, "schedule", ("alpha", 5, 0)), (4, "run_due", ()), (5, "run_due", ()),
         (5, "next_due", ())],
        # cancelling stops every later run; a finished one-shot cannot be cancelled
        [(0, "schedule", ("beat", 2, 3)), (0, "schedule", ("one", 1, 0)), (6, "run_due", ()), (6, "cancel", (1,)),
         (6, "cancel", (2,)), (6, "cancel", (1,)), (30, "run_due", ()), (30, "next_due", ()), (30, "cancel", (9,))],
    ]
    for ops in focused:
        scripts.append(((), _expect(_SchedulerModel(), ops)))
    names = ["mail", "sync", "scan", "gc", "ping", "log"]
    for _ in range(3):
        ops, created = [], 0
        for t in _times(rng, 60, [0, 1, 2, 3, 5, 8, 13]):
            r = rng.random()
            if r < 0.35 or created == 0:
                created += 1
                ops.append((t, "schedule", (rng.choice(names), rng.randrange(0, 15),
                                            rng.choice([0, 0, rng.randrange(2, 9)]))))
            elif r < 0.75:
                ops.append((t, "run_due", ()))
            elif r < 0.87:
                ops.append((t, "cancel", (rng.randrange(1, created + 2),)))
            else:
                ops.append((t, "next_due", ()))
        scripts.append(((), _expect(_SchedulerModel(), ops)))
    prompt = f"""Write a Python class `Scheduler(clock)` that keeps one-shot and recurring jobs and runs them when
they are due. {CLOCK}

Methods:
- `schedule(name, delay, every=0)`: add a job first due at now + delay; with every > 0 it recurs
  every `every` time units after that. Returns the job's id: 1 for the first job, then 2, 3, ...
- `cancel(job_id)`: stop a job; True if it still had a run to come, otherwise False (unknown id,
  already cancelled, or a one-shot job that already ran).
- `run_due()`: return the names of all runs due at or before now, in order of due time, runs with
  equal due times in order of job id. Each run is returned once.
- `next_due()`: the earliest due time among runs that run_due has not returned yet (it may be in the
  past), or None.

Rules:
1. A recurring job's next run is due `every` after its previous due time, not after the moment
   run_due was called. If run_due is called late, the job runs once for every period it missed,
   and those runs take their places in the time order among the runs of other jobs.
2. A one-shot job runs once. A cancelled job never runs again.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    s = _SCHEDULER_SOLUTION
    wrongs = [
        # recurring runs rescheduled from now: no catch-up
        s.replace("heapq.heappush(self.queue, (due + every, job, name, every))",
                  "heapq.heappush(self.queue, (max(due, now) + every, job, name, every))").replace(
            "while self.queue and self.queue[0][0] <= now:", "for _ in range(len(self.queue)):\n"
            "            if not self.queue or self.queue[0][0] > now:\n                break"),
        # equal due times ordered by name
        s.replace("(self.clock() + delay, job, name, every)", "(self.clock() + delay, name, job, every)").replace(
            "due, job, name, every = heapq.heappop(self.queue)", "due, name, job, every = heapq.heappop(self.queue)").replace(
            "(due + every, job, name, every)", "(due + every, name, job, every)").replace(
            "while self.queue and self.queue[0][1] not in self.active:", "while self.queue and self.queue[0][2] not in self.active:"),
        # a job due exactly now waits for the next call
        s.replace("while self.queue and self.queue[0][0] <= now:", "while self.queue and self.queue[0][0] < now:"),
        # cancel answers True for any id it has seen
        s.replace("        if job in self.active:\n            self.active.discard(job)\n            return True\n        return False\n",
                  "        if 0 < job < self.next_id:\n            self.active.discard(job)\n            return True\n        return False\n"),
    ]
    return _case("CO-class-scheduler-01", "Job scheduler: catch-up of recurring runs, ordering, cancellation",
                 prompt, "Scheduler", scripts, s, wrongs,
                 "Catch-up is the trap: a late run_due must emit one run per missed period and merge "
                 "them in time order with other jobs' runs (a heap keyed by due time does it; "
                 "rescheduling from 'now' does not). Ties by job id, runs due exactly now, and "
                 "cancel's return value for finished one-shots are each pinned by a focused script; "
                 "three seeded scripts mix schedule, cancel and late run_due calls.")


# ----------------------------------------------------------------------------------- stock reservations

class _StockModel:
    def __init__(self, hold):
        self.hold, self.now = hold, 0
        self.stock, self.orders = {}, {}   # order -> [items, made_at, status]

    def _status(self, order):
        items, made, status = self.orders[order]
        if status == "held" and self.now >= made + self.hold:
            return "expired"
        return status

    def _held(self, sku):
        return sum(o[0].get(sku, 0) for k, o in self.orders.items() if self._status(k) == "held")

    def restock(self, sku, qty):
        if qty <= 0:
            raise ValueError(qty)
        self.stock[sku] = self.stock.get(sku, 0) + qty
        return None

    def available(self, sku):
        return self.stock.get(sku, 0) - self._held(sku)

    def on_hand(self, sku):
        return self.stock.get(sku, 0)

    def reserve(self, order, items):
        if order in self.orders:
            raise ValueError(order)
        if any(q <= 0 for q in items.values()):
            raise ValueError(items)
        if any(self.available(s) < q for s, q in items.items()):
            return False
        self.orders[order] = [dict(items), self.now, "held"]
        return True

    def confirm(self, order):
        if order not in self.orders:
            raise KeyError(order)
        if self._status(order) != "held":
            return False
        for sku, q in self.orders[order][0].items():
            self.stock[sku] -= q
        self.orders[order][2] = "confirmed"
        return True

    def cancel(self, order):
        if order not in self.orders:
            raise KeyError(order)
        if self._status(order) != "held":
            return False
        self.orders[order][2] = "cancelled"
        return True


_STOCK_SOLUTION = '''
class Inventory:
    def __init__(self, hold, clock):
        self.hold, self.clock = hold, clock
        self.stock = {}
        self.reserved = {}     # sku -> quantity held by live reservations
        self.live = {}         # order -> (items, expires)
        self.seen = set()

    def _expire(self):
        now = self.clock()
        for order, (items, expires) in list(self.live.items()):
            if now >= expires:
                self._release(order)

    def _release(self, order):
        items, _ = self.live.pop(order)
        for sku, qty in items.items():
            self.reserved[sku] -= qty

    def restock(self, sku, qty):
        if qty <= 0:
            raise ValueError("quantity must be positive")
        self.stock[sku] = self.stock.get(sku, 0) + qty

    def available(self, sku):
        self._expire()
        return self.stock.get(sku, 0) - self.reserved.get(sku, 0)

    def on_hand(self, sku):
        return self.stock.get(sku, 0)

    def reserve(self, order, items):
        if order in self.seen:
            raise ValueError("order id already used")
        if any(qty <= 0 for qty in items.values()):
            raise ValueError("quantities must be positive")
        self._expire()
        if any(self.available(sku) < qty for sku, qty in items.items()):
            return False
        self.seen.add(order)
        self.live[order] = (dict(items), self.clock() + self.hold)
        for sku, qty in items.items():
            self.reserved[sku] = self.reserved.get(sku, 0) + qty
        return True

    def confirm(self, order):
        if order not in self.seen:
            raise KeyError(order)
        self._expire()
        if order not in self.live:
            return False
        items, _ = self.live[order]
        self._release(order)
        for sku, qty in items.items():
            self.stock[sku] -= qty
        return True

    def cancel(self, order):
        if order not in self.seen:
            raise KeyError(order)
        self._expire()
        if order not in self.live:
            return False
        self._release(order)
        return True
'''


def _stock_case(rng) -> dict:
    hold = rng.choice([30, 60, 90])
    scripts = []
    focused = [
        # all or nothing
        [(0, "restock", ("pen", 5)), (0, "restock", ("ink", 1)), (1, "reserve", ("o1", {"pen": 2, "ink": 2})),
         (1, "available", ("pen",)), (1, "reserve", ("o2", {"pen": 5})), (1, "available", ("pen",)),
         (2, "reserve", ("o1", {"pen": 1}))],
        # a reservation expires exactly hold after it was made and releases its stock
        [(0, "restock", ("pen", 3)), (10, "reserve", ("o1", {"pen": 3})), (10 + hold - 1, "available", ("pen",)),
         (10 + hold, "available", ("pen",)), (10 + hold, "confirm", ("o1",)), (10 + hold, "reserve", ("o2", {"pen": 3})),
         (10 + hold, "confirm", ("o2",)), (10 + hold, "on_hand", ("pen",)), (10 + hold, "cancel", ("o2",))],
        # confirming takes the stock for good; cancelling gives it back; unknown orders raise
        [(0, "restock", ("cup", 4)), (0, "reserve", ("a", {"cup": 1})), (0, "reserve", ("b", {"cup": 2})),
         (1, "confirm", ("a",)), (1, "cancel", ("b",)), (1, "available", ("cup",)), (1, "on_hand", ("cup",)),
         (1, "confirm", ("zz",)), (1, "restock", ("cup", 0)), (1 + 2 * hold, "available", ("cup",))],
    ]
    for ops in focused:
        scripts.append(((hold,), _expect(_StockModel(hold), ops)))
    skus = ["pen", "ink", "cup"]
    for _ in range(3):
        ops, orders = [], 0
        for t in _times(rng, 70, [0, 1, 5, 10, hold // 3, hold]):
            r = rng.random()
            if r < 0.15:
                ops.append((t, "restock", (rng.choice(skus), rng.randrange(1, 6))))
            elif r < 0.45:
                orders += 1
                items = {s: rng.randrange(1, 4) for s in rng.sample(skus, rng.randrange(1, 3))}
                ops.append((t, "reserve", (f"o{orders if rng.random() < 0.95 else max(1, orders - 1)}", items)))
            elif r < 0.6:
                ops.append((t, "confirm", (f"o{rng.randrange(1, orders + 2)}",)))
            elif r < 0.7:
                ops.append((t, "cancel", (f"o{rng.randrange(1, orders + 2)}",)))
            else:
                ops.append((t, rng.choice(["available", "available", "on_hand"]), (rng.choice(skus),)))
        scripts.append(((hold,), _expect(_StockModel(hold), ops)))
    prompt = f"""Write a Python class `Inventory(hold, clock)` that tracks stock and time-limited reservations of it.
{CLOCK}

Methods:
- `restock(sku, qty)`: add qty (> 0, else ValueError) units of a product; returns None.
- `on_hand(sku)`: units in the warehouse (0 for an unknown product).
- `available(sku)`: units on hand minus units held by live reservations.
- `reserve(order_id, items)`: `items` maps products to quantities (each > 0, else ValueError).
  Reserve all of them, or none: if any product has fewer available units than asked, return False
  and change nothing; otherwise return True. An order id belongs to the first reserve that
  succeeded with it: any later reserve with that id raises ValueError. A reserve that returned False
  does not use up its id.
- `confirm(order_id)`: turn a live reservation into a sale: its units leave the warehouse (on hand
  goes down) and it stops holding anything; True. False if the reservation is no longer live.
- `cancel(order_id)`: release a live reservation; True. False if it is no longer live.
- `confirm` and `cancel` raise KeyError for an order id that was never successfully reserved.

Rules:
1. A reservation made at time t is live until time t + hold; at that time it expires and its units
   are available again. A confirmed or cancelled reservation is no longer live.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    s = _STOCK_SOLUTION
    wrongs = [
        # partial reservations: what is there is held
        s.replace("        if any(self.available(sku) < qty for sku, qty in items.items()):\n            return False\n",
                  "        items = {sku: min(qty, self.available(sku)) for sku, qty in items.items()}\n"
                  "        if not any(items.values()):\n            return False\n"),
        # still live at exactly t + hold
        s.replace("            if now >= expires:", "            if now > expires:"),
        # confirming drops the reservation but leaves the units on hand
        s.replace("        self._release(order)\n        for sku, qty in items.items():\n            self.stock[sku] -= qty\n",
                  "        self._release(order)\n"),
        # expired reservations keep holding stock
        s.replace("    def available(self, sku):\n        self._expire()\n", "    def available(self, sku):\n"),
        # a failed reserve uses up the order id
        s.replace("        self._expire()\n        if any(self.available(sku) < qty for sku, qty in items.items()):\n",
                  "        self._expire()\n        self.seen.add(order)\n"
                  "        if any(self.available(sku) < qty for sku, qty in items.items()):\n"),
    ]
    return _case("CO-class-inventory-01", "Inventory with all-or-nothing, expiring reservations",
                 prompt, "Inventory", scripts, s, wrongs,
                 "All-or-nothing reservations across products, expiry exactly at t + hold that must "
                 "release stock even when nothing else is called, confirm versus cancel (only a sale "
                 "lowers on-hand), order ids that a failed reserve must not burn, and KeyError versus "
                 "False for unknown versus dead orders. Three focused scripts and three seeded "
                 "70-call scripts; each wrong solution breaks one rule.")


# ----------------------------------------------------------------------------------- login sessions

class _SessionModel:
    def __init__(self, idle, absolute, per_user):
        self.idle, self.absolute, self.per_user, self.now = idle, absolute, per_user, 0
        self.sessions = []   # [sid, user, created, last_touch, revoked, serial]

    def _valid(self, s):
        return not s[4] and self.now < s[3] + self.idle and self.now < s[2] + self.absolute

    def _find(self, sid):
        for s in self.sessions:
            if s[0] == sid:
                return s
        return None

    def create(self, user):
        mine = [s for s in self.sessions if s[1] == user and self._valid(s)]
        if len(mine) >= self.per_user:
            min(mine, key=lambda s: (s[3], s[2], s[5]))[4] = True
        serial = len(self.sessions) + 1
        self.sessions.append([f"s{serial}", user, self.now, self.now, False, serial])
        sid = f"s{serial}"
        return sid

    def touch(self, sid):
        s = self._find(sid)
        if s is None or not self._valid(s):
            return False
        s[3] = self.now
        return True

    def user_of(self, sid):
        s = self._find(sid)
        return s[1] if s is not None and self._valid(s) else None

    def revoke(self, sid):
        s = self._find(sid)
        if s is None or not self._valid(s):
            return False
        s[4] = True
        return True

    def active(self, user):
        return sum(1 for s in self.sessions if s[1] == user and self._valid(s))


_SESSION_SOLUTION = '''
class SessionStore:
    def __init__(self, idle, absolute, per_user, clock):
        self.idle, self.absolute, self.per_user, self.clock = idle, absolute, per_user, clock
        self.sessions = {}     # sid -> [user, created, last_touch, serial]
        self.serial = 0

    def _alive(self, sid):
        entry = self.sessions.get(sid)
        if entry is None:
            return None
        now = self.clock()
        if now >= min(entry[2] + self.idle, entry[1] + self.absolute):
            del self.sessions[sid]
            return None
        return entry

    def create(self, user):
        mine = [sid for sid, e in list(self.sessions.items()) if e[0] == user and self._alive(sid)]
        if len(mine) >= self.per_user:
            oldest = min(mine, key=lambda sid: (self.sessions[sid][2], self.sessions[sid][3]))
            del self.sessions[oldest]
        self.serial += 1
        sid = "s" + str(self.serial)
        now = self.clock()
        self.sessions[sid] = [user, now, now, self.serial]
        return sid

    def touch(self, sid):
        entry = self._alive(sid)
        if entry is None:
            return False
        entry[2] = self.clock()
        return True

    def user_of(self, sid):
        entry = self._alive(sid)
        return entry[0] if entry else None

    def revoke(self, sid):
        if self._alive(sid) is None:
            return False
        del self.sessions[sid]
        return True

    def active(self, user):
        return sum(1 for sid, e in list(self.sessions.items()) if e[0] == user and self._alive(sid))
'''


def _session_case(rng) -> dict:
    idle = rng.choice([10, 15, 20])
    absolute = idle * rng.choice([3, 4]) + rng.choice([0, 5])
    per_user = rng.randrange(2, 4)
    init = (idle, absolute, per_user)
    late = absolute - idle + 1 + idle // 4   # sessions made then are still valid at `absolute`
    scripts = []
    focused = [
        # touching extends the idle limit but never the absolute one; user_of does not touch
        [(0, "create", ("ann",))] + [(t, "touch", ("s1",)) for t in range(idle - 1, absolute - 1, idle - 1)] +
        [(absolute - 1, "user_of", ("s1",)), (absolute, "user_of", ("s1",)), (absolute, "touch", ("s1",))],
        [(0, "create", ("ann",)), (idle - 1, "user_of", ("s1",)), (idle, "user_of", ("s1",)), (idle, "active", ("ann",))],
        # the session touched longest ago is revoked to make room, not the oldest created
        [(i, "create", ("bob",)) for i in range(per_user)] + [(per_user, "touch", ("s1",)),
                                                               (per_user + 1, "create", ("bob",)),
                                                               (per_user + 1, "user_of", ("s1",)),
                                                               (per_user + 1, "user_of", ("s2",)),
                                                               (per_user + 1, "active", ("bob",))],
        # expired sessions do not count toward the per-user limit
        [(0, "create", ("cy",)) for _ in range(per_user)] + [(idle, "create", ("cy",)), (idle, "active", ("cy",)),
                                                              (idle, "create", ("cy",)), (idle, "active", ("cy",)),
                                                              (idle, "revoke", ("s1",)), (idle, "revoke", ("s3",))],
        # a session past its absolute limit frees its place even though it was touched last
        [(0, "create", ("dan",))] + [(t, "touch", ("s1",)) for t in range(idle - 1, late, idle - 1)] +
        [(late, "touch", ("s1",))] + [(late, "create", ("dan",)) for _ in range(per_user - 1)] +
        [(absolute - 1, "touch", ("s1",)), (absolute, "create", ("dan",)), (absolute, "active", ("dan",))],
    ]
    for ops in focused:
        scripts.append((init, _expect(_SessionModel(*init), ops)))
    users = ["ann", "bob", "cy"]
    for _ in range(3):
        ops, created = [], 0
        for t in _times(rng, 80, [0, 1, 2, 4, idle // 2, idle - 1, idle]):
            r = rng.random()
            if r < 0.3 or created == 0:
                created += 1
                ops.append((t, "create", (rng.choice(users),)))
            elif r < 0.6:
                ops.append((t, "touch", (f"s{rng.randrange(1, created + 1)}",)))
            elif r < 0.75:
                ops.append((t, "user_of", (f"s{rng.randrange(1, created + 2)}",)))
            elif r < 0.85:
                ops.append((t, "revoke", (f"s{rng.randrange(1, created + 1)}",)))
            else:
                ops.append((t, "active", (rng.choice(users),)))
        scripts.append((init, _expect(_SessionModel(*init), ops)))
    prompt = f"""Write a Python class `SessionStore(idle, absolute, per_user, clock)` that manages login sessions.
{CLOCK}

Methods:
- `create(user)`: start a session and return its id: "s1" for the first session created, then
  "s2", "s3", ... (ids are never reused).
- `touch(sid)`: record activity on a valid session; True. False if the session is not valid.
- `user_of(sid)`: the user of a valid session, or None. This is not activity.
- `revoke(sid)`: end a valid session; True. False if it is not valid.
- `active(user)`: the number of valid sessions of a user.

Rules:
1. A session created at time c and last touched at time a (a = c until the first touch) is valid
   while now < a + idle and now < c + absolute. Touching can extend the first limit, never the
   second. A revoked session is never valid again.
2. A user has at most `per_user` valid sessions. Creating one more first revokes the user's valid
   session whose last activity is oldest (the one created first, if two are equal).

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    s = _SESSION_SOLUTION
    wrongs = [
        # touching resets the absolute limit too
        s.replace("        entry[2] = self.clock()\n        return True\n",
                  "        entry[2] = entry[1] = self.clock()\n        return True\n"),
        # user_of counts as activity
        s.replace("        entry = self._alive(sid)\n        return entry[0] if entry else None\n",
                  "        entry = self._alive(sid)\n        if entry:\n            entry[2] = self.clock()\n"
                  "        return entry[0] if entry else None\n"),
        # the session created first is revoked, whatever its activity
        s.replace("oldest = min(mine, key=lambda sid: (self.sessions[sid][2], self.sessions[sid][3]))",
                  "oldest = min(mine, key=lambda sid: self.sessions[sid][3])"),
        # expired sessions still count toward the limit
        s.replace("mine = [sid for sid, e in list(self.sessions.items()) if e[0] == user and self._alive(sid)]",
                  "mine = [sid for sid, e in list(self.sessions.items()) if e[0] == user]"),
        # still valid at exactly the limit
        s.replace("if now >= min(entry[2] + self.idle, entry[1] + self.absolute):",
                  "if now > min(entry[2] + self.idle, entry[1] + self.absolute):"),
    ]
    return _case("CO-class-sessions-01", "Login sessions: idle and absolute expiry, per-user limit",
                 prompt, "SessionStore", scripts, s, wrongs,
                 "Two expiry limits of which only one can be extended, a read that must not count as "
                 "activity, a per-user cap that evicts by last activity (not creation) and ignores "
                 "expired sessions, and exact boundary times. Four focused scripts and three seeded "
                 "80-call scripts; idle, absolute and the cap are re-rolled per seed.")


def cases(seed):
    return [
        _cache_case(family_rng("CO-class-ttlcache", seed)),
        _limiter_case(family_rng("CO-class-ratelimit", seed)),
        _bucket_case(family_rng("CO-class-tokenbucket", seed)),
        _breaker_case(family_rng("CO-class-breaker", seed)),
        _scheduler_case(family_rng("CO-class-scheduler", seed)),
        _stock_case(family_rng("CO-class-inventory", seed)),
        _session_case(family_rng("CO-class-sessions", seed)),
    ]
