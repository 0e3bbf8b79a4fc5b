"""MA-forms: how many integer pairs (x, y) solve x^2 + y^2 = N, x^2 + xy + y^2 = N or x^2 + 2y^2 = N
for N of up to nine digits. The generator uses the divisor-sum formulas of these forms (units times the
sum of a character over the divisors of N); the solver tries every x."""

from pytest_crucible import factored, family_rng, numeric_case, program
from pytest_crucible.suite.tiers import declare

FAMILY = "MA-forms"

# name: (the form as asked, units (solutions per representation class), character mod 8 or 12 on divisors,
#        primes that split (so appear to any power), primes that must appear squared, ramified primes)
FORMS = {
    "x^2 + y^2": (4, lambda d: {1: 1, 3: -1}.get(d % 4, 0), [5, 13, 17, 29, 37, 41, 53], [3, 7, 11], [2]),
    "x^2 + xy + y^2": (6, lambda d: {1: 1, 2: -1}.get(d % 3, 0), [7, 13, 19, 31, 37, 43], [2, 5, 11], [3]),
    "x^2 + 2y^2": (2, lambda d: {1: 1, 3: 1, 5: -1, 7: -1}.get(d % 8, 0), [3, 11, 17, 19, 41, 43], [5, 7, 13], [2]),
}

SOLVER = """
from math import isqrt
count = 0
bound = isqrt(4 * N) + 2
for x in range(-bound, bound + 1):
    if FORM == "x^2 + y^2":
        rest = N - x * x
        if rest >= 0:
            y = isqrt(rest)
            if y * y == rest:
                count += 1 if y == 0 else 2
    elif FORM == "x^2 + 2y^2":
        rest = N - x * x
        if rest >= 0 and rest % 2 == 0:
            y = isqrt(rest // 2)
            if 2 * y * y == rest:
                count += 1 if y == 0 else 2
    else:  # x^2 + xy + y^2 = N: y = (-x ± sqrt(4N - 3x^2)) / 2
        disc = 4 * N - 3 * x * x
        if disc >= 0:
            root = isqrt(disc)
            if root * root == disc:  # y = t / 2 for each distinct even t
                count += sum(1 for t in {-x + root, -x - root} if t % 2 == 0)
print(count)
"""


def representations(form, n):
    units, chi, *_ = FORMS[form]
    return units * sum(chi(d) for d in _divisors(n))


def _divisors(n):
    small = [d for d in range(1, int(n ** 0.5) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def _case(rng, index, difficulty):
    form = rng.choice(sorted(FORMS))
    units, chi, split, inert, ramified = FORMS[form]
    while True:
        n = rng.choice(ramified) ** rng.randrange(0, 3)
        for p in rng.sample(split, 2 if difficulty == "medium" else rng.randrange(3, 5)):
            n *= p ** rng.randrange(1, 3 if difficulty == "medium" else 4)
        n *= rng.choice(inert) ** 2 if rng.random() < 0.6 else 1
        low, high = (10 ** 4, 10 ** 6) if difficulty == "medium" else (10 ** 6, 10 ** 9)
        if low <= n <= high:
            break
    answer = representations(form, n)
    divisor_count = len(_divisors(n))
    traps = [answer // units, answer // 4 if form != "x^2 + y^2" else answer // 2, units * divisor_count,
             answer // 2]
    prompt = f"""
        How many pairs of integers (x, y) satisfy {form} = {n:,}? Count ordered pairs, and allow
        negative values and zero: (x, y) and (y, x) are different pairs when x ≠ y, and so are
        (x, y) and (-x, y) when x ≠ 0.
    """
    reference = f"""
        Factor N = {n} = {factored(n)}.

        The number of representations by {form} is {units} × Σ χ(d) over the divisors d of N, with
        the character χ of this form; every prime that must appear to an even power does, so the sum
        is a product over the split primes of (exponent + 1).

        That gives {units} × {answer // units} = {answer} ordered pairs.

        Answer: {answer}
    """
    notes = f"""N = {n} has {divisor_count} divisors and must first be factored by hand; then the model
        needs the right representation formula for {form} ({units} units, which primes split, stay
        inert or ramify), and must check each inert prime appears squared. Brute force means about
        {int((4 * n) ** 0.5)} values of x with a perfect-square test each. Traps: counting only
        positive or unordered solutions ({answer // units} or {traps[1]}), using the plain divisor
        count ({units * divisor_count})."""
    return numeric_case(
        family=FAMILY, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, FORM=form, N=n), reference=reference, notes=notes,
        max_tokens=16384 if difficulty == "medium" else 32768,
        title=f"Integer solutions of {form} = {n}")


# Hardness facts (steps, search, traps) per shape: factor N, classify each prime, multiply; brute force tries
# every x up to sqrt(N).
HARDNESS = {"medium": (7, 676, 2), "hard": (9, 30000, 2)}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    out = [_case(rng, i, difficulty) for i, difficulty in
            enumerate(["medium", "hard", "hard", "hard", "hard", "hard"], 1)]
    for case in out:  # the plan's label names the shape (shorter or longer); the rule gives the tier
        declare(case, *HARDNESS[case["difficulty"]])
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
