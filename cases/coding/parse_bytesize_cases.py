"""CO-parse-bytesize: byte counts as "1.23 MB" / "1.00 MiB" with exact half-up rounding and rollover.

Hidden byte counts are drawn by the seed near the rounding and unit boundaries; their expected strings
come from integer arithmetic on scaled values (the reference works with Fractions).
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-bytesize"

# Hardness (README "How tiers are assigned", coding): decimals from the rounded value, rollover to the next
# unit, exact half-up, binary units to 1023. Traps: the wrong solutions.
HARDNESS = {"steps": 4, "search": 1, "traps": 4}

PROMPT = """
Write a Python function `format_size(n: int, binary: bool) -> str` that writes a byte count for people.

- Decimal units (binary=False) step by 1000: kB, MB, GB, TB, PB, EB. Binary units (binary=True) step by
  1024: KiB, MiB, GiB, TiB, PiB, EiB.
- A count whose absolute value is below one step (1000 or 1024) is written as the integer and " B":
  "0 B", "999 B", "-5 B".
- Otherwise use the largest unit not bigger than the absolute value (EB / EiB at most) and write the
  exact value in that unit with two decimals if it is below 10, one decimal if it is below 100, and no
  decimals otherwise, rounding halves up (away from zero), then a space and the unit: "1.50 kB",
  "12.3 MB", "512 KiB", "1023 KiB".
- The number of decimals is decided by the rounded value: a value that rounds up to 10 or 100 is
  written as "10.0" or "100". A value that rounds up to a whole step (1000 in decimal units, 1024 in
  binary units) moves to the next unit as "1.00" (unless the unit is already EB / EiB).
- Negative counts are written as "-" followed by the text for the absolute value.

Example:
    format_size(1536, True) == "1.50 KiB"
