"""CO-parse-numfmt: spreadsheet-style number patterns ("#,##0.00;(#,##0.00)", "0.0%", "#.##").

Hidden patterns and values come from the seed; the oracle formats with integer arithmetic on the value
scaled by a power of ten, written separately from the reference (which uses Decimal).
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-numfmt"

# Hardness (README "How tiers are assigned", coding): digits on both sides, grouping, prefix and suffix,
# percent, negative section, half-up with carries, no -0.00, #.## dropping a zero integer part, the parser.
# Traps: the wrong solutions.
HARDNESS = {"steps": 9, "search": 1, "traps": 5}

PROMPT = """
Write a Python function `format_number(value: str, pattern: str) -> str`. `value` is an exact decimal
written as an optional "-", digits, and optionally "." and digits (for example "-1234.5" or "0.005").

A pattern has one section, or two separated by ";" (for non-negative and for negative numbers). In a
section, the number part is the first run of the characters `#`, `0`, `,` and `.`; the text before it
is the prefix and the text after it the suffix, both copied literally.
- The number part has at most one `.`. Before it: a `,` anywhere means the integer digits are grouped in
  threes with ","; the count of `0` is the minimum number of integer digits (padded with leading zeros).
  After it: some `0`s then some `#`s; the `0`s give the minimum and the whole length the maximum number
  of fraction digits.
- If the prefix or suffix contains `%`, the value is multiplied by 100 first.
- The value is rounded to the maximum number of fraction digits, halves away from zero, exactly (no
  binary floating point). Fraction digits beyond the minimum are written only up to the last non-zero
  one; the "." is written only when at least one fraction digit is. The integer digits of a rounded
  value below 1 are not written unless the minimum asks for them ("#.##" writes 0.5 as ".5"). If no
  digit at all would be written, write "0".
- A value that is negative after rounding uses the second section if there is one (its digits without
  a sign); otherwise the first section with "-" in front of the prefix. A value that rounds to zero is
  never negative.
Raise ValueError for a pattern with more than two sections, a section without `#` or `0`, or a number
part with more than one ".".

Example:
    format_number("-1234.567", "$#,##0.00") == "-$1,234.57"
