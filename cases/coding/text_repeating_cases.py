"""CO-text-repeating: a fraction written out exactly in a base from 2 to 16, its period in parentheses.

The seeded fractions' expected strings come from number theory (the pre-period is how many times the
reduced denominator shares a factor with the base, the period the multiplicative order of the base modulo
what is left, and the digits are read off floor(f * base^s) and floor(frac * (base^p - 1))); the
reference does long division and remembers where each remainder was first seen. The perf fractions have
periods of about 10^5 digits; their strings are pinned by length and a checksum.
"""

from math import gcd

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-text-repeating"

# Hardness (README "How tiers are assigned", coding): the sign, the whole part, long division keyed by
# remainder, where the parenthesis opens: 4 steps; the 10^5-digit periods rule out searching back
# through the digits. Traps: the wrong solutions.
HARDNESS = {"steps": 4, "search": 100000, "traps": 4}

PROMPT = """
Write a Python function `expand(numerator: int, denominator: int, base: int = 10) -> str` that writes
the fraction numerator / denominator exactly in the given base (2 <= base <= 16, digits `0-9` then
lowercase `a-f`; the denominator is never 0, either number may be negative).

- The result is the whole part, then (only when the fraction is not a whole number) a `.` and the
  digits after the point. When the digits after the point repeat forever, the shortest repeating block
  is put in parentheses, starting as early as possible: 1/6 is `0.1(6)`, 1/3 is `0.(3)`, never
  `0.(33)` or `0.3(3)`.
- A negative value starts with `-`; zero is `0` (never `-0`), a whole number has no point: 4/2 is `2`.

Periods can be 100,000 digits long; the function must finish within a couple of seconds.

Examples:

    expand(1, 6) == "0.1(6)"
    expand(-22, 7) == "-3.(142857)"
    expand(1, -4) == "-0.25"
    expand(10, 4, 2) == "10.1"
    expand(1, 3, 16) == "0.(5)"
"""

SOLUTION = '''
DIGITS = "0123456789abcdef"


def expand(numerator, denominator, base=10):
    negative = (numerator < 0) != (denominator < 0) and numerator != 0
    num, den = abs(numerator), abs(denominator)
    whole, rest = divmod(num, den)
    head = ("-" if negative else "") + _whole(whole, base)
    if rest == 0:
        return head
    digits = []
    first_seen = {}
    while rest and rest not in first_seen:
        first_seen[rest] = len(digits)
        digit, rest = divmod(rest * base, den)
        digits.append(DIGITS[digit])
    if rest == 0:
        return head + "." + "".join(digits)
    start = first_seen[rest]
    return head + "." + "".join(digits[:start]) + "(" + "".join(digits[start:]) + ")"


def _whole(value, base):
    if value == 0:
        return "0"
    out = []
    while value:
        value, digit = divmod(value, base)
        out.append(DIGITS[digit])
    return "".join(reversed(out))
'''

WRONG = [
    # Python's floor division on signed values: -1/6 comes out as -1 + 5/6
    mutate(SOLUTION, ("    num, den = abs(numerator), abs(denominator)\n    whole, rest = divmod(num, den)",
                      "    whole, rest = divmod(numerator, denominator)\n    den = abs(denominator)\n"
                      "    whole, rest = abs(whole), abs(rest)")),
    # the parenthesis opens one digit late
    mutate(SOLUTION, ("    start = first_seen[rest]\n", "    start = first_seen[rest] + 1\n")),
    # a sign taken from the numerator alone, and -0 for a zero over a negative denominator
    mutate(SOLUTION, ("    negative = (numerator < 0) != (denominator < 0) and numerator != 0",
                      "    negative = numerator < 0 or denominator < 0")),
    # remainders remembered in a list and searched each step: quadratic in the period
    mutate(SOLUTION, ('''    first_seen = {}
    while rest and rest not in first_seen:
        first_seen[rest] = len(digits)''', '''    first_seen = []
    while rest and rest not in first_seen:
        first_seen.append(rest)'''), ("    start = first_seen[rest]\n", "    start = first_seen.index(rest)\n")),
]

