"""CO-algo-repeat: the longest substring occurring at least k times (overlaps count), smallest first.

Hidden small strings come from the seed; their answers come from listing every substring and counting
its occurrences position by position (the reference binary-searches the length with rolling hashes).
The perf strings are fixed, their answers pinned.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-repeat"

# Hardness (README "How tiers are assigned", coding): monotonicity, binary search on the length, rolling hash
# test, overlapping counts, the smallest tie-break, empty answer; 12,000 characters. Traps: the wrong
# solutions.
HARDNESS = {"steps": 6, "search": 12000, "traps": 3}

PROMPT = """
Write a Python function `longest_repeat(text: str, k: int) -> str` that returns the longest substring
of `text` that occurs at least `k` times in `text`, where occurrences may overlap (in "aaaa" the
substring "aa" occurs 3 times). If several substrings of that greatest length qualify, return the one
that is smallest in Python's string order. If no non-empty substring qualifies, return "".
1 <= k, and text has up to 12,000 characters, so the function must be fast (well under a second for
such inputs; testing every length one by one is too slow).

Example:
    longest_repeat("banana", 2) == "ana"
"""

SOLUTION = '''
def longest_repeat(text, k):
    n = len(text)
    if k > n:
        return ""
    mod = (1 << 61) - 1
    base = 1_000_003
    prefix = [0] * (n + 1)
    power = [1] * (n + 1)
    for i, ch in enumerate(text):
        prefix[i + 1] = (prefix[i] * base + ord(ch)) % mod
        power[i + 1] = power[i] * base % mod

    def repeated(length):
        """Start positions of the substrings of this length that occur >= k times."""
        p = power[length]
        counts, first = {}, {}
        for i in range(n - length + 1):
            h = (prefix[i + length] - prefix[i] * p) % mod
            counts[h] = counts.get(h, 0) + 1
            first.setdefault(h, i)
        return [first[h] for h, c in counts.items() if c >= k]

    lo, hi, found = 1, n, []
    while lo <= hi:                      # longest length with a k-fold substring
        mid = (lo + hi) // 2
        starts = repeated(mid)
        if starts:
            lo, found = mid + 1, starts
            best = mid
        else:
            hi = mid - 1
    if not found:
        return ""
    return min(text[i:i + best] for i in found)
'''

WRONG = [
    # str.count counts non-overlapping occurrences
    '''
    def longest_repeat(text, k):
        n = len(text)
        best = ""
        lo, hi = 1, n
        while lo <= hi:
            mid = (lo + hi) // 2
            good = sorted({text[i:i + mid] for i in range(n - mid + 1) if text.count(text[i:i + mid]) >= k})
            if good:
                best, lo = good[0], mid + 1
            else:
                hi = mid - 1
        return best
    ''',
    # the first longest one found, not the smallest
    mutate(SOLUTION, ("    return min(text[i:i + best] for i in found)", "    return text[found[0]:found[0] + best]")),
    # lengths only up to n - 1: k = 1 must give the whole text
    mutate(SOLUTION, ("    lo, hi, found = 1, n, []", "    lo, hi, found = 1, n - 1, []")),
]

TESTS = '''
def test_small():
    assert longest_repeat("banana", 2) == "ana"
    assert longest_repeat("banana", 3) == "a"
    assert longest_repeat("banana", 4) == ""
    assert longest_repeat("", 1) == ""
    assert longest_repeat("abc", 2) == ""

def test_overlapping_occurrences():
    assert longest_repeat("aaaa", 3) == "aa"
    assert longest_repeat("aaaa", 4) == "a"
    assert longest_repeat("abababa", 3) == "aba"

def test_smallest_of_the_longest():
    assert longest_repeat("zyzyaxax", 2) == "ax"
    assert longest_repeat("cab cab bca bca", 2) == " bca"

def test_k_equal_one_and_too_large():
    assert longest_repeat("hello", 1) == "hello"
    assert longest_repeat("x", 1) == "x"
    assert longest_repeat("xx", 3) == ""

def test_seeded_strings():
    for text, k, want in SEEDED:
        assert longest_repeat(text, k) == want, (text, k)
'''

PERF_INPUT = '''
import random
rng = random.Random({seed})
chars = [rng.choice("abcd") for _ in range(12000)]
block = [rng.choice("abcd") for _ in range({block})]
for start in (500, 4500, 9000):
    chars[start:start + len(block)] = block
args = ("".join(chars), 3)
'''


def _brute_force(text, k):
    best = ""
    n = len(text)
    for i in range(n):
        for j in range(i + 1, n + 1):
            sub = text[i:j]
            hits = sum(1 for p in range(n - len(sub) + 1) if text.startswith(sub, p))
            if hits >= k and (len(sub), best) > (len(best), sub):
                best = sub
    return best


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(30):
        alphabet = rng.choice(["ab", "abc", "aab", "xyz"])
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 13)))
        k = rng.randrange(1, 5)
        seeded.append((text, k, _brute_force(text, k)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Longest k-fold repeated substring, overlaps allowed",
        prompt=PROMPT, entry_point="longest_repeat", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "planted-block-12k", "input": PERF_INPUT.format(seed=41, block=2000),
               "check": "assert len(result) == 2000 and result[:20] == 'bdbbbadbbdacbaadccad'"}],
        notes="""Needs a monotonicity argument (a k-fold substring's prefixes are k-fold too) to binary
        search the length, plus rolling hashes or a suffix structure to test a length in linear time;
        trying lengths one by one costs about n * L^2 on the 12,000-character perf string with a
        planted 2,000-character triple repeat. Traps: str.count counts non-overlapping matches, the
        tie-break is the smallest string rather than the first found, and k = 1 must return the whole
        text.""",
    )]
