"""MA-prob: exact probabilities, answered as fractions. Three kinds of question, drawn by the seed:
- dice: roll several dice, drop the lowest, is the rest's total at least T;
- gaps: a random k-subset of 1..n with no two consecutive numbers and a sum divisible by m;
- cycles: a random permutation of 1..8 with no cycle of two given lengths (and an odd or even
  number of cycles).
The generator counts by multisets, a dynamic programme and cycle types; the solver enumerates
every outcome."""

from fractions import Fraction
from itertools import combinations, combinations_with_replacement
from math import comb, factorial, prod

from pytest_crucible import family_rng, numeric_case, program, spell
from pytest_crucible.suite.tiers import declare

FAMILY = "MA-prob"

DICE_SOLVER = """
from fractions import Fraction
from itertools import product
hits = 0
for roll in product(range(1, SIDES + 1), repeat=DICE):
    kept = sorted(roll)[DROP:]
    if sum(kept) >= TARGET:
        hits += 1
p = Fraction(hits, SIDES ** DICE)
print(f"{p.numerator}/{p.denominator}")
"""

GAPS_SOLVER = """
from fractions import Fraction
from itertools import combinations
hits = total = 0
for chosen in combinations(range(1, TOP + 1), SIZE):
    total += 1
    if all(b - a > 1 for a, b in zip(chosen, chosen[1:])) and sum(chosen) % DIVISOR == 0:
        hits += 1
p = Fraction(hits, total)
print(f"{p.numerator}/{p.denominator}")
"""

CYCLES_SOLVER = """
from fractions import Fraction
from itertools import permutations
hits = total = 0
for perm in permutations(range(8)):
    total += 1
    seen = [False] * 8
    lengths = []
    for start in range(8):
        if not seen[start]:
            length, at = 0, start
            while not seen[at]:
                seen[at] = True
                at = perm[at]
                length += 1
            lengths.append(length)
    if not any(n in FORBIDDEN for n in lengths) and (PARITY is None or len(lengths) % 2 == PARITY):
        hits += 1
p = Fraction(hits, total)
print(f"{p.numerator}/{p.denominator}")
"""


def _dice(dice, sides, drop, target):
    hits = 0
    for roll in combinations_with_replacement(range(1, sides + 1), dice):
        if sum(roll[drop:]) >= target:  # combinations_with_replacement yields sorted rolls
            hits += factorial(dice) // prod(factorial(roll.count(v)) for v in set(roll))
    return Fraction(hits, sides ** dice)


def _gaps(top, size, divisor):
    # ways[(chosen, last number taken, sum mod divisor)] after looking at 1..x
    ways = {(0, False, 0): 1}
    for x in range(1, top + 1):
        nxt = {}
        for (k, took_last, r), w in ways.items():
            nxt[(k, False, r)] = nxt.get((k, False, r), 0) + w
            if k < size and not took_last:
                key = (k + 1, True, (r + x) % divisor)
                nxt[key] = nxt.get(key, 0) + w
        ways = nxt
    hits = sum(w for (k, _, r), w in ways.items() if k == size and r == 0)
    return Fraction(hits, comb(top, size))


def _partitions(n, largest=None):
    largest = n if largest is None else largest
    if n == 0:
        yield []
        return
    for part in range(min(n, largest), 0, -1):
        for rest in _partitions(n - part, part):
            yield [part] + rest


def _cycles(forbidden, parity):
    hits = 0
    for shape in _partitions(8):
        if any(n in forbidden for n in shape) or (parity is not None and len(shape) % 2 != parity):
            continue
        hits += factorial(8) // prod(n ** shape.count(n) * factorial(shape.count(n)) for n in set(shape))
    return Fraction(hits, factorial(8))


