"""MA-farey: how many reduced fractions with denominator at most N lie strictly between two given fractions
(a stretch of the Farey sequence of order N)? The idea is Möbius inversion: the fractions p/q in the
interval, reduced or not, number A(N) = Σ_q (⌈q·c/d⌉ - 1 - ⌊q·a/b⌋), every such pair is a reduced one
scaled by some k, so A(N) = Σ_k R(⌊N/k⌋) and R(N) = Σ_k μ(k) A(⌊N/k⌋). The generator does that; the
solver tries every denominator and numerator and keeps those with gcd 1."""

from fractions import Fraction

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-farey"

SOLVER = """
from math import gcd
(a, b), (c, d) = LOW, HIGH
total = 0
for q in range(1, ORDER + 1):
    for p in range(a * q // b, c * q // d + 2):
        if a * q < p * b and p * d < c * q and gcd(p, q) == 1:
            total += 1
print(total)
"""


def mobius_upto(n):
    mu = [1] * (n + 1)
    prime = [True] * (n + 1)
    for p in range(2, n + 1):
        if prime[p]:
            for m in range(p, n + 1, p):
                if m > p:
                    prime[m] = False
                mu[m] = -mu[m]
            for m in range(p * p, n + 1, p * p):
                mu[m] = 0
    return mu


def pair_counts(order, low, high):
    """A(m) for m = 0..order: fractions p/q in the open interval with q <= m, reduced or not."""
    (a, b), (c, d) = (low.numerator, low.denominator), (high.numerator, high.denominator)
    pairs = [0] * (order + 1)
    for q in range(1, order + 1):
        pairs[q] = pairs[q - 1] + (-(-c * q // d) - 1) - a * q // b
    return pairs


def reduced(order, pairs, mu):
    return sum(mu[k] * pairs[order // k] for k in range(1, order + 1))


def _case(rng, index):
    while True:
        order = rng.randrange(800, 2500)
        b, d = rng.randrange(5, 40), rng.randrange(5, 40)
        low = Fraction(rng.randrange(1, b), b)
        high = Fraction(rng.randrange(1, d), d)
        if low.denominator > 3 and high.denominator > 3 and Fraction(1, 12) < high - low < Fraction(1, 4):
            break
    pairs, mu = pair_counts(order, low, high), mobius_upto(order)
    answer, unreduced = reduced(order, pairs, mu), pairs[order]
    area = round(3 * order * order * float(high - low) / 3.141592653589793 ** 2)
    with_ends = answer + 2
    traps = [unreduced, area, with_ends, reduced(order - 1, pairs, mu)]
    prompt = f"""
        How many fractions p/q in lowest terms (p and q positive integers with gcd(p, q) = 1) with
        q ≤ {order} satisfy {low} < p/q < {high}?
    """
    reference = f"""
        Count all pairs first: for each q the numerators with {low} < p/q < {high} number
        ⌈q·{high}⌉ - 1 - ⌊q·{low}⌋, and A(m) adds these up for q ≤ m; A({order}) = {unreduced:,}.
        Each pair is a reduced fraction with both terms multiplied by some k, so A(m) = Σ_k R(⌊m/k⌋), and
        Möbius inversion gives R({order}) = Σ_k μ(k)·A(⌊{order}/k⌋).

        R({order}) = **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": 10, "search": order * order // 2, "traps": len(set(traps) - {answer})}
    notes = f"""Reduced fractions between {low} and {high} with denominators up to {order}: about
        {order * order // 2:,} candidate pairs, so the count needs the pair count as a floor sum and Möbius
        inversion over ⌊{order}/k⌋ (about {2 * int(order ** 0.5)} distinct values), with exact floor sums.
        Traps: counting unreduced fractions ({traps[0]}), the density estimate 3N²·width/π² ({traps[1]}),
        including the two ends ({traps[2]}), denominators below {order} only ({traps[3]})."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, LOW=(low.numerator, low.denominator), HIGH=(high.numerator, high.denominator),
                       ORDER=order), reference=reference, notes=notes,
        max_tokens=32768, title=f"Farey fractions of order {order} between {low} and {high}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
