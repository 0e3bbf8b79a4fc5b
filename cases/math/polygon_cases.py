"""MA-pick: lattice points strictly inside a generated simple polygon (often not convex), either all
of them or only those with x + y even. The generator uses the shoelace area, edge gcds and Pick's
theorem (on the sublattice x + y even after the change u = (x + y)/2, v = (x - y)/2); the solver
tests every point of the bounding box."""

from math import atan2, gcd

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import declare

FAMILY = "MA-pick"

SOLVER = """
def on_side(px, py):
    for (x1, y1), (x2, y2) in zip(CORNERS, CORNERS[1:] + CORNERS[:1]):
        if (x2 - x1) * (py - y1) == (y2 - y1) * (px - x1) \\
                and min(x1, x2) <= px <= max(x1, x2) and min(y1, y2) <= py <= max(y1, y2):
            return True
    return False

def inside(px, py):
    crossings = 0
    for (x1, y1), (x2, y2) in zip(CORNERS, CORNERS[1:] + CORNERS[:1]):
        if (y1 > py) != (y2 > py):
            # does the side cross the horizontal ray to the right of the point?
            left = (px - x1) * (y2 - y1)
            right = (py - y1) * (x2 - x1)
            if (left < right) if y2 > y1 else (left > right):
                crossings += 1
    return crossings % 2 == 1

xs = [x for x, _ in CORNERS]
ys = [y for _, y in CORNERS]
count = 0
for px in range(min(xs), max(xs) + 1):
    for py in range(min(ys), max(ys) + 1):
        if (not EVEN_ONLY or (px + py) % 2 == 0) and inside(px, py) and not on_side(px, py):
            count += 1
print(count)
"""


def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _segments_touch(p, q, r, s):
    def on(a, b, c):
        return min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])
    d1, d2, d3, d4 = _cross(r, s, p), _cross(r, s, q), _cross(p, q, r), _cross(p, q, s)
    if ((d1 > 0) != (d2 > 0)) and ((d3 > 0) != (d4 > 0)) and 0 not in (d1, d2, d3, d4):
        return True
    return (d1 == 0 and on(r, s, p)) or (d2 == 0 and on(r, s, q)) or (d3 == 0 and on(p, q, r)) \
        or (d4 == 0 and on(p, q, s))


def _simple(corners):
    n = len(corners)
    sides = [(corners[i], corners[(i + 1) % n]) for i in range(n)]
    for i in range(n):
        if _cross(corners[i - 1], corners[i], corners[(i + 1) % n]) == 0:
            return False  # a straight angle: not a corner
        for j in range(i + 1, n):
            if j == i + 1 or (i == 0 and j == n - 1):
                continue
            if _segments_touch(*sides[i], *sides[j]):
                return False
    return True


def _polygon(rng, corners, reach, even):
    while True:
        points = set()
        while len(points) < corners:
            x, y = rng.randint(-reach, reach), rng.randint(-reach, reach)
            if not even or (x + y) % 2 == 0:
                points.add((x, y))
        cx = sum(x for x, _ in points) / corners + rng.uniform(-0.3, 0.3)
        cy = sum(y for _, y in points) / corners + rng.uniform(-0.3, 0.3)
        ordered = sorted(points, key=lambda p: atan2(p[1] - cy, p[0] - cx))
        twice_area = abs(sum(_cross((0, 0), a, b) for a, b in zip(ordered, ordered[1:] + ordered[:1])))
        if _simple(ordered) and twice_area >= reach * reach:
            return ordered


