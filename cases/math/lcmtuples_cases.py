"""MA-lcmtuples: how many ordered tuples of positive integers have a given least common multiple (and a
given greatest common divisor). The idea is to work one prime at a time: the conditions only fix the largest
and smallest exponent of each prime, so the count is a product over the primes of N of an inclusion-exclusion
over exponent tuples. The solver tries every tuple of divisors of N."""

from math import prod

from pytest_crucible import factored, family_rng, numeric_case, program

FAMILY = "MA-lcmtuples"
PRIMES = [2, 3, 5, 7, 11, 13]

SOLVER = """
from itertools import product
from math import gcd
divisors = [d for d in range(1, LCM + 1) if LCM % d == 0]
count = 0
for tup in product(divisors, repeat=SIZE):
    l, g = 1, 0
    for x in tup:
        l = l * x // gcd(l, x)
        g = gcd(g, x)
    if l == LCM and (g == GCD or not CHECK_GCD):
        count += 1
print(count)
"""


def _per_prime(top, bottom, size):
    """Exponent tuples in [bottom, top] whose max is top and min is bottom."""
    span = top - bottom + 1
    if span == 1:
        return 1
    return span ** size - 2 * (span - 1) ** size + (span - 2) ** size


def tuples(exponents, floors, size):
    """Tuples with the lcm given by `exponents` and (floors not None) the gcd given by `floors`."""
    if floors is None:
        return prod((e + 1) ** size - e ** size for e in exponents)
    return prod(_per_prime(e, f, size) for e, f in zip(exponents, floors))


def _instance(rng, index, size):
    while True:
        primes = sorted(rng.sample(PRIMES, rng.choice([3, 4])))
        exponents = [rng.randrange(1, 5) for _ in primes]
        lcm = prod(p ** e for p, e in zip(primes, exponents))
        divisor_count = prod(e + 1 for e in exponents)
        if not 10_000 <= lcm <= 3_000_000 or divisor_count ** size > 2_500_000 or divisor_count < 20:
            continue
        floors = None if index == 1 else [0] * len(primes)
        if index == 4:
            floors = [rng.randrange(0, e) if e > 1 else 0 for e in exponents]
            if not any(floors):
                continue
        return primes, exponents, floors, lcm, divisor_count


def _case(rng, index, difficulty):
    size = 4 if index == 3 else 3
    primes, exponents, floors, lcm, divisor_count = _instance(rng, index, size)
    with_gcd = floors is not None
    g = prod(p ** f for p, f in zip(primes, floors)) if with_gcd else 1
    answer = tuples(exponents, floors, size)
    if with_gcd:
        labelled = [("every tuple of divisors", divisor_count ** size),
                    ("the count without the gcd condition", tuples(exponents, None, size)),
                    (f"a gcd that is only a multiple of {g}",
                     prod((e - f + 1) ** size - (e - f) ** size for e, f in zip(exponents, floors))),
                    ("ignoring the gcd exponents", tuples(exponents, [0] * len(primes), size)),
                    ("reading the gcd condition as pairwise coprime", size ** len(primes) if g == 1 else 0)]
        per_prime = (f"the exponents of the {size} numbers lie in [f, e], their largest is e and their smallest "
                     f"is f: by inclusion-exclusion L^{size} - 2(L-1)^{size} + (L-2)^{size} tuples, with "
                     f"L = e - f + 1 (just 1 when e = f)")
    else:
        labelled = [("every tuple of divisors", divisor_count ** size),
                    ("also forcing gcd 1", tuples(exponents, [0] * len(primes), size)),
                    ("the formula for pairs", tuples(exponents, None, size - 1)),
                    (f"e^{size} per prime", prod(e ** size for e in exponents))]
        per_prime = (f"the exponents of the {size} numbers lie in [0, e] and their largest is e: "
                     f"(e+1)^{size} - e^{size} tuples")
    labelled = list({value: (label, value) for label, value in reversed(labelled)
                     if value > 0 and value != answer}.values())[::-1]  # the first label of each value
    traps = [value for _, value in labelled]
    slips = ", ".join(f"{label} ({value})" for label, value in labelled)
    names = "a, b, c" if size == 3 else "a, b, c, d"
    condition = f"lcm({names}) = {lcm:,}" + (f" and gcd({names}) = {g:,}" if with_gcd else "")
    prompt = f"""
        How many ordered {'triples' if size == 3 else 'quadruples'} ({names}) of positive integers satisfy
        {condition}? ({'lcm is the least common multiple, gcd the greatest common divisor' if with_gcd else
        'lcm is the least common multiple'}; tuples that differ only in order count separately.)
    """
    reference = f"""
        {lcm:,} = {factored(lcm)}{f' and {g:,} = ' + factored(g) if factored(g) != str(g) else ''}. The
        conditions act on each prime separately: for a prime with exponent e in the
        lcm{' and f in the gcd' if with_gcd else ''}, {per_prime}.

        Multiplying over the primes gives **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": 2 + len(primes) * (2 if with_gcd else 1), "search": divisor_count ** size, "traps": len(traps)}
    notes = f"""{divisor_count ** size:,} tuples of divisors of {lcm:,}; the count needs the factorisation, the
        prime-by-prime reduction and an inclusion-exclusion on the largest{' and smallest' if with_gcd else ''}
        exponent for each of {len(primes)} primes. Traps: {slips}."""
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, LCM=lcm, GCD=g, CHECK_GCD=with_gcd, SIZE=size),
        reference=reference, notes=notes, max_tokens=32768, title=f"{size}-tuples with {condition}")
    return case


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i, "hard") for i in range(1, 5)]
