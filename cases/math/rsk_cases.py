"""MA-rsk: arrangements of 1..n counted by their longest increasing run of entries (not necessarily
adjacent): exactly k long, at most k long with no decreasing subsequence longer than j, or among
arrangements that are their own inverse. The idea is the Robinson-Schensted correspondence: an arrangement
is a pair of standard Young tableaux of one shape λ, the longest increasing subsequence is λ's first row and
the longest decreasing one its first column, and an involution is a single tableau. So the counts are
Σ (f^λ)² over shapes with λ1 = k (or inside a k x j box), and Σ f^λ for involutions, each f^λ from the hook
length formula. The generator sums over partitions; the solver lists the arrangements (or the involutions)
and measures each by patience sorting."""

from math import factorial, prod

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "MA-rsk"

SOLVER = """
from bisect import bisect_left
from itertools import permutations
n, k, j = N, K, J

def longest(seq):  # patience sorting
    piles = []
    for x in seq:
        i = bisect_left(piles, x)
        if i == len(piles):
            piles.append(x)
        else:
            piles[i] = x
    return len(piles)

def involutions(rest):
    if not rest:
        yield {}
        return
    a = rest[0]
    for sub in involutions(rest[1:]):
        yield {**sub, a: a}
    for b in rest[1:]:
        others = [x for x in rest[1:] if x != b]
        for sub in involutions(others):
            yield {**sub, a: b, b: a}

if ASK == "involution":
    print(sum(1 for m in involutions(list(range(n))) if longest([m[i] for i in range(n)]) == k))
elif ASK == "exact":
    print(sum(1 for p in permutations(range(n)) if longest(p) == k))
else:
    print(sum(1 for p in permutations(range(n)) if longest(p) <= k and longest([-x for x in p]) <= j))
"""


def partitions(n, most=None):
    most = n if most is None else most
    if n == 0:
        yield ()
        return
    for first in range(min(n, most), 0, -1):
        for rest in partitions(n - first, first):
            yield (first, *rest)


def tableaux(shape):
    cols = [sum(1 for r in shape if r > c) for c in range(shape[0])]
    return factorial(sum(shape)) // prod(shape[i] - c + cols[c] - i - 1
                                         for i in range(len(shape)) for c in range(shape[i]))


def _case(rng, index):
    ask = {1: "exact", 2: "box", 3: "involution"}[index]
    n = rng.randrange(7, 9) if ask != "involution" else rng.randrange(9, 12)
    k = rng.randrange(2, n - 1) if ask == "exact" else rng.randrange(3, n - 2)
    j = 0
    if ask == "box":
        k, j = rng.choice([(a, b) for a in range(2, 6) for b in range(2, 6) if a * b > n])
    shapes = list(partitions(n))
    if ask == "exact":
        chosen = [s for s in shapes if s[0] == k]
        answer = sum(tableaux(s) ** 2 for s in chosen)
        traps = [sum(tableaux(s) for s in chosen), sum(tableaux(s) ** 2 for s in shapes if s[0] <= k),
                 sum(tableaux(s) ** 2 for s in shapes if len(s) == k + 1)]
        words = ["Σ f^λ without squaring", "at most k in place of exactly k", "a shape with k + 1 rows"]
        question = (f"How many arrangements of 1, 2, ..., {n} have a longest increasing subsequence (entries in "
                    f"increasing order, not necessarily next to each other) of length exactly {k}?")
    elif ask == "box":
        chosen = [s for s in shapes if s[0] <= k and len(s) <= j]
        answer = sum(tableaux(s) ** 2 for s in chosen)
        traps = [sum(tableaux(s) ** 2 for s in shapes if s[0] <= k), sum(tableaux(s) for s in chosen),
                 sum(tableaux(s) ** 2 for s in shapes if s[0] < k and len(s) < j)]
        words = ["the decreasing condition dropped", "Σ f^λ without squaring", "strict bounds (a box one smaller)"]
        question = (f"How many arrangements of 1, 2, ..., {n} have no increasing subsequence longer than {k} and "
                    f"no decreasing subsequence longer than {j} (subsequences need not be next to each other)?")
    else:
        chosen = [s for s in shapes if s[0] == k]
        answer = sum(tableaux(s) for s in chosen)
        traps = [sum(tableaux(s) ** 2 for s in chosen), sum(tableaux(s) for s in shapes if s[0] <= k),
                 sum(tableaux(s) for s in shapes if len(s) == k)]
        words = ["Σ (f^λ)², counting all arrangements", "at most k in place of exactly k",
                 "k rows in place of k columns"]
        question = (f"An arrangement of 1, 2, ..., {n} is an involution if applying it twice gives back the "
                    f"identity (every entry is fixed or swapped with one other). How many involutions of 1..{n} "
                    f"have a longest increasing subsequence of length exactly {k}?")
    prompt = f"""
        {question}
    """
    listed = ", ".join(f"{s}: {tableaux(s)}" for s in chosen)
    square = "" if ask == "involution" else " squared"
    reference = f"""
        By the Robinson-Schensted correspondence an arrangement is a pair of standard tableaux of one shape λ
        (an involution a single tableau), with the longest increasing subsequence equal to λ's first row and
        the longest decreasing one to its number of rows. The shapes that qualify, with f^λ from the hook
        length formula, are {listed}; adding the f^λ{square} gives {answer}.

        Answer: {answer}
    """
    hardness = {"steps": len(chosen) + 3, "search": factorial(n), "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""n = {n}: {factorial(n)} arrangements cannot be checked by hand; the count needs the RSK
        correspondence (shape's first row = longest increasing subsequence), the {len(chosen)} qualifying shapes
        and their hook-length counts{'' if ask == 'involution' else ' squared'}. A 27-32B model tends to
        forget the square or the exact-length condition. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, N=n, K=k, J=j, ASK=ask), reference=reference, notes=notes,
        max_tokens=32768 if tier_of(hardness) == "hard" else 16384, title=f"Longest increasing subsequences, n = {n}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