"""

SOLUTION = '''
from fractions import Fraction

def format_size(n, binary):
    if n < 0:
        return "-" + format_size(-n, binary)
    step = 1024 if binary else 1000
    units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"] if binary else ["kB", "MB", "GB", "TB", "PB", "EB"]
    if n < step:
        return f"{n} B"
    power = 1
    while power < len(units) and n >= step ** (power + 1):
        power += 1
    while True:
        value = Fraction(n, step ** power)
        for decimals, below in ((2, 10), (1, 100), (0, None)):
            scaled = value * 10 ** decimals
            rounded = int(scaled + Fraction(1, 2))          # half up; value is positive
            if below is None or rounded < below * 10 ** decimals:
                break
        if rounded >= step * 10 ** decimals and power < len(units):
            power += 1
            continue
        whole, part = divmod(rounded, 10 ** decimals)
        text = f"{whole}.{part:0{decimals}d}" if decimals else str(whole)
        return f"{text} {units[power - 1]}"
'''

WRONG = [
    # floats and round(): 1005 bytes is 1.00499... kB in binary floating point
    '''
    def format_size(n, binary):
        if n < 0:
            return "-" + format_size(-n, binary)
        step = 1024 if binary else 1000
        units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"] if binary else ["kB", "MB", "GB", "TB", "PB", "EB"]
        if n < step:
            return f"{n} B"
        value, power = n / step, 0
        while value >= step and power < len(units) - 1:
            value /= step
            power += 1
        for decimals, below in ((2, 10), (1, 100), (0, None)):
            shown = round(value, decimals)
            if below is None or shown < below:
                break
        if shown >= step and power < len(units) - 1:
            shown, power, decimals = round(shown / step, 2), power + 1, 2
        return f"{shown:.{decimals}f} {units[power]}"
    ''',
    # no rollover to the next unit
    mutate(SOLUTION, ("        if rounded >= step * 10 ** decimals and power < len(units):",
                      "        if False:")),
    # decimals chosen from the unrounded value: 9.996 kB comes out as "10.00 kB"
    mutate(SOLUTION, ("            if below is None or rounded < below * 10 ** decimals:",
                      "            if below is None or value < below:")),
    # the format mini-language: three significant digits with "g" turns 1000-1023 into "1e+03"
    '''
    from decimal import Decimal, ROUND_HALF_UP

    def format_size(n, binary):
        if n < 0:
            return "-" + format_size(-n, binary)
        step = 1024 if binary else 1000
        units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"] if binary else ["kB", "MB", "GB", "TB", "PB", "EB"]
        if n < step:
            return f"{n} B"
        power = 1
        while power < len(units) and n >= step ** (power + 1):
            power += 1
        value = Decimal(n) / Decimal(step ** power)
        shown = format(value.quantize(Decimal("1.00"), rounding=ROUND_HALF_UP), ".3g")
        if "." not in shown and "e" not in shown and float(shown) < 10:
            shown += ".00"
        elif "." in shown and float(shown) < 10:
            shown = shown.ljust(4, "0")
        return f"{shown} {units[power - 1]}"
    ''',
]

TESTS = '''
def test_bytes():
    assert format_size(0, False) == "0 B"
    assert format_size(999, False) == "999 B"
    assert format_size(1000, False) == "1.00 kB"
    assert format_size(1023, True) == "1023 B"
    assert format_size(1024, True) == "1.00 KiB"
    assert format_size(-5, True) == "-5 B"

def test_decimals():
    assert format_size(1536, True) == "1.50 KiB"
    assert format_size(12_345_678, False) == "12.3 MB"
    assert format_size(512 * 1024, True) == "512 KiB"
    assert format_size(1023 * 1024, True) == "1023 KiB"
    assert format_size(-2_500_000_000, False) == "-2.50 GB"

def test_exact_half_up():
    assert format_size(1005, False) == "1.01 kB"
    assert format_size(1015, False) == "1.02 kB"
    assert format_size(10_050, False) == "10.1 kB"
    assert format_size(100_500, False) == "101 kB"
    assert format_size(1004, False) == "1.00 kB"

def test_rounding_changes_the_shape():
    assert format_size(9_995, False) == "10.0 kB"
    assert format_size(99_950, False) == "100 kB"
    assert format_size(999_500, False) == "1.00 MB"
    assert format_size(999_499, False) == "999 kB"
    assert format_size(1024 * 1024 - 512, True) == "1.00 MiB"
    assert format_size(1024 * 1024 - 513, True) == "1023 KiB"
    assert format_size(10 * 1024 - 5, True) == "10.0 KiB"

def test_largest_unit():
    assert format_size(1000 ** 6, False) == "1.00 EB"
    assert format_size(1000 ** 7, False) == "1000 EB"
    assert format_size(1024 ** 7 * 3, True) == "3072 EiB"
    assert format_size(1000 ** 6 * 999_999, False) == "999999 EB"

def test_seeded_counts():
    for n, binary, want in SEEDED:
        assert format_size(n, binary) == want, (n, binary)
'''


def _expected(n, binary):
    """Integer arithmetic: the count scaled by 10^d over the unit, rounded half up by (2a + b) // 2b."""
    if n < 0:
        return "-" + _expected(-n, binary)
    step = 1024 if binary else 1000
    names = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"] if binary else ["kB", "MB", "GB", "TB", "PB", "EB"]
    if n < step:
        return f"{n} B"
    power = max(p for p in range(1, 7) if n >= step ** p)
    unit = step ** power
    for decimals, limit in ((2, 10), (1, 100), (0, None)):
        shown = (2 * n * 10 ** decimals + unit) // (2 * unit)
        whole, part = divmod(shown, 10 ** decimals)
        if limit is None or whole < limit:
            break
    if whole >= step and power < 6:
        return f"1.00 {names[power]}"
    return (f"{whole}.{part:0{decimals}d}" if decimals else str(whole)) + f" {names[power - 1]}"


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(60):
        binary = rng.random() < 0.5
        step = 1024 if binary else 1000
        power = rng.randrange(1, 7)
        unit = step ** power
        kind = rng.randrange(4)
        if kind == 0:
            n = rng.randrange(unit, unit * step)
        elif kind == 1:                      # near a half at 2 / 1 / 0 decimals
            d = rng.choice([2, 1, 0])
            mant = rng.randrange(1, 10 ** (3 if d == 2 else 2 if d == 1 else 1)) if d else rng.randrange(100, step)
            n = (2 * mant + 1) * unit // (2 * 10 ** d) + rng.randrange(-1, 2)
        elif kind == 2:                      # just below a shape change
            target = rng.choice([10, 100, step])
            n = target * unit - rng.randrange(0, unit // 50 + 2)
        else:
            n = rng.randrange(0, step * 2)
        n = max(n, 0)
        if rng.random() < 0.15:
            n = -n
        seeded.append((n, binary, _expected(n, binary)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Human-readable byte sizes with exact rounding and rollover",
        prompt=PROMPT, entry_point="format_size", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        notes="""Medium: every rule is stated, but three interact at the boundaries: the number of
        decimals depends on the rounded value (9.995 kB is "10.0 kB"), rounding to a whole step moves
        to the next unit, and half-up must be exact (floats make 1005 bytes 1.00499... kB). Binary
        units allow four-digit values up to 1023. Sixty seeded counts sit near these boundaries.""",
    )]
