"""CO-algo-forbidden: strings of astronomical length that avoid a set of forbidden words, counted mod p.

Hidden small cases come from the seed; their answers come from listing every string (the reference
builds an Aho-Corasick automaton and raises its matrix to the n-th power). The large-n answers are
pinned; a dynamic programme over the last characters (no automaton) confirms them for moderate n.
"""

import itertools

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-forbidden"

# Hardness (README "How tiers are assigned", coding): Aho-Corasick built breadth first, output links
# propagated, transition matrix, fast exponentiation; letters outside the alphabet, n = 0, modulus; n to
# 10^18. Traps: the wrong solutions.
HARDNESS = {"steps": 8, "search": 1000000000000000000, "traps": 4}
MOD = 1_000_000_007

PROMPT = """
Write a Python function `count_clean(n: int, alphabet: str, forbidden: list[str]) -> int` that returns
how many strings of length n over the characters of `alphabet` contain none of the strings in
`forbidden` as a (contiguous) substring, modulo 1_000_000_007.

Limits: 0 <= n <= 10**18; `alphabet` has 1 to 4 distinct characters; `forbidden` holds up to 5
non-empty strings with at most 12 characters in total (they may overlap each other, one may contain
another, and a forbidden string may use characters outside the alphabet). The empty string (n = 0)
counts as one string. The function must return within a second for any input.

Example:
    count_clean(3, "ab", ["aa"]) == 5        # aba, abb, bab, bba, bbb
"""

SOLUTION = '''
def count_clean(n, alphabet, forbidden):
    mod = 1_000_000_007
    goto, link, bad = [{}], [0], [False]
    for word in forbidden:                       # the trie
        s = 0
        for ch in word:
            if ch not in goto[s]:
                goto.append({}); link.append(0); bad.append(False)
                goto[s][ch] = len(goto) - 1
            s = goto[s][ch]
        bad[s] = True
    order = [0]
    move = [dict() for _ in goto]
    for s in order:                              # breadth first: a link is shorter, so already done
        for ch in alphabet:
            if ch in goto[s]:
                t = goto[s][ch]
                link[t] = move[link[s]][ch] if s else 0
                bad[t] = bad[t] or bad[link[t]]
                move[s][ch] = t
                order.append(t)
            else:
                move[s][ch] = move[link[s]][ch] if s else 0
    good = [s for s in order if not bad[s]]       # reachable with alphabet letters
    index = {s: i for i, s in enumerate(good)}
    size = len(good)
    step = [[0] * size for _ in range(size)]
    for s in good:
        for ch in alphabet:
            t = move[s][ch]
            if not bad[t]:
                step[index[s]][index[t]] += 1

    def times(a, b):
        out = []
        for row in a:
            acc = [0] * size
            for k, x in enumerate(row):
                if x:
                    bk = b[k]
                    for j in range(size):
                        acc[j] += x * bk[j]
            out.append([v % mod for v in acc])
        return out

    vector = [[1 if s == 0 else 0 for s in good]]     # start in the root
    while n:
        if n & 1:
            vector = times(vector, step)
        step = times(step, step)
        n >>= 1
    return sum(vector[0]) % mod
'''

WRONG = [
    # a forbidden word that ends inside a longer match is missed: no output through suffix links
    mutate(SOLUTION, ("                bad[t] = bad[t] or bad[link[t]]\n", "")),
    # forbidden states only excluded at the end, so a string may pass through one
    mutate(SOLUTION, ("    good = [s for s in order if not bad[s]]", "    good = list(order)"),
           ("            if not bad[t]:\n                step[index[s]][index[t]] += 1",
            "            step[index[s]][index[t]] += 1"),
           ("    return sum(vector[0]) % mod", "    return sum(v for s, v in zip(good, vector[0]) if not bad[s]) % mod")),
    # links built depth first: a link may point to a node whose own moves are not built yet
    mutate(SOLUTION, ("    for s in order:", "    stack = [0]\n    while stack:\n        s = stack.pop()"),
           ("                order.append(t)", "                order.append(t)\n                stack.append(t)"),
           ("link[t] = move[link[s]][ch] if s else 0", "link[t] = move[link[s]].get(ch, 0) if s else 0"),
           ("move[s][ch] = move[link[s]][ch] if s else 0", "move[s][ch] = move[link[s]].get(ch, 0) if s else 0")),
    # one step at a time: right, and n is up to 10**18
    mutate(SOLUTION, ('''    while n:
        if n & 1:
            vector = times(vector, step)
        step = times(step, step)
        n >>= 1''', '''    for _ in range(n):
        vector = times(vector, step)''')),
]

