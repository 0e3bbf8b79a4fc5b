"""MA-reach: a token on the integer grid moves by plus or minus one of three generated vectors; how many
points of a square box can it reach? The idea is the invariant: the reachable set is the lattice the
vectors span, described by two congruences (its Hermite normal form). The generator counts lattice
points column by column from those congruences; the solver walks the moves breadth-first in a wider box."""

from math import gcd

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-reach"

SOLVER = """
from collections import deque
pad = 60
side = RADIUS + pad
steps = [s for v in VECTORS for s in (v, (-v[0], -v[1]))]
seen = {(0, 0)}
todo = deque([(0, 0)])
while todo:
    x, y = todo.popleft()
    for dx, dy in steps:
        nx, ny = x + dx, y + dy
        if -side <= nx <= side and -side <= ny <= side and (nx, ny) not in seen:
            seen.add((nx, ny))
            todo.append((nx, ny))
print(sum(1 for x, y in seen if -RADIUS <= x <= RADIUS and -RADIUS <= y <= RADIUS))
"""


def hermite(vectors):
    """(p, q, r): the lattice the vectors span is {(x, y): p | x and y = (x / p) * q (mod r)}."""
    rows = [list(v) for v in vectors]
    while sum(1 for v in rows if v[0]) > 1:  # Euclid on the first coordinates, row operations only
        rows.sort(key=lambda v: (v[0] == 0, abs(v[0])))
        pivot = rows[0]
        for v in rows[1:]:
            if v[0]:
                k = v[0] // pivot[0]
                v[0], v[1] = v[0] - k * pivot[0], v[1] - k * pivot[1]
    pivot = next(v for v in rows if v[0])
    if pivot[0] < 0:
        pivot = [-pivot[0], -pivot[1]]
    r = 0
    for v in rows:
        if not v[0]:
            r = gcd(r, v[1])
    return pivot[0], pivot[1] % r, r


def _in_range(low, high, residue, modulus):
    return (high - residue) // modulus - (low - 1 - residue) // modulus


def lattice_count(vectors, radius):
    p, q, r = hermite(vectors)
    first = -(radius // p) * p
    return sum(_in_range(-radius, radius, (x // p) * q % r, r) for x in range(first, radius + 1, p))


def _vectors(rng, size):
    while True:
        vectors = [(rng.randint(-9, 9), rng.randint(-9, 9)) for _ in range(size)]
        (a, b), (c, d) = vectors[:2]
        if any(0 in v for v in vectors) or a * d == b * c:
            continue  # the first two span the plane, so every lattice here has finite index
        p, q, r = hermite(vectors)
        index = p * r
        coarse = gcd(*(v[0] for v in vectors)) * gcd(*(v[1] for v in vectors))
        two = hermite(vectors[:2])
        if 5 <= index <= 40 and q != 0 and coarse < index and two[0] * two[2] != index:
            return vectors, index, coarse


def _case(rng, index, difficulty):
    vectors, lattice_index, coarse = _vectors(rng, 3)
    radius = rng.randrange(60, 160)
    answer = lattice_count(vectors, radius)
    box = (2 * radius + 1) ** 2
    gx, gy = gcd(*(v[0] for v in vectors)), gcd(*(v[1] for v in vectors))
    coarse_count = (2 * (radius // gx) + 1) * (2 * (radius // gy) + 1)
    traps = [box // lattice_index, coarse_count, lattice_count(vectors[:2], radius), box]
    listed = ", ".join(f"({a}, {b})" for a, b in vectors)
    p, q, r = hermite(vectors)
    prompt = f"""
        A token starts at the point (0, 0) of the integer grid. In one move it adds to its position,
        or subtracts from it, any one of the three vectors {listed}. It may make any number of moves,
        in any order, and may wander as far as it likes between moves. How many points (x, y) with
        -{radius} ≤ x ≤ {radius} and -{radius} ≤ y ≤ {radius} can the token reach (the start
        (0, 0) counts)?
    """
    reference = f"""
        The reachable points are exactly the integer combinations of the three vectors, a lattice.
        Row-reducing the vectors (integer operations only) gives the basis ({p}, {q}) and (0, {r}),
        so the lattice has index {lattice_index} and a point (x, y) is reachable exactly when {p}
        divides x and y ≡ (x/{p})·{q} (mod {r}).

        For each allowed x in [-{radius}, {radius}], count the y in the same range in the required
        residue class mod {r}, and add up the columns: **{answer:,}** points.

        Answer: {answer}
    """
    hardness = {"steps": 9, "search": box, "traps": len(set(traps) - {answer})}
    notes = f"""The idea is the invariant: reachable = the lattice spanned by the vectors, which needs a
        row reduction to its Hermite form (index {lattice_index}, congruences x ≡ 0 mod {p},
        y ≡ {q}·x/{p} mod {r}), then an exact count of {2 * (radius // p) + 1} columns of a
        {2 * radius + 1}-wide box, each a residue class mod {r} with its own boundary. Traps:
        the density estimate {box}/{lattice_index} ({traps[0]}), only the coordinate gcds
        {gx} and {gy} ({traps[1]}), the lattice of the first two vectors ({traps[2]}), every
        point ({box})."""
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, VECTORS=vectors, RADIUS=radius), reference=reference, notes=notes,
        max_tokens=32768, title=f"Points of a box reachable with moves {listed}")
    return case


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i, "hard") for i in range(1, 5)]
