"""MA-eisenstein: integer-sided triangles with a 120° angle (or a 60° angle) and bounded perimeter or
longest side; how many are there? The idea is the parametrisation of c² = a² + ab + b²: the primitive
solutions are a = m² - n², b = 2mn + n², c = m² + mn + n² with gcd(m, n) = 1 and m ≢ n (mod 3), of
perimeter (2m + n)(m + n), and every 120° triangle (a, b, c) gives two 60° triangles (a, a + b, c) and
(b, a + b, c), the equilateral ones coming on top. The generator sums ⌊bound / size⌋ over primitive
triples; the solver tries every pair of sides next to the angle and tests c for a whole square root."""

from math import gcd

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-eisenstein"

SOLVER = """
from math import isqrt
count = 0
limit = BOUND
for a in range(1, limit + 1):
    # the two sides next to the angle, a <= b (a < b for 60°: a = b there is equilateral, added below)
    for b in range(a + (ANGLE == 60), limit + 1):
        if MEASURE == "perimeter" and a + b >= limit:
            break
        square = a * a + b * b + (a * b if ANGLE == 120 else -a * b)
        c = isqrt(square)
        if c * c == square and (a + b + c if MEASURE == "perimeter" else max(a, b, c)) <= limit:
            count += 1
if ANGLE == 60:
    count += limit // 3 if MEASURE == "perimeter" else limit  # equilateral triangles
print(count)
"""


def primitive_120(limit):
    """Primitive (a, b, c), a < b, with c^2 = a^2 + ab + b^2 and c <= limit."""
    out, m = [], 2
    while m * m <= limit:
        for n in range(1, m):
            if gcd(m, n) == 1 and (m - n) % 3:
                a, b, c = m * m - n * n, 2 * m * n + n * n, m * m + m * n + n * n
                if c <= limit:
                    out.append((min(a, b), max(a, b), c))
        m += 1
    return out


def count(limit, angle, measure, equilateral=True, both=True, multiples=True):
    def size(t):
        return sum(t) if measure == "perimeter" else max(t)
    total = 0
    for a, b, c in primitive_120(limit):
        shapes = [(a, b, c)] if angle == 120 else ([(a, a + b, c), (b, a + b, c)] if both else [(a, a + b, c)])
        for t in shapes:
            total += limit // size(t) if multiples else int(size(t) <= limit)
    if angle == 60 and equilateral:
        total += limit // 3 if measure == "perimeter" else limit
    return total


VARIANTS = {1: (120, "perimeter"), 2: (60, "perimeter"), 3: (120, "longest")}


def _case(rng, index):
    angle, measure = VARIANTS[index]
    limit = rng.randrange(600, 1100) if measure == "perimeter" else rng.randrange(300, 600)
    answer = count(limit, angle, measure)
    if angle == 60:
        traps = [count(limit, 60, measure, equilateral=False), count(limit, 60, measure, both=False),
                 count(limit, 60, measure, multiples=False)]
        words = ["the equilateral triangles forgotten", "one 60° triangle per 120° triple", "primitive ones only"]
    else:
        traps = [count(limit, 120, measure, multiples=False), 2 * answer,
                 count(limit, 120, "perimeter" if measure == "longest" else "longest")]
        words = ["primitive ones only", "both orders of the legs counted",
                 "the bound read as a bound on the longest side" if measure == "perimeter" else
                 "the bound read as a bound on the perimeter"]
    bound = f"perimeter at most {limit}" if measure == "perimeter" else f"longest side at most {limit}"
    prompt = f"""
        How many triangles with integer side lengths and {bound} have an angle of exactly {angle}°?
        Congruent triangles count once{' (equilateral triangles count too)' if angle == 60 else ''}.
    """
    parts = ("Each 120° triangle (a, b, c) gives two 60° triangles, (a, a + b, c) and (b, a + b, c), and "
             "every non-equilateral 60° triangle arises once this way; the equilateral ones add "
             f"{limit // 3 if measure == 'perimeter' else limit}. " if angle == 60 else "")
    size = "perimeter (2m + n)(m + n)" if measure == "perimeter" else "longest side m² + mn + n²"
    reference = f"""
        A 120° angle opposite c means c² = a² + ab + b². The primitive solutions are a = m² - n², b = 2mn + n²,
        c = m² + mn + n² with m > n ≥ 1, gcd(m, n) = 1 and m - n not divisible by 3, of {size}; every solution
        is a multiple of one. {parts}Adding ⌊{limit} / size⌋ over the primitive triples gives **{answer:,}**.

        Answer: {answer}
    """
    relevant = count(limit, angle, measure, equilateral=False, multiples=False)
    hardness = {"steps": 8, "search": limit * limit // 2, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""Integer triangles with a {angle}° angle and {bound}: about {limit * limit // 2:,} side pairs to
        try, so the count needs the Eisenstein-triple parametrisation with its coprimality and mod-3
        conditions, {'the 120°-to-60° doubling and the equilateral family, ' if angle == 60 else ''}then a sum
        of ⌊bound / size⌋ over {relevant} primitive {'shapes' if angle == 60 else 'triples'} within the bound.
        Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, BOUND=limit, ANGLE=angle, MEASURE=measure), reference=reference, notes=notes,
        max_tokens=32768, title=f"Integer triangles with a {angle}° angle, {bound}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