def _dice_case(rng, index, difficulty):
    dice, sides = (4, 6) if difficulty == "medium" else rng.choice([(5, 6), (5, 8), (4, 10), (6, 6)])
    drop = 1 if difficulty == "medium" else rng.choice([1, 2])
    kept = dice - drop
    target = rng.randint(kept * (sides + 1) // 2 + 1, kept * (sides + 1) // 2 + sides // 2 + 2)
    answer = _dice(dice, sides, drop, target)
    traps = [_dice(dice, sides, drop, target + 1), _dice(dice, sides, 0, target), 1 - answer]
    first = "the first value" if drop == 1 else f"the first {drop} values"
    prompt = f"""
        {dice} fair dice, each with faces numbered 1 to {sides}, are rolled together. Sort the {dice}
        values from lowest to highest, discard {first} and add up the {kept} values that remain.
        What is the probability that this total is at least {target}?
    """
    reference = f"""
        There are {sides}^{dice} = {sides ** dice} equally likely rolls. Counting by the sorted values
        of the dice (each multiset weighted by the number of orders it can appear in), the rolls whose
        top {kept} dice add to {target} or more number {answer * sides ** dice}.

        The probability is {answer * sides ** dice}/{sides ** dice} = **{spell(answer)}**.

        Answer: {spell(answer)}
    """
    notes = f"""{sides ** dice} outcomes and no closed form: the count runs over the distribution of the
        {kept} highest of {dice} dice, which needs careful multiset counting (ties decide how many
        orders a roll has) or a convolution by hand, then an exact reduction. Traps: strictly more than
        {target} ({spell(traps[0])}), forgetting to remove the lowest ({spell(traps[1])}), the
        complement."""
    return prompt, answer, traps, program(DICE_SOLVER, DICE=dice, SIDES=sides, DROP=drop, TARGET=target), \
        reference, notes, f"Dice, drop the lowest {drop}, total at least {target}"


def _gaps_case(rng, index, difficulty):
    top, size, divisor = rng.randint(16, 20), rng.randint(4, 6), rng.choice([3, 4, 5, 7])
    answer = _gaps(top, size, divisor)
    apart = Fraction(comb(top - size + 1, size), comb(top, size))
    traps = [apart, apart / divisor, _gaps(top, size, 1) / divisor if divisor != 1 else apart]
    prompt = f"""
        A set of {size} different numbers is chosen at random from {{1, 2, ..., {top}}}, every
        {size}-element subset being equally likely. What is the probability that no two of the chosen
        numbers are consecutive integers and that the sum of the chosen numbers is divisible by {divisor}?
    """
    hits = answer * comb(top, size)
    reference = f"""
        There are C({top}, {size}) = {comb(top, size)} subsets. Walking through 1..{top} and tracking
        (how many are chosen, whether the previous number was taken, the sum mod {divisor}), the subsets
        with no two consecutive numbers and sum ≡ 0 (mod {divisor}) number {hits}.

        So the probability is {hits}/{comb(top, size)} = {spell(answer)}.

        **Answer: {spell(answer)}**
    """
    notes = f"""Two conditions that are not independent: the gap condition alone is the familiar
        C({top - size + 1}, {size}) count, but the sum condition on top of it needs a DP over
        (count, last taken, sum mod {divisor}) across {top} numbers, or a careful bijection. Traps:
        the gap condition alone ({spell(apart)}), assuming the sum is divisible with probability
        1/{divisor} independently ({spell(apart / divisor)})."""
    return prompt, answer, traps, program(GAPS_SOLVER, TOP=top, SIZE=size, DIVISOR=divisor), \
        reference, notes, f"{size}-subsets of 1..{top}: no neighbours, sum divisible by {divisor}"


def _cycles_case(rng, index, difficulty):
    while True:
        forbidden = sorted(rng.sample(range(1, 7), 2))
        parity = rng.choice([0, 1])  # the parity keeps the count off well-known sequences
        answer = _cycles(forbidden, parity)
        if 0 < answer < 1:
            break
    traps = [_cycles(forbidden[:1], parity), _cycles(forbidden[1:], parity), _cycles(forbidden, None)
             if parity is not None else 1 - answer]
    counted = {None: "", 0: " and the number of cycles is even", 1: " and the number of cycles is odd"}[parity]
    prompt = f"""
        A permutation of the numbers 1 to 8 is chosen uniformly at random. Write it as a product of
        disjoint cycles, counting every fixed point as a cycle of length 1. What is the probability
        that no cycle has length {forbidden[0]} or {forbidden[1]}{counted}?
    """
    reference = f"""
        Group the 8! = 40320 permutations by cycle type. A type with m_k cycles of length k has
        8! / ∏ (k^m_k · m_k!) permutations. Adding up the types that avoid lengths {forbidden[0]} and
        {forbidden[1]}{counted} gives {answer * 40320} permutations.

        Probability: {answer * 40320}/40320 = {spell(answer)}

        Answer: {spell(answer)}
    """
    notes = f"""Needs all 22 cycle types of 8 elements (partitions of 8), the class-size formula for
        each, and the right subset of them{' with the parity of the number of cycles' if parity is not None else ''};
        inclusion-exclusion over two cycle lengths is error-prone. Traps: excluding only one length
        ({spell(traps[0])} or {spell(traps[1])}){', dropping the parity condition' if parity is not None else ''}."""
    return prompt, answer, traps, program(CYCLES_SOLVER, FORBIDDEN=forbidden, PARITY=parity), \
        reference, notes, f"Permutations of 8 avoiding cycle lengths {forbidden[0]} and {forbidden[1]}"


# Hardness facts (steps, search, traps) per shape: a distribution built by cases, then exact reduction; brute
# force lists every outcome.
HARDNESS = {"medium": (6, 1296, 3), "hard": (8, 7776, 3)}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    plan = [(_dice_case, "medium"), (_gaps_case, "hard"), (_cycles_case, "hard"), (_dice_case, "hard"),
            (_gaps_case, "hard"), (_cycles_case, "hard")]
    out = []
    for index, (make, difficulty) in enumerate(plan, 1):
        prompt, answer, traps, solver, reference, notes, title = make(rng, index, difficulty)
        out.append(numeric_case(family=FAMILY, index=index, difficulty=difficulty, prompt=prompt,
                                answer=answer, traps=traps, solver=solver, reference=reference, notes=notes,
                                max_tokens=16384 if difficulty == "medium" else 32768, as_fraction=True,
                                title=title))
    for case in out:  # the plan's label names the shape (shorter or longer); the rule gives the tier
        declare(case, *HARDNESS[case["difficulty"]])
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
