"""MA-hats: n people take back n hats at random; nobody may get their own hat or the hat d places after
their own (on a line, or round a circle with d sharing a factor with n). The idea is inclusion-exclusion
with a rook polynomial: the forbidden cells fall apart into paths (or cycles), whose rook numbers are
binomial coefficients, multiplied together. The solver counts assignments by a dynamic programme over the
set of hats already handed out."""

from math import comb, factorial, gcd

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-hats"

SOLVER = """
n = PEOPLE
ways = [0] * (1 << n)
ways[0] = 1
for used in range(1 << n):
    if not ways[used]:
        continue
    person = bin(used).count("1") + 1
    banned = {person, person + SHIFT}
    if ROUND:
        banned = {person, (person + SHIFT - 1) % n + 1}
    for hat in range(1, n + 1):
        if hat not in banned and not used >> (hat - 1) & 1:
            ways[used | 1 << (hat - 1)] += ways[used]
print(ways[-1])
"""


def _poly_mul(p, q):
    out = [0] * (len(p) + len(q) - 1)
    for i, x in enumerate(p):
        for j, y in enumerate(q):
            out[i + j] += x * y
    return out


def rook_numbers(n, shift, round_table):
    """Ways to place k non-attacking rooks on the forbidden cells, k = 0, 1, ...: each residue class
    mod the shift (a gcd on the circle) is one path (cycle) of cells alternating diagonal and shifted."""
    poly = [1]
    if round_table:
        g = gcd(n, shift)
        size = 2 * n // g
        cycle = [1] + [size * comb(size - k, k) // (size - k) for k in range(1, size // 2 + 1)]
        for _ in range(g):
            poly = _poly_mul(poly, cycle)
        return poly
    for r in range(1, shift + 1):
        m = len(range(r, n + 1, shift))
        size = 2 * m - 1
        poly = _poly_mul(poly, [comb(size - k + 1, k) for k in range((size + 1) // 2 + 1)])
    return poly


def count(n, shift, round_table):
    return sum((-1) ** k * r * factorial(n - k) for k, r in enumerate(rook_numbers(n, shift, round_table)))


def _case(rng, index, difficulty, asked: set):
    round_table = index % 2 == 0
    while True:
        n = rng.randrange(9, 14)
        shift = rng.randrange(2, n // 2 + 1)
        if round_table and gcd(n, shift) == 1:
            continue  # a shift prime to n is the ménage board in disguise, a known sequence
        if (n, shift, round_table) in asked:
            continue  # a sibling asks this already
        asked.add((n, shift, round_table))
        break
    answer = count(n, shift, round_table)
    cells = 2 * n if round_table else 2 * n - shift
    derangements = sum((-1) ** k * comb(n, k) * factorial(n - k) for k in range(n + 1))
    naive = sum((-1) ** k * comb(cells, k) * factorial(n - k) for k in range(n + 1))
    traps = [derangements, naive, count(n, shift, not round_table), round(factorial(n) / 2.718281828459045 ** 2)]
    if round_table:
        rule = (f"guest k may not get hat k + {shift}, counted round the circle (guest {n - shift + 1} may not "
                f"get hat 1, guest {n} may not get hat {shift})")
    else:
        rule = f"guest k may not get hat k + {shift} (this rule only applies to guests 1 to {n - shift})"
    prompt = f"""
        {n} guests, numbered 1 to {n}, left hats numbered 1 to {n} (guest k's own hat is hat k). Each guest
        gets back exactly one hat, and every hat goes to exactly one guest. Two rules apply: nobody
        gets their own hat, and {rule}. In how many ways can the hats be handed back?
    """
    rooks = rook_numbers(n, shift, round_table)
    shape = f"{gcd(n, shift)} cycles of {2 * n // gcd(n, shift)} cells" if round_table else (
        f"{shift} paths of cells, one per residue class mod {shift}")
    reference = f"""
        Inclusion-exclusion over the {cells} forbidden (guest, hat) cells: the count is
        Σ (-1)^k r_k ({n} - k)!, where r_k counts ways to pick k forbidden cells in distinct rows and
        columns. Cells that clash (same guest or same hat) link up into {shape}, so the rook numbers
        are products of the path/cycle matching counts: r = {', '.join(map(str, rooks[:6]))}, ...

        Σ (-1)^k r_k ({n}-k)! = **{answer:,}**.

        Answer: {answer}
    """
    hardness = {"steps": 10, "search": factorial(n), "traps": len(set(traps) - {answer})}
    notes = f"""{n}! = {factorial(n):,} assignments; the count needs inclusion-exclusion with the rook
        numbers of a {cells}-cell board that splits into {shape}, then an alternating sum of
        {len(rooks)} large terms. Traps: the plain derangement count ({derangements}), treating the
        forbidden cells as independent (r_k = C({cells}, k): {naive}), the other reading of the shifted
        rule ({'on a line' if round_table else 'round the circle'}: {traps[2]}), n!/e^2 ({traps[3]})."""
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, PEOPLE=n, SHIFT=shift, ROUND=round_table), reference=reference, notes=notes,
        max_tokens=32768, title=f"{n} hats: not one's own, not {shift} along{' round a circle' * round_table}")
    return case


def cases(seed):
    rng = family_rng(FAMILY, seed)
    asked: set = set()
    return [_case(rng, i, "hard", asked) for i in range(1, 5)]
