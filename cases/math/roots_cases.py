"""MA-roots: how many n up to N make a quadratic divisible by a composite modulus. The generator
finds the roots modulo each prime power, combines them with the Chinese remainder theorem and
counts whole periods plus a remainder; the solver tests every n."""

from itertools import product

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import declare

FAMILY = "MA-roots"
PRIME_POWERS = [4, 8, 16, 9, 27, 25, 7, 49, 11, 13, 17, 19, 23]

SOLVER = """
print(sum(1 for n in range(1, LIMIT + 1) if (n * n + B * n + C) % MODULUS == 0))
"""


def _roots(b, c, modulus):
    return [r for r in range(modulus) if (r * r + b * r + c) % modulus == 0]


def _crt(residues, moduli):
    value, step = 0, 1
    for r, m in zip(residues, moduli):
        while value % m != r:
            value += step
        step *= m
    return value


def _coprime(parts):
    primes = [next(p for p in range(2, q + 1) if q % p == 0) for q in parts]
    return len(set(primes)) == len(primes)


def _case(rng, index, difficulty):
    while True:
        parts = sorted(rng.sample(PRIME_POWERS, 2 if difficulty == "medium" else 3))
        if not _coprime(parts) or (difficulty == "hard" and not set(parts) & {8, 16, 9, 27, 25, 49}):
            continue
        modulus = parts[0] * parts[1] * (parts[2] if len(parts) > 2 else 1)
        if not 300 <= modulus <= 30_000:
            continue
        b, c = rng.choice([-1, 1]) * rng.randrange(1, 61), rng.choice([-1, 1]) * rng.randrange(1, 301)
        roots = [_roots(b, c, q) for q in parts]
        if not all(roots) or all(len(r) == 1 for r in roots):
            continue
        break
    residues = sorted(_crt(choice, parts) for choice in product(*roots))
    limit = modulus * rng.randrange(17, max(18, min(60, 600_000 // modulus))) + rng.randrange(1, modulus)
    whole, rest = divmod(limit, modulus)
    # n = 1..limit: whole periods, then the residues 1..rest (residue 0 stands for n = modulus, 2·modulus, ...)
    answer = whole * len(residues) + sum(1 for r in residues if 1 <= r <= rest)
    traps = [whole * len(residues), (whole + 1) * len(residues), len(residues),
             answer - (1 if 0 < residues[0] <= rest else -1)]
    poly = f"n² {'+' if b >= 0 else '−'} {abs(b)}n {'+' if c >= 0 else '−'} {abs(c)}"
    prompt = f"""
        For how many integers n with 1 ≤ n ≤ {limit:,} is {poly} divisible by {modulus:,}?
    """
    per_part = "; ".join(f"mod {q}: {len(r)} root{'s' if len(r) != 1 else ''} ({', '.join(map(str, r))})"
                         for q, r in zip(parts, roots))
    reference = f"""
        {modulus} = {' × '.join(map(str, parts))}, pairwise coprime, so solve modulo each factor and
        combine with the Chinese remainder theorem.

        Roots: {per_part}. That makes {len(residues)} residues modulo {modulus}.

        {limit} = {whole} × {modulus} + {rest}: the full blocks give {whole} × {len(residues)} =
        {whole * len(residues)}, and {answer - whole * len(residues)} of the residues lie in 1..{rest}.

        Total: {answer}.

        Answer: {answer}
    """
    notes = f"""Roots of a quadratic modulo {', '.join(map(str, parts))} ({', '.join(str(len(r)) for r in roots)}
        of them; prime powers of 2 and repeated roots modulo p^k break the usual 'two roots or none'
        rule), the CRT to turn them into {len(residues)} residues modulo {modulus}, and then exactly
        which of those residues fall in the final partial block of {rest}. Traps: only the whole
        blocks ({traps[0]}), rounding the blocks up ({traps[1]}), an off-by-one at the block edge."""
    return numeric_case(
        family=FAMILY, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, LIMIT=limit, B=b, C=c, MODULUS=modulus), reference=reference, notes=notes,
        max_tokens=16384 if difficulty == "medium" else 32768,
        title=f"n up to {limit} with {modulus} dividing a quadratic")


# Hardness facts (steps, search, traps) per shape: roots per prime power, the CRT, then the residues in the
# last block; brute force tests every residue.
HARDNESS = {"medium": (7, 475, 3), "hard": (10, 10000, 3)}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    out = [_case(rng, i, difficulty) for i, difficulty in
            enumerate(["medium", "hard", "hard", "hard", "hard", "hard"], 1)]
    for case in out:  # the plan's label names the shape (shorter or longer); the rule gives the tier
        declare(case, *HARDNESS[case["difficulty"]])
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
