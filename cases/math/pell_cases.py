"""MA-pell: the positive solutions of x^2 - D·y^2 = N with y up to a bound, summed (the sum of their y).
The idea is the structure of a generalised Pell equation: the fundamental unit x1 + y1·√D (from the
continued fraction of √D) maps solutions to solutions, and every solution is a unit power times one of
finitely many fundamental solutions, found below Nagell's bound y ≤ y1·√(N / (2(x1 + 1))); the classes of
(x, y) and (x, -y) are different unless they meet. The generator follows that structure; the solver tests
every y up to the bound for N + D·y^2 being a square."""

from math import gcd, isqrt

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-pell"

SOLVER = """
from math import isqrt
total = 0
for y in range(1, BOUND + 1):
    x = isqrt(N + D * y * y)
    if x * x == N + D * y * y:
        total += y
print(total)
"""


def fundamental_unit(d):
    """The least x + y√d > 1 of norm 1, from the convergents of the continued fraction of √d."""
    a0 = isqrt(d)
    m, q, a = 0, 1, a0
    p_prev, p = 1, a0
    q_prev, q_conv = 0, 1
    while p * p - d * q_conv * q_conv != 1:
        m = a * q - m
        q = (d - m * m) // q
        a = (a0 + m) // q
        p_prev, p = p, a * p + p_prev
        q_prev, q_conv = q_conv, a * q_conv + q_prev
    return p, q_conv


def solutions(d, n, bound):
    """Positive solutions (x, y) with y <= bound, as unit powers times the fundamental ones."""
    x1, y1 = fundamental_unit(d)
    limit = isqrt(y1 * y1 * n // (2 * (x1 + 1))) + 1
    reps = []
    for y in range(limit + 1):
        x = isqrt(n + d * y * y)
        if x * x == n + d * y * y:
            reps += [(x, y), (x, -y)]
    found = set()
    for x0, y0 in reps:
        x, y = x0, y0
        for _ in range(3):  # step back a few units so every class's positive members are met going up
            x, y = x * x1 - d * y * y1, x * (-y1) + y * x1
        while y <= bound:
            if x > 0 and 0 < y <= bound:
                found.add((x, y))
            x, y = x * x1 + d * y * y1, x * y1 + y * x1
    return sorted(found, key=lambda pair: pair[1]), (x1, y1), reps


def _climb(d, unit, start, bound):
    """The positive solutions of one class, from `start` upward."""
    (x1, y1), (x, y), out = unit, start, []
    while y <= bound:
        if x > 0 and y > 0:
            out.append((x, y))
        x, y = x * x1 + d * y * y1, x * y1 + y * x1
    return out


def _traps(d, bound, found, unit, reps):
    answer = sum(y for _, y in found)
    one_class = _climb(d, unit, found[0], bound)
    upper_only = {pair for rep in reps if rep[1] >= 0 for pair in _climb(d, unit, rep, bound)}
    return [sum(y for _, y in one_class),                        # the smallest solution's class only
            sum(y for x, y in found if gcd(x, y) == 1),          # primitive solutions only
            sum(y for _, y in upper_only),                       # the classes of (x, -y) forgotten
            answer - found[-1][1]]                               # the last solution below the bound dropped


def _pick(rng):
    while True:
        d = rng.randrange(10, 120)
        if isqrt(d) ** 2 == d:
            continue
        unit = fundamental_unit(d)
        if not 3 <= unit[1] <= 400:
            continue
        n = rng.randrange(2, 60)
        bound = rng.randrange(100_000, 250_000)
        found, unit, reps = solutions(d, n, bound)
        if len(found) < 5:
            continue
        traps = _traps(d, bound, found, unit, reps)
        if len(set(traps[:3]) - {sum(y for _, y in found)}) >= 2:
            return d, n, bound, found, unit, reps, traps


def _case(rng, index):
    d, n, bound, found, (x1, y1), reps, traps = _pick(rng)
    answer = sum(y for _, y in found)
    prompt = f"""
        Consider the equation x² - {d}·y² = {n} in positive integers x and y. Find all its solutions with
        y ≤ {bound:,}, and give the sum of their y values.
    """
    shown = ", ".join(f"({x}, {y})" for x, y in found)
    reference = f"""
        The fundamental unit of x² - {d}y² = 1 is {x1} + {y1}√{d} (from the continued fraction of √{d}).
        Every solution of x² - {d}y² = {n} is ± a unit power times a fundamental solution, and those have
        y ≤ {y1}·√({n}/(2·({x1}+1)));
        the search there finds {len(reps) // 2} values of y, each giving (x, y) and (x, -y). Multiplying by the
        unit up to y ≤ {bound:,}, the solutions are {shown}.

        The sum of their y values is **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": 12, "search": bound, "traps": len(set(traps) - {answer})}
    notes = f"""x² - {d}y² = {n}: needs the fundamental unit ({x1}, {y1}) from the continued fraction of √{d},
        every fundamental solution below Nagell's bound (the classes of (x, y) and (x, -y) differ), then
        each class multiplied up to y ≤ {bound:,} ({len(found)} solutions). Traps: the smallest
        solution's class only ({traps[0]}), primitive solutions only ({traps[1]}), the classes of (x, -y)
        forgotten ({traps[2]}), the last solution below the bound dropped ({traps[3]})."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, D=d, N=n, BOUND=bound), reference=reference, notes=notes,
        max_tokens=32768, title=f"x² - {d}y² = {n} up to y = {bound}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
