"""MA-strip: walks of n steps of +1 or -1 that stay strictly between two walls and end at a given point
(or anywhere). The idea is the reflection principle applied over and over: the count is an alternating
sum of binomial coefficients over the images of the end point in both walls. The solver runs the walk
position by position."""

from math import comb

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-strip"

SOLVER = """
ways = {0: 1}
for _ in range(STEPS):
    nxt = {}
    for x, w in ways.items():
        for y in (x - 1, x + 1):
            if -LOW < y < HIGH:
                nxt[y] = nxt.get(y, 0) + w
    ways = nxt
print(sum(ways.values()) if END is None else ways.get(END, 0))
"""


def free(n, x):
    """Unconstrained walks of n steps from 0 to x."""
    return comb(n, (n + x) // 2) if abs(x) <= n and (n + x) % 2 == 0 else 0


def strip(n, low, high, end, orders=None):
    """Walks from 0 to `end` that never touch -low or high: images in both walls, reflected `orders`
    times at most (None: all of them)."""
    width = low + high
    total = 0
    for k in range(-(n // width) - 1, n // width + 2):
        if orders is not None and abs(k) > orders:
            continue
        total += free(n, end + 2 * k * width) - free(n, 2 * high - end + 2 * k * width)
    return total


def _first_order(n, low, high, end):
    return free(n, end) - free(n, 2 * high - end) - free(n, -2 * low - end)


def _upper_only(n, low, high, end):
    return free(n, end) - free(n, 2 * high - end)


def _touching(n, low, high, end):
    return strip(n, low + 1, high + 1, end)


def _no_walls(n, low, high, end):
    return free(n, end)


def _over_ends(n, low, high, end, anywhere, count):
    """`count` for the one end point, or added over every end point inside the walls."""
    if not anywhere:
        return count(n, low, high, end)
    return sum(count(n, low, high, e) for e in range(-low + 1, high) if (n + e) % 2 == 0)


def _case(rng, index, difficulty):
    anywhere = index % 2 == 0
    while True:
        low, high = rng.randrange(3, 7), rng.randrange(4, 9)
        n = rng.randrange(3 * (low + high), 5 * (low + high))
        end = rng.randrange(-low + 1, high)
        if (n + end) % 2:
            continue
        answer, *traps = (_over_ends(n, low, high, end, anywhere, count) for count in (
            strip, _first_order, _upper_only, _touching, _no_walls))
        if len(set(traps) - {answer}) == 4:
            break
    where = "it may end anywhere" if anywhere else f"it must end at {end}"
    prompt = f"""
        A counter starts at 0 and makes exactly {n} moves; each move adds 1 or subtracts 1. The counter
        must never reach -{low} or {high} (so it always stays strictly between them), and {where}.
        How many different sequences of {n} moves satisfy these rules?
    """
    target = "every allowed end point e" if anywhere else f"the end point {end}"
    reference = f"""
        Reflection principle with two walls at -{low} and {high} (distance {low + high} apart): the
        walks to e that touch neither wall number Σ_k [C(n, (n + e + 2k·{low + high})/2) -
        C(n, (n + 2·{high} - e + 2k·{low + high})/2)] over all integers k, with n = {n}; the images
        repeat every {2 * (low + high)}, and several orders of reflection are non-zero here.

        Summing for {target} gives **{answer:,}**.

        Answer: {answer}
    """
    search = 2 ** n
    hardness = {"steps": 9 if not anywhere else 12, "search": min(search, 10**18), "traps": 4}
    notes = f"""{n} moves between walls {low + high} apart: the count needs reflections in both walls
        to several orders (n/width ≈ {n / (low + high):.1f}), an alternating sum of large binomial
        coefficients{', over every end point' if anywhere else ''}, or a {n}-step table by hand.
        Traps: stopping after the first reflections in each wall ({traps[0]}), reflecting in the upper
        wall only ({traps[1]}), letting the counter touch the walls ({traps[2]}), ignoring the walls
        ({traps[3]})."""
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, STEPS=n, LOW=low, HIGH=high, END=None if anywhere else end), reference=reference,
        notes=notes, max_tokens=32768, title=f"{n}-step walks strictly between -{low} and {high}")
    return case


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i, "hard") for i in range(1, 5)]
