"""MA-squares: the least m such that any m different integers from a generated range contain two whose
product is a perfect square. The idea is pigeonhole on squarefree parts: two numbers multiply to a square
exactly when their squarefree parts agree, so the largest bad set takes one number per squarefree part
that occurs, and m is one more. The generator walks the squarefree numbers s and asks whether s·k^2 lands
in the range for some k; the solver factors every number of the range and collects the parts."""

from math import isqrt

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-squares"

SOLVER = """
spf = list(range(HIGH + 1))
for p in range(2, int(HIGH ** 0.5) + 1):
    if spf[p] == p:
        for q in range(p * p, HIGH + 1, p):
            if spf[q] == q:
                spf[q] = p
parts = set()
for n in range(LOW, HIGH + 1):
    part, x = 1, n
    while x > 1:
        p, e = spf[x], 0
        while x % p == 0:
            x //= p
            e += 1
        if e % 2:
            part *= p
    parts.add(part)
print(len(parts) + 1)
"""


def squarefree_flags(limit):
    flags = bytearray([1]) * (limit + 1)
    for d in range(2, isqrt(limit) + 1):
        flags[d * d::d * d] = bytearray(len(flags[d * d::d * d]))
    return flags


def kernels_met(low, high):
    """Squarefree s with some s·k^2 in [low, high]."""
    flags = squarefree_flags(high)
    return sum(1 for s in range(1, high + 1)
               if flags[s] and isqrt(high // s) ** 2 * s >= low)


def _case(rng, index, difficulty):
    high = rng.randrange(2000, 9000)
    low = 1 if index == 1 else rng.randrange(high // 5, high // 2)
    answer = kernels_met(low, high) + 1
    flags = squarefree_flags(high)
    in_range = sum(flags[low:high + 1])
    traps = [answer - 1, in_range + 1, round((high - low + 1) * 6 / 3.141592653589793 ** 2) + 1,
             high - low + 1 - (isqrt(high) - isqrt(low - 1)) + 1]
    span = f"the integers {low} to {high} (inclusive)"
    prompt = f"""
        What is the smallest number m with this property: however m different integers are chosen
        from among {span}, two of the chosen integers have a product that is a perfect square?
    """
    reference = f"""
        Write each number as s·k² with s squarefree (its squarefree part). Two numbers multiply to a
        square exactly when their squarefree parts are equal. So a set with no such pair holds at most
        one number per squarefree part, and one number per part that occurs is such a set.

        A squarefree s occurs when some s·k² lies in the range; counting those s gives
        {answer - 1:,} parts, so the largest set without a square product has {answer - 1:,} numbers
        and m is one more: **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": 8, "search": high - low + 1, "traps": len(set(traps) - {answer})}
    notes = f"""Needs the squarefree-part pigeonhole (and the construction that shows it is tight), then an
        exact count of squarefree parts that occur{' (Σ μ(d)⌊N/d²⌋ over about ' + str(isqrt(high)) + ' d)'
        if low == 1 else ', which for a range that does not start at 1 includes parts s < ' + str(low)
        + ' with a square multiple inside'}. Traps: the size of the largest bad set ({answer - 1}),
        counting only squarefree numbers inside the range ({in_range} + 1), the 6/π² density estimate
        ({traps[2]}), excluding only perfect squares ({traps[3]})."""
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, LOW=low, HIGH=high), reference=reference, notes=notes,
        max_tokens=32768, title=f"Pigeonhole on square products in {low}..{high}")
    return case


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i, "hard") for i in range(1, 5)]
