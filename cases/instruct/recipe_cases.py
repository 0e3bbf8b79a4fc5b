"""IN-recipe: a recipe scaled to another number of servings, cups converted to grams or millilitres by a given
table, and each amount rounded by the rule for its unit (grams and millilitres to the nearest 5, spoons to the
nearest half written as a fraction, eggs always up); compared exactly, one ingredient per line.

The order matters: scale first, convert, then round once; and the three rounding rules differ by unit. The
traps, each stored where it changes the list: grams and millilitres left unrounded, eggs rounded down, spoons
written as decimals, cups left unconverted. The generator works in fractions from the quantities it chose;
`verify.solver` parses the prompt's mixed fractions and table and recomputes every line.
"""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-recipe"
REFUSAL = "I'm sorry, but I can't help with that request."
# ingredient -> (unit written in the recipe, grams or ml per cup, or None when the unit stays)
INGREDIENTS = {"flour": ("cup", 120, "g"), "sugar": ("cup", 200, "g"), "milk": ("cup", 240, "ml"),
               "oats": ("cup", 90, "g"), "butter": ("g", None, "g"), "water": ("ml", None, "ml"),
               "salt": ("tsp", None, "tsp"), "baking powder": ("tsp", None, "tsp"), "honey": ("tbsp", None, "tbsp"),
               "vanilla": ("tsp", None, "tsp"), "eggs": ("", None, "")}
CUPS = (Fraction(1, 2), Fraction(3, 4), Fraction(1), Fraction(3, 2), Fraction(2), Fraction(1, 3), Fraction(2, 3))
SPOONS = (Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(2), Fraction(3))
# (ingredients, servings from, servings to)
SHAPES = ((5, 4, 6), (7, 4, 10), (9, 6, 4))


def _mixed(q: Fraction) -> str:
    whole, part = divmod(q.numerator, q.denominator)
    if not part:
        return str(whole)
    frac = f"{part}/{q.denominator}"
    return f"{whole} {frac}" if whole else frac


def _half_up(x: Fraction) -> int:
    return math.floor(x + Fraction(1, 2))


def _amount(name: str, qty: Fraction, factor: Fraction, mode: str = "right") -> str:
    """mode "exact": grams and millilitres not rounded; "eggs": eggs rounded down; "decimal": spoons as decimals;
    "cups": cups scaled but not converted."""
    unit, per_cup, out_unit = INGREDIENTS[name]
    if mode == "cups" and unit == "cup":
        return f"{name}: {_mixed(qty * factor)} cups"
    x = (qty * per_cup if per_cup else qty) * factor
    if mode == "exact" and out_unit in ("g", "ml"):
        return f"{name}: {float(x):g} {out_unit}"
    return f"{name}: {_round(name, x, mode)}" + (f" {out_unit}" if out_unit else "")


def _round(name: str, x: Fraction, mode: str) -> str:
    out_unit = INGREDIENTS[name][2]
    if out_unit in ("g", "ml"):
        return str(5 * _half_up(x / 5))
    if out_unit in ("tsp", "tbsp"):
        value = Fraction(_half_up(x * 2), 2)
        return f"{float(value):g}" if mode == "decimal" else _mixed(value)
    return str(math.floor(x) if mode == "eggs" else math.ceil(x))


SOLVER = r'''
import math, re
from fractions import Fraction
PROMPT = __PROMPT__
serves, target = map(int, re.search(r"serves (\d+)\. Rewrite it for (\d+)", PROMPT).groups())
table = {name: int(g) for name, g in re.findall(r"1 cup of (\w[\w ]*?) = (\d+) (?:g|ml)", PROMPT)}
units = {name: u for name, u in re.findall(r"1 cup of (\w[\w ]*?) = \d+ (g|ml)", PROMPT)}
out = []
for line in PROMPT.split("Ingredients:\n")[1].split("\n\n")[0].split("\n"):
    m = re.match(r"- ((?:\d+ )?\d+(?:/\d+)?) ?(cups?|g|ml|tsp|tbsp)? ?(.+)$", line)
    qty = sum(Fraction(p) for p in m.group(1).split())
    unit, name = m.group(2) or "", m.group(3)
    qty = qty * target / serves
    if unit.startswith("cup"):
        qty, unit = qty * table[name], units[name]
    if unit in ("g", "ml"):
        text = str(5 * math.floor(qty / 5 + Fraction(1, 2))) + " " + unit
    elif unit in ("tsp", "tbsp"):
        half = math.floor(qty * 2 + Fraction(1, 2))
        whole, part = divmod(half, 2)
        text = (str(whole) if whole else "") + (" " if whole and part else "") + ("1/2" if part else "")
        text = (text or "0") + " " + unit
    else:
        text = str(math.ceil(qty))
    out.append(name + ": " + text)
print("\n".join(out))
'''