"""

SOLUTION = '''
from decimal import Decimal, ROUND_HALF_UP


def format_number(value, pattern):
    sections = pattern.split(";")
    if len(sections) > 2:
        raise ValueError("at most two sections")
    parsed = [_section(s) for s in sections]
    number = Decimal(value)
    prefix, integer_part, fraction_part, suffix = parsed[0]
    if "%" in prefix + suffix:
        number *= 100
    places = len(fraction_part)
    rounded = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    negative = rounded < 0
    if negative and len(parsed) == 2:
        prefix, integer_part, fraction_part, suffix = parsed[1]
        sign = ""
        if ("%" in prefix + suffix) != ("%" in parsed[0][0] + parsed[0][3]):
            number = Decimal(value) * (100 if "%" in prefix + suffix else 1)
        places = len(fraction_part)
        rounded = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    else:
        sign = "-" if negative else ""
    digits = _digits(abs(rounded), integer_part, fraction_part)
    return sign + prefix + digits + suffix


def _section(text):
    start = next((i for i, c in enumerate(text) if c in "#0,."), None)
    if start is None:
        raise ValueError("a section needs # or 0")
    end = start
    while end < len(text) and text[end] in "#0,.":
        end += 1
    body = text[start:end]
    if "#" not in body and "0" not in body:
        raise ValueError("a section needs # or 0")
    if body.count(".") > 1:
        raise ValueError("one decimal point at most")
    integer_part, _, fraction_part = body.partition(".")
    return text[:start], integer_part, fraction_part, text[end:]


def _digits(amount, integer_part, fraction_part):
    places = len(fraction_part)
    scaled = int(amount.scaleb(places))
    whole, frac = divmod(scaled, 10 ** places)
    frac_text = str(frac).zfill(places) if places else ""
    keep = fraction_part.count("0")
    frac_text = frac_text.rstrip("0")
    if len(frac_text) < keep:
        frac_text = frac_text.ljust(keep, "0")
    minimum = integer_part.count("0")
    whole_text = "" if whole == 0 else str(whole)
    whole_text = whole_text.rjust(minimum, "0")
    if "," in integer_part and whole_text:
        groups = []
        while len(whole_text) > 3:
            groups.insert(0, whole_text[-3:])
            whole_text = whole_text[:-3]
        whole_text = ",".join([whole_text] + groups)
    text = whole_text + ("." + frac_text if frac_text else "")
    return text or "0"
'''

WRONG = [
    # floats and round(): 2.675 is 2.67499999... in binary
    mutate(SOLUTION, ("    number = Decimal(value)\n", "    number = Decimal(float(value))\n"),
           ("    rounded = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)\n    negative",
            "    rounded = Decimal(repr(round(float(number), places)))\n    negative")),
    # the sign decided before rounding: -0.004 comes out as "-0.00"
    mutate(SOLUTION, ("    negative = rounded < 0\n", "    negative = number < 0\n")),
    # a zero integer part always written: "#.##" gives "0.5"
    mutate(SOLUTION, ('''    whole_text = "" if whole == 0 else str(whole)''', '''    whole_text = str(whole)''')),
    # the negative section ignored
    mutate(SOLUTION, ("    if negative and len(parsed) == 2:", "    if False:")),
    # every allowed fraction digit written, trailing zeros included
    mutate(SOLUTION, ('''    frac_text = frac_text.rstrip("0")
''', '')),
]

TESTS = '''
def _invalid(pattern):
    try:
        format_number("1", pattern)
    except ValueError:
        return True
    return False

def test_basics():
    assert format_number("-1234.567", "$#,##0.00") == "-$1,234.57"
    assert format_number("1234567.891", "#,##0.###") == "1,234,567.891"
    assert format_number("5", "0,000") == "0,005"
    assert format_number("5", "000") == "005"
    assert format_number("12.5", "0") == "13"
    assert format_number("1234", "#") == "1234"

def test_exact_half_up():
    assert format_number("2.675", "0.00") == "2.68"
    assert format_number("1.005", "0.00") == "1.01"
    assert format_number("-2.5", "0") == "-3"
    assert format_number("0.125", "0.0#") == "0.13"
    assert format_number("9.995", "0.00") == "10.00"
    assert format_number("999.5", "#,##0") == "1,000"

def test_optional_digits():
    assert format_number("0.5", "#.##") == ".5"
    assert format_number("0", "#.##") == "0"
    assert format_number("0.001", "#.##") == "0"
    assert format_number("3.10", "0.0##") == "3.1"
    assert format_number("3", "0.0##") == "3.0"
    assert format_number("3.14159", "0.###") == "3.142"
    assert format_number("7", "0.###") == "7"

def test_signs_and_sections():
    assert format_number("-1234.5", "#,##0.00;(#,##0.00)") == "(1,234.50)"
    assert format_number("1234.5", "#,##0.00;(#,##0.00)") == "1,234.50"
    assert format_number("-0.004", "0.00") == "0.00"
    assert format_number("-0.004", "0.00;(0.00)") == "0.00"
    assert format_number("-0.005", "0.00;(0.00)") == "(0.01)"
    assert format_number("-7", "EUR 0 net") == "-EUR 7 net"

def test_percent():
    assert format_number("0.1234", "0.0%") == "12.3%"
    assert format_number("-0.5", "0%;[0%]") == "[50%]"
    assert format_number("0.00004", "#.##%") == "0%"

def test_invalid_patterns():
    for pattern in ["0;0;0", "abc", "0.0.0", ";0", "0;x"]:
        assert _invalid(pattern), pattern

def test_seeded():
    for value, pattern, want in SEEDED:
        assert format_number(value, pattern) == want, (value, pattern)
'''


def _parts(section):
    start = next(i for i, c in enumerate(section) if c in "#0,.")
    end = start
    while end < len(section) and section[end] in "#0,.":
        end += 1
    integer, _, fraction = section[start:end].partition(".")
    return section[:start], integer, fraction, section[end:]


def _oracle(value, pattern):
    sections = [_parts(s) for s in pattern.split(";")]
    negative_input = value.startswith("-")
    digits = value.lstrip("-")
    whole, _, frac = digits.partition(".")
    scale = len(frac)
    units = int(whole + frac)                     # |value| * 10**scale

    def render(section):
        prefix, integer, fraction, suffix = section
        n, s = units, scale
        if "%" in prefix + suffix:
            n *= 100
        places = len(fraction)
        if s > places:
            q, r = divmod(n, 10 ** (s - places))
            n = q + (2 * r >= 10 ** (s - places))
        else:
            n *= 10 ** (places - s)
        head, tail = divmod(n, 10 ** places)
        tail_text = str(tail).zfill(places) if places else ""
        tail_text = tail_text.rstrip("0").ljust(fraction.count("0"), "0")
        head_text = (str(head) if head else "").rjust(integer.count("0"), "0")
        if "," in integer and head_text:
            head_text = _group(head_text)
        text = head_text + ("." + tail_text if tail_text else "")
        return n, prefix + (text or "0") + suffix

    n, text = render(sections[0])
    if negative_input and n != 0:
        return render(sections[1])[1] if len(sections) == 2 else "-" + text
    return text


def _group(text):
    out = []
    while len(text) > 3:
        out.insert(0, text[-3:])
        text = text[:-3]
    return ",".join([text] + out)


_PREFIXES = ["", "", "$", "EUR ", "(", "~"]
_SUFFIXES = ["", "", " kg", "%", ")", " net"]
_NUMBERS = ["#", "0", "#,##0", "0,000", "#.##", "0.00", "#,##0.0#", "0.###", "000.0", "#,###.##0"]


def cases(seed):
    rng = family_rng(FAMILY, seed)
    seeded = []
    for _ in range(40):
        section = rng.choice(_PREFIXES) + rng.choice(_NUMBERS) + rng.choice(_SUFFIXES)
        pattern = section
        if rng.random() < 0.35:
            pattern += ";" + rng.choice(["(", "-", "neg "]) + rng.choice(_NUMBERS) + rng.choice(["", ")", "%"])
        whole = str(rng.choice([0, 0, 1, 9, 99, 999, 1234, 999999, rng.randrange(10 ** 7)]))
        frac = "".join(rng.choice("0123456789") for _ in range(rng.randrange(0, 5)))
        if rng.random() < 0.3:
            frac = frac[:2] + "5"
        value = ("-" if rng.random() < 0.4 else "") + whole + ("." + frac if frac else "")
        seeded.append((value, pattern, _oracle(value, pattern)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Spreadsheet-style number patterns with sections and percent",
        prompt=PROMPT, entry_point="format_number", tests=TESTS, data={"SEEDED": seeded},
        solution=SOLUTION, wrong=WRONG,
        notes="""A small pattern language with many interacting rules: minimum and maximum digits on both
        sides of the point, grouping, literal prefix and suffix, percent scaling, a second section for
        negatives (which may scale differently), exact half-up rounding with carries (9.995 -> 10.00,
        999.5 -> 1,000), no "-0.00" after rounding, and "#.##" dropping a zero integer part. Forty
        seeded patterns and values are checked against an integer-arithmetic formatter.""",
    )]
