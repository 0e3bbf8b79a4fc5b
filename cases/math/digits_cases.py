"""MA-digits: how many integers in a range have a given digit sum, are divisible by a given number
and never repeat a digit in adjacent places. The generator runs a digit DP (count up to X, tight
prefix); the solver checks every multiple in the range."""

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import declare

FAMILY = "MA-digits"

SOLVER = """
count = 0
first = -(-LOW // DIVISOR) * DIVISOR
for n in range(first, HIGH + 1, DIVISOR):
    digits = str(n)
    if sum(map(int, digits)) == DIGIT_SUM and all(a != b for a, b in zip(digits, digits[1:])):
        count += 1
print(count)
"""


def count_up_to(limit, digit_sum, divisor, no_repeats=True):
    """How many n in [0, limit] have the digit sum, the divisibility and (optionally) no two equal
    adjacent digits. Leading zeros are not digits of the number, so they may repeat."""
    if limit < 0:
        return 0
    digits = list(map(int, str(limit)))
    # state: (tight, previous digit or -1 before the first nonzero digit, digit sum, remainder) -> ways
    states = {(True, -1, 0, 0): 1}
    for place, limit_digit in enumerate(digits):
        room = 9 * (len(digits) - place - 1)  # the most the later digits can still add
        nxt = {}
        for (tight, prev, total, rem), ways in states.items():
            for d in range((limit_digit if tight else 9) + 1):
                if no_repeats and d == prev:
                    continue
                if total + d > digit_sum:
                    break
                if total + d + room < digit_sum:
                    continue
                key = (tight and d == limit_digit, d if prev >= 0 or d > 0 else -1, total + d,
                       (rem * 10 + d) % divisor)
                nxt[key] = nxt.get(key, 0) + ways
        states = nxt
    return sum(w for (_, prev, total, rem), w in states.items()
               if prev >= 0 and total == digit_sum and rem == 0)


def _count(low, high, digit_sum, divisor, no_repeats=True):
    return count_up_to(high, digit_sum, divisor, no_repeats) - count_up_to(low - 1, digit_sum, divisor, no_repeats)


def _case(rng, index, difficulty):
    while True:
        if difficulty == "medium":
            low = rng.randrange(10, 60) * 1000
            high = low + rng.randrange(20, 40) * 1000 - 1
        else:
            low = rng.randrange(100, 800) * 1000 + rng.randrange(1000)
            high = low + rng.randrange(150, 260) * 1000 + rng.randrange(1000)
        divisor = rng.choice([7, 11, 13]) if difficulty == "hard" else rng.choice([3, 9, 11])
        digit_sum = rng.randrange(14, 30)
        if divisor in (3, 9) and digit_sum % divisor:
            continue
        answer = _count(low, high, digit_sum, divisor)
        if answer >= 30:
            break
    repeats = _count(low, high, digit_sum, divisor, no_repeats=False)
    traps = [repeats, _count(low, high - 1, digit_sum, divisor), _count(low, high, digit_sum, 1) // divisor]
    prompt = f"""
        How many integers n with {low:,} ≤ n ≤ {high:,} have all three of these properties?
        1. The digits of n add up to {digit_sum}.
        2. n is divisible by {divisor}.
        3. No two adjacent digits of n are equal (so 1213 is allowed, 1223 is not).
    """
    reference = f"""
        Count with a digit DP over the decimal digits, tracking (tight to the bound, previous digit,
        digit sum so far, remainder mod {divisor}), once for the upper end {high} and once for
        {low - 1}, and subtract.

        * up to {high:,}: {count_up_to(high, digit_sum, divisor)}
        * up to {low - 1:,}: {count_up_to(low - 1, digit_sum, divisor)}

        Difference: **{answer}** integers.

        Answer: {answer}
    """
    notes = f"""{high - low + 1:,} candidates; three interacting conditions (digit sum, divisibility by
        {divisor}, which is not a digit-sum test{' beyond the alternating sum' if divisor == 11 else ''},
        and the adjacency rule) leave no shortcut but a digit DP with a few hundred states per digit,
        carried over two bounds that are not round numbers. Traps: dropping the adjacency rule
        ({repeats}), an exclusive upper bound ({traps[1]}), assuming 1 in {divisor} of the digit-sum
        numbers is divisible ({traps[2]})."""
    return numeric_case(
        family=FAMILY, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, LOW=low, HIGH=high, DIGIT_SUM=digit_sum, DIVISOR=divisor),
        reference=reference, notes=notes, max_tokens=16384 if difficulty == "medium" else 32768,
        title=f"Digit sum {digit_sum}, divisible by {divisor}, no equal neighbours, in a range")


# Hardness facts (steps, search, traps) per shape: a digit DP over five or six digits with two bounds; brute
# force runs over every number in the range.
HARDNESS = {"medium": (6, 31000, 2), "hard": (9, 100000, 2)}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    out = [_case(rng, i, difficulty) for i, difficulty in
            enumerate(["medium", "hard", "hard", "hard", "hard", "hard"], 1)]
    for case in out:  # the plan's label names the shape (shorter or longer); the rule gives the tier
        declare(case, *HARDNESS[case["difficulty"]])
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
