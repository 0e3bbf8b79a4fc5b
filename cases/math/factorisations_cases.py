"""MA-factorisations: in how many ways can N be written as an ordered product of factors greater than 1
(all of them, exactly k factors, or squarefree factors only)? The idea is to see a factorisation as k
exponent vectors that add up to N's exponents: with factors allowed to be 1 that is a product of
stars-and-bars counts, and inclusion-exclusion over the factors forced to be 1 removes them, so the count
is Σ_k Σ_j (-1)^j C(k, j) Π_i C(e_i + k - j - 1, e_i) (with C(k - j, e_i) for squarefree factors). The
solver recurses over divisors: H(m) = Σ over divisors d > 1 of m of H(m / d)."""

from functools import reduce
from math import comb, factorial, prod

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-factorisations"

SOLVER = """
from functools import lru_cache
N, PARTS, SQUAREFREE = NUMBER, FACTORS, SQUAREFREE_ONLY
divisors = [d for d in range(2, int(N ** 0.5) + 1) if N % d == 0]
divisors = sorted(set(divisors + [N // d for d in divisors] + [N]))
def squarefree(d):
    return all(d % (p * p) for p in range(2, int(d ** 0.5) + 1))
usable = [d for d in divisors if not SQUAREFREE or squarefree(d)]
@lru_cache(maxsize=None)
def ways(m, left):
    if m == 1:
        return 1 if left in (0, None) else 0
    if left == 0:
        return 0
    return sum(ways(m // d, None if left is None else left - 1) for d in usable if d <= m and m % d == 0)
print(ways(N, PARTS))
"""

PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23)


def with_k(exponents, k, squarefree):
    """Ordered k-tuples of factors > 1 whose exponent vectors add up to `exponents`."""
    def free(slots):  # factors may be 1
        return prod(comb(slots, e) if squarefree else comb(e + slots - 1, e) for e in exponents)
    return sum((-1) ** j * comb(k, j) * free(k - j) for j in range(k + 1))


def count(exponents, parts, squarefree):
    if parts:
        return with_k(exponents, parts, squarefree)
    return sum(with_k(exponents, k, squarefree) for k in range(1, sum(exponents) + 1))


def _case(rng, index):
    squarefree = index == 3
    while True:
        primes = sorted(rng.sample(PRIMES, rng.randrange(3, 5)))
        exponents = [rng.randrange(1, 5 if not squarefree else 4) for _ in primes]
        n = prod(p ** e for p, e in zip(primes, exponents, strict=True))
        if 10**5 <= n <= 3 * 10**8 and sum(exponents) >= 7:
            break
    parts = rng.randrange(3, sum(exponents) - 1) if index == 2 else None
    answer = count(exponents, parts, squarefree)
    omega = sum(exponents)
    arrangements = factorial(omega) // prod(factorial(e) for e in exponents)
    traps = [prod(e + 1 for e in exponents),                                     # the number of divisors
             arrangements,                                                       # factors all prime
             prod(count([e], parts, squarefree) if parts is None else with_k([e], parts, squarefree)
                  for e in exponents)]                                           # as if multiplicative
    traps.append(count(exponents, parts, not squarefree) if squarefree else
                 prod(comb(e + parts - 1, e) for e in exponents) if parts else
                 reduce(lambda a, b: a + b, (prod(comb(e + k - 1, e) for e in exponents)
                                             for k in range(1, omega + 1))))      # 1 allowed as a factor
    shown = " · ".join(f"{p}^{e}" if e > 1 else str(p) for p, e in zip(primes, exponents, strict=True))
    what = {1: "as an ordered product of integers greater than 1",
            2: f"as an ordered product of exactly {parts} integers greater than 1",
            3: "as an ordered product of squarefree integers greater than 1 (no factor divisible by a square "
               "bigger than 1)"}[index]
    single = {1: ", and N itself (a single factor) counts as one way.", 2: ".",
              3: ", and a single factor counts as a product too (when it qualifies)."}[index]
    prompt = f"""
        Let N = {n:,} = {shown}. In how many ways can N be written {what}? Products that use the same factors
        in a different order count as different (for example, 12 = 2·6 and 12 = 6·2 are two ways){single}
    """
    inner = "C(k - j, e_i)" if squarefree else "C(e_i + k - j - 1, e_i)"
    reference = f"""
        A factorisation into k factors is k exponent vectors adding up to ({', '.join(map(str, exponents))}).
        Allowing factors equal to 1, each prime's exponent splits among the k factors in {inner.replace('k - j',
        'k')} ways, independently. Inclusion-exclusion over the j factors forced to be 1 gives
        Σ_j (-1)^j C(k, j) Π_i {inner} for exactly k factors{'' if parts else ', summed over k = 1..' + str(omega)}.

        The count is **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": 10, "search": answer, "traps": len(set(traps) - {answer})}
    notes = f"""N = {shown} (Ω = {omega}): the count is not multiplicative over the primes, so it needs the
        exponent-vector view and an inclusion-exclusion per number of factors{'' if parts else ', summed over '
        + str(omega) + ' values of k'}, each with products of binomials; listing is hopeless. Traps: the
        number of divisors ({traps[0]}), arrangements of the prime factors ({traps[1]}), multiplying the
        prime powers' counts as if multiplicative ({traps[2]}), {'squarefree ignored' if squarefree else
        'factors of 1 allowed'} ({traps[3]})."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, NUMBER=n, FACTORS=parts, SQUAREFREE_ONLY=squarefree), reference=reference,
        notes=notes, max_tokens=32768, title=f"Ordered factorisations of {n}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
