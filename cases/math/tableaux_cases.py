"""MA-tableaux: votes for three or four candidates are counted one at a time, and at every moment the first
candidate has at least as many votes as the second, the second at least as many as the third, and so on;
how many orders of the count are there (votes for one candidate look alike), possibly with the last vote
going to a given candidate? The idea is the bijection with standard Young tableaux: write k in row i when
the k-th vote goes to candidate i; the condition says exactly that columns increase, so the count is f^λ
for the shape λ = the vote totals, given by the hook length formula n! / Π hooks, and "the last vote goes
to B" removes a corner cell of B's row. The generator multiplies hooks; the solver runs a memoised count
over the vote totals so far."""

from math import comb, factorial, prod

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-tableaux"
NAMES = "ABCD"

SOLVER = """
from functools import lru_cache
totals, last = TOTALS, LAST

@lru_cache(maxsize=None)
def orders(state):  # ways to count the rest of the votes from the running totals `state`
    if list(state) == totals:
        return 1
    ways = 0
    for i, have in enumerate(state):
        if have < totals[i] and (i == 0 or state[i - 1] > have):
            nxt = state[:i] + (have + 1,) + state[i + 1:]
            if last is None or sum(nxt) < sum(totals) or i == last:
                ways += orders(nxt)
    return ways

print(orders(tuple(0 for _ in totals)))
"""


def hooks(shape):
    cols = [sum(1 for r in shape if r > j) for j in range(shape[0])]
    return prod(shape[i] - j + cols[j] - i - 1 for i in range(len(shape)) for j in range(shape[i]))


def tableaux(shape):
    shape = [r for r in shape if r]
    return factorial(sum(shape)) // hooks(shape)


def multinomial(shape):
    return factorial(sum(shape)) // prod(factorial(r) for r in shape)


def _shape(rng, rows, low, high):
    while True:
        shape = sorted(rng.sample(range(2, 10), rows), reverse=True)
        if low <= sum(shape) <= high and shape[0] - shape[-1] >= rows + 1:
            return shape


def _case(rng, index):
    rows = 4 if index == 2 else 3
    shape = _shape(rng, rows, 16, 20) if rows == 4 else _shape(rng, rows, 17, 22)
    n = sum(shape)
    last = 1 if index == 3 else None
    if last is None:
        answer = tableaux(shape)
        base = shape
    else:
        base = shape[:1] + [shape[1] - 1] + shape[2:]
        answer = tableaux(base)
    adjacent = multinomial(shape) * prod(shape[i] - shape[i + 1] + 1 for i in range(rows - 1)) // prod(
        shape[i] + 1 for i in range(rows - 1))
    dropped = comb(n, shape[-1]) * tableaux(shape[:-1])
    traps = [multinomial(base), adjacent, dropped]
    if last is not None:
        traps[2] = tableaux(shape)
    words = ["every order of the votes (condition ignored)", "the two-candidate ballot factor (a - b + 1)/(a + 1) "
             "applied to each neighbouring pair", "the last candidate's condition dropped"
             if last is None else "the last vote's condition ignored"]
    listed = ", ".join(f"{NAMES[i]} receives {v}" for i, v in enumerate(shape))
    chain = " ≥ ".join(f"{NAMES[i]}'s count" for i in range(rows))
    extra = "" if last is None else f" Moreover, the very last vote counted is a vote for {NAMES[last]}."
    prompt = f"""
        In an election with {rows} candidates, {listed} of the {n} votes. The votes are counted one at a
        time, and at every moment of the count {chain}.{extra} Votes for the same candidate cannot be told
        apart, so an order of the count is the sequence of candidates named vote by vote. How many orders of
        the count are possible?
    """
    corner = "" if last is None else (
        f" The last vote holds the largest label {n}, which must sit at the end of B's row, and that end is a "
        f"corner since C's row is shorter; removing it leaves the shape {tuple(base)}.")
    reference = f"""
        Write the number k in row i when the k-th vote goes to candidate i. The running counts keep
        {chain} exactly when each column of the resulting diagram increases downwards, so the orders of the
        count are the standard Young tableaux of the shape {tuple(shape)}.{corner} By the hook length formula the
        count is {sum(base)}! divided by the product of the hook lengths, {hooks(base)}, which is {answer}.

        Answer: {answer}
    """
    hardness = {"steps": rows + 3 + (last is not None), "search": multinomial(shape),
                "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""Votes {tuple(shape)}: {multinomial(shape)} orders in all, so listing them is out; the count
        needs the bijection with Young tableaux (a multi-candidate ballot, not the two-candidate formula), the
        hook lengths of {rows} rows and an exact division of {sum(base)}!{', after removing the corner that the '
        'last vote fills' if last is not None else ''}. A 27-32B model tends to multiply two-candidate ballot
        factors instead. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, TOTALS=shape, LAST=last), reference=reference, notes=notes,
        max_tokens=32768, title=f"A {rows}-candidate count that never changes order")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
