"""MA-runs: tiles of three colours in a random row; the expected number of single-colour blocks of length
exactly L (or at least L). The idea is linearity of expectation over the block's start, with the two
ends of the row treated apart, and for each colour only its own positions matter. The solver sums over
every arrangement by a memoised recursion that tracks the block being built."""

from fractions import Fraction
from math import comb

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-runs"
ENDS_EXACT = ("A block at either end of the row needs one neighbour of another colour, an inner block two (one on "
              "each side).")
ENDS_AT_LEAST = ("A block may start at the first tile with no condition; a later start needs the tile before it to "
                 "be of another colour.")

SOLVER = """
from fractions import Fraction
from functools import lru_cache

def closes(run):
    return run == LENGTH if EXACT else run >= LENGTH

@lru_cache(maxsize=None)
def walk(left, last, run):
    # (arrangements of the tiles left, total finished blocks that qualify over them), given the open block
    if not any(left):
        return 1, int(run > 0 and closes(run))
    ways = total = 0
    for colour, count in enumerate(left):
        if not count:
            continue
        rest = left[:colour] + (count - 1,) + left[colour + 1:]
        if colour == last:
            w, t = walk(rest, colour, run + 1)
        else:
            w, t = walk(rest, colour, 1)
            t += w * int(run > 0 and closes(run))
        ways += w
        total += t
    return ways, total

ways, total = walk(tuple(COUNTS), -1, 0)
print(Fraction(total, ways))
"""


def expected(counts, length, exact, edges=True):
    """Σ over colours of P(a block starts at each place); `edges=False` is the slip of giving the two end
    starts the inner probability."""
    n = sum(counts)
    total = Fraction(0)
    for x in counts:
        if x < length:
            continue
        # a block of `length` pinned, then the neighbours that must differ: one at an end, two inside
        # (for "at least", only the neighbour before the block must differ)
        edge_free = n - length - (1 if exact else 0)
        inner_free = n - length - (2 if exact else 1)
        ends = (2 if exact else 1) * comb(edge_free, x - length)
        inner_starts = n - length - (1 if exact else 0)
        if not edges:
            ends, inner_starts = 0, n - length + 1
        total += Fraction(ends + inner_starts * comb(inner_free, x - length), comb(n, x))
    return total


def independent(counts, length, exact):
    """Each tile drawn independently with the colour's share as its probability (as if with replacement)."""
    n = sum(counts)
    total = Fraction(0)
    for x in counts:
        p = Fraction(x, n)
        if exact:
            total += 2 * p ** length * (1 - p) + (n - length - 1) * p ** length * (1 - p) ** 2
        else:
            total += p ** length + (n - length) * p ** length * (1 - p)
    return total


def _case(rng, index, difficulty):
    length, exact = [(2, True), (3, True), (2, False), (3, False)][(index - 1) % 4]
    colours = rng.choice([("red", "green", "blue"), ("black", "white", "grey"), ("amber", "jade", "navy")])
    while True:
        counts = sorted((rng.randrange(3, 8) for _ in range(3)), reverse=True)
        if len(set(counts)) == 3 and 14 <= sum(counts) <= 19:
            break
    answer = expected(counts, length, exact)
    traps = [expected(counts, length, exact, edges=False), expected(counts, length, not exact),
             independent(counts, length, exact), expected(counts, length + 1, exact)]
    listed = ", ".join(f"{c} {name}" for c, name in zip(counts, colours))
    which = f"exactly {length}" if exact else f"at least {length}"
    prompt = f"""
        A row is made of {sum(counts)} tiles: {listed} (tiles of one colour are identical). All the
        distinct orders of the row are equally likely. A block is a maximal run of adjacent tiles of one
        colour (it cannot be extended on either side by a tile of the same colour). What is the expected
        number of blocks, of any colour, made of {which} tiles?
    """
    reference = f"""
        By linearity, add over each colour and each possible start of a block the probability that a
        block of {which} tiles of that colour starts there. Only the positions of that colour matter, and
        they are a uniformly random subset of the {sum(counts)} places.

        {ENDS_EXACT if exact else ENDS_AT_LEAST} Counting the subsets for each case, dividing by C(n, x) and adding over
        the three colours gives **{answer.numerator}/{answer.denominator}**.

        Answer: {answer.numerator}/{answer.denominator}
    """
    hardness = {"steps": 9, "search": comb(sum(counts), counts[0]) * comb(sum(counts) - counts[0], counts[1]),
                "traps": len(set(traps) - {answer})}
    notes = f"""Expected value over {hardness['search']:,} arrangements: needs linearity over block starts,
        separate edge and inner probabilities for each of three colours, exact binomial ratios and a sum
        of three fractions. Traps: treating the end positions like inner ones ({traps[0]}), {'at least' if
        exact else 'exactly'} {length} ({traps[1]}), independent tiles drawn with replacement
        ({traps[2]}), blocks of {length + 1} ({traps[3]})."""
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, COUNTS=counts, LENGTH=length, EXACT=exact), reference=reference, notes=notes,
        max_tokens=32768, as_fraction=True, title=f"Expected blocks of {which} in a row of {listed}")
    return case


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i, "hard") for i in range(1, 5)]
