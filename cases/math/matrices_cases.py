"""MA-matrices: 2 x 2 matrices whose entries are residues modulo a composite n; how many are invertible
modulo n, how many have determinant 1 (or another given unit), how many have determinant 0 modulo n? The
idea is the Chinese remainder theorem on the entries, then counting over each prime power: over Z/p a
matrix is invertible when its rows are independent, (p² - 1)(p² - p) of them; modulo p^e invertibility is
decided modulo p and every invertible matrix mod p lifts in p^(4(e-1)) ways; the determinant is equally
often each unit, so determinant 1 is |GL| / φ(n); and determinant 0 modulo a prime p leaves
p⁴ - (p² - 1)(p² - p) = p³ + p² - p matrices, multiplied over the primes of a squarefree n (not n⁴ - |GL|,
which counts all non-invertible ones). The generator multiplies those; the solver tabulates how often
each value of a·d and of b·c occurs modulo n and combines the two tables."""

from math import gcd

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "MA-matrices"

SOLVER = """
from math import gcd
n = N
products = [0] * n  # how many pairs (x, y) mod n have x·y ≡ v
for x in range(n):
    for y in range(n):
        products[x * y % n] += 1
def with_det(t):  # a·d - b·c ≡ t
    return sum(products[v] * products[(v - t) % n] for v in range(n))
if ASK == "invertible":
    print(sum(with_det(t) for t in range(n) if gcd(t, n) == 1))
else:
    print(with_det(TARGET))
"""


def factor(n):
    out, p = {}, 2
    while n > 1:
        while n % p == 0:
            out[p] = out.get(p, 0) + 1
            n //= p
        p += 1
    return out


def gl2(n):
    out = 1
    for p, e in factor(n).items():
        out *= p ** (4 * (e - 1)) * (p * p - 1) * (p * p - p)
    return out


def phi(n):
    return sum(1 for k in range(1, n + 1) if gcd(k, n) == 1)


def _case(rng, index):
    ask = {1: "invertible", 2: "unit", 3: "zero"}[index]
    if ask == "zero":
        n = rng.choice([30, 42, 66, 70, 78, 102, 105, 110, 114, 130, 138, 154, 165, 170, 182, 190, 195, 210])
        target = 0
    else:
        n = rng.choice([m for m in range(12, 121) if any(e > 1 for e in factor(m).values()) and len(factor(m)) >= 2])
        target = 1 if ask == "invertible" else rng.choice([t for t in range(2, n) if gcd(t, n) == 1])
    primes = factor(n)
    full = gl2(n)
    naive = (n * n - 1) * (n * n - n)
    no_lift = 1
    for p in primes:
        no_lift *= (p * p - 1) * (p * p - p)
    if ask == "invertible":
        answer = full
        traps = [naive, no_lift, n ** 4 - full]
        words = ["(n² - 1)(n² - n), as if n were prime", "the p^(4(e-1)) lifts forgotten", "the non-invertible ones"]
        question = "How many of these matrices are invertible modulo n (have an inverse whose entries are residues)?"
    elif ask == "unit":
        answer = full // phi(n)
        traps = [full, naive // (n - 1), no_lift // phi(n)]
        words = ["all invertible matrices", "(n² - 1)(n² - n)/(n - 1), as if n were prime",
                 "the p^(4(e-1)) lifts forgotten"]
        question = f"How many of these matrices have determinant ad - bc ≡ {target} (mod {n})?"
    else:
        answer = 1
        for p in primes:
            answer *= p ** 3 + p * p - p
        traps = [n ** 4 - full, n ** 3 + n * n - n, n ** 4 // n]
        words = ["n⁴ - |GL|, every non-invertible matrix", "p³ + p² - p with n put in for p",
                 "n⁴/n, as if each determinant were equally likely"]
        question = f"How many of these matrices have determinant ad - bc ≡ 0 (mod {n})?"
    prompt = f"""
        Consider all 2 x 2 matrices [[a, b], [c, d]] whose four entries are residues modulo n = {n} (so there are
        {n}⁴ of them). {question}
    """
    parts = ", ".join(f"{p}^{e}" if e > 1 else str(p) for p, e in primes.items())
    if ask == "zero":
        work = (f"By the Chinese remainder theorem split n = {n} into {parts}; modulo a prime p there are "
                f"p⁴ - (p² - 1)(p² - p) = p³ + p² - p matrices with determinant 0, and the counts multiply: {answer}")
    else:
        work = (f"By the Chinese remainder theorem split n = {n} into {parts}. Modulo p^e a matrix is invertible "
                f"when it is modulo p, (p² - 1)(p² - p) ways, and each lifts in p^(4(e-1)) ways; the product is "
                f"{full}")
        if ask == "unit":
            work += f"; the determinant takes each of the φ({n}) = {phi(n)} units equally often, so {answer}"
    reference = f"""
        {work}.

        Answer: {answer}
    """
    hardness = {"steps": 5 if ask != "unit" else 6, "search": n ** 4, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""n = {n} = {parts}: {n ** 4} matrices, so the count needs the CRT split and a count per prime
        {'(determinant 0 modulo every prime, which is not the same as non-invertible)' if ask == 'zero' else
         'power with the lifting factor'}. A 27-32B model tends to use the prime formula with n in place of p.
        Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, N=n, TARGET=target, ASK=ask), reference=reference, notes=notes,
        max_tokens=32768 if tier_of(hardness) == "hard" else 16384, title=f"2 x 2 matrices modulo {n}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