TESTS = '''
def test_examples():
    assert expand(1, 6) == "0.1(6)"
    assert expand(-22, 7) == "-3.(142857)"
    assert expand(1, -4) == "-0.25"
    assert expand(10, 4, 2) == "10.1"
    assert expand(1, 3, 16) == "0.(5)"

def test_edges():
    assert expand(0, -5) == "0"
    assert expand(-4, -2) == "2"
    assert expand(-1, 6) == "-0.1(6)"
    assert expand(1, 1) == "1"
    assert expand(255, 1, 16) == "ff"
    assert expand(-7, 12, 2) == "-0.10(01)"
    assert expand(1, 97) == ("0.(010309278350515463917525773195876288659793814432989690721"
                             "649484536082474226804123711340206185567)")

def test_seeded():
    for (n, d, b), want in SEEDED:
        assert expand(n, d, b) == want, (n, d, b)
'''

PERF_INPUT = '''
args = ({num}, {den}, {base})
'''
PERF_CHECK = '''
assert len(result) == {length}
assert sum((i + 1) * ord(c) for i, c in enumerate(result)) % 1000000007 == {check}
'''


def _order(base, modulus):
    if modulus == 1:
        return 0
    value, k = base % modulus, 1
    while value != 1:
        value, k = value * base % modulus, k + 1
    return k


def _digits(value, base, width):
    out = []
    for _ in range(width):
        value, d = divmod(value, base)
        out.append("0123456789abcdef"[d])
    return "".join(reversed(out))


def _by_theory(numerator, denominator, base):
    sign = "-" if numerator * denominator < 0 else ""
    num, den = abs(numerator), abs(denominator)
    g = gcd(num, den)
    num, den = num // g, den // g
    whole, rest = divmod(num, den)
    text = sign + (_digits(whole, base, len(_radix(whole, base))) if whole else "0")
    if rest == 0:
        return text
    s, left = 0, den
    while gcd(left, base) > 1:
        left //= gcd(left, base)
        s += 1
    p = _order(base, left)
    scaled = rest * base ** s
    pre = scaled // den
    frac_num = scaled - pre * den                 # remaining fraction frac_num / den, period p
    text += "." + (_digits(pre, base, s) if s else "")
    if p:
        text += "(" + _digits(frac_num * (base ** p - 1) // den, base, p) + ")"
    return text


def _radix(value, base):
    out = ""
    while value:
        value, d = divmod(value, base)
        out = "0123456789abcdef"[d] + out
    return out


# (name, numerator, denominator, base, length, checksum): periods of 49,995 and 100,002 digits; the
# strings were written out once by `_by_theory` (quadratic in the period, so not run on every load)
PERF = [("period-49995", 12345, 99991 * 8, 10, 50002, 612405141),
        ("period-base7", -98765, 100003 * 49, 7, 100009, 50750366)]


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(60):
        base = rng.choice([10, 10, 2, 3, 7, 8, 12, 16])
        den = rng.choice([1, 2, 3, 4, 6, 7, 9, 11, 12, 13, 24, 27, 28, 37, 41, 49, 96, 101, 360, 625, 1000])
        den *= rng.choice([1, 1, base, base * base])
        num = rng.randrange(0, 3 * den)
        if rng.random() < 0.5:
            num = -num
        if rng.random() < 0.3:
            den = -den
        seeded.append(((num, den, base), _by_theory(num, den, base)))
    perf = [{"name": name, "input": PERF_INPUT.format(num=num, den=den, base=base),
             "check": PERF_CHECK.format(length=length, check=check)}
            for name, num, den, base, length, check in PERF]
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Exact fractions in bases 2 to 16 with a repeating block",
        prompt=PROMPT, entry_point="expand", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG, perf=perf,
        notes="""Long division with remainders keyed to positions is a known exercise (in base 10); the
        base parameter, signs on either side, -0, and the earliest start of the shortest block are
        where replies slip. Python's floor division on negative values gives -1/6 as -1 + 5/6, a
        parenthesis one digit late still repeats but is not the earliest, and searching a list of
        remainders is quadratic in the 10^5-digit periods.""",
    )]