TESTS = '''
MOD = 1_000_000_007

def test_small():
    assert count_clean(3, "ab", ["aa"]) == 5
    assert count_clean(0, "ab", ["a"]) == 1
    assert count_clean(1, "ab", ["a"]) == 1
    assert count_clean(5, "abc", []) == 243
    assert count_clean(4, "ab", ["c"]) == 16
    assert count_clean(2, "a", ["a"]) == 0

def test_words_inside_words():
    assert count_clean(4, "abc", ["bc", "abcd"]) == 55
    assert count_clean(6, "ab", ["aba", "bab", "b"]) == 1
    assert count_clean(5, "abc", ["ca", "abca"]) == 144

def test_huge_lengths():
    for args, want in PINNED:
        assert count_clean(*args) == want, args

def test_seeded_small():
    for n, alphabet, forbidden, want in SEEDED:
        assert count_clean(n, alphabet, forbidden) == want, (n, alphabet, forbidden)
'''

# computed by the reference; the last two agree with _tail_dp, which uses no automaton
PINNED = [((10 ** 18, "ab", ["aa"]), 889840849), ((10 ** 18, "ab", ["aab", "bba"]), 98),
          ((123456789123, "abc", ["ab", "bca", "cc"]), 436147483),
          ((999999999999999989, "abcd", ["abca", "dab", "cd", "ddd"]), 530520612),
          ((2000, "abc", ["ab", "bca", "cc"]), 379267080), ((1000, "abcd", ["abca", "dab", "cd", "ddd"]), 757288084)]


def _every_string(n, alphabet, forbidden):
    return sum(1 for s in itertools.product(alphabet, repeat=n)
               if not any(w in "".join(s) for w in forbidden))


def _tail_dp(n, alphabet, forbidden):
    """Counts by the last (longest word - 1) characters, checking each new window directly."""
    keep = max((len(w) for w in forbidden), default=1) - 1
    counts = {"": 1}
    for _ in range(n):
        nxt = {}
        for tail, c in counts.items():
            for ch in alphabet:
                s = tail + ch
                if any(s.endswith(w) for w in forbidden):
                    continue
                key = s[-keep:] if keep else ""
                nxt[key] = (nxt.get(key, 0) + c) % MOD
        counts = nxt
    return sum(counts.values()) % MOD


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(25):
        alphabet = "".join(rng.sample("abcd", rng.randrange(1, 4)))
        words = ["".join(rng.choice("abcd") for _ in range(rng.randrange(1, 4))) for _ in range(rng.randrange(0, 4))]
        n = rng.randrange(0, 7)
        seeded.append((n, alphabet, words, _every_string(n, alphabet, words)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Strings of length up to 10^18 avoiding forbidden words, mod p",
        prompt=PROMPT, entry_point="count_clean",
        tests=TESTS, data={"PINNED": PINNED, "SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        perf=[{"name": "n-1e18-four-letters", "input": 'args = (10 ** 18 + 7, "abcd", ["abcab", "bcd", "dd", "cab"])',
               "check": "assert result == 251917308"}],
        notes="""Combines two techniques: an Aho-Corasick automaton over the forbidden words (with the
        output of suffix links propagated, or a word ending inside a longer partial match is missed;
        links must be built breadth first) and fast exponentiation of its transition matrix for n up
        to 10^18 (a step-by-step DP never finishes). Forbidden words may contain letters outside the
        alphabet and n = 0 counts the empty string. Large-n answers are pinned; the same counts for
        n = 1000-2000 are confirmed by a DP over the last characters without any automaton.""",
    )]

