"""MA-gridlines: the points of a W x H lattice rectangle: how many triangles have three of them as corners,
how many different straight lines pass through at least two of them, or how many sets of four of them lie on
one line? The idea is to count collinear sets by their two extreme points: a pair whose difference is (a, b)
has gcd(a, b) - 1 lattice points strictly between, so collinear triples are Σ (gcd - 1) and quadruples
Σ C(gcd - 1, 2) over pairs, with (W - a)(H - b) pairs per difference (twice when the slope can be either
sign); a line in a primitive direction v is counted once by its first point p (p + v inside, p - v outside).
The generator sums over differences; the solver takes every triple, or groups the points line by line."""

from math import comb, gcd

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-gridlines"

SOLVER = """
from itertools import combinations
from math import comb, gcd
points = [(x, y) for x in range(W) for y in range(H)]
if ASK == "triangles":
    print(sum(1 for (x1, y1), (x2, y2), (x3, y3) in combinations(points, 3)
              if (x2 - x1) * (y3 - y1) != (x3 - x1) * (y2 - y1)))
else:
    lines = {}
    for (x1, y1), (x2, y2) in combinations(points, 2):
        a, b = y2 - y1, x1 - x2
        g = gcd(a, b)
        a, b = a // g, b // g
        if a < 0 or (a == 0 and b < 0):
            a, b = -a, -b
        lines.setdefault((a, b, a * x1 + b * y1), set()).update({(x1, y1), (x2, y2)})
    print(len(lines) if ASK == "lines" else sum(comb(len(s), 4) for s in lines.values()))
"""


def differences(w, h):
    """(a, b, number of point pairs with that difference up to order), a, b >= 0 and not both 0."""
    for a in range(w):
        for b in range(h):
            if a or b:
                yield a, b, (w - a) * (h - b) * (2 if a and b else 1)


def count_lines(w, h, primitive=True, doubled=True):
    out = 0
    for a, b, _ in differences(w, h):
        if primitive and gcd(a, b) != 1:
            continue
        first = (w - a) * (h - b) - max(w - 2 * a, 0) * max(h - 2 * b, 0)
        out += first * (2 if a and b and doubled else 1)
    return out


def _axis(w, h, size):
    """Collinear sets along rows and columns only."""
    return h * comb(w, size) + w * comb(h, size)


def _case(rng, index):
    ask = {1: "triangles", 2: "lines", 3: "quadruples"}[index]
    w = rng.randrange(5, 8)
    h = rng.randrange(w + 1, 10)
    n = w * h
    triples = sum(cnt * (gcd(a, b) - 1) for a, b, cnt in differences(w, h))
    quads = sum(cnt * comb(gcd(a, b) - 1, 2) for a, b, cnt in differences(w, h))
    diag3 = sum(cnt * (gcd(a, b) - 1) for a, b, cnt in differences(w, h) if a == 0 or b == 0 or a == b)
    if ask == "triangles":
        answer = comb(n, 3) - triples
        traps = [comb(n, 3) - _axis(w, h, 3), comb(n, 3) - diag3, comb(n, 3)]
        words = ["only rows and columns taken out", "only rows, columns and 45° lines taken out",
                 "every triple of points"]
        question = "How many triangles (of positive area) have three of these points as corners?"
    elif ask == "lines":
        answer = count_lines(w, h)
        traps = [comb(n, 2), count_lines(w, h, primitive=False), count_lines(w, h, doubled=False)]
        words = ["one line per pair of points", "every difference taken as a direction (not only primitive ones)",
                 "slopes of one sign only"]
        question = "How many different straight lines pass through at least two of these points?"
    else:
        answer = quads
        axis4 = _axis(w, h, 4)
        traps = [axis4, sum(cnt * comb(gcd(a, b), 2) for a, b, cnt in differences(w, h)),
                 sum(cnt * comb(gcd(a, b) - 1, 2) for a, b, cnt in differences(w, h) if not a or not b or a == b)]
        words = ["rows and columns only", "C(gcd, 2) in place of C(gcd - 1, 2)", "rows, columns and 45° lines only"]
        question = "How many sets of four of these points lie on one straight line?"
    prompt = f"""
        Consider the {n} points (x, y) with whole-number coordinates 0 ≤ x ≤ {w - 1} and 0 ≤ y ≤ {h - 1}.
        {question}
    """
    if ask == "triangles":
        work = (f"C({n}, 3) = {comb(n, 3)} triples minus the collinear ones. A collinear triple is fixed by "
                f"its two outer points: a pair with difference (a, b) has gcd(a, b) - 1 points between them, and "
                f"there are (W - a)(H - b) such pairs (twice when a, b > 0, for both slopes), which adds up to "
                f"{triples} collinear triples, leaving {answer}")
    elif ask == "lines":
        work = ("each line has a primitive direction v = (a, b) with gcd 1 and a first point p with p + v in "
                "the grid and p - v outside: (W - a)(H - b) - (W - 2a)⁺(H - 2b)⁺ lines per direction, twice "
                f"for a, b > 0; the sum is {answer}")
    else:
        work = ("fix the two outer points of the four: a pair with difference (a, b) has gcd(a, b) - 1 points "
                "between them, of which two are chosen, C(gcd - 1, 2), with (W - a)(H - b) pairs per difference "
                f"(twice for a, b > 0); the sum is {answer}")
    reference = f"""
        Count {work}.

        Answer: {answer}
    """
    size = {"triangles": 3, "lines": 2, "quadruples": 4}[ask]
    hardness = {"steps": 8, "search": comb(n, size), "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w_} ({t})" for w_, t in zip(words, traps, strict=True))
    notes = f"""A {w} x {h} grid of {n} points: {comb(n, size)} sets of {size} points cannot be checked one
        by one; the count
        needs the extreme-pair (or first-point) idea and a sum over about {w * h} differences with gcds, where
        sloped lines such as (1, 2) or (2, 3) are easy to miss. A 27-32B model tends to take out only rows,
        columns and diagonals. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, W=w, H=h, ASK=ask), reference=reference, notes=notes,
        max_tokens=32768, title=f"Lines and triangles on a {w} x {h} grid")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