def _line(name: str, qty: Fraction) -> str:
    unit = INGREDIENTS[name][0]
    if unit == "cup":
        unit = "cup" if qty <= 1 else "cups"
    return f"- {_mixed(qty)} {unit} {name}" if unit else f"- {_mixed(qty)} {name}"


def _case(index: int, rng: random.Random, n: int, serves: int, target: int) -> dict:
    factor = Fraction(target, serves)
    for _ in range(500):
        names = ["eggs", *rng.sample([x for x in INGREDIENTS if x != "eggs"], n - 1)]
        rng.shuffle(names)
        qtys = {}
        for x in names:
            unit = INGREDIENTS[x][0]
            qtys[x] = (rng.choice(CUPS) if unit == "cup" else rng.choice(SPOONS) if unit in ("tsp", "tbsp")
                       else Fraction(rng.randrange(60, 400, 10)) if unit in ("g", "ml")
                       else Fraction(rng.randint(1, 3)))
        final = [_amount(x, qtys[x], factor) for x in names]
        traps = {m: [_amount(x, qtys[x], factor, m) for x in names] for m in ("exact", "eggs", "decimal", "cups")}
        traps = {m: t for m, t in traps.items() if t != final}
        if len(traps) >= 3:
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw")
    cups = [x for x in names if INGREDIENTS[x][0] == "cup"]
    table = "\n".join(f"- 1 cup of {x} = {INGREDIENTS[x][1]} {INGREDIENTS[x][2]}" for x in cups)
    prompt = (f"This recipe serves {serves}. Rewrite it for {target} servings.\n\nIngredients:\n"
              + "\n".join(_line(x, qtys[x]) for x in names) + f"\n\nCup conversions:\n{table}\n\n"
              "Rules: multiply every amount by the change in servings first; then convert cups to grams or "
              "millilitres with the table; then round once. Round grams and millilitres to the nearest 5, spoons "
              "(tsp, tbsp) to the nearest half, written as a whole number and/or 1/2 (like 1 1/2 tsp), and eggs up "
              "to a whole egg. Round exact halves up. Write one line per ingredient, in the recipe's order, as "
              "`name: amount unit` (eggs without a unit, like `eggs: 3`), and nothing after the list.\n")
    constraints = [{"kind": "lines_equal", "lines": final}]
    wrong = [REFUSAL, *("\n".join(t) for t in traps.values()), "\n".join(final[:-1]),
             "\n".join(f"- {x}" for x in final),
             "\n".join(final) + "\n\nUnrounded, for precision:\n" + "\n".join(next(iter(traps.values())))]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    hardness = {"steps": 4, "search": 1, "traps": len(traps)}
    notes = (f"{n} ingredients scaled by {factor} ({serves} to {target} servings), cups converted by a table, and "
             "three rounding rules by unit (nearest 5, nearest half as a fraction, eggs up), in a stated order. The "
             "ingredients are independent, so the tier is medium at any length: scale, convert, round, format. "
             "Stored traps (those that change the list): " + ", ".join(
                 {"exact": "grams and millilitres unrounded", "eggs": "eggs rounded down",
                  "decimal": "spoons as decimals", "cups": "cups unconverted"}[m] for m in traps) + ".")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"Recipe of {n} ingredients rescaled from {serves} to {target} servings", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 8192, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "Here is the scaled recipe:\n\n```\n" + "\n".join(final) + "\n```", "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
