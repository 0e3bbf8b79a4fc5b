"""MA-game: a take-away game with a random move set; how many starting piles up to N lose for the
player to move. The generator finds where the win/lose pattern becomes periodic and counts by
whole periods; the solver labels every pile from 0 to N."""

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import declare

FAMILY = "MA-game"

SOLVER = """
losing = [True] * (LIMIT + 1)
for n in range(LIMIT + 1):
    losing[n] = not any(move <= n and losing[n - move] for move in MOVES)
print(sum(losing[1:]))
"""


def _labels(moves, upto):
    lose = []
    for n in range(upto):
        lose.append(not any(m <= n and lose[n - m] for m in moves))
    return lose


def pattern(moves):
    """(preperiod, period, labels) of the losing positions: the labels from the preperiod on repeat
    with the period. The state that determines the future is the last max(moves) labels."""
    window = max(moves)
    lose = _labels(moves, 4000)
    seen = {}
    for n in range(window, len(lose)):
        key = tuple(lose[n - window:n])
        if key in seen:
            start = seen[key]
            return start - window, n - start, lose
        seen[key] = n
    raise ValueError(f"no period within 4000 for moves {moves}")


def losing_count(moves, limit):
    """Losing piles n with 1 <= n <= limit, counted by whole periods."""
    pre, period, lose = pattern(moves)
    cycle = lose[pre:pre + period]
    whole, part = divmod(limit - pre + 1, period)  # the sizes pre..limit
    periodic = whole * sum(cycle) + sum(cycle[:part])
    return sum(lose[1:pre]) + periodic - (lose[0] if pre == 0 else 0)


def _case(rng, index, difficulty):
    while True:
        size = 3 if difficulty == "medium" else rng.choice([3, 4])
        moves = sorted(rng.sample(range(1, 10 if difficulty == "medium" else 14), size))
        pre, period, lose = pattern(moves)
        if difficulty == "medium" and not 5 <= period <= 12:
            continue
        if difficulty == "hard" and not (period >= 13 or (period >= 9 and pre >= 6)):
            continue
        limit = rng.randrange(50_000, 200_000)
        answer = losing_count(moves, limit)
        if 0 < answer < limit:
            break
    traps = [limit - answer, answer + 1 if lose[0] else answer - 1, losing_count(moves, limit - 1)]
    listed = ", ".join(map(str, moves[:-1])) + " or " + str(moves[-1])
    first = "".join("L" if x else "W" for x in lose[:30])
    prompt = f"""
        Two players share a pile of stones and move alternately. A move removes exactly {listed}
        stones from the pile (a move that would take more stones than the pile holds is not allowed).
        A player who cannot move loses. Call a pile size losing when the player about to move from it
        loses against best play by the opponent. How many pile sizes n with 1 ≤ n ≤ {limit:,} are
        losing?
    """
    reference = f"""
        Label pile sizes from 0 upwards: n is losing exactly when no move leads to a losing size.
        The labels for n = 0..29 are {first} (L = losing, W = winning). From n = {pre} on they
        repeat with period {period}, with {sum(lose[pre:pre + period])} losing sizes
        per period.

        Counting whole periods up to {limit:,} and the partial one at the end, minus n = 0, gives
        **{answer:,}** losing sizes.

        Answer: {answer:,}
    """
    notes = f"""The move set {{{', '.join(map(str, moves))}}} gives a win/lose pattern with period {period}
        {'after a preperiod of ' + str(pre) + ' positions' if pre > 0 else 'from the start'}: the model
        must label enough positions by hand to be sure of the period (a window of {max(moves)} labels
        must repeat, which takes about {pre + period + max(moves)} labels), then count
        {limit:,} positions by whole periods and a remainder. Traps: counting winning sizes
        ({traps[0]}), including or excluding n = 0 wrongly, an off-by-one at the upper end."""
    return numeric_case(
        family=FAMILY, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, MOVES=moves, LIMIT=limit), reference=reference, notes=notes,
        max_tokens=16384 if difficulty == "medium" else 32768,
        title=f"Take-away game with moves {moves}: losing piles up to {limit}")


# Hardness facts (steps, search, traps) per shape: label positions until the period shows, then count whole
# periods; brute force labels every position.
HARDNESS = {"medium": (12, 100000, 2), "hard": (16, 100000, 2)}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    out = [_case(rng, i, difficulty) for i, difficulty in
            enumerate(["medium", "hard", "hard", "hard", "hard", "hard"], 1)]
    for case in out:  # the plan's label names the shape (shorter or longer); the rule gives the tier
        declare(case, *HARDNESS[case["difficulty"]])
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
