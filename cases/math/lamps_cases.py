"""MA-lamps: n lamps round a circle, all off; pressing a lamp toggles a fixed pattern of lamps at given
offsets from it. How many on/off patterns can be reached? The idea is linear algebra over GF(2) with a
circulant twist: the presses span a space of dimension n - deg gcd(f(x), x^n - 1), where f(x) is the
offset pattern as a polynomial over GF(2), so the answer is 2 to that power. The generator takes the
polynomial gcd (on bit masks); the solver row-reduces the n press vectors."""

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-lamps"

SOLVER = """
rows = []
for i in range(LAMPS):
    mask = 0
    for offset in OFFSETS:
        mask ^= 1 << ((i + offset) % LAMPS)
    rows.append(mask)
rank = 0
for bit in range(LAMPS):
    pivot = next((r for r in range(rank, LAMPS) if rows[r] >> bit & 1), None)
    if pivot is None:
        continue
    rows[rank], rows[pivot] = rows[pivot], rows[rank]
    for r in range(LAMPS):
        if r != rank and rows[r] >> bit & 1:
            rows[r] ^= rows[rank]
    rank += 1
print(2 ** rank)
"""


def poly_mod(a, b):
    """a mod b for polynomials over GF(2) held as bit masks."""
    while a and a.bit_length() >= b.bit_length():
        a ^= b << (a.bit_length() - b.bit_length())
    return a


def poly_gcd(a, b):
    while b:
        a, b = b, poly_mod(a, b)
    return a


def rank(n, offsets):
    f = 0
    for offset in offsets:
        f ^= 1 << (offset % n)
    g = poly_gcd((1 << n) | 1, f)
    return n - (g.bit_length() - 1)


RULES = {
    1: ("itself and the lamps {a} places away on either side", lambda a, b: (0, a, -a)),
    2: ("the lamps {a} places away and the lamps {b} places away on either side, but not itself",
        lambda a, b: (a, -a, b, -b)),
    3: ("itself, its two neighbours, and the lamps {b} places away on either side",
        lambda a, b: (0, 1, -1, b, -b)),
}


def _case(rng, index):
    text, make = RULES[index]
    while True:
        n = rng.randrange(24, 61)
        a, b = rng.sample(range(2, n // 2), 2)
        offsets = make(a, b)
        if len({o % n for o in offsets}) != len(offsets):
            continue
        r = rank(n, offsets)
        if n - r >= 3:  # a real loss, beyond the obvious parity or the 3-neighbour 2
            break
    answer = 2 ** r
    odd = n
    while odd % 2 == 0:
        odd //= 2
    f = 0
    for offset in offsets:
        f ^= 1 << (offset % n)
    once = n - (poly_gcd((1 << odd) | 1, f).bit_length() - 1)  # repeated factors of x^n - 1 counted once
    traps = [2 ** n, 2 ** (n - 1), 2 ** (n - 2), 2 ** once]
    rule = text.format(a=a, b=b)
    prompt = f"""
        {n} lamps stand in a circle, numbered 0 to {n - 1}; lamp {n - 1} is next to lamp 0. All are off.
        Pressing a lamp toggles (switches on if off, off if on) {rule}, counted round the circle. Lamps may be
        pressed any number of times, in any order. How many different on/off patterns of the {n} lamps
        (all off included) can be produced?
    """
    poly = " + ".join(f"x^{o % n}" if o % n else "1" for o in sorted(offsets, key=lambda o: o % n))
    reference = f"""
        Pressing order does not matter and pressing twice undoes, so the reachable patterns are the span of
        the {n} press vectors over GF(2). The press matrix is circulant: with f(x) = {poly}, the span has
        dimension {n} - deg gcd(f(x), x^{n} - 1) over GF(2), and the gcd has degree {n - r}. So {r}
        independent presses, and 2^{r} = **{answer:,}** patterns.

        Answer: {answer}
    """
    hardness = {"steps": 10, "search": min(2 ** n, 10**18), "traps": len(set(traps) - {answer})}
    notes = f"""{n} lamps, {2 ** n:,} patterns: the count needs the GF(2) span of a circulant, i.e. the gcd of
        {poly} with x^{n} - 1 over GF(2) (Euclid on polynomials of degree up to {n}, or factoring x^{n} - 1),
        or a {n}x{n} elimination by hand. Traps: every pattern ({traps[0]}), a single parity condition
        ({traps[1]}), the 3-neighbour circle answer 2^(n-2) ({traps[2]}), the gcd taken with the
        squarefree part x^{odd} - 1 only, missing repeated factors ({traps[3]})."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, LAMPS=n, OFFSETS=offsets), reference=reference, notes=notes,
        max_tokens=32768, title=f"{n} lamps, presses toggle offsets {sorted({o % n for o in offsets})}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
