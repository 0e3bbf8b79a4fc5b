"""CO-algo-roots: the shortest repeating unit of many substrings (hashing plus prime factors).

Hidden small texts and queries come from the seed; their answers come from trying every divisor with
string repetition. The perf input is fixed, its answers pinned by a sum and a checksum.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-roots"

# Hardness (README "How tiers are assigned", coding): prefix hashes, period test by shifted comparison, prime
# factors of the length, greedy division; whole string and length-one windows; 20,000 windows. Traps: the
# wrong solutions.
HARDNESS = {"steps": 6, "search": 20000, "traps": 4}

PROMPT = """
Write a Python function `shortest_roots(text: str, queries: list[tuple[int, int]]) -> list[int]`. For each
query `(l, r)` (0-based, inclusive, 0 <= l <= r < len(text)) let s = text[l:r + 1]; the answer is the
length of the shortest string u such that s is u repeated a whole number of times (u = s itself when
nothing shorter works). For example the root of "abab" is "ab" (answer 2) and the root of "aba" is
"aba" (answer 3).

The text has up to 40,000 characters and there are up to 20,000 queries, many of them long; the whole
call must finish within a couple of seconds.

Example:
    shortest_roots("xabababx", [(1, 6), (1, 5), (0, 0)]) == [2, 5, 1]
"""

SOLUTION = '''
def shortest_roots(text, queries):
    n = len(text)
    mod = (1 << 61) - 1
    base = 911_382_323
    prefix = [0] * (n + 1)
    power = [1] * (n + 1)
    for i, ch in enumerate(text):
        prefix[i + 1] = (prefix[i] * base + ord(ch)) % mod
        power[i + 1] = power[i] * base % mod

    def code(a, b):                           # hash of text[a:b]
        return (prefix[b] - prefix[a] * power[b - a]) % mod

    smallest = list(range(n + 1))             # smallest prime factor
    for p in range(2, int(n ** 0.5) + 1):
        if smallest[p] == p:
            for m in range(p * p, n + 1, p):
                if smallest[m] == m:
                    smallest[m] = p

    answers = []
    for l, r in queries:
        length = r - l + 1
        root = length
        rest = length
        while rest > 1:
            p = smallest[rest]
            while rest % p == 0:
                rest //= p
            while root % p == 0:
                shorter = root // p
                # period `shorter` divides the length: shifting by it must give the same text
                if code(l, r + 1 - shorter) == code(l + shorter, r + 1):
                    root = shorter
                else:
                    break
        answers.append(root)
    return answers
'''

WRONG = [
    # the smallest period, which need not divide the length
    '''
    def shortest_roots(text, queries):
        out = []
        for l, r in queries:
            s = text[l:r + 1]
            fail = [0] * len(s)
            k = 0
            for i in range(1, len(s)):
                while k and s[i] != s[k]:
                    k = fail[k - 1]
                if s[i] == s[k]:
                    k += 1
                fail[i] = k
            out.append(len(s) - fail[-1])
        return out
    ''',
    # each prime tried once: "aaaaaaaa" stops at "aaaa"
    mutate(SOLUTION, ('''            while root % p == 0:
                shorter = root // p
                # period `shorter` divides the length: shifting by it must give the same text
                if code(l, r + 1 - shorter) == code(l + shorter, r + 1):
                    root = shorter
                else:
                    break''', '''            if root % p == 0:
                shorter = root // p
                if code(l, r + 1 - shorter) == code(l + shorter, r + 1):
                    root = shorter''')),
    # r read as exclusive
    mutate(SOLUTION, ("        length = r - l + 1", "        length = r - l\n        r -= 1")),
    # a repeat checked only by comparing the first and second copies
    mutate(SOLUTION, ("                if code(l, r + 1 - shorter) == code(l + shorter, r + 1):",
                      "                if code(l, l + shorter) == code(l + shorter, l + 2 * shorter):")),
]

TESTS = '''
def test_small():
    assert shortest_roots("xabababx", [(1, 6), (1, 5), (0, 0)]) == [2, 5, 1]
    assert shortest_roots("abab", [(0, 3), (0, 2), (1, 2)]) == [2, 3, 2]
    assert shortest_roots("aaaaaaaa", [(0, 7), (0, 5), (2, 2)]) == [1, 1, 1]

def test_period_must_divide_the_length():
    assert shortest_roots("abaab", [(0, 4)]) == [5]
    assert shortest_roots("abcabcab", [(0, 7), (0, 5), (2, 7)]) == [8, 3, 3]

def test_mixed_prime_factors():
    unit = "abaababa"
    text = unit * 9
    assert shortest_roots(text, [(0, 71), (0, 35), (8, 55), (0, 7)]) == [8, 36, 8, 8]
    text = "ab" * 6 + "c"
    assert shortest_roots(text, [(0, 11), (0, 12), (2, 9)]) == [2, 13, 2]
    text = ("aab" * 2 + "aac") * 2
    assert shortest_roots(text, [(0, 17), (0, 8), (0, 5)]) == [9, 9, 3]

def test_seeded():
    for text, queries, want in SEEDED:
        assert shortest_roots(text, queries) == want, (text, queries)
'''

PERF_INPUT = '''
import random
rng = random.Random(151)
parts = []
while sum(map(len, parts)) < 40000:
    unit = "".join(rng.choice("ab") for _ in range(rng.randrange(1, 7)))
    parts.append(unit * rng.randrange(1, 400))
text = "".join(parts)[:40000]
queries = []
for _ in range(20000):
    l = rng.randrange(0, 39000)
    queries.append((l, min(39999, l + rng.randrange(0, 2000))))
args = (text, queries)
'''


def _by_divisors(text, queries):
    out = []
    for l, r in queries:
        s = text[l:r + 1]
        out.append(next(d for d in range(1, len(s) + 1) if len(s) % d == 0 and s[:d] * (len(s) // d) == s))
    return out


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(25):
        unit = "".join(rng.choice("ab") for _ in range(rng.randrange(1, 4)))
        text = unit * rng.randrange(1, 6) + "".join(rng.choice("ab") for _ in range(rng.randrange(0, 3)))
        text = text * rng.randrange(1, 3)
        queries = []
        for _ in range(rng.randrange(1, 6)):
            l = rng.randrange(len(text))
            queries.append((l, rng.randrange(l, len(text))))
        seeded.append((text, queries, _by_divisors(text, queries)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Shortest repeating unit of 20,000 substrings",
        prompt=PROMPT, entry_point="shortest_roots", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "queries-20k", "input": PERF_INPUT, "check": "assert sum(result) == 18879965 and sum(i * a for i, a in enumerate(result)) == 188144676402"}],
        notes="""Needs two facts together: s = u^k with |u| = d iff d divides |s| and s has period d
        (one hash comparison of s without its first d and without its last d characters), and the
        shortest such d is found by dividing the length by its prime factors greedily, so each query
        costs O(log n) hash checks. Building a prefix function per query is O(length) and too slow
        for 20,000 long windows, and it answers the smallest period, which need not divide the length.
        Traps: repeated prime factors, inclusive r, and checking only the first two copies.""",
    )]