def interior_points(corners, even):
    """Pick's theorem: 2A = 2I + B - 2, on the plain lattice or on the lattice x + y even."""
    if even:  # (x, y) -> ((x + y) / 2, (x - y) / 2) maps the sublattice onto the plain lattice
        corners = [((x + y) // 2, (x - y) // 2) for x, y in corners]
    pairs = list(zip(corners, corners[1:] + corners[:1]))
    twice_area = abs(sum(_cross((0, 0), a, b) for a, b in pairs))
    boundary = sum(gcd(b[0] - a[0], b[1] - a[1]) for a, b in pairs)
    return (twice_area - boundary + 2) // 2, boundary, twice_area


def _case(rng, index, corners, reach, even, difficulty):
    shape = _polygon(rng, corners, reach, even)
    inner, boundary, twice_area = interior_points(shape, even)
    naive = (twice_area - corners + 2) // 2  # only the corners counted as boundary points
    traps = [inner + boundary, naive]
    if even:
        plain, _, plain_twice = interior_points(shape, False)
        traps += [plain, plain // 2]
    listed = ", ".join(f"({x}, {y})" for x, y in shape)
    which = ("points (x, y) with x and y integers and x + y even" if even
             else "points with both coordinates integers")
    prompt = f"""
        A polygon has its corners at these points, listed in order around it:
        {listed}.
        Its sides join each corner to the next one, and the last corner to the first. The polygon may
        not be convex. How many {which} lie strictly inside the polygon (not on a side)?
    """
    if even:
        moved = ", ".join(f"({(x + y) // 2}, {(x - y) // 2})" for x, y in shape)
        reference = f"""
            Points with x + y even are exactly the images of integer points (u, v) under x = u + v,
            y = u - v, so map the corners by u = (x + y)/2, v = (x - y)/2: {moved}.
            In (u, v) the shoelace formula gives twice the area {twice_area}, and the sides hold
            {boundary} lattice points (the sum of the gcds of the side vectors).
            By Pick's theorem the interior count is ({twice_area} - {boundary} + 2) / 2 = {inner}.

            Answer: {inner}
        """
    else:
        reference = f"""
            **Area.** The shoelace formula gives 2A = {twice_area}.

            **Boundary.** Each side from (x1, y1) to (x2, y2) holds gcd(|x2 - x1|, |y2 - y1|) lattice
            points besides its start, {boundary} in total.

            **Pick's theorem.** A = I + B/2 - 1, so I = ({twice_area} - {boundary} + 2) / 2 = {inner}.

            Answer: {inner}
        """
    notes = f"""A {corners}-corner polygon{' that is not convex' if not _convex(shape) else ''} spanning
        about {2 * reach} units each way: counting row by row means {2 * reach} rows of exact crossing
        points; the short road is the
        shoelace area (sums of {corners} products of two-digit numbers), a gcd per side and Pick's
        theorem{', applied on the lattice x + y even after a change of coordinates the model must find' if even else ''}.
        Traps: counting boundary points too ({inner + boundary}), taking only the corners as the
        boundary ({naive}){', counting all lattice points or halving them' if even else ''}."""
    return numeric_case(
        family=FAMILY, index=index, difficulty=difficulty, prompt=prompt, answer=inner, traps=traps,
        solver=program(SOLVER, CORNERS=shape, EVEN_ONLY=even), reference=reference, notes=notes,
        max_tokens=16384, title=f"Interior lattice points of a {corners}-corner polygon"
                                + (" (x + y even)" if even else ""))


def _convex(shape):
    n = len(shape)
    signs = {_cross(shape[i - 1], shape[i], shape[(i + 1) % n]) > 0 for i in range(n)}
    return len(signs) == 1


# Hardness facts (steps, search, traps) per shape: shoelace, a gcd per side, Pick's theorem; brute force tests
# every lattice point of the box.
HARDNESS = {"medium": (7, 2500, 2), "hard": (10, 10000, 2)}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    plan = [(4, 25, False, "medium"), (6, 70, False, "hard"), (7, 80, False, "hard"),
            (5, 60, True, "hard"), (6, 70, True, "hard"), (7, 80, False, "hard")]
    out = [_case(rng, i, corners, reach, even, difficulty)
            for i, (corners, reach, even, difficulty) in enumerate(plan, 1)]
    for case in out:  # the plan's label names the shape (shorter or longer); the rule gives the tier
        declare(case, *HARDNESS[case["difficulty"]])
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
