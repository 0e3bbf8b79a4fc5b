"""CO-parse-duration: durations like "1h 30m" or "-2.5s" to whole milliseconds, with strict rules.

Hidden valid durations are built by the seed from components (exact arithmetic decides the expected
value); hidden invalid ones break exactly one rule. The oracle is the generator, not a parser.
"""

from fractions import Fraction

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-duration"

# Hardness (README "How tiers are assigned", coding): m against ms, unit order, unique units, a fraction only
# last, exact arithmetic, whitespace. Traps: the wrong solutions.
HARDNESS = {"steps": 6, "search": 1, "traps": 4}
UNITS = [("w", 604_800_000), ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)]

PROMPT = """
Write a Python function `parse_duration(text: str) -> int` that converts a duration written like
"1h 30m" into a whole number of milliseconds.

Rules:
- A duration is an optional sign (`+` or `-`, only at the very start) followed by one or more
  components. A component is a number immediately followed by a unit: `w` (week, 7 days), `d` (day),
  `h` (hour), `m` (minute), `s` (second) or `ms` (millisecond). Units are case-sensitive.
- Components may be separated by exactly one space, or written together ("1h30m" and "1h 30m" are
  the same). No other spaces are allowed anywhere, including at the start or end.
- Units must appear from the largest to the smallest, each at most once ("30m1h" and "1m1m" are
  invalid).
- A number is one or more digits (leading zeros allowed). Only the last component may have a decimal
  fraction, written as digits, a dot and at least one digit ("1h1.5m" is fine, "1.5h30m" and "1.m" are
  not).
- The whole duration must come to a whole number of milliseconds ("1.5ms" is invalid); the sign
  applies to the total.
- The single digit string "0" alone (no unit) is also a valid duration, equal to 0.

Return the total as an int. Raise `ValueError` for any text that breaks a rule.

Example:
    parse_duration("1h30m") == 5400000
"""

SOLUTION = '''
import re
from fractions import Fraction

_COMPONENT = re.compile(r"(\\d+)(?:\\.(\\d+))?(ms|w|d|h|m|s)")
_SIZES = {"w": 604_800_000, "d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1000, "ms": 1}

def parse_duration(text):
    if text == "0":
        return 0
    sign, pos = 1, 0
    if text[:1] in ("+", "-"):
        sign, pos = (-1 if text[0] == "-" else 1), 1
    total = Fraction(0)
    last_size = None
    while True:
        match = _COMPONENT.match(text, pos)
        if match is None:
            raise ValueError(f"expected a component at offset {pos} in {text!r}")
        whole, fraction, unit = match.groups()
        size = _SIZES[unit]
        if last_size is not None and size >= last_size:
            raise ValueError(f"unit {unit!r} out of order in {text!r}")
        last_size = size
        value = Fraction(int(whole))
        if fraction is not None:
            value += Fraction(int(fraction), 10 ** len(fraction))
        total += value * size
        pos = match.end()
        if pos == len(text):
            break
        if fraction is not None:
            raise ValueError(f"only the last component may have a fraction: {text!r}")
        if text[pos] == " ":
            pos += 1
    if total.denominator != 1:
        raise ValueError(f"{text!r} is not a whole number of milliseconds")
    return sign * int(total)
'''

WRONG = [
    # float arithmetic: 1.001s is 1000.9999999999999 ms
    '''
    import re

    _COMPONENT = re.compile(r"(\\d+(?:\\.\\d+)?)(ms|w|d|h|m|s)( ?)")
    _SIZES = {"w": 604_800_000, "d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1000, "ms": 1}

    def parse_duration(text):
        if text == "0":
            return 0
        sign = -1 if text.startswith("-") else 1
        body = text[1:] if text[:1] in "+-" else text
        pos, total, last = 0, 0.0, None
        while pos < len(body):
            m = _COMPONENT.match(body, pos)
            if not m or (m.group(3) and m.end() == len(body)):
                raise ValueError(text)
            number, unit = m.group(1), m.group(2)
            if last is not None and _SIZES[unit] >= last:
                raise ValueError(text)
            if "." in number and m.end() != len(body):
                raise ValueError(text)
            last = _SIZES[unit]
            total += float(number) * _SIZES[unit]
            pos = m.end()
        if not body or total != int(total):
            raise ValueError(text)
        return sign * int(total)
    ''',
    # unit alternatives tried in the wrong order: "5ms" reads as 5 minutes and then a stray "s"
    mutate(SOLUTION, ('(ms|w|d|h|m|s)")', '(w|d|h|m|s|ms)")')),
    # a fraction accepted in any component
    mutate(SOLUTION, ('''        if fraction is not None:
            raise ValueError(f"only the last component may have a fraction: {text!r}")
''', '')),
    # any run of spaces between components, and a trailing one
    mutate(SOLUTION, ('''        if text[pos] == " ":
            pos += 1''', '''        while pos < len(text) and text[pos] == " ":
            pos += 1
        if pos == len(text):
            break''')),
]

