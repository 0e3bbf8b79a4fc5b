"""MA-recur: a term with an index near 10^15 of a second-order recurrence taken modulo a composite
number. The generator raises the recurrence's 3x3 matrix to the N-th power by repeated squaring;
the solver runs the sequence until a pair of consecutive terms repeats and uses the cycle."""

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import declare

FAMILY = "MA-recur"
MODULI = [24, 36, 40, 45, 56, 60, 63, 72, 84, 88, 90, 99, 100, 104, 120, 126, 132, 140, 150, 168, 180]

SOLVER = """
seen = {}
terms = [A0, A1]
while (terms[-2], terms[-1]) not in seen:
    seen[(terms[-2], terms[-1])] = len(terms) - 2
    terms.append((P * terms[-1] + Q * terms[-2] + R) % M)
start = seen[(terms[-2], terms[-1])]
period = len(terms) - 2 - start
index = INDEX if INDEX < start else start + (INDEX - start) % period
print(terms[index])
"""


def _mat_mul(a, b, m):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) % m for j in range(3)] for i in range(3)]


def term(a0, a1, p, q, r, m, n):
    """a_n through the matrix [[p, q, r], [1, 0, 0], [0, 0, 1]] acting on (a_{k+1}, a_k, 1)."""
    if n == 0:
        return a0 % m
    result = [[int(i == j) for j in range(3)] for i in range(3)]
    step, k = [[p % m, q % m, r % m], [1, 0, 0], [0, 0, 1]], n - 1
    while k:
        if k & 1:
            result = _mat_mul(result, step, m)
        step = _mat_mul(step, step, m)
        k >>= 1
    return (result[0][0] * a1 + result[0][1] * a0 + result[0][2]) % m


def _shape(a0, a1, p, q, r, m):
    """(start of the cycle, cycle length) of the pairs (a_k, a_k+1)."""
    seen, pair, k = {}, (a0, a1), 0
    while pair not in seen:
        seen[pair] = k
        pair = (pair[1], (p * pair[1] + q * pair[0] + r) % m)
        k += 1
    return seen[pair], k - seen[pair]


def _case(rng, index, difficulty):
    while True:
        m = rng.choice(MODULI[:6] if difficulty == "medium" else MODULI[4:])
        p, q, r = rng.randrange(1, m), rng.randrange(1, m), rng.randrange(0, m)
        a0, a1 = rng.randrange(m), rng.randrange(m)
        start, period = _shape(a0, a1, p, q, r, m)
        wanted = (12, 60) if difficulty == "medium" else (120, 100_000)
        if not wanted[0] <= period <= wanted[1] or not (difficulty == "medium" or start > 0 or rng.random() < 0.3):
            continue
        n = 10 ** rng.randrange(12, 18) + rng.randrange(1, 10 ** 6)
        answer = term(a0, a1, p, q, r, m, n)
        if answer:
            break
    traps = [term(a0, a1, p, q, r, m, n - 1), term(a0, a1, p, q, r, m, n + 1)]
    from_start = term(a0, a1, p, q, r, m, n % period)  # the cycle taken to start at a_0
    if from_start != answer:
        traps.append(from_start)
    entered = {0: "", 1: " after the first term"}.get(start, f" after the first {start} terms")
    prompt = f"""
        A sequence is defined by a_0 = {a0}, a_1 = {a1} and, for every n ≥ 2,
        a_n = the remainder when {p}·a_(n-1) + {q}·a_(n-2) + {r} is divided by {m}
        (so every term is a whole number from 0 to {m - 1}). What is a_N for N = {n:,}?
    """
    reference = f"""
        The pair (a_k, a_(k+1)) determines the rest of the sequence and takes at most {m}² values, so
        the sequence is eventually periodic. Working modulo the prime-power factors of {m} separately
        and combining the periods, the pairs repeat with period {period}{entered}.

        N = {n} reduces to index {start + (n - start) % period if n >= start else n} inside the cycle,
        so a_N = a_{start + (n - start) % period} = {answer}.

        Answer: {answer}
    """
    notes = f"""The index is near 10^{len(str(n)) - 1}, so the term comes only from the period of the
        sequence modulo {m}: {period} pairs long{f', entered after {start} terms (the coefficient {q} is not invertible modulo {m}, so the cycle does not start at a_0)' if start else ''}.
        Listing that many terms by hand is long and slip-prone; the intended road splits {m} into prime
        powers, finds each (short) period and combines them, then does the index arithmetic exactly.
        Traps: an off-by-one in the index ({traps[0]} or {traps[1]}){', assuming the cycle starts at a_0 (' + str(from_start) + ')' if from_start != answer else ''}."""
    return numeric_case(
        family=FAMILY, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, A0=a0, A1=a1, P=p, Q=q, R=r, M=m, INDEX=n), reference=reference,
        notes=notes, max_tokens=16384 if difficulty == "medium" else 32768,
        title=f"Term near 10^{len(str(n)) - 1} of a recurrence modulo {m}")


# Hardness facts (steps, search, traps) per shape: periods per prime power, combined, then the index reduced;
# brute force iterates to the index.
HARDNESS = {"medium": (8, 10000000000000000, 2), "hard": (10, 10000000000000000, 2)}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    out = [_case(rng, i, difficulty) for i, difficulty in
            enumerate(["medium", "hard", "hard", "hard", "hard", "hard"], 1)]
    for case in out:  # the plan's label names the shape (shorter or longer); the rule gives the tier
        declare(case, *HARDNESS[case["difficulty"]])
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
