"""MA-ruin: a gambler bets one coin at a time, winning with probability p (not 1/2) and losing otherwise,
until the stake reaches 0 or a target N. The chance of reaching the target, the expected number of bets, or
the expected number of times the stake equals a given amount before the game ends. The idea is the
martingale r^X with r = q/p: P(target from k) = (1 - r^k)/(1 - r^N); X - (p - q)·t is a martingale too, so
the expected length is (k - N·P)/(q - p); and visits to j split into the chance of ever reaching j (a
two-sided ruin problem from k) times 1/(1 - chance of coming back to j). The generator uses those formulas;
the solver solves the linear equations of the chain exactly."""

from fractions import Fraction

from pytest_crucible import family_rng, numeric_case, program, spell

FAMILY = "MA-ruin"

SOLVER = """
from fractions import Fraction
p, n, k, j = Fraction(WIN), TARGET, START, LEVEL
q = 1 - p
size = n - 1  # unknowns for stakes 1..n-1

def solve(rhs):  # f(x) = p f(x+1) + q f(x-1) + rhs(x), f(0), f(n) given by BOUNDARY
    rows = []
    for x in range(1, n):
        row = [Fraction(0)] * (size + 1)
        row[x - 1] = Fraction(1)
        const = rhs(x)
        for y, w in ((x + 1, p), (x - 1, q)):
            if 1 <= y <= n - 1:
                row[y - 1] -= w
            elif y == n:
                const += w * BOUNDARY[1]
            else:
                const += w * BOUNDARY[0]
        row[size] = const
        rows.append(row)
    for col in range(size):
        piv = next(r for r in range(col, size) if rows[r][col] != 0)
        rows[col], rows[piv] = rows[piv], rows[col]
        rows[col] = [v / rows[col][col] for v in rows[col]]
        for r in range(size):
            if r != col and rows[r][col] != 0:
                f = rows[r][col]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[col])]
    return rows[k - 1][size]

if ASK == "win":
    BOUNDARY = (0, 1)
    value = solve(lambda x: 0)
elif ASK == "length":
    BOUNDARY = (0, 0)
    value = solve(lambda x: 1)
else:
    BOUNDARY = (0, 0)
    value = solve(lambda x: 1 if x == j else 0)  # visits to j, the start counted if k == j
print(f"{value.numerator}/{value.denominator}" if value.denominator != 1 else value.numerator)
"""


def reach(r, start, low, high):
    """Chance to hit `high` before `low` from start, for the walk with ratio r = q/p."""
    return (r ** low - r ** start) / (r ** low - r ** high)


def _case(rng, index):
    ask = {1: "win", 2: "length", 3: "visits"}[index]
    p = rng.choice([Fraction(2, 5), Fraction(3, 5), Fraction(1, 3), Fraction(2, 3), Fraction(3, 7), Fraction(4, 7)])
    q = 1 - p
    r = q / p
    n = rng.randrange(7, 11)
    k = rng.randrange(2, n - 1)
    j = rng.choice([x for x in range(1, n) if x != k]) if ask == "visits" else 0
    win = reach(r, k, 0, n)
    if ask == "win":
        answer = win
        traps = [Fraction(k, n), (1 - r ** k) / (1 - r ** (n + 1)), 1 - win]
        words = ["k/N, the fair-game answer", "N + 1 in place of N", "the chance of ruin"]
        question = f"What is the probability that the gambler reaches {n} coins?"
    elif ask == "length":
        answer = (k - n * win) / (q - p)
        traps = [Fraction(k * (n - k)), (k - n * (1 - win)) / (q - p), k / abs(q - p)]
        words = ["k(N - k), the fair-game answer", "ruin and target chances swapped", "k/|q - p|, the one-sided drift"]
        question = "What is the expected number of bets until the game ends?"
    else:
        up = reach(r, j + 1, j, n)  # from j + 1: chance to reach n before coming back to j
        down = 1 - reach(r, j - 1, 0, j)  # from j - 1: chance to hit 0 before j
        ret = p * (1 - up) + q * (1 - down)
        hit = 1 if k == j else (reach(r, k, 0, j) if k < j else 1 - reach(r, k, j, n))
        answer = hit / (1 - ret)
        traps = [1 / (1 - ret), hit, hit / (1 - ret) + (1 if k != j else -1)]
        words = ["1/(1 - return chance), ignoring whether j is reached", "the chance of reaching j only",
                 "the start counted wrongly"]
        question = (f"What is the expected number of times, after the start, that the gambler holds exactly {j} "
                    f"coins (counting each bet after which the stake is {j}) before the game ends?")
    prompt = f"""
        A gambler starts with {k} coins and bets one coin at a time: each bet is won (one coin gained) with
        probability {spell(p)} and lost (one coin lost) otherwise, independently. The gambler stops as soon as
        the stake is 0 or {n} coins. {question}
    """
    if ask == "win":
        work = f"with r = q/p = {spell(r)}, r^X is a martingale, so P = (1 - r^{k})/(1 - r^{n}) = {spell(answer)}"
    elif ask == "length":
        work = (f"P(reach {n}) = (1 - r^{k})/(1 - r^{n}) = {spell(win)} with r = {spell(r)}; X - (p - q)t is a "
                f"martingale, so E[T] = (k - N·P)/(q - p) = {spell(answer)}")
    else:
        work = (f"the chance of ever holding {j} coins is {spell(hit)}; from {j}, the chance of coming back is "
                f"p·(1 - {spell(up)}) + q·(1 - {spell(down)}) = {spell(ret)}, so the expected number of times is "
                f"{spell(hit)}/(1 - {spell(ret)}) = {spell(answer)}")
    reference = f"""
        Gambler's ruin with a bias: {work}.

        Answer: {spell(answer)}
    """
    hardness = {"steps": {"win": 3, "length": 4, "visits": 6}[ask], "search": 1, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({spell(t)})" for w, t in zip(words, traps, strict=True))
    notes = f"""Start {k}, target {n}, p = {spell(p)}: exact fractions with powers of r = {spell(r)};
        {'the visit count splits into reaching the level and a geometric number of returns, ' if ask == 'visits'
         else ''}medium: a known martingale and careful arithmetic. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, WIN=spell(p), TARGET=n, START=k, LEVEL=j, ASK=ask), reference=reference, notes=notes,
        max_tokens=16384, as_fraction=True, title=f"Gambler's ruin from {k} to {n} at p = {spell(p)}")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
