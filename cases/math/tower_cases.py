"""MA-tower: the last digits (or a remainder) of a power tower such as 38^(47^29). The generator
reduces the exponents with Euler's theorem in its general form (a^e = a^(e mod phi(m) + phi(m))
for e >= phi(m), whatever gcd(a, m) is); the solver computes the exact exponent and one modular
power."""

from math import gcd

from pytest_crucible import factored, family_rng, numeric_case, program
from pytest_crucible.suite.tiers import declare

FAMILY = "MA-tower"

SOLVER = """
exponent = 1
for level in reversed(TOWER[1:]):
    exponent = level ** exponent
print(pow(TOWER[0], exponent, MODULUS))
"""


def phi(m: int) -> int:
    result, n, p = m, m, 2
    while p * p <= n:
        if n % p == 0:
            while n % p == 0:
                n //= p
            result -= result // p
        p += 1
    if n > 1:
        result -= result // n
    return result


def _at_least(tower, bound):
    """Is the tower's value >= bound? (evaluated from the top, stopping once it is clearly huge)"""
    value = 1
    for level in reversed(tower):
        if value > 64 and level > 1:
            return True
        value = level ** value
        if value >= bound:
            return True
    return value >= bound


def tower_mod(tower, m):
    if m == 1:
        return 0
    if len(tower) == 1:
        return tower[0] % m
    base, rest = tower[0], tower[1:]
    t = phi(m)
    if _at_least(rest, t):
        return pow(base, tower_mod(rest, t) + t, m)
    exponent = 1
    for level in reversed(rest):
        exponent = level ** exponent
    return pow(base, exponent, m)


def _spelled(tower):
    if len(tower) == 3:
        return f"{tower[0]}^({tower[1]}^{tower[2]})"
    return f"{tower[0]}^({tower[1]}^({tower[2]}^{tower[3]}))"


def _case(rng, index, levels, modulus, shared_factor, difficulty):
    while True:
        base = rng.randrange(2, 100)
        if shared_factor and gcd(base, modulus) == 1:
            continue
        if not shared_factor and gcd(base, modulus) != 1:
            continue
        if base % 10 in (0, 1, 5) or base in (2, 4, 8, 16, 32, 64, 3, 9, 27, 81):
            continue
        tower = [base] + [rng.randrange(3, 60) for _ in range(levels - 2)] + [rng.randrange(11, 40)]
        if levels == 4:
            tower[-1] = rng.randrange(2, 4)
            tower[-2] = rng.randrange(3, 9)
        answer = tower_mod(tower, modulus)
        stacked = 1
        for level in reversed(tower[2:]):
            stacked = level ** stacked
        flat = pow(base, tower[1] * stacked, modulus)                        # (a^b)^c read bottom-up
        naive = pow(base, tower_mod(tower[1:], phi(modulus)), modulus)       # Euler without the + phi
        guessable = answer * answer % modulus == answer or answer == base % modulus  # 0, 1, 9376, the base
        if not guessable and answer != flat:
            break
    digits = len(str(modulus)) - 1
    is_power_of_ten = modulus == 10 ** digits
    ask = (f"What are the last {digits} digits of N? Give them as a number without leading zeros "
           f"(for example, if they were {'0' * (digits - 2)}47 you would answer 47)."
           if is_power_of_ten else f"What is the remainder when N is divided by {modulus}?")
    if levels == 3:
        order = f"first compute {tower[1]}^{tower[2]}, then raise {tower[0]} to that power"
    else:
        order = (f"first compute {tower[2]}^{tower[3]}, then raise {tower[1]} to that power, then raise "
                 f"{tower[0]} to the result")
    prompt = f"""
        Let N = {_spelled(tower)}: the exponents are evaluated from the top down ({order}).
        {ask}
    """
    traps = [flat, naive, answer % (modulus // 10) if is_power_of_ten else (answer + modulus // 2) % modulus]
    factors = factored(modulus)
    reference = f"""
        Work modulo {modulus} = {factors} and combine with the Chinese remainder theorem.

        * The exponent tower is astronomically large, so reduce it: for any base and any e ≥ φ(m),
          a^e ≡ a^(e mod φ(m) + φ(m)) (mod m). Here φ({modulus}) = {phi(modulus)}, and the exponent
          reduces step by step down the tower.
        * Putting the pieces together gives N ≡ {answer} (mod {modulus}).

        Answer: {answer}
    """
    digits_of_exponent = int(stacked.bit_length() * tower[1].bit_length() * 0.30103) + 1
    notes = f"""The exponent has roughly {digits_of_exponent} digits or more, so everything hinges on
        reducing it correctly: {levels - 1} nested reductions (phi of phi ...) and modular powers by
        repeated squaring, each an arithmetic chain a slip ruins{'; the base shares a factor with ' +
        str(modulus) + ', so plain Euler (exponent mod phi) is wrong and the prime-power parts must be split (CRT)'
        if shared_factor else ''}. Traps: reading the tower bottom-up ({flat}){', Euler without the + phi(m) correction (' + str(naive) + ')' if naive != answer else ''}."""
    return numeric_case(
        family=FAMILY, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, TOWER=tower, MODULUS=modulus), reference=reference, notes=notes,
        max_tokens=16384 if difficulty == "medium" else 32768,
        title=f"{_spelled(tower)} modulo {modulus}")


# Hardness facts (steps, search, traps) per shape: nested totient reductions and powers by repeated squaring;
# the exponent is far too large to use as is.
HARDNESS = {"medium": (6, 1000000000, 1), "hard": (9, 1000000000000000000, 1)}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    plan = [(3, 1000, False, "medium"), (3, 10000, True, "hard"), (3, 10000, True, "hard"),
            (4, 10000, False, "hard"), (3, 9240, True, "hard"), (4, 100000, True, "hard")]
    out = [_case(rng, i, levels, modulus, shared, difficulty)
            for i, (levels, modulus, shared, difficulty) in enumerate(plan, 1)]
    for case in out:  # the plan's label names the shape (shorter or longer); the rule gives the tier
        declare(case, *HARDNESS[case["difficulty"]])
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
