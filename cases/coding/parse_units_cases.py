"""CO-parse-units: exact conversion between compound units (prefixes, powers, products and quotients).

The seeded quantities come from the seed: a value and a unit expression are drawn, the target is another
expression of the same dimension, and the expected text comes from an oracle here that expands every
unit into a product of base units by string rewriting and multiplies Fractions; the reference parses
each expression into a (factor, exponent vector) pair.
"""

from fractions import Fraction

from pytest_crucible import code_case, family_rng, mutate, row_tests

FAMILY = "CO-parse-units"

# Hardness (README "How tiers are assigned", coding): tokens with prefixes (only on the six units that
# take one), powers, left-to-right products and quotients, dimensions compared, the exact value
# written as an integer, a terminating decimal or a reduced fraction: 5 steps; no search. Traps: the
# wrong solutions.
HARDNESS = {"steps": 5, "search": 1, "traps": 4}

PROMPT = """
Write a Python function `convert(quantity: str, target: str) -> str` that converts a quantity into
another unit exactly.

- `quantity` is a number, one space, and a unit expression; the number is an optional `-`, digits,
  and optionally `.` and more digits (`2`, `-0.125`).
- A unit expression is units joined by `*` and `/`, read from left to right (`kg*m/s/s` is
  kg*m/(s*s)); each unit may carry a power `^n`, n a whole number from 1 to 9 (`m/s^2`).
- Units: `m` (metre), `g` (gram), `s` (second), `min` (60 s), `h` (3600 s), `N` (1000 g*m/s^2), `J`
  (N*m), `W` (J/s). The units `m g s N J W` take one prefix: `k` (1000), `c` (1/100), `m` (1/1000), so
  `km`, `cm`, `mm`, `kg`, `mg`, `ms`, `kN`, `mW`...; the others take none (`kh` and `mmin` are
  unknown units).
- The result is the converted number, one space, and `target` exactly as given. The number is
  exact: an integer when whole (`-3`), else a decimal without trailing zeros when it has a finite
  decimal expansion (`0.0125`), else a reduced fraction `p/q` (`-1/3`). Zero is `0`.
- Raise `ValueError` when the two expressions measure different things (their powers of metre, gram
  and second differ) or when a unit is unknown.

Examples:

    convert("36 km/h", "m/s") == "10 m/s"
    convert("1 kN*cm", "J") == "10 J"
    convert("1 m", "min*km/h") == "0.06 min*km/h"
    convert("-1 s", "min") == "-1/60 min"
    convert("2 W", "g*m^2/s^3") == "2000 g*m^2/s^3"
"""

SOLUTION = r'''
import re
from fractions import Fraction

BASE = {"m": (1, (1, 0, 0)), "g": (1, (0, 1, 0)), "s": (1, (0, 0, 1)), "min": (60, (0, 0, 1)),
        "h": (3600, (0, 0, 1)), "N": (1000, (1, 1, -2)), "J": (1000, (2, 1, -2)), "W": (1000, (2, 1, -3))}
PREFIX = {"k": Fraction(1000), "c": Fraction(1, 100), "m": Fraction(1, 1000)}
PREFIXABLE = set("mgsNJW")


def _unit(name):
    if name in BASE:
        factor, dims = BASE[name]
        return Fraction(factor), dims
    if len(name) == 2 and name[0] in PREFIX and name[1] in PREFIXABLE:
        factor, dims = BASE[name[1]]
        return PREFIX[name[0]] * factor, dims
    raise ValueError(f"unknown unit {name!r}")


def _expression(text):
    factor, dims = Fraction(1), (0, 0, 0)
    for op, name, power in re.findall(r"([*/]?)([A-Za-z]+)(?:\^([1-9]))?", text):
        f, d = _unit(name)
        n = int(power or 1) * (-1 if op == "/" else 1)
        factor *= f ** n
        dims = tuple(a + b * n for a, b in zip(dims, d))
    if not re.fullmatch(r"[A-Za-z]+(\^[1-9])?([*/][A-Za-z]+(\^[1-9])?)*", text):
        raise ValueError("bad unit expression")
    return factor, dims


def convert(quantity, target):
    number, unit = quantity.split(" ", 1)
    value = Fraction(number)
    f1, d1 = _expression(unit)
    f2, d2 = _expression(target)
    if d1 != d2:
        raise ValueError("different dimensions")
    return f"{_show(value * f1 / f2)} {target}"


def _show(x):
    if x.denominator == 1:
        return str(x.numerator)
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return f"{x.numerator}/{x.denominator}"
    digits = 0
    while (x * 10 ** digits).denominator != 1:
        digits += 1
    scaled = abs(x.numerator * 10 ** digits // x.denominator)
    text = str(scaled).rjust(digits + 1, "0")
    return ("-" if x < 0 else "") + text[:-digits] + "." + text[-digits:]
'''

