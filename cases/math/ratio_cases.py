"""MA-ratio: the largest set of integers from 1 to N in which no number is r times another, for r in a
generated set of powers of k. The idea is the chain decomposition: each m not divisible by k starts the
chain m, mk, mk^2, ... and the ban only links numbers of one chain, at index distances given by the
exponents; so the answer is the sum over chains of the best pick on a path of that length. The generator
counts chains of each length by floor formulas and solves each length once by a window DP; the solver
builds every chain and tries every subset of it."""

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-ratio"
EXPONENT_SETS = [(1, 2), (2,), (2, 3), (1, 2), (2, 3)]

SOLVER = """
from itertools import combinations
best_total = 0
for m in range(1, LIMIT + 1):
    if m % BASE == 0:
        continue
    chain = []
    x = m
    while x <= LIMIT:
        chain.append(x)
        x *= BASE
    ratios = [BASE ** e for e in EXPONENTS]
    best = 0
    for size in range(len(chain), 0, -1):
        if any(all(b != a * r for a in pick for b in pick for r in ratios) for pick in combinations(chain, size)):
            best = size
            break
    best_total += best
print(best_total)
"""


def path_best(length, gaps):
    """Most indices of 0..length-1 with no two at a distance in `gaps` (DP over the last max(gaps) picks)."""
    window = max(gaps)
    states = {0: 0}  # bit i set: index (current - 1 - i) was picked
    for _ in range(length):
        nxt = {}
        for mask, best in states.items():
            for take in (0, 1):
                if take and any(mask >> (g - 1) & 1 for g in gaps):
                    continue
                key = ((mask << 1) | take) & ((1 << window) - 1)
                nxt[key] = max(nxt.get(key, 0), best + take)
        states = nxt
    return max(states.values())


def _not_multiples(limit, base):
    return limit - limit // base


def largest(limit, base, gaps):
    total, length = 0, 1
    while base ** (length - 1) <= limit:
        # chains of exactly this length: m not divisible by base with m·base^(length-1) <= limit < m·base^length
        chains = _not_multiples(limit // base ** (length - 1), base) - _not_multiples(limit // base ** length, base)
        total += chains * path_best(length, gaps)
        length += 1
    return total


def _case(rng, index, difficulty):
    exponents = EXPONENT_SETS[(index - 1) % len(EXPONENT_SETS)]
    base = 2 if index <= 3 else 3
    limit = rng.randrange(1500, 6000) if base == 2 else rng.randrange(3000, 12000)
    answer = largest(limit, base, exponents)
    traps = [largest(limit, base, (1,)), limit - limit // base ** min(exponents),
             largest(limit, base, exponents[:1]), limit // 2 + 1]
    ratios = [base ** e for e in exponents]
    said = " or ".join(str(r) for r in ratios)
    prompt = f"""
        What is the largest number of integers that can be chosen from 1, 2, ..., {limit} so that no
        chosen integer is exactly {said} times another chosen integer?
    """
    reference = f"""
        Write every number as m·{base}^j with m not divisible by {base}. A forbidden pair always has the
        same m, with exponents differing by {' or '.join(map(str, exponents))}; so the numbers split into
        chains m, {base}m, {base}²m, ... ≤ {limit}, and the chains do not interact.

        On a chain of length L the most one can keep is the best pick of positions 0..L-1 with no two
        at a distance {' or '.join(map(str, exponents))}. Counting how many chains have each length and
        adding the best pick for each gives **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": 8, "search": min(2 ** limit, 10**18), "traps": len(set(traps) - {answer})}
    notes = f"""Extremal question over 2^{limit} subsets: needs the chain decomposition by the
        {base}-free part, the best pick on a path with banned distances {exponents} for each chain length
        (up to {len(bin(limit)) - 2 if base == 2 else 8}), the number of chains of each length by floor
        counts, and the argument that the picks can be made independently. Traps: the answer for ratio
        {base} alone ({traps[0]}), dropping the multiples of {ratios[0]} ({traps[1]}), honouring only
        the ratio {ratios[0]} ({traps[2]}), about half ({traps[3]})."""
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, LIMIT=limit, BASE=base, EXPONENTS=list(exponents)), reference=reference,
        notes=notes, max_tokens=32768, title=f"Largest subset of 1..{limit} with no ratio {said}")
    return case


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i, "hard") for i in range(1, 5)]
