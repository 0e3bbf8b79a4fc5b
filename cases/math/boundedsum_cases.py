"""MA-boundedsum: in how many ways can a total be split among k people (or rolled with k different dice)
when each share has its own lower and upper bound? The idea is stars and bars with inclusion-exclusion on
the upper bounds: shift every share by its lower bound, then Σ over sets S of people that overshoot of
(-1)^|S| C(N' - Σ_S (u_i - l_i + 1) + k - 1, k - 1). The generator adds those terms; the solver convolves
the shares one person at a time."""

from itertools import combinations
from math import comb, prod

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-boundedsum"

SOLVER = """
ways = {0: 1}
for low, high in BOUNDS:
    step = {}
    for total, w in ways.items():
        for share in range(low, high + 1):
            step[total + share] = step.get(total + share, 0) + w
    ways = step
print(ways.get(TOTAL, 0))
"""


def stars(n, k):
    return comb(n + k - 1, k - 1) if n >= 0 else 0


def count(total, bounds, use_upper=True):
    k = len(bounds)
    rest = total - sum(low for low, _ in bounds)
    widths = [high - low + 1 for low, high in bounds]
    if not use_upper:
        return stars(rest, k)
    return sum((-1) ** size * stars(rest - sum(chosen), k)
               for size in range(k + 1) for chosen in combinations(widths, size))


NAMES = ("Ada", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus")
DICE = (4, 6, 8, 10, 12, 20)


def _case(rng, index):
    if index == 2:
        sides = sorted(rng.sample(DICE, 5) + [rng.choice(DICE)])
        bounds = [(1, s) for s in sides]
    else:
        k = 6 if index == 1 else 7
        bounds = []
        for _ in range(k):
            low = rng.randrange(0, 6)
            bounds.append((low, low + rng.randrange(6, 16)))
    lo, hi = sum(b[0] for b in bounds), sum(b[1] for b in bounds)
    total = rng.randrange(lo + (hi - lo) * 2 // 5, lo + (hi - lo) * 3 // 5)
    answer = count(total, bounds)
    rest = total - lo
    traps = [count(total, bounds, use_upper=False),                                  # upper bounds ignored
             stars(total, len(bounds)) if lo else count(total, bounds) + 1,          # lower bounds ignored too
             sum(stars(rest - w, len(bounds)) * (-1) ** 1 for w in
                 [h - lw + 1 for lw, h in bounds]) + stars(rest, len(bounds)),       # first correction only
             count(total, [(lw, h - 1) for lw, h in bounds])]                        # "up to" read as below
    if index == 2:
        dice = ", ".join(f"{'an' if s in (8, 11, 18) else 'a'} {s}-sided die" for s in sides)
        prompt = f"""
            Six dice are rolled: {dice}; an s-sided die shows each of 1, 2, ..., s. In how many of the
            {prod(sides):,} equally likely outcomes (the dice are told apart) is the total exactly {total}?
        """
    else:
        rules = "; ".join(f"{NAMES[i]} gets at least {low} and at most {high}" for i, (low, high) in enumerate(bounds))
        prompt = f"""
            {total} identical tokens are shared out among {len(bounds)} people, every token to someone: {rules}.
            In how many ways can this be done (two ways differ when somebody gets a different number)?
        """
    reference = f"""
        Take every share's minimum first ({lo} in all), leaving {rest} to split with share i getting at most
        u_i - l_i more. Stars and bars counts C({rest} + {len(bounds) - 1}, {len(bounds) - 1}) shares with no
        upper limit; inclusion-exclusion over the set S of shares that go over their limit (pre-give them
        u_i - l_i + 1) gives Σ_S (-1)^|S| C({rest} - Σ_S (u_i - l_i + 1) + {len(bounds) - 1}, {len(bounds) - 1}).

        That is **{answer:,}**.

        Answer: {answer}
    """
    live = sum(1 for size in range(len(bounds) + 1) for chosen in combinations(
        [h - lw + 1 for lw, h in bounds], size) if rest - sum(chosen) >= 0)
    hardness = {"steps": 6, "search": prod(h - lw + 1 for lw, h in bounds),
                "traps": len(set(traps) - {answer})}
    notes = f"""{len(bounds)} bounded shares of {total}: the count needs the shift by the lower bounds and an
        inclusion-exclusion with {live} non-zero terms, each a large binomial coefficient, added with signs
        exactly. Traps: upper bounds ignored ({traps[0]}), lower bounds ignored as well ({traps[1]}), only
        the first correction ({traps[2]}), each upper bound taken one too low ({traps[3]})."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, BOUNDS=bounds, TOTAL=total), reference=reference, notes=notes,
        max_tokens=32768, title=f"Total {total} in {len(bounds)} bounded shares")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
