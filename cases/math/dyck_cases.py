"""MA-dyck: refinements of the Catalan numbers. Mountain ranges of n up- and n down-strokes counted by their
peaks, by how many times they come back to the ground, and triangulations of a convex polygon counted by the
diagonals at one corner. The idea is the bijection to the right closed form: peaks follow the Narayana numbers
C(n, k)·C(n, k - 1)/n; returns follow the ballot numbers k/(2n - k)·C(2n - k, n) (a path with k returns is k
primitive ranges, a k-fold Catalan convolution); and a triangulation whose corner carries d diagonals is a
fan of d + 1 triangles with polygons on their far sides, the same convolution with k = d + 1. The generator
uses those formulas; the solver runs a dynamic programme over strokes (or over sub-polygons)."""

from math import comb

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "MA-dyck"

SOLVER = """
from functools import lru_cache
n, k, ask = N, K, ASK

if ask == "triangulations":
    m = n + 2  # corners 0..m-1; count diagonals at corner 0

    @lru_cache(maxsize=None)
    def tri(i, j):  # polygon i..j on the base i-j: {diagonals at corner 0: ways}
        if j - i < 2:
            return {0: 1}
        out = {}
        for apex in range(i + 1, j):
            extra = 1 if i == 0 and apex not in (1, m - 1) else 0
            for a, x in tri(i, apex).items():
                for b, y in tri(apex, j).items():
                    out[a + b + extra] = out.get(a + b + extra, 0) + x * y
        return out

    print(tri(0, m - 1).get(k, 0))
else:
    @lru_cache(maxsize=None)
    def walk(step, height, last_up, score):  # ways to finish; score = peaks or returns so far
        if step == 2 * n:
            return 1 if height == 0 and score == k else 0
        ways = 0
        if height < 2 * n - step:
            ways += walk(step + 1, height + 1, True, score)
        if height > 0:
            gain = (ask == "peaks" and last_up) or (ask == "returns" and height == 1)
            ways += walk(step + 1, height - 1, False, score + gain)
        return ways

    print(walk(0, 0, False, 0))
"""


def narayana(n, k):
    return comb(n, k) * comb(n, k - 1) // n


def ballot(n, k):
    return k * comb(2 * n - k, n) // (2 * n - k)


def catalan(n):
    return comb(2 * n, n) // (n + 1)


def _case(rng, index):
    ask = {1: "peaks", 2: "returns", 3: "triangulations"}[index]
    n = rng.randrange(12, 17)
    if ask == "peaks":
        k = rng.randrange(4, n // 2 + 1)
        answer = narayana(n, k)
        traps = [catalan(n), narayana(n, k + 1), comb(n, k) ** 2 // n]
        words = ["all ranges (the Catalan number)", "k + 1 peaks (valleys miscounted)", "C(n, k)²/n"]
        question = (f"A mountain range is drawn with {n} up-strokes and {n} down-strokes, never going below its "
                    f"starting level and ending at that level. A peak is an up-stroke followed directly by a "
                    f"down-stroke. How many mountain ranges have exactly {k} peaks?")
        work = f"the Narayana number C({n}, {k})·C({n}, {k - 1})/{n}"
    elif ask == "returns":
        k = rng.randrange(3, 7)
        answer = ballot(n, k)
        traps = [ballot(n, k - 1), catalan(n - k + 1), comb(2 * n - k, n - k)]
        words = ["k - 1 returns (the start counted)", "the Catalan number C_(n-k+1)", "C(2n - k, n - k) unscaled"]
        question = (f"A mountain range is drawn with {n} up-strokes and {n} down-strokes, never going below "
                    f"ground level and starting and ending on the ground. How many of them come down to the "
                    f"ground exactly {k} times (the final touchdown included, the start not)?")
        work = f"the ballot number {k}/({2 * n} - {k})·C({2 * n - k}, {n}), a {k}-fold Catalan convolution"
    else:
        d = rng.randrange(2, 6)
        k = d
        answer = ballot(n, d + 1)
        traps = [ballot(n, d), catalan(n), narayana(n, d + 1)]
        words = ["d returns in place of d + 1", "all triangulations (Catalan)", "the Narayana number"]
        question = (f"A convex polygon with {n + 2} corners is cut into triangles by {n - 1} diagonals that do "
                    f"not cross. In how many of these triangulations are exactly {d} of the diagonals drawn from "
                    f"one given corner?")
        work = (f"a fan of {d + 1} triangles at the corner with sub-polygons on their far sides, the same "
                f"{d + 1}-fold Catalan convolution as ranges with {d + 1} returns: "
                f"{d + 1}/({2 * n} - {d + 1})·C({2 * n - d - 1}, {n})")
    prompt = f"""
        {question}
    """
    reference = f"""
        The count is {work} = {answer}.

        Answer: {answer}
    """
    steps = {"peaks": 3, "returns": 4, "triangulations": 5}[ask]
    hardness = {"steps": steps, "search": catalan(n), "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""Semilength {n}: {catalan(n)} objects in all, so the refinement needs its closed form (or a
        careful table); {'a bijection from the fan at the corner to ranges with d + 1 returns comes first, ' if
        ask == 'triangulations' else ''}the index convention (k against k ± 1) is where a 27-32B model slips.
        Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, N=n, K=k, ASK=ask), reference=reference, notes=notes,
        max_tokens=32768 if tier_of(hardness) == "hard" else 16384, title=f"Catalan objects of size {n} by {ask}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
