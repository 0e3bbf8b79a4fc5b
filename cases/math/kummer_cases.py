"""MA-kummer: the largest k such that b^k divides the product of a row of Pascal's triangle, n!, or the
superfactorial 1!·2!·...·n!, for a composite base b with repeated prime factors. The idea is to work prime
by prime: Kummer's theorem gives the power of p in C(n, m) as the number of carries when m and n - m are
added in base p, Legendre's formula the power in j!, and then k is the least, over the primes p^e of b, of
⌊v_p / e⌋. The generator counts carries and Legendre sums; the solver builds the number exactly and
divides by b until it no longer can."""

from pytest_crucible import factored, family_rng, numeric_case, program

FAMILY = "MA-kummer"

SOLVER = """
from math import comb, factorial, prod
if KIND == "row":
    value = prod(comb(N, m) for m in range(N + 1))
elif KIND == "factorial":
    value = factorial(N)
else:
    value = prod(factorial(j) for j in range(1, N + 1))
k = 0
while value % BASE == 0:
    value //= BASE
    k += 1
print(k)
"""

BASES = (12, 18, 20, 24, 28, 36, 40, 44, 45, 48, 50, 54, 56, 63, 72, 75, 80, 96, 98, 99, 100, 108)


def prime_powers(b):
    out, p = {}, 2
    while b > 1:
        while b % p == 0:
            out[p] = out.get(p, 0) + 1
            b //= p
        p += 1
    return out


def carries(a, c, p):
    """Carries when a and c are added in base p."""
    count = carry = 0
    while a or c or carry:
        carry = 1 if a % p + c % p + carry >= p else 0
        count += carry
        a, c = a // p, c // p
    return count


def legendre(n, p):
    total, q = 0, p
    while q <= n:
        total += n // q
        q *= p
    return total


def valuation(kind, n, p):
    if kind == "row":
        return sum(carries(m, n - m, p) for m in range(n + 1))
    if kind == "factorial":
        return legendre(n, p)
    return sum(legendre(j, p) for j in range(1, n + 1))


def in_base_itself(kind, n, b):
    """Kummer's or Legendre's count run in base b as if b were prime."""
    if kind == "row":
        return sum(carries(m, n - m, b) for m in range(n + 1))
    if kind == "factorial":
        return legendre(n, b)
    return sum(legendre(j, b) for j in range(1, n + 1))


KINDS = {1: "row", 2: "factorial", 3: "superfactorial"}
SIZES = {"row": (150, 400), "factorial": (1500, 6000), "superfactorial": (100, 200)}
STEPS = {"row": 10, "factorial": 5, "superfactorial": 8}  # the factorial is Legendre done twice or thrice


def _case(rng, index):
    kind = KINDS[index]
    while True:
        base = rng.choice(BASES)
        n = rng.randrange(*SIZES[kind])
        powers = prime_powers(base)
        vals = {p: valuation(kind, n, p) for p in powers}
        answer = min(vals[p] // e for p, e in powers.items())
        largest = max(powers)
        traps = [min(vals.values()),                      # the exponents of b's primes ignored
                 vals[largest] // powers[largest],         # only the largest prime checked
                 in_base_itself(kind, n, base),            # Kummer/Legendre in base b itself
                 max(vals[p] // e for p, e in powers.items())]  # the largest quotient instead of the least
        if len(set(traps) - {answer}) >= 3:
            break
    what, short = {
        "row": (f"the product C({n}, 0)·C({n}, 1)·...·C({n}, {n}) of all the binomial coefficients in row {n} of "
                "Pascal's triangle", f"the product of row {n}"),
        "factorial": (f"{n}! (the product 1·2·3·...·{n})", f"{n}!"),
        "superfactorial": (f"the product 1!·2!·3!·...·{n}! of the first {n} factorials", f"1!·2!·...·{n}!"),
    }[kind]
    prompt = f"""
        What is the largest integer k such that {base}^k divides {what}?
    """
    rule = {"row": "Kummer: the power of p in C(n, m) is the number of carries when m and n - m are added in "
                   "base p, added over m",
            "factorial": "Legendre: the power of p in n! is Σ ⌊n/p^i⌋",
            "superfactorial": "Legendre: the power of p in j! is Σ ⌊j/p^i⌋, added over j"}[kind]
    shown = ", ".join(f"v_{p} = {vals[p]}" for p in powers)
    reference = f"""
        {base} = {factored(base)}. Work prime by prime ({rule}):
        {shown}. Then k is the least of
        {', '.join(f'⌊{vals[p]}/{e}⌋' for p, e in powers.items())}, so k = **{answer}**.

        Answer: {answer}
    """
    hardness = {"steps": STEPS[kind], "search": 1, "traps": len(set(traps) - {answer})}
    how = {"row": f"the carries summed over {n + 1} values of m, or (n+1)·v_p(n!) - 2·Σ v_p(m!) summed exactly",
           "factorial": "one Legendre sum per prime",
           "superfactorial": f"Legendre sums added over {n} factorials (Σ_i Σ_j ⌊j/p^i⌋ in closed form per i)"}[kind]
    notes = f"""{short} in base {base} = {factored(base)}: it has thousands of digits, so k needs the
        power of each prime ({how}), divided by its exponent in {base}, and the least of those. Traps:
        exponents in {base} ignored ({traps[0]}), only the largest prime {largest} ({traps[1]}), carries (or
        Legendre) in base {base} itself ({traps[2]}), the largest quotient instead of the least ({traps[3]})."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, KIND=kind, N=n, BASE=base), reference=reference, notes=notes,
        max_tokens=32768 if kind != "factorial" else 16384, title=f"Powers of {base} in {short}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
