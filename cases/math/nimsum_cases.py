"""MA-nimsum: three piles, each with its own generated take-away rule; how many starting triples lose for
the player to move? The idea is Sprague-Grundy: the triple loses exactly when the three piles' Grundy
values XOR to 0, so the generator labels each pile alone and combines the value counts; the solver labels
every triple of the whole game directly."""

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-nimsum"

SOLVER = """
n = LIMIT
size = n + 1
lose = bytearray(size ** 3)
for a in range(size):
    for b in range(size):
        for c in range(size):
            options = [((a - m) * size + b) * size + c for m in MOVES[0] if m <= a]
            options += [(a * size + b - m) * size + c for m in MOVES[1] if m <= b]
            options += [(a * size + b) * size + c - m for m in MOVES[2] if m <= c]
            lose[(a * size + b) * size + c] = not any(lose[o] for o in options)
print(sum(lose[(a * size + b) * size + c] for a in range(1, size) for b in range(1, size) for c in range(1, size)))
"""


def grundy(moves, limit):
    values = []
    for n in range(limit + 1):
        seen = {values[n - m] for m in moves if m <= n}
        values.append(next(g for g in range(len(moves) + 1) if g not in seen))
    return values


def _count(tables, low, limit, flatten=False):
    """Triples with every pile in [low, limit] whose values XOR to 0 (flatten: values read as win/lose)."""
    hists = []
    for values in tables:
        hist = {}
        for g in values[low:limit + 1]:
            g = min(g, 1) if flatten else g
            hist[g] = hist.get(g, 0) + 1
        hists.append(hist)
    return sum(x * y * hists[2].get(g ^ h, 0) for g, x in hists[0].items() for h, y in hists[1].items())


def _case(rng, index, difficulty):
    while True:
        moves = [sorted(rng.sample(range(1, 9), rng.choice([2, 3]))) for _ in range(3)]
        if len({tuple(m) for m in moves}) < 3 or any(m == [1, 2] for m in moves):
            continue
        limit = rng.randrange(24, 34)
        tables = [grundy(m, limit) for m in moves]
        if sum(max(t) >= 2 for t in tables) < 2:
            continue  # Grundy values beyond win/lose must matter
        answer = _count(tables, 1, limit)
        flat = _count(tables, 1, limit, flatten=True)
        if answer > 200 and flat != answer:
            break
    all_lose = 1
    for t in tables:
        all_lose *= sum(1 for g in t[1:] if g == 0)
    traps = [flat, _count(tables, 0, limit), limit ** 3 - answer, all_lose]
    rules = "; ".join(f"from pile {name} a move takes exactly {', '.join(map(str, m[:-1]))} or {m[-1]} stones"
                      for name, m in zip("ABC", moves))
    prompt = f"""
        A game is played with three piles of stones, A, B and C, by two players who move alternately.
        A move takes stones from exactly one pile, and the amount allowed depends on the pile: {rules}.
        A move may not take more stones than the pile holds. A player who cannot move loses.
        Count the starting positions (a, b, c), where a, b and c are the sizes of piles A, B and C and
        each is a whole number from 1 to {limit}, from which the player about to move loses against best
        play. (Positions are ordered triples: (1, 2, 3) and (2, 1, 3) are different.)
    """
    shown = "; ".join(f"{name}: {''.join(map(str, t[:16]))}…" for name, t in zip("ABC", tables))
    reference = f"""
        Each pile is a game of its own, so by Sprague-Grundy a position loses exactly when the XOR of
        the three piles' Grundy values is 0. Grundy values from size 0 on: {shown}.

        Counting how often each value occurs for sizes 1..{limit} in each pile, and summing
        count_A(g) · count_B(h) · count_C(g XOR h), gives **{answer:,}** losing triples.

        Answer: {answer}
    """
    hardness = {"steps": 10, "search": limit ** 3, "traps": len(set(traps) - {answer})}
    notes = f"""Needs Sprague-Grundy: three Grundy sequences up to {limit} (values up to
        {max(max(t) for t in tables)}, none simply win/lose), their value counts and an XOR convolution;
        a direct search has {limit ** 3:,} positions. Traps: treating piles as only winning or losing
        ({traps[0]}), letting piles be empty ({traps[1]}), counting winning triples ({traps[2]}),
        requiring every pile to lose on its own ({traps[3]})."""
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, MOVES=moves, LIMIT=limit), reference=reference, notes=notes,
        max_tokens=32768, title=f"Three take-away piles with moves {moves}: losing triples up to {limit}")
    return case


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i, "hard") for i in range(1, 5)]