TESTS = '''
def _invalid(text):
    try:
        parse_duration(text)
    except ValueError:
        return True
    return False

def test_basics():
    assert parse_duration("1h30m") == 5400000
    assert parse_duration("1h 30m") == 5400000
    assert parse_duration("2w") == 1209600000
    assert parse_duration("0") == 0
    assert parse_duration("0s") == 0
    assert parse_duration("-0ms") == 0
    assert parse_duration("+5s") == 5000
    assert parse_duration("-1d2h") == -93600000
    assert parse_duration("007m") == 420000

def test_milliseconds_and_minutes():
    assert parse_duration("5ms") == 5
    assert parse_duration("5m") == 300000
    assert parse_duration("1m5s") == 65000
    assert parse_duration("1m 5ms") == 60005
    assert parse_duration("1s5ms") == 1005

def test_exact_fractions():
    assert parse_duration("1.001s") == 1001
    assert parse_duration("1.015s") == 1015
    assert parse_duration("1h1.5m") == 3690000
    assert parse_duration("0.0005h") == 1800
    assert parse_duration("2.000ms") == 2
    assert _invalid("2.5ms")
    assert _invalid("0.0001s")
    assert parse_duration("1.0ms") == 1

def test_invalid():
    for text in ["", " ", "1h ", " 1h", "1h  30m", "1h30", "30m1h", "1m1m", "1.5h30m", "1.m", ".5s",
                 "1H", "1 h", "--1s", "1h-30m", "0 ", "00", "1h,30m", "ms", "1hh", "+", "5sm", "1e3ms"]:
        assert _invalid(text), text

def test_seeded_durations():
    for text, want in SEEDED_VALID:
        assert parse_duration(text) == want, text
    for text in SEEDED_INVALID:
        assert _invalid(text), text
'''


def _component(rng, unit, last):
    whole = str(rng.randrange(0, 400))
    if rng.random() < 0.15:
        whole = "0" + whole
    if last and rng.random() < 0.5:
        digits = rng.randrange(1, 4)
        return f"{whole}.{rng.randrange(10 ** digits):0{digits}d}", unit
    return whole, unit


def _value(number, unit):
    return Fraction(number) * dict(UNITS)[unit]


def _draw_valid(rng):
    while True:
        chosen = sorted(rng.sample(range(len(UNITS)), rng.randrange(1, 4)))
        parts = [_component(rng, UNITS[i][0], i == chosen[-1]) for i in chosen]
        total = sum(_value(n, u) for n, u in parts)
        if total.denominator == 1:
            break
    sign = rng.choice(["", "", "+", "-"])
    text = sign + "".join(f"{n}{u}" + (rng.choice(["", " "]) if k < len(parts) - 1 else "")
                          for k, (n, u) in enumerate(parts))
    return text, int(total) * (-1 if sign == "-" else 1), parts, sign


def _draw_invalid(rng):
    """A valid duration with exactly one rule broken."""
    while True:
        text, _, parts, sign = _draw_valid(rng)
        kind = rng.randrange(6)
        if kind == 0 and len(parts) > 1:                  # order swapped
            parts[0], parts[1] = parts[1], parts[0]
        elif kind == 1 and len(parts) > 1 and "." not in parts[0][0]:  # fraction not last
            parts[0] = (parts[0][0] + ".5", parts[0][1])
        elif kind == 2:                                   # repeated unit
            parts.append((str(rng.randrange(1, 9)), parts[-1][1]))
        elif kind == 3:                                   # spaces where none are allowed
            return rng.choice([" " + text, text + " ", text.replace(parts[0][1], " " + parts[0][1], 1)])
        elif kind == 4:                                   # capital unit or missing unit
            return rng.choice([text[:-1] + text[-1].upper(), text + "7"])
        elif kind == 5:                                   # not a whole millisecond
            return sign + f"{rng.randrange(1, 9)}.{rng.randrange(1, 10)}ms"
        else:
            continue
        return sign + "".join(f"{n}{u}" for n, u in parts)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    valid = [_draw_valid(rng)[:2] for _ in range(40)]
    invalid = [_draw_invalid(rng) for _ in range(25)]
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Strict duration strings to exact milliseconds",
        prompt=PROMPT, entry_point="parse_duration",
        tests=TESTS, data={"SEEDED_VALID": valid, "SEEDED_INVALID": invalid},
        solution=SOLUTION, wrong=WRONG,
        notes="""Medium: a tokenizer with one classic ambiguity ("m" against "ms"), ordering and
        uniqueness of units, a fraction only in the last component, exact arithmetic (float gives
        1.001s = 1000.999... ms) and a precise whitespace rule. Each rule is simple; the hidden tests
        probe every one, with 40 seeded valid and 25 seeded single-fault strings.""",
    )]
