"""MA-gcdsum: the sum of gcd(k, M) for k = 1..N, with N a few dozen periods of M plus a remainder.
The generator uses gcd(k, M) = sum of phi(d) over the common divisors d, so the sum is
sum over d | M of phi(d) * floor(N / d); the solver adds the gcds one by one."""

from math import gcd

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import declare

FAMILY = "MA-gcdsum"

SOLVER = """
from math import gcd
print(sum(gcd(k, M) for k in range(1, LIMIT + 1)))
"""


def _divisors(m):
    return [d for d in range(1, m + 1) if m % d == 0]


def _phi(n):
    return sum(1 for k in range(1, n + 1) if gcd(k, n) == 1)


def gcd_sum(m, limit):
    return sum(_phi(d) * (limit // d) for d in _divisors(m))


def _case(rng, index, difficulty):
    while True:
        m = 1
        for p, top in ((2, 5), (3, 3), (5, 2), (7, 2), (11, 1), (13, 1)):
            m *= p ** rng.randrange(0, top + 1)
        low, high = (60, 400) if difficulty == "medium" else (1500, 15000)
        if low <= m <= high and len(_divisors(m)) >= (8 if difficulty == "medium" else 18) and m not in (360, 720, 2520, 5040):
            break
    periods = rng.randrange(8, 30) if difficulty == "medium" else rng.randrange(12, max(13, 400_000 // m))
    limit = periods * m + rng.randrange(m // 5, m - m // 5)
    answer = gcd_sum(m, limit)
    whole = periods * gcd_sum(m, m)
    traps = [whole, whole + gcd_sum(m, m), sum(d * (limit // d) for d in _divisors(m)), gcd_sum(m, limit - 1)]
    prompt = f"""
        Let M = {m:,}. Compute the sum gcd(1, M) + gcd(2, M) + gcd(3, M) + ... + gcd(N, M) for
        N = {limit:,}, where gcd is the greatest common divisor.
    """
    rest = limit - periods * m
    reference = f"""
        Since gcd(k, M) = Σ φ(d) over the divisors d of both k and M, the sum is
        Σ_(d | M) φ(d) · ⌊N / d⌋.

        M = {m} has {len(_divisors(m))} divisors. Over one full period, Σ_(k=1..M) gcd(k, M) =
        {gcd_sum(m, m)}; N = {periods}·{m} + {rest}, and the formula handles the partial block too.

        Adding φ(d)·⌊{limit}/d⌋ over all divisors gives **{answer:,}**.

        Answer: {answer}
    """
    notes = f"""N = {limit:,} terms: the model needs the identity gcd(k, M) = Σ φ(d) over common
        divisors (or Pillai's function for whole periods plus a separate count for the last
        {rest} terms), then {len(_divisors(m))} divisors of M = {m}, their φ values and floor
        quotients, summed without a slip. Traps: whole periods only ({whole}), rounding up to a
        whole period ({traps[1]}), weighting divisors by d instead of φ(d) ({traps[2]})."""
    return numeric_case(
        family=FAMILY, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, M=m, LIMIT=limit), reference=reference, notes=notes,
        max_tokens=16384 if difficulty == "medium" else 32768,
        title=f"Sum of gcd(k, {m}) up to {limit}")


# Hardness facts (steps, search, traps) per shape: phi and a floor quotient per divisor, summed; brute force
# takes one gcd per term.
HARDNESS = {"medium": (10, 2704, 3), "hard": (14, 100000, 3)}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    out = [_case(rng, i, difficulty) for i, difficulty in
            enumerate(["medium", "hard", "hard", "hard", "hard", "hard"], 1)]
    for case in out:  # the plan's label names the shape (shorter or longer); the rule gives the tier
        declare(case, *HARDNESS[case["difficulty"]])
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
