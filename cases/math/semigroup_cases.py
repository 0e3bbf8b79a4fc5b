"""MA-gaps: three generated box sizes; how many positive amounts cannot be made from whole boxes? The idea
is the Apéry set: for each residue modulo the smallest size, the least amount made from the other two,
found by a shortest-path sweep; the count of gaps then follows from Selmer's formula
(sum of those least amounts / a - (a - 1) / 2). The solver marks every makeable amount up to a bound."""

from math import gcd

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-gaps"

SOLVER = """
a, b, c = SIZES
bound = a * b  # every amount from (a - 1)(b - 1) on is already made from a and b alone when they are coprime
bound = max(bound, a * c, b * c)
made = bytearray(bound + 1)
made[0] = 1
for n in range(1, bound + 1):
    made[n] = any(n >= s and made[n - s] for s in SIZES)
assert all(made[bound - a + 1:])
print(sum(1 for n in range(1, bound + 1) if not made[n]))
"""


def apery(sizes):
    """Least makeable amount in each residue class mod the smallest size (Dijkstra on residues); None
    for a class no amount reaches (when the sizes share a factor)."""
    a, rest = sizes[0], sizes[1:]
    best = [0] + [None] * (a - 1)
    done = [False] * a
    while open_ := [x for x in range(a) if not done[x] and best[x] is not None]:
        r = min(open_, key=lambda x: best[x])
        done[r] = True
        for s in rest:
            t, cost = (r + s) % a, best[r] + s
            if best[t] is None or cost < best[t]:
                best[t] = cost
    return best


def gap_count(sizes):
    least = apery(sizes)
    return (sum(least) - sum(range(sizes[0]))) // sizes[0]


def _two_coin(x, y):
    return (x - 1) * (y - 1) // 2 if gcd(x, y) == 1 else None


def _case(rng, index, difficulty):
    low, high = (9, 13) if index == 1 else (13, 24)
    while True:
        a = rng.randrange(low, high)
        b, c = sorted(rng.sample(range(a + 2, 3 * a), 2))
        sizes = (a, b, c)
        least_ab = apery((a, b))[c % a]
        if gcd(a, gcd(b, c)) != 1 or b % a == 0 or least_ab is not None and least_ab <= c:
            continue  # c must not be made from a and b, or it is a decoy
        least = apery(sizes)
        answer = gap_count(sizes)
        frobenius = max(least) - a
        pairs = [t for t in (_two_coin(a, b), _two_coin(a, c), _two_coin(b, c)) if t is not None]
        if pairs and answer > 30:
            break
    traps = [frobenius, pairs[0], answer + 1, frobenius // 2 + 1]
    prompt = f"""
        A shop sells a part only in sealed packs of {a}, {b} or {c} pieces, and any number of packs of
        each kind may be bought. Some totals cannot be bought exactly (1 piece, for instance). How many
        positive whole numbers of pieces cannot be bought exactly?
    """
    classes = ", ".join(str(x) for x in least)
    reference = f"""
        Work modulo {a}: for each remainder r, let w(r) be the smallest total with that remainder made
        from packs of {b} and {c} (every larger total with remainder r is w(r) plus packs of {a}).
        A shortest-path sweep over the remainders gives w = {classes}.

        The totals that cannot be bought in class r are the numbers below w(r) with that remainder,
        (w(r) - r)/{a} of them; adding over all classes gives **{answer}**.

        Answer: {answer}
    """
    hardness = {"steps": a + 2, "search": max(least),
                "traps": len(set(traps) - {answer})}
    notes = f"""Three generators have no closed formula: the count needs the least representative of
        each of {a} residue classes (the Apéry set, largest {max(least)}) and Selmer's sum, or a
        sieve up to about {max(least)}. Traps: the largest gap, {frobenius}, instead of the number of
        gaps; the two-pack formula (x-1)(y-1)/2 for one coprime pair ({pairs[0]}); counting 0 as a gap;
        half the largest gap (true only for symmetric semigroups)."""
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, SIZES=sizes), reference=reference, notes=notes,
        max_tokens=32768, title=f"Totals not made from packs of {a}, {b}, {c}")
    return case


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i, difficulty) for i, difficulty in enumerate(["hard"] * 4, 1)]
