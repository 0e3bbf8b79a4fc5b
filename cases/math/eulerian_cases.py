"""MA-eulerian: three faces of the Eulerian numbers. Permutations of 1..n with exactly k descents, with
exactly k excedances (places where π(i) > i), and the chance that the sum of n independent uniform numbers
from [0, 1] lies between k and k + 1. The idea is that all three are A(n, k) = Σ_j (-1)^j C(n + 1, j)(k + 1 - j)^n
(over n! for the chance): excedances match descents by Foata's bijection (write the cycles with their
largest element first, in increasing order of those, and read the result as one word), and the slice of
the cube k ≤ x1 + ... + xn ≤ k + 1 has volume A(n, k)/n! (Stanley's map sends the order type of a point to its
descent count). The generator sums the alternating formula; the solver counts permutations with a bitmask
dynamic programme, or integrates the piecewise polynomial density of the sum exactly."""

from fractions import Fraction
from math import comb, factorial

from pytest_crucible import family_rng, numeric_case, program, spell
from pytest_crucible.suite.tiers import tier_of

FAMILY = "MA-eulerian"

SOLVER = """
from fractions import Fraction
from functools import lru_cache
n, k = N, K
if ASK == "descents":
    @lru_cache(maxsize=None)
    def ways(mask, last, left):  # place the rest after `last`, with `left` descents still to make
        if mask == (1 << n) - 1:
            return int(left == 0)
        out = 0
        for v in range(n):
            if not mask >> v & 1:
                drop = int(v < last)
                if left - drop >= 0:
                    out += ways(mask | 1 << v, v, left - drop)
        return out
    print(sum(ways(1 << v, v, k) for v in range(n)))
elif ASK == "excedances":
    @lru_cache(maxsize=None)
    def ways(i, mask, left):  # values for places i..n-1, `mask` the values used
        if i == n:
            return int(left == 0)
        out = 0
        for v in range(n):
            if not mask >> v & 1:
                up = int(v > i)
                if left - up >= 0:
                    out += ways(i + 1, mask | 1 << v, left - up)
        return out
    print(ways(0, 0, k))
else:
    # density of the sum of m uniforms: one polynomial (coefficients in t = x - j) per unit piece [j, j + 1]
    def integral(poly):  # antiderivative from 0
        return [Fraction(0)] + [c / (i + 1) for i, c in enumerate(poly)]
    def value(poly, t):
        return sum(c * t ** i for i, c in enumerate(poly))
    def add(a, b):
        size = max(len(a), len(b))
        return [(a[i] if i < len(a) else 0) + (b[i] if i < len(b) else 0) for i in range(size)]
    pieces = [[Fraction(1)]]
    for m in range(2, n + 1):
        new = []
        for j in range(m):
            # f_m(j + t) = ∫_t^1 piece_(j-1)(s) ds + ∫_0^t piece_j(s) ds
            left = pieces[j - 1] if j >= 1 else []
            right = pieces[j] if j < len(pieces) else []
            li = integral(left) if left else [Fraction(0)]
            upper = value(li, 1) if left else Fraction(0)
            part = add([upper], [-c for c in li])
            part = add(part, integral(right) if right else [Fraction(0)])
            new.append(part)
        pieces = new
    chance = value(integral(pieces[k]), 1)
    print(f"{chance.numerator}/{chance.denominator}")
"""


def eulerian(n, k):
    if k < 0 or k >= n:
        return 0
    return sum((-1) ** j * comb(n + 1, j) * (k + 1 - j) ** n for j in range(k + 1))


def _case(rng, index):
    ask = {1: "descents", 2: "excedances", 3: "chance"}[index]
    n = rng.randrange(8, 12) if ask != "chance" else rng.randrange(6, 10)
    k = rng.randrange(2, n - 2) if ask != "chance" else rng.randrange(1, n - 1)
    count = eulerian(n, k)
    if ask == "chance":
        answer = Fraction(count, factorial(n))
        traps = [Fraction(eulerian(n, k - 1), factorial(n)), Fraction((k + 1) ** n - k ** n, factorial(n)),
                 Fraction(comb(n, k), 2 ** n)]
        words = ["A(n, k - 1)/n!", "((k + 1)^n - k^n)/n!, only the first terms", "C(n, k)/2^n"]
        question = (f"Choose {n} numbers independently and uniformly at random from the interval [0, 1]. What is "
                    f"the probability that their sum lies between {k} and {k + 1}?")
    else:
        answer = count
        traps = [eulerian(n, k - 1), eulerian(n, k + 1), comb(n - 1, k) ** 2]
        words = ["A(n, k - 1) (the index shifted)", "A(n, k + 1)", "C(n - 1, k)²"]
        if ask == "descents":
            question = (f"A descent of an arrangement a1, a2, ..., a{n} of the numbers 1 to {n} is a place i where "
                        f"a_i > a_(i+1). How many arrangements have exactly {k} descents?")
        else:
            question = (f"An arrangement a1, a2, ..., a{n} of the numbers 1 to {n} has an excedance at place i when "
                        f"a_i > i. How many arrangements have exactly {k} excedances?")
    prompt = f"""
        {question}
    """
    link = {"descents": "", "excedances": " Excedances are equidistributed with descents (Foata's bijection "
            "through the cycle form written with each cycle's largest element first).",
            "chance": f" The slice {k} ≤ x1 + ... + x{n} ≤ {k + 1} of the cube has volume A({n}, {k})/{n}!, since "
            "the order type of a point, read through its fractional partial sums, has exactly k descents."}[ask]
    reference = f"""
        The Eulerian number A({n}, {k}) counts arrangements with {k} descents: A(n, k) = Σ_j (-1)^j C(n + 1, j)
        (k + 1 - j)^n = {count}.{link}

        Answer: {spell(answer)}
    """
    steps = {"descents": 4, "excedances": 5, "chance": 6}[ask]
    hardness = {"steps": steps, "search": factorial(n), "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({spell(t)})" for w, t in zip(words, traps, strict=True))
    bridge = {"descents": "the Eulerian numbers and their index convention",
              "excedances": "the equidistribution of excedances with descents, then the Eulerian number",
              "chance": "the volume of a slice of the cube as an Eulerian number over n!"}[ask]
    notes = f"""n = {n}: {factorial(n)} arrangements (or a piecewise density of degree {n - 1}), so the count
        needs {bridge}, and an alternating sum of {n}-th powers done exactly. A 27-32B model tends to shift
        k by one. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, N=n, K=k, ASK=ask), reference=reference, notes=notes,
        max_tokens=32768 if tier_of(hardness) == "hard" else 16384, as_fraction=ask == "chance",
        title=f"Eulerian numbers: {ask}, n = {n}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
