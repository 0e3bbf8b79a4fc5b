"""MA-bracelet: how many different bracelets (or necklaces, turning only) carry a generated number of beads
of each colour. The idea is Burnside's lemma: average, over the rotations and flips, the arrangements each
one fixes (a multinomial over its cycles when every colour count fits the cycle length). The solver lists
every arrangement and keeps the ones that are the least among their own turns and flips."""

from math import factorial, gcd, prod

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-bracelet"
FLIP_NOTE = (" Flips fix the arrangements that are symmetric about their axis: an axis through beads leaves"
             " them single, the others pair up.")

SOLVER = """
n = sum(COUNTS)

def arrangements(left, row):
    if len(row) == n:
        yield tuple(row)
        return
    for colour, count in enumerate(left):
        if count:
            left[colour] -= 1
            row.append(colour)
            yield from arrangements(left, row)
            row.pop()
            left[colour] += 1

total = 0
for row in arrangements(list(COUNTS), []):
    images = [row[k:] + row[:k] for k in range(n)]
    if FLIPS:
        back = row[::-1]
        images += [back[k:] + back[:k] for k in range(n)]
    if row == min(images):
        total += 1
print(total)
"""


def multinomial(parts):
    return factorial(sum(parts)) // prod(factorial(p) for p in parts)


def _fixed_by_rotation(counts, shift):
    cycle = sum(counts) // gcd(sum(counts), shift)
    return multinomial([c // cycle for c in counts]) if all(c % cycle == 0 for c in counts) else 0


def _fixed_by_flip(counts, singles):
    """Arrangements a flip with `singles` fixed beads (0, 1 or 2) fixes: the rest pair up."""
    total = 0
    n = sum(counts)
    pairs = (n - singles) // 2
    if singles == 0:
        return multinomial([c // 2 for c in counts]) if all(c % 2 == 0 for c in counts) else 0
    options = [(i,) for i in range(len(counts))] if singles == 1 else [
        (i, j) for i in range(len(counts)) for j in range(len(counts))]
    for chosen in options:
        rest = list(counts)
        for i in chosen:
            rest[i] -= 1
        if all(c >= 0 and c % 2 == 0 for c in rest):
            total += multinomial([c // 2 for c in rest]) if pairs else 1
    return total


def orbits(counts, flips, skip_edge_flips=False):
    n = sum(counts)
    fixed = sum(_fixed_by_rotation(counts, k) for k in range(n))
    group = n
    if flips:
        group = 2 * n
        if n % 2:
            fixed += n * _fixed_by_flip(counts, 1)
        else:
            fixed += n // 2 * _fixed_by_flip(counts, 2)
            if not skip_edge_flips:
                fixed += n // 2 * _fixed_by_flip(counts, 0)
    return fixed // group if fixed % group == 0 else fixed / group


def _case(rng, index, difficulty, taken):
    flips = index != 3
    colours = rng.choice([("red", "blue", "white", "green"), ("gold", "silver", "black", "amber"),
                          ("green", "orange", "purple", "grey")])
    kinds = 4 if index in (1, 4) else 3
    while True:
        counts = sorted((rng.randrange(1 if kinds == 4 else 2, 7) for _ in range(kinds)), reverse=True)
        n = sum(counts)
        if not 10 <= n <= 16 or not 2000 <= multinomial(counts) <= 300_000 or len(set(counts)) == 1:
            continue
        if index == 2 and (n % 2 == 0 or sum(c % 2 for c in counts) != 1):
            continue  # one odd bracelet: a single kind of flip, and exactly one odd count so flips fix some
        if index in (1, 3) and gcd(*counts) < 2:
            continue  # turns other than the identity fix something
        if index == 4 and (n % 2 or sum(c % 2 for c in counts) not in (0, 2)):
            continue  # an even bracelet whose flips through beads fix some arrangements
        if tuple(counts) not in taken:
            taken.add(tuple(counts))
            break
    answer = orbits(counts, flips)
    naive = round(multinomial(counts) / (2 * n if flips else n))
    traps = [orbits(counts, not flips), naive, multinomial(counts)]
    if flips and n % 2 == 0:
        traps.append(int(orbits(counts, True, skip_edge_flips=True)))
    listed = ", ".join(f"{c} {name}" for c, name in zip(counts, colours))
    if flips:
        same = "one can be turned round the circle or flipped over (or both) to look exactly like the other"
    else:
        same = ("one can be turned round the circle to look exactly like the other (it lies on a table and is never "
                "flipped over)")
    prompt = f"""
        A circular string carries {n} equally spaced beads: {listed} (beads of one colour are
        identical). Two such strings count as the same if {same}. How many different strings are there?
    """
    group = f"the {2 * n if flips else n} {'turns and flips' if flips else 'turns'}"
    reference = f"""
        Burnside's lemma: the number of different strings is the average, over {group}, of the
        arrangements each one leaves unchanged. A turn by k places splits the beads into gcd({n}, k)
        cycles of length {n}/gcd({n}, k) and fixes a multinomial's worth of arrangements when every colour
        count is a multiple of the cycle length.{FLIP_NOTE if flips else ''}

        The {multinomial(counts):,} arrangements average out to **{answer:,}** different strings.

        Answer: {answer}
    """
    hardness = {"steps": 8, "search": multinomial(counts), "traps": len(set(traps) - {answer})}
    axes = "both kinds of flip axis" if flips and n % 2 == 0 else "the flips through one bead" if flips else "no flips"
    between = f", leaving out the flips whose axis passes between beads ({traps[3]})" if len(traps) > 3 else ""
    notes = f"""{multinomial(counts):,} arrangements of {listed}; counting them up to symmetry needs
        Burnside over {group}, with the turns of every cycle length that divides the colour counts and
        {axes}.
        Traps: the {'necklace (turns only)' if flips else 'bracelet (flips too)'} count ({traps[0]}),
        dividing by the group's size ({traps[1]}), no symmetry at all ({traps[2]}){between}."""
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, COUNTS=counts, FLIPS=flips), reference=reference, notes=notes,
        max_tokens=32768, title=f"{'Bracelets' if flips else 'Necklaces'} of {listed}")
    return case


def cases(seed):
    rng = family_rng(FAMILY, seed)
    taken = set()
    return [_case(rng, i, "hard", taken) for i in range(1, 5)]