WRONG = [
    # quotients read as one denominator: a/b*c taken as a/(b*c)
    mutate(SOLUTION, ('''        n = int(power or 1) * (-1 if op == "/" else 1)''', '''        if op == "/":
            dividing = True
        n = int(power or 1) * (-1 if op == "/" or (op == "*" and dividing) else 1)'''),
           ('''    factor, dims = Fraction(1), (0, 0, 0)
    for op''', '''    factor, dims = Fraction(1), (0, 0, 0)
    dividing = False
    for op''')),
    # the power applied to the dimensions but not to the prefix and factor
    mutate(SOLUTION, ("        factor *= f ** n", "        factor *= f if n > 0 else 1 / f")),
    # any unit takes a prefix: kh, mmin and ch are read instead of rejected
    mutate(SOLUTION, ("    if len(name) == 2 and name[0] in PREFIX and name[1] in PREFIXABLE:\n"
                      "        factor, dims = BASE[name[1]]",
                      "    if len(name) >= 2 and name[0] in PREFIX and name[1:] in BASE:\n"
                      "        factor, dims = BASE[name[1:]]")),
    # every result written as a rounded decimal
    mutate(SOLUTION, ('''    if d != 1:
        return f"{x.numerator}/{x.denominator}"''', '''    if d != 1:
        return repr(round(float(x), 6))''')),
]

_NAMES = {"m": (1, "m"), "g": (1, "g"), "s": (1, "s"), "min": (60, "s"), "h": (3600, "s"),
          "N": (1000, "g m s-1 s-1"), "J": (1000, "g m s-1 s-1 m"), "W": (1000, "g m s-1 s-1 m s-1")}


def _expand(expr):
    """Factor and a sorted list of base symbols (with -1 for a reciprocal) by rewriting names."""
    factor, symbols = Fraction(1), []
    sign = 1
    for piece in expr.replace("*", " * ").replace("/", " / ").split():
        if piece in "*/":
            sign = -1 if piece == "/" else 1
            continue
        name, _, power = piece.partition("^")
        power = int(power or 1)
        if name in _NAMES:
            f, base = _NAMES[name]
        else:
            f, base = _NAMES[name[1:]]
            f = f * {"k": Fraction(1000), "c": Fraction(1, 100), "m": Fraction(1, 1000)}[name[0]]
        for _ in range(power):
            factor = factor * f if sign > 0 else factor / f
            for b in base.split():
                flip = b.endswith("-1")
                symbols.append((b[0], (-1 if flip else 1) * sign))
    net = {}
    for b, e in symbols:
        net[b] = net.get(b, 0) + e
    return factor, {b: e for b, e in net.items() if e}


def _oracle(quantity, target):
    number, unit = quantity.split(" ", 1)
    f1, d1 = _expand(unit)
    f2, d2 = _expand(target)
    if d1 != d2:
        return "!ValueError"
    x = Fraction(number) * f1 / f2
    if x.denominator == 1:
        return f"{x.numerator} {target}"
    for digits in range(1, 40):
        if (x * 10 ** digits).denominator == 1:
            text = f"{float(x):.{digits}f}" if abs(x) < 10 ** 9 else None
            if text is not None and Fraction(text) == x:
                return f"{text} {target}"
            break
    return f"{x.numerator}/{x.denominator} {target}"


_SAME = [["m/s", "km/h", "cm/ms", "m/min", "mm/s"], ["N", "kg*m/s^2", "g*cm/ms^2", "kN", "g*m/s/s"],
         ["J", "N*m", "W*s", "kW*h", "mJ", "g*m^2/s^2", "kg*km^2/h^2"], ["W", "J/s", "kJ/min", "N*m/s", "mW"],
         ["s", "min", "h", "ms", "h*m/km"], ["m^2", "cm*cm", "km*mm", "m*m"], ["g", "kg", "mg", "N*s^2/m"]]


def cases(seed):
    rng = family_rng(FAMILY, seed)
    rows = []
    for q, t in [("36 km/h", "m/s"), ("1 kN*cm", "J"), ("1 m", "min*km/h"), ("2 W", "g*m^2/s^3"), ("2 W", "J"),
                 ("0 h", "s"), ("-1 s", "min"), ("1 m/s*s", "m"), ("1 m", "s"), ("3 min", "h"), ("1 mm^2", "m^2")]:
        rows.append(((q, t), _oracle(q, t)))
    for q, t in [("1 ft", "m"), ("1 kh", "s"), ("2 mmin", "s"), ("1 s", "ch")]:
        rows.append(((q, t), "!ValueError"))                   # units the table does not have
    for _ in range(50):
        group = rng.choice(_SAME)
        a, b = rng.choice(group), rng.choice(group)
        if rng.random() < 0.15:
            b = rng.choice(rng.choice(_SAME))
        number = rng.choice(["1", "2", "-3", "0.5", "7", "12.25", "1000", "-0.001", "3"])
        rows.append(((f"{number} {a}", b), _oracle(f"{number} {a}", b)))
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Exact conversion between compound units",
        prompt=PROMPT, entry_point="convert", tests=row_tests("convert", rows, errors=("ValueError",)),
        solution=SOLUTION, wrong=WRONG,
        notes="""Unit conversion with a small grammar: left-to-right quotients (m/s*s is metres), powers
        that apply to prefixes (mm^2 is 10^-6 m^2), prefixes only where the table allows them,
        dimension checks, and exact output (an integer, a finite decimal or a reduced fraction,
        never a rounded float).""",
    )]
