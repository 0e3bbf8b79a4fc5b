"""MA-gridsquares: squares of any orientation whose four corners are points of an m x n lattice rectangle;
how many there are, how many are tilted, or the sum of their areas. The idea is the bijection with
axis-parallel boxes: every square sits in one smallest axis-parallel s x s box with its corners on the
box's sides, and each s x s box holds exactly s such squares (one per split s = t + (s - t) of the side),
so the count is Σ_s (m - s + 1)(n - s + 1)·s. The generator sums over s; the solver tries every corner and
every side vector and checks the four corners."""

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-gridsquares"

SOLVER = """
total = 0
for x in range(M + 1):
    for y in range(N + 1):
        for a in range(1, M - x + 1):       # side vector (a, b) with a > 0, b >= 0: one per square
            for b in range(0, min(N - y, x) + 1):
                corners = [(x + a, y + b), (x + a - b, y + b + a), (x - b, y + a)]
                if all(0 <= u <= M and 0 <= v <= N for u, v in corners):
                    if ASK == "all":
                        total += 1
                    elif ASK == "tilted":
                        total += b > 0
                    else:
                        total += a * a + b * b
print(total)
"""


def summed(m, n, ask):
    total = 0
    for s in range(1, min(m, n) + 1):
        boxes = (m - s + 1) * (n - s + 1)
        if ask == "all":
            total += boxes * s
        elif ask == "tilted":
            total += boxes * (s - 1)
        else:
            total += boxes * sum(t * t + (s - t) ** 2 for t in range(s))
    return total


ASKS = {1: "all", 2: "tilted", 3: "area"}


def _case(rng, index):
    ask = ASKS[index]
    m, n = rng.randrange(12, 26), rng.randrange(12, 26)
    answer = summed(m, n, ask)
    upright = sum((m - s + 1) * (n - s + 1) for s in range(1, min(m, n) + 1))
    upright_area = sum((m - s + 1) * (n - s + 1) * s * s for s in range(1, min(m, n) + 1))
    if ask == "all":
        diagonal = sum((m - s + 1) * (n - s + 1) for s in range(2, min(m, n) + 1, 2))
        # (m - 1) x (n - 1) read as points gives the tilted count again, so it is no separate trap
        traps = [upright, summed(m, n, "tilted"), upright + diagonal]
        words = ["axis-parallel squares only", "tilted squares only", "axis-parallel and 45-degree squares only"]
    elif ask == "tilted":
        traps = [summed(m, n, "all"), summed(m, n, "all") - upright + min(m, n), summed(m - 1, n - 1, "tilted")]
        words = ["all squares", "only the 45-degree squares removed", "m x n read as the number of points"]
    else:
        traps = [upright_area, summed(m, n, "all"), summed(m - 1, n - 1, "area")]
        words = ["axis-parallel squares' areas only", "the number of squares", "m x n read as the number of points"]
    asked = {"all": "How many squares (of any orientation) have all four corners among these points?",
             "tilted": "How many squares whose sides are not parallel to the axes have all four corners among "
                       "these points?",
             "area": "Add up the areas of all the squares (of any orientation) that have all four corners among "
                     "these points. What is the total?"}[ask]
    prompt = f"""
        Consider the {(m + 1) * (n + 1)} points (x, y) with integers 0 ≤ x ≤ {m} and 0 ≤ y ≤ {n}. {asked}
    """
    per_box = {"all": "s squares", "tilted": "s - 1 tilted ones",
               "area": "squares of areas t² + (s-t)² for t = 0..s-1"}[ask]
    reference = f"""
        Each such square fits in a smallest axis-parallel s x s box, its corners on the box's four sides at
        the same offset t from the box's corners (0 ≤ t < s). So an s x s box holds {per_box}, and there are
        ({m} - s + 1)({n} - s + 1) boxes of side s. Summing over s = 1..{min(m, n)} gives **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": 4, "search": (m + 1) * (n + 1) * min(m, n) ** 2, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""A {m} x {n} lattice rectangle: the count needs the inscribed-square bijection (s squares per s x s
        box) and a sum over {min(m, n)} box sizes. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, M=m, N=n, ASK=ask), reference=reference, notes=notes,
        max_tokens=16384, title=f"Squares on a {m} x {n} lattice rectangle ({ask})")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
