"""MA-cubes: a block built of unit cubes and a straight segment through it (the block's long diagonal, or a
segment between two marked points); how many unit cubes does it pass through the inside of, or how many
does it touch at all (a face, an edge or a corner counts)? The idea is to count the crossings: moving along
the segment it enters a new cube each time a coordinate becomes whole, and times when two or three
coordinates are whole at once (gcd(a, b) - 1 of them for each pair, gcd(a, b, c) - 1 for all three) are one
crossing, so inclusion-exclusion gives a + b + c - gcd(a, b) - gcd(b, c) - gcd(c, a) + gcd(a, b, c); at an
edge the segment touches 2 more cubes, at a corner 6 more. The generator uses those counts; the solver
clips the segment against every unit cube near it in exact arithmetic."""

from math import gcd

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "MA-cubes"

SOLVER = """
from fractions import Fraction
from math import ceil, floor
start, end = START, END
d = [e - s for s, e in zip(start, end)]
inside = touched = 0
ranges = [range(min(s, e), max(s, e)) for s, e in zip(start, end)]

def window(axis, cell):  # the times t in [0, 1] when the coordinate is within [cell, cell + 1]
    if d[axis] == 0:
        return (Fraction(0), Fraction(1)) if cell <= start[axis] <= cell + 1 else None
    lo = Fraction(cell - start[axis], d[axis])
    hi = Fraction(cell + 1 - start[axis], d[axis])
    return (min(lo, hi), max(lo, hi))

for i in ranges[0]:
    wi = window(0, i)
    for j in ranges[1]:
        wj = window(1, j)
        lo, hi = max(wi[0], wj[0], 0), min(wi[1], wj[1], 1)
        if lo > hi:
            continue
        for k in ranges[2]:
            wk = window(2, k)
            a, b = max(lo, wk[0]), min(hi, wk[1])
            if a <= b:
                touched += 1
                inside += a < b
print(inside if ASK == "inside" else touched)
"""


def _case(rng, index):
    ask = "touched" if index == 2 else "inside"
    while True:
        g = rng.randrange(2, 6)
        base = [rng.randrange(2, 9) for _ in range(3)]
        dims = [g * b * rng.choice([1, 1, 2, 3]) for b in base]
        if len(set(dims)) == 3 and max(dims) <= 48 and gcd(dims[0], dims[1]) != gcd(dims[1], dims[2]):
            break
    a, b, c = dims
    if index == 3:
        start = [rng.randrange(0, 6) for _ in range(3)]
        end = [s + v for s, v in zip(start, dims, strict=True)]
        flip = rng.randrange(3)
        start[flip], end[flip] = end[flip], start[flip]
        block = [max(s, e) + rng.randrange(1, 4) for s, e in zip(start, end, strict=True)]
    else:
        start, end, block = [0, 0, 0], list(dims), list(dims)
    pairs = gcd(a, b) + gcd(b, c) + gcd(c, a)
    g3 = gcd(gcd(a, b), c)
    inside = a + b + c - pairs + g3
    touched = inside + 2 * (pairs - 3 * g3) + 6 * (g3 - 1)
    answer = inside if ask == "inside" else touched
    if ask == "inside":
        traps = [a + b + c - 2, a + b + c - pairs, a + b + c - g3]
        words = ["a + b + c - 2 (every crossing taken apart)", "the gcd(a, b, c) term dropped",
                 "a + b + c - gcd(a, b, c)"]
    else:
        traps = [inside, inside + 2 * (pairs - 3), inside + (pairs - 3 * g3) + 3 * (g3 - 1)]
        words = ["only the cubes passed through", "2 per edge crossing but corners not counted apart",
                 "1 per edge and 3 per corner"]
    if index == 3:
        setting = (f"A solid block of {block[0]} x {block[1]} x {block[2]} unit cubes fills the box "
                   f"0 ≤ x ≤ {block[0]}, 0 ≤ y ≤ {block[1]}, 0 ≤ z ≤ {block[2]}. A straight wire runs from the point "
                   f"({start[0]}, {start[1]}, {start[2]}) to the point ({end[0]}, {end[1]}, {end[2]}).")
    else:
        setting = (f"A solid block of {a} x {b} x {c} unit cubes is pierced by a straight wire from one corner "
                   f"of the block to the opposite corner.")
    question = ("Through the inside of how many unit cubes does the wire pass?" if ask == "inside" else
                "How many unit cubes does the wire touch (passing through a cube, or only touching a face, an edge "
                "or a corner of it, all count)?")
    prompt = f"""
        {setting} {question}
    """
    steps_text = (f"the wire spans {a}, {b}, {c} units along the axes; it enters a new cube whenever a coordinate "
                  f"becomes whole, and simultaneous crossings merge: {a} + {b} + {c} - gcd({a}, {b}) - gcd({b}, {c}) - "
                  f"gcd({c}, {a}) + gcd({a}, {b}, {c}) = {inside} cubes passed through")
    extra = "" if ask == "inside" else (
        f"; at each of the {pairs - 3 * g3} inner points on an edge (two coordinates whole) it touches 2 more cubes "
        f"and at each of the {g3 - 1} inner lattice points 6 more, so {touched} cubes are touched")
    reference = f"""
        Count crossings: {steps_text}{extra}.

        Answer: {answer}
    """
    hardness = {"steps": 4 if ask == "inside" else 6, "search": a * b * c, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    more = "" if ask == "inside" else ", then the extra cubes met at edges and corners"
    notes = f"""A {a} x {b} x {c} stretch ({a * b * c} cubes): the count is inclusion-exclusion on whole-coordinate
        crossings with three pairwise gcds and a triple one{more}.
        A 27-32B model tends to drop the triple gcd or the touching cubes. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, START=start, END=end, ASK=ask), reference=reference, notes=notes,
        max_tokens=32768 if tier_of(hardness) == "hard" else 16384, title=f"A wire through {a} x {b} x {c} cubes")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
