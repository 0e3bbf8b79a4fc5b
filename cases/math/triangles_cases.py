"""MA-triangles: how many non-congruent triangles with integer sides and a generated perimeter are obtuse
(or acute), scalene or not. The generator fixes the longest side c, so the other two sum to P - c and
the angle condition a^2 + b^2 < c^2 (or >) cuts the shorter side at one point, found by bisection; the
solver tries every pair of shorter sides."""

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-triangles"
PYTHAGOREAN_PERIMETERS = [12, 30, 40, 56, 70, 84, 90]  # primitive right triangles: a right one exists for multiples

SOLVER = """
count = 0
for a in range(1, PERIMETER):
    for b in range(a, PERIMETER - a):
        c = PERIMETER - a - b
        if c < b or a + b <= c or (SCALENE and (a == b or b == c)):
            continue
        if (a * a + b * b < c * c) if OBTUSE else (a * a + b * b > c * c):
            count += 1
print(count)
"""


def _first(lo, hi, good):
    """The least x in [lo, hi] with good(x), for a condition that stays true once it holds; hi + 1 if none."""
    while lo <= hi:
        mid = (lo + hi) // 2
        if good(mid):
            hi = mid - 1
        else:
            lo = mid + 1
    return lo


def count(perimeter, obtuse, scalene, right_counts=False, degenerate=False):
    """Triangles a <= b <= c, by the longest side c; along a + b = P - c the sum a^2 + b^2 falls as a
    grows towards b, so the obtuse shorter sides a form a final segment and the acute ones a first one."""
    total = 0
    for c in range(1, perimeter):
        s = perimeter - c
        if s < c or (s == c and not degenerate):
            continue
        lo = max(1, s - c + (1 if scalene else 0))  # b = s - a must stay below (or at most) c
        hi = (s - 1) // 2 if scalene else s // 2     # a below (or at most) b
        if lo > hi:
            continue

        def is_obtuse(a, s=s, c=c):
            squares = a * a + (s - a) ** 2
            return squares < c * c or (right_counts and squares == c * c)
        first = _first(lo, hi, is_obtuse)
        if obtuse:
            total += hi - first + 1
        else:
            total += _first(lo, hi, lambda a, s=s, c=c: a * a + (s - a) ** 2 <= c * c - right_counts) - lo
    return total


def _case(rng, index, difficulty):
    obtuse, scalene = [(True, True), (False, True), (True, False), (False, False)][(index - 1) % 4]
    base = rng.choice(PYTHAGOREAN_PERIMETERS)
    perimeter = base * rng.randrange(max(2, 300 // base), 1100 // base)
    answer = count(perimeter, obtuse, scalene)
    traps = [count(perimeter, obtuse, scalene, right_counts=True), count(perimeter, obtuse, not scalene),
             count(perimeter, obtuse, scalene, degenerate=True),
             count(perimeter, True, scalene) + count(perimeter, False, scalene), 6 * answer]
    kind = "obtuse (one angle greater than 90°)" if obtuse else "acute (all three angles less than 90°)"
    sides = "all three sides of different lengths" if scalene else "sides that need not differ"
    prompt = f"""
        How many triangles are there with integer side lengths, perimeter {perimeter}, {sides}, that are
        {kind}? Triangles that are congruent (the same three side lengths in another order) count once,
        and the three sides must form a genuine triangle (no side as long as the other two together).
    """
    test = "a² + b² < c²" if obtuse else "a² + b² > c²"
    reference = f"""
        List triangles as a ≤ b ≤ c with a + b + c = {perimeter} and a + b > c, so c runs from
        {perimeter // 3} to {(perimeter - 1) // 2}. For a fixed c the shorter sides sum to s = {perimeter} - c,
        and along a + b = s the value a² + b² falls as a grows, so the condition {test} holds on one
        block of values of a, bounded by a root of a quadratic (right triangles excluded).
        Adding the block sizes over every c gives **{answer:,}** triangles.

        Answer: {answer}
    """
    hardness = {"steps": 9, "search": perimeter ** 2 // 48, "traps": len(set(traps) - {answer})}
    notes = f"""About {perimeter ** 2 // 48:,} triangles with perimeter {perimeter}; the count needs the
        angle condition turned into a bound on the shorter side for each of about {perimeter // 6}
        longest sides, with strict inequalities in three places. {perimeter} is a multiple of a
        Pythagorean perimeter, so right triangles exist. Traps: counting right triangles
        ({traps[0]}), the other scalene reading ({traps[1]}), letting a + b = c ({traps[2]}),
        dropping the angle condition ({traps[3]}), ordered triples ({traps[4]})."""
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, PERIMETER=perimeter, OBTUSE=obtuse, SCALENE=scalene), reference=reference,
        notes=notes, max_tokens=32768,
        title=f"{'Obtuse' if obtuse else 'Acute'}{' scalene' * scalene} integer triangles of perimeter {perimeter}")
    return case


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i, "hard") for i in range(1, 5)]
