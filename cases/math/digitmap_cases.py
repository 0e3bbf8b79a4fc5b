"""MA-digitmap: a function on the positive integers given by f(1) = c, f(2n) = b·f(n) + d0 and
f(2n + 1) = b·f(n) + d1; the sum f(1) + ... + f(N). The idea is the closed form: f rewrites n's binary
digits after the leading 1 as base-b digits (0 -> d0, 1 -> d1) behind a leading c, so the sum splits by
bit length and bit position into counts of numbers with a given bit set. The solver tabulates f."""

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-digitmap"

SOLVER = """
f = [0, LEAD]
for n in range(2, LIMIT + 1):
    f.append(BASE * f[n // 2] + (ONE if n % 2 else ZERO))
print(sum(f[1:]))
"""


def _ones_below(limit, bit):
    """How many m in [0, limit) have the given bit set."""
    block = 1 << (bit + 1)
    return (limit // block) * (block >> 1) + max(0, limit % block - (block >> 1))


def digit_sum(limit, base, lead, zero, one, reverse=False):
    """Σ f(n), n = 1..limit, by bit length k + 1 and bit position i < k (`reverse`: the digits placed
    in the opposite order, a slip)."""
    total, k = 0, 0
    while 1 << k <= limit:
        low, high = 1 << k, min(limit, (1 << (k + 1)) - 1)
        count = high - low + 1
        total += count * lead * base ** k
        for i in range(k):
            ones = _ones_below(high + 1, i) - _ones_below(low, i)
            place = base ** (k - 1 - i) if reverse else base ** i
            total += place * (ones * one + (count - ones) * zero)
        k += 1
    return total


def _case(rng, index, difficulty):
    while True:
        base = rng.choice([3, 4, 5])
        zero, one, lead = (rng.randrange(base) for _ in range(3))
        if zero != one and lead not in (0, one) and (zero, one) != (0, 1):
            break
    limit = rng.randrange(2000, 20000)
    answer = digit_sum(limit, base, lead, zero, one)
    traps = [digit_sum(limit, base, one, zero, one), digit_sum(limit, base, lead, zero, one, reverse=True),
             digit_sum(limit - 1, base, lead, zero, one), digit_sum(limit, base, lead, one, zero)]
    prompt = f"""
        A function f on the positive integers satisfies f(1) = {lead} and, for every n ≥ 1,
        f(2n) = {base}·f(n) + {zero} and f(2n + 1) = {base}·f(n) + {one}.
        What is f(1) + f(2) + f(3) + ... + f({limit})?
    """
    reference = f"""
        Unwinding the rule: if n is 1 followed by the binary digits x_(k-1) ... x_0, then
        f(n) = {lead}·{base}^k + Σ_i g(x_i)·{base}^i with g(0) = {zero} and g(1) = {one}; each binary digit of n
        below the leading 1 becomes the base-{base} digit in the same place.

        Group n by bit length. For n from 2^k to min(2^(k+1) - 1, {limit}), the leading part gives
        {lead}·{base}^k per number, and place i adds {one}·{base}^i for every number whose bit i is 1 and
        {zero}·{base}^i for the rest. Counting those numbers in each group and adding everything up
        gives **{answer:,}**.

        Answer: {answer}
    """
    bits = limit.bit_length()
    hardness = {"steps": 8 + bits, "search": limit, "traps": len(set(traps) - {answer})}
    notes = f"""{limit:,} terms of a recursively defined function: needs the closed form (binary digits
        re-read in base {base} with the digit map 0 -> {zero}, 1 -> {one} and a leading {lead}), then a
        sum over {bits} bit lengths and every bit position, where the last group is cut off at
        {limit:,} and the bit counts need care. Traps: treating the leading 1 like any other 1
        ({traps[0]}), placing the digits in reverse order ({traps[1]}), stopping at {limit - 1:,}
        ({traps[2]}), swapping the two digit values ({traps[3]})."""
    case = numeric_case(
        family=FAMILY, hardness=hardness, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, LIMIT=limit, BASE=base, LEAD=lead, ZERO=zero, ONE=one), reference=reference,
        notes=notes, max_tokens=32768, title=f"Sum of a binary-to-base-{base} digit map up to {limit}")
    return case


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i, "hard") for i in range(1, 5)]
