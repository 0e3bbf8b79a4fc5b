"""MA-billiard: a point ball leaves a corner of a p x q table at 45° to the sides, bounces off the cushions
and stops at the first corner it reaches. How many times does it bounce, how many points does its path
cross itself at, or how many grid points (whole-number coordinates) does it pass over? The idea is unfolding:
reflect the table instead of the ball, so the path is the straight line y = x through copies of the table,
ending at the first corner L = lcm(p, q); with p = g·a, q = g·b (a, b coprime) the path is the a x b path
scaled by g, it bounces a + b - 2 times, and two times t, t' meet at one point exactly when t' ≡ t (mod 2a)
and t' ≡ -t (mod 2b) (or the other way round), which happens (a - 1)(b - 1)/2 times. The generator uses
those formulas; the solver folds every whole time step back onto the table and counts."""

from math import gcd

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import tier_of

FAMILY = "MA-billiard"

SOLVER = """
from math import gcd
p, q = WIDTH, HEIGHT

def fold(t, side):  # where the unfolded coordinate t lands on a side of this length
    r = t % (2 * side)
    return r if r <= side else 2 * side - r

corners = {(0, 0), (p, 0), (0, q), (p, q)}
visits, bounces, t = {}, 0, 0
while True:
    point = (fold(t, p), fold(t, q))
    visits[point] = visits.get(point, 0) + 1
    if t > 0 and point in corners:
        break
    if t > 0 and (point[0] in (0, p) or point[1] in (0, q)):
        bounces += 1
    t += 1
crossings = sum(1 for v in visits.values() if v > 1)
print({"bounces": bounces, "crossings": crossings, "points": len(visits)}[ASK])
"""


def _case(rng, index):
    ask = {1: "bounces", 2: "crossings", 3: "points"}[index]
    while True:
        g = rng.randrange(2, 7)
        a, b = rng.randrange(7, 40), rng.randrange(7, 40)
        if a < b and gcd(a, b) == 1 and g * b <= 180 and g * a * b >= 1000:
            break
    p, q = g * a, g * b
    span = g * a * b
    crossings = (a - 1) * (b - 1) // 2
    answer = {"bounces": a + b - 2, "crossings": crossings, "points": span + 1 - crossings}[ask]
    if ask == "bounces":
        traps = [p + q - 2, a + b, p + q - gcd(p, q)]
        words = ["p + q - 2 (the common factor not taken out)", "the corner counted as bounces",
                 "p + q - gcd(p, q), the grid-diagonal formula"]
        question = "How many times does the ball bounce off a side before it stops?"
    elif ask == "crossings":
        traps = [(p - 1) * (q - 1) // 2, (a - 1) * (b - 1), a * b // 2]
        words = ["(p - 1)(q - 1)/2 (the common factor not taken out)", "each crossing counted twice",
                 "ab/2"]
        question = ("At how many points (inside the table or on its sides) does the ball's path cross or touch "
                    "itself, that is, pass over a point it had already passed?")
    else:
        traps = [span + 1, span + 1 - 2 * crossings, span - crossings]
        words = ["the crossings not subtracted", "each crossing subtracted twice",
                 "an end point left out"]
        question = ("Put the table's corner at (0, 0) with its sides along the axes. How many different points "
                    "with whole-number coordinates does the ball pass over, from its start to its stop (both "
                    "included)?")
    prompt = f"""
        A billiard table is a {p} by {q} rectangle. A ball (a point) is shot from one corner at 45° to the sides.
        It bounces off the sides, the angle out equal to the angle in, and stops as soon as it reaches a corner.
        {question}
    """
    tail = "" if ask != "points" else (
        f"The path passes {span + 1} whole-number points with repeats, so {span + 1} - {crossings} = {answer} "
        f"different ones.")
    reference = f"""
        Unfold the table: reflect the table rather than the ball, and the path becomes the straight line y = x,
        which first meets a corner of a copy at x = lcm({p}, {q}) = {span}. With gcd {g}, the table is {g}
        times an {a} by {b} table (and {a}, {b} are coprime), and the path is that table's path scaled by {g}.
        It crosses {b - 1} vertical and {a - 1} horizontal copy borders, so it bounces {a + b - 2} times.
        Two whole time steps t < t' land on one point exactly when t' ≡ t modulo one doubled side and
        t' ≡ -t modulo the other; counting those pairs gives ({a} - 1)({b} - 1)/2 = {crossings} crossing
        points, each passed twice. {tail}

        Answer: {answer}
    """
    hardness = {"steps": {"bounces": 3, "crossings": 5, "points": 6}[ask], "search": span,
                "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""A {p} x {q} table: the path has {span} diagonal steps, too many to trace, so it needs unfolding,
        the common factor {g} taken out{', and the crossing condition counted by pairs of residues' if ask !=
        'bounces' else ''}. A 27-32B model tends to use p and q without taking out the common factor. Traps:
        {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, WIDTH=p, HEIGHT=q, ASK=ask), reference=reference, notes=notes,
        max_tokens=32768 if tier_of(hardness) == "hard" else 16384, title=f"A billiard ball on a {p} x {q} table")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
