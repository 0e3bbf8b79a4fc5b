"""MA-floorsum: sums of floors of a linear function, Σ ⌊(a·k + b)/c⌋ over hundreds of thousands of k, or the
sum of the remainders a·k mod c (which is a·ΣK minus c times such a floor sum). The idea is the
Euclid-like reduction: take out the whole parts of a/c and b/c, then count the same lattice points under
the line by rows instead of columns, which swaps the roles of a and c, until nothing is left. The generator
runs that reduction; the solver adds the terms one by one."""

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-floorsum"

SOLVER = """
total = 0
for k in range(FIRST, LAST + 1):
    total += (A * k) % C if REMAINDERS else (A * k + B) // C
print(total)
"""


def floor_sum(n, m, a, b):
    """Σ_{i=0}^{n-1} ⌊(a·i + b)/m⌋ for a, b >= 0, by the Euclid-like swap of rows and columns."""
    total = 0
    while True:
        if a >= m:
            total += (n - 1) * n // 2 * (a // m)
            a %= m
        if b >= m:
            total += n * (b // m)
            b %= m
        top = a * n + b
        if top < m:
            return total
        n, b = divmod(top, m)
        m, a = a, m


def _case(rng, index):
    remainders = index == 3
    while True:
        c = rng.randrange(10_000, 90_000)
        a = rng.randrange(c + 1, 4 * c) if index == 1 else rng.randrange(c // 3, c)
        b = rng.randrange(1, c) if not remainders else 0
        n = rng.randrange(150_000, 350_000)
        if n % c and a % c:
            break
    # index 1: Σ_{k=0}^{n-1}; index 2 and 3: Σ_{k=1}^{n}
    first, last = (0, n - 1) if index == 1 else (1, n)
    floors = floor_sum(last - first + 1, c, a, a * first + b)
    answer = a * n * (n + 1) // 2 - c * floors if remainders else floors
    whole = (last // c) * c  # whole periods of the remainders, the rest dropped
    if remainders:
        traps = [round(n * (c - 1) / 2),                      # the remainders average (c-1)/2
                 (last // c) * c * (c - 1) // 2,              # whole periods only (when gcd(a, c) = 1)
                 a * (n - 1) * n // 2 - c * floor_sum(n, c, a, 0)]  # k from 0 to n-1
    else:
        traps = [(a * (first + last) * (last - first + 1) // 2 + b * (last - first + 1)) // c,  # no floors
                 floor_sum(last - first + 1, c, a, a * (first + 1) + b),                       # k shifted
                 floor_sum(whole - first, c, a, a * first + b)]                                # whole periods
    if remainders:
        asked = f"the sum of the remainders of {a}·k on division by {c}, for k = 1, 2, ..., {n}"
        formula = f"S = Σ_(k=1)^({n}) ({a}·k mod {c})"
    else:
        asked = f"S = Σ_(k={first})^({last}) ⌊({a}·k + {b}) / {c}⌋, where ⌊x⌋ is the largest integer ≤ x"
        formula = asked
    prompt = f"""
        Compute {asked}.{' That is, ' + formula + '.' if remainders else ''}
    """
    reference = f"""
        {'Write a·k mod c = a·k - c·⌊a·k/c⌋, so S = ' + str(a) + '·n(n+1)/2 - ' + str(c) + '·Σ⌊' + str(a)
         + 'k/' + str(c) + '⌋. ' if remainders else ''}The floor sum Σ⌊(a·i + b)/m⌋ reduces like Euclid's
        algorithm: take out ⌊a/m⌋ and ⌊b/m⌋ (they add ⌊a/m⌋·n(n-1)/2 and ⌊b/m⌋·n), then count the lattice
        points under the line by rows, which gives the same kind of sum with a and m swapped.
        The floor sum is {floors:,}{', and S = ' + format(answer, ',') if remainders else ''}.

        So S = **{answer:,}**.

        Answer: {answer}
    """
    trap_words = (f"the average remainder (c-1)/2 times n ({traps[0]}), whole periods only ({traps[1]}), k from 0 "
                  f"to n-1 ({traps[2]})" if remainders else f"dropping the floors ({traps[0]}), the range shifted "
                  f"by one ({traps[1]}), whole periods of c only ({traps[2]})")
    hardness = {"steps": 14, "search": n, "traps": len(set(traps) - {answer})}
    notes = f"""{n:,} terms with a = {a}, c = {c}: adding them is out of reach, the period c = {c} does not
        divide the range, and the exact sum needs the Euclid-like floor-sum reduction (about
        {2 * len(str(c))} rounds, each with exact big products){' after rewriting remainders as a·k - c·⌊a·k/c⌋'
        if remainders else ''}. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, A=a, B=b, C=c, FIRST=first, LAST=last, REMAINDERS=remainders),
        reference=reference, notes=notes, max_tokens=32768,
        title=f"{'Remainder' if remainders else 'Floor'} sum over {n} terms")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
