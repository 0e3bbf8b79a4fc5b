"""CO-algo-arrangements: the position of a word among the distinct arrangements of its letters, and back.

The seeded words (short, with repeated letters) get their expected positions by listing every distinct
arrangement with itertools.permutations and sorting; the reference counts arrangements with
multinomial coefficients letter by letter. Long words (positions near 10^60) get their positions from
a recursion over the first letter here, and are checked both ways (position and arrangement).
"""

from itertools import permutations
from math import factorial

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-algo-arrangements"

# Hardness (README "How tiers are assigned", coding): counts of arrangements of a multiset, the sum over
# smaller letters at each position, the inverse walk with the remaining rank, range checks: 4 steps;
# listing is impossible for the 60-letter words. Traps: the wrong solutions.
HARDNESS = {"steps": 4, "search": 10**18, "traps": 4}

PROMPT = """
Write two Python functions about the distinct arrangements of a word's letters (lowercase `a-z`),
listed in alphabetical order and numbered from 1:

- `position(word: str) -> int`: the number of `word` in the list of the distinct arrangements of its
  own letters (`position("ab") == 1`, `position("ba") == 2`; letters that repeat give one arrangement
  only once: the arrangements of "aab" are aab, aba, baa).
- `arrangement(letters: str, n: int) -> str`: the n-th arrangement of the given letters (in any order
  in `letters`); raise `ValueError` when n < 1 or n is larger than the number of arrangements.

Words have up to 60 letters, so the list cannot be built: positions run to about 10^60 and must be
exact.

Examples:

    position("baa") == 3
    position("mississippi") == 13737
    arrangement("abab", 4) == "baab"
"""

SOLUTION = '''
from collections import Counter
from math import factorial


def _count(counts):
    total = factorial(sum(counts.values()))
    for c in counts.values():
        total //= factorial(c)
    return total


def position(word):
    counts = Counter(word)
    rank = 0
    for ch in word:
        for smaller in sorted(counts):
            if smaller >= ch:
                break
            if counts[smaller]:
                counts[smaller] -= 1
                rank += _count(counts)
                counts[smaller] += 1
        counts[ch] -= 1
    return rank + 1


def arrangement(letters, n):
    counts = Counter(letters)
    if n < 1 or n > _count(counts):
        raise ValueError("no such arrangement")
    n -= 1
    out = []
    for _ in range(len(letters)):
        for ch in sorted(counts):
            if not counts[ch]:
                continue
            counts[ch] -= 1
            block = _count(counts)
            if n < block:
                out.append(ch)
                break
            n -= block
            counts[ch] += 1
    return "".join(out)
'''

WRONG = [
    # repeated letters ignored: arrangements counted as if all letters differed
    mutate(SOLUTION, ('''    total = factorial(sum(counts.values()))
    for c in counts.values():
        total //= factorial(c)
    return total''', '''    return factorial(sum(counts.values()))''')),
    # numbered from 0
    mutate(SOLUTION, ("    return rank + 1\n", "    return rank\n"), ("    n -= 1\n    out = []", "    out = []")),
    # the last arrangement rejected: n must be below the count
    mutate(SOLUTION, ("    if n < 1 or n > _count(counts):", "    if n < 1 or n >= _count(counts):")),
    # right, but listing every distinct arrangement
    """
    from itertools import permutations

    def position(word):
        return sorted(set(permutations(word))).index(tuple(word)) + 1

    def arrangement(letters, n):
        every = sorted(set(permutations(letters)))
        if n < 1 or n > len(every):
            raise ValueError("no such arrangement")
        return "".join(every[n - 1])
    """,
]

TESTS = '''
def test_examples():
    assert position("baa") == 3
    assert position("mississippi") == 13737
    assert arrangement("abab", 4) == "baab"

def test_edges():
    assert position("a") == 1
    assert position("zzzz") == 1
    assert arrangement("q", 1) == "q"
    for bad in (0, 2, -1):
        try:
            arrangement("zz", bad)
        except ValueError:
            pass
        else:
            raise AssertionError(("no error for", bad))
    assert arrangement("cba", 6) == "cba"

def test_seeded():
    for word, want in SEEDED:
        assert position(word) == want, word
        assert arrangement("".join(sorted(word, reverse=True)), want) == word, word

def test_long_words():
    for word, want in LONG:
        assert position(word) == want, word
        assert arrangement(word[::-1], want) == word, word
'''


def _multinomial(word):
    total = factorial(len(word))
    for ch in set(word):
        total //= factorial(word.count(ch))
    return total


def _position_by_listing(word):
    return sorted(set(permutations(word))).index(tuple(word)) + 1


def _position_by_recursion(word):
    """Arrangements before `word`: for each first letter below word[0], all arrangements of the rest."""
    if not word:
        return 0
    before = 0
    for ch in sorted(set(word)):
        if ch >= word[0]:
            break
        rest = list(word)
        rest.remove(ch)
        before += _multinomial(rest)
    rest = list(word)
    rest.remove(word[0])
    return before + _position_by_recursion(rest)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(25):
        word = "".join(rng.choice("aabbcd") for _ in range(rng.randrange(1, 8)))
        seeded.append((word, _position_by_listing(word)))
    long = []
    for _ in range(6):
        word = "".join(rng.choice("abcdeeeffg") for _ in range(rng.randrange(30, 61)))
        long.append((word, _position_by_recursion(word) + 1))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Position of a word among the arrangements of its letters",
        prompt=PROMPT, entry_point="position", tests=TESTS, data={"SEEDED": seeded, "LONG": long},
        solution=SOLUTION, wrong=WRONG, what="functions",
        notes="""Ranking permutations is a known exercise; with repeated letters the counts must be
        multinomial, numbering starts at 1, the last arrangement is valid, and the 60-letter words
        (positions near 10^60) rule out listing.""",
    )]
