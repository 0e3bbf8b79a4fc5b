"""Coding, spec-heavy functions over money: allocation in cents, currency conversion with banker's
rounding, graduated pricing, a tax with a tapering allowance.

The seed picks the rule variant (tie-breaking order, rates, tiers, bands) and the hidden rows. The
expected values are computed here by a different method from the reference solution run by
`crucible cases verify` (exact fractions and a cent-by-cent greedy here, integer divmod there;
integer ratios and divmod rounding here, Fraction and round() there; cumulative tier tables here, a
loop over tiers there).
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction

from pytest_crucible import STANDARD_LIBRARY_ONLY, family_rng, flow, row_tests
from pytest_crucible.suite.tiers import ruled

REPLY = "Reply with the complete function in a single ```python code block."


def _case(id_, family, hardness, title, prompt, entry, rows, solution, wrongs, notes, errors=(), suffix=()):
    solution = solution.lstrip()
    wrongs = [w.lstrip() for w in wrongs]
    assert all(w != solution for w in wrongs), id_
    tests = row_tests(entry, rows, errors=errors, suffix=suffix)
    facts = ruled(*hardness, len(wrongs))  # (steps, search) and the wrong solutions as traps
    return {"id": id_, "family": family, **facts, "title": title,
            "max_tokens": 16384 if facts["difficulty"] == "hard" else 8192, "prompt": flow(prompt),
            "grader": {"type": "code", "entry_point": entry, "tests": tests},
            "verify": {"solution": solution, "wrong": wrongs}, "notes": notes}


# ----------------------------------------------------------------------------------- allocation

_TIE_RULES = {
    "weight-then-first": ("the party with the larger weight first, and among equal weights the one that "
                          "comes first in the list", lambda r, w, i: (-r, -w, i)),
    "first": ("the party that comes first in the list first", lambda r, w, i: (-r, i)),
    "last": ("the party that comes last in the list first", lambda r, w, i: (-r, -i)),
}


def _expected_allocation(total: int, weights: list[int], rule: str) -> list[int]:
    """Floors toward zero, then one cent at a time to the largest remaining deficit (deficits in
    units of 1/sum(weights) cent, so they compare as ints)."""
    sign = -1 if total < 0 else 1
    amount, whole = abs(total), sum(weights)
    shares = [amount * w // whole for w in weights]
    deficit = [amount * w - s * whole for w, s in zip(weights, shares)]
    key = _TIE_RULES[rule][1]
    for _ in range(amount - sum(shares)):
        best = min(range(len(weights)), key=lambda i: key(deficit[i], weights[i], i))
        shares[best] += 1
        deficit[best] -= whole
    return [sign * s for s in shares]


_ALLOCATE_SOLUTION = '''
def allocate(total, weights):
    sign = -1 if total < 0 else 1
    amount = abs(total)
    whole = sum(weights)
    shares, remainders = [], []
    for w in weights:
        share, rest = divmod(amount * w, whole)
        shares.append(share)
        remainders.append(rest)
    left = amount - sum(shares)
    order = sorted(range(len(weights)), key=lambda i: {key})
    for i in order[:left]:
        shares[i] += 1
    return [sign * s for s in shares]
'''
_ALLOCATE_KEYS = {"weight-then-first": "(-remainders[i], -weights[i], i)", "first": "(-remainders[i], i)",
                  "last": "(-remainders[i], -i)"}


def _allocate_case(rng) -> dict:
    rule = rng.choice(list(_TIE_RULES))
    rows = []
    other_rules = [r for r in _TIE_RULES if r != rule]
    tie_rows = {r: 0 for r in other_rules}
    attempts = 0
    while len(rows) < 40 or min(tie_rows.values()) < 4:
        attempts += 1
        size = rng.randrange(2, 8)
        weights = [rng.choice([0, 1, 1, 2, 2, 3, 4, 5, 6, 10, rng.randrange(1, 100)]) for _ in range(size)]
        if not any(weights):
            continue
        total = rng.choice([rng.randrange(1, 30), rng.randrange(100, 100000), 10 ** 17 + rng.randrange(1, 999)])
        if rng.random() < 0.35:
            total = -total
        want = _expected_allocation(total, weights, rule)
        differs = [r for r in other_rules if _expected_allocation(total, weights, r) != want]
        if len(rows) >= 40 and not differs:
            continue
        for r in differs:
            tie_rows[r] += 1
        rows.append(((total, weights), want))
        assert attempts < 5000
    rows += [((0, [1, 2, 3]), [0, 0, 0]), ((5, [0, 7, 0]), [0, 5, 0]), ((-7, [0, 1, 1]), _expected_allocation(-7, [0, 1, 1], rule))]
    rng.shuffle(rows)
    words = _TIE_RULES[rule][0]
    prompt = f"""Write a Python function `allocate(total, weights)` that splits an amount of money in cents between
parties in proportion to their weights.

- `total` is an int number of cents; it may be zero or negative and can be far larger than 2**64.
- `weights` is a list of non-negative ints with at least one positive weight. Do not modify it.
- Return a list of ints, one per weight, that sums exactly to `total`.

Rules:
1. Party i's exact share is total * weights[i] / sum(weights). Every party first gets its exact
   share with the fraction of a cent dropped (rounded toward zero).
2. The cents still missing are handed out one each, to the parties whose dropped fractions were
   largest. When two dropped fractions are equal, {words}.
3. A negative total is split as the mirror image of the positive one: allocate(-t, w) is
   allocate(t, w) with every share negated.

Example: allocate(100, [1, 1, 1]) gives three shares of 33 plus one cent for the party that wins the
tie.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    solution = _ALLOCATE_SOLUTION.replace("{key}", _ALLOCATE_KEYS[rule])
    other = other_rules[0]
    wrongs = [
        # floats: exact for small amounts, wrong once totals pass 2**53
        '''
def allocate(total, weights):
    sign = -1 if total < 0 else 1
    amount = abs(total)
    whole = sum(weights)
    exact = [amount * w / whole for w in weights]
    shares = [int(x) for x in exact]
    left = amount - sum(shares)
    order = sorted(range(len(weights)), key=lambda i: {key})
    for i in order[:left]:
        shares[i] += 1
    return [sign * s for s in shares]
'''.replace("{key}", _ALLOCATE_KEYS[rule].replace("remainders[i]", "(exact[i] - shares[i])")),
        # round every share, then the last party absorbs the difference
        '''
def allocate(total, weights):
    whole = sum(weights)
    shares = [round(total * w / whole) for w in weights]
    shares[-1] += total - sum(shares)
    return shares
''',
        # a negative total floored toward minus infinity, then topped up: not the mirror image
        solution.replace("    sign = -1 if total < 0 else 1\n    amount = abs(total)\n",
                         "    sign = 1\n    amount = total\n"),
        # the wrong tie-break
        _ALLOCATE_SOLUTION.replace("{key}", _ALLOCATE_KEYS[other]),
    ]
    return _case("CO-spec-allocate-01", "CO-spec-allocate", (5, 1),
                 "Split cents by weights: largest remainder, a seeded tie rule, mirrored negatives",
                 prompt, "allocate", rows, solution, wrongs,
                 "The tie rule is re-rolled per seed and every hidden set holds rows where each other "
                 "tie rule gives a different split; totals reach 10**17 (floats lose cents), many are "
                 "negative (floor division is not the mirror image), and zero weights and totals "
                 "smaller than the number of parties appear. The round-then-fix-the-last-share habit, "
                 "float arithmetic, floor-based negatives and a wrong tie order each fail.")


# ----------------------------------------------------------------------------------- conversion

_DIGITS = {"USD": 2, "EUR": 2, "GBP": 2, "CHF": 2, "JPY": 0, "ISK": 0, "KWD": 3, "BHD": 3}


def _fx_rates(rng) -> dict[str, str]:
    """Rates quoted against USD one way or the other, plus one cross rate. Some are short decimals,
    so that exact half-way results are common in the hidden rows."""
    quotes = {"EUR": rng.choice(["1.25", "1.0825", "1.125"]), "GBP": rng.choice(["1.28", "1.2625", "1.3"]),
              "CHF": rng.choice(["1.1", "1.136", "1.0875"]), "JPY": rng.choice(["150.5", "148.25", "152.125"]),
              "ISK": rng.choice(["138.5", "140.25"]), "KWD": rng.choice(["0.3075", "0.3125", "0.306"]),
              "BHD": rng.choice(["0.376", "0.375"])}
    rates = {}
    for code, value in quotes.items():
        value_per_usd = code in ("JPY", "ISK", "KWD", "BHD")
        if value_per_usd:
            rates[f"USD/{code}"] = value   # 1 USD = value CODE
        else:
            rates[f"{code}/USD"] = value   # 1 CODE = value USD
    rates["EUR/GBP"] = rng.choice(["0.85", "0.8425", "0.8625"])
    del rates[f"USD/{rng.choice(['ISK', 'BHD'])}"]   # a currency without any rate: KeyError
    return rates


def _exact_fx(amount: str, source: str, target: str, rates: dict[str, str]) -> tuple[int, int] | None:
    """The exact result as an integer ratio (numerator, positive denominator), built from each
    decimal's own integer ratio (the reference uses Fraction); None without a path."""
    def leg(a, b):
        if a == b:
            return 1, 1
        if f"{a}/{b}" in rates:
            return Decimal(rates[f"{a}/{b}"]).as_integer_ratio()
        if f"{b}/{a}" in rates:
            n, d = Decimal(rates[f"{b}/{a}"]).as_integer_ratio()
            return d, n
        return None

    legs = [leg(source, target)]
    if legs[0] is None:
        legs = [leg(source, "USD"), leg("USD", target)] if "USD" not in (source, target) else [None]
    if None in legs:
        return None
    num, den = Decimal(amount).as_integer_ratio()
    for n, d in legs:
        num, den = num * n, den * d
    return num, den


def _rounded_units(exact: tuple[int, int], target: str) -> tuple[int, bool]:
    """The result in the target's smallest units, rounded half to even, and whether it was a tie."""
    num, den = exact
    quotient, rest = divmod(abs(num) * 10 ** _DIGITS[target], den)
    tie = 2 * rest == den
    if 2 * rest > den or (tie and quotient % 2):
        quotient += 1
    return (-quotient if num < 0 else quotient), tie


def _expected_fx(exact: tuple[int, int], target: str) -> str:
    units, _ = _rounded_units(exact, target)
    digits = _DIGITS[target]
    whole, part = divmod(abs(units), 10 ** digits)
    return ("-" if units < 0 else "") + str(whole) + (f".{part:0{digits}d}" if digits else "")


def _decimal28(amount: str, source: str, target: str, rates: dict[str, str], reciprocal_first: bool) -> str:
    """What 28-digit Decimal code (the module's default precision) answers, dividing step by step
    or taking reciprocals first."""
    legs = [(source, target)] if source == target or f"{source}/{target}" in rates or f"{target}/{source}" in rates \
        else [(source, "USD"), ("USD", target)]
    with localcontext() as ctx:
        ctx.prec = 28
        value = Decimal(amount)
        for a, b in legs:
            if a == b:
                continue
            if f"{a}/{b}" in rates:
                value *= Decimal(rates[f"{a}/{b}"])
            elif reciprocal_first:
                value *= 1 / Decimal(rates[f"{b}/{a}"])
            else:
                value /= Decimal(rates[f"{b}/{a}"])
        rounded = value.quantize(Decimal(1).scaleb(-_DIGITS[target]), rounding=ROUND_HALF_EVEN)
        return f"{abs(rounded) if rounded == 0 else rounded:f}"


_FX_SOLUTION = '''
from fractions import Fraction

DIGITS = {"USD": 2, "EUR": 2, "GBP": 2, "CHF": 2, "JPY": 0, "ISK": 0, "KWD": 3, "BHD": 3}


def _direct(rates, source, target):
    if source + "/" + target in rates:
        return Fraction(rates[source + "/" + target])
    if target + "/" + source in rates:
        return 1 / Fraction(rates[target + "/" + source])
    return None


def convert(amount, source, target, rates):
    value = Fraction(amount)
    if source != target:
        factor = _direct(rates, source, target)
        if factor is None:
            legs = (_direct(rates, source, "USD"), _direct(rates, "USD", target))
            if "USD" in (source, target) or None in legs:
                raise KeyError(source + "/" + target)
            factor = legs[0] * legs[1]
        value *= factor
    digits = DIGITS[target]
    cents = round(value * 10 ** digits)          # Fraction rounds half to even
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 10 ** digits)
    return sign + str(whole) + ("." + str(part).zfill(digits) if digits else "")
'''


def _tie_units(rng, source: str, target: str, rates: dict[str, str]) -> int | None:
    """A random amount, in the source's smallest units, whose exact result lies half-way between
    two results of the target's digits; None when the pair's factor allows no such amount."""
    def leg(a, b):
        if a == b:
            return Fraction(1)
        if f"{a}/{b}" in rates:
            return Fraction(rates[f"{a}/{b}"])
        return 1 / Fraction(rates[f"{b}/{a}"]) if f"{b}/{a}" in rates else None

    factor = leg(source, target)
    if factor is None and "USD" not in (source, target) and None not in (leg(source, "USD"), leg("USD", target)):
        factor = leg(source, "USD") * leg("USD", target)
    if factor is None:
        return None
    step = factor * Fraction(10) ** (_DIGITS[target] - _DIGITS[source])   # result digits per source unit
    p, q = step.numerator, step.denominator
    if q % 2:
        return None
    k = (q // 2) * pow(p, -1, q) % q      # k * p / q is an odd multiple of 1/2
    return k + q * rng.randrange(0, max(1, 10 ** 7 // q))


def _fx_case(rng) -> dict:
    rates = _fx_rates(rng)
    codes = list(_DIGITS)
    rows, ties = [], 0
    for _ in range(100000):
        if len(rows) >= 50 and ties >= 12:
            break
        source, target = rng.choice(codes), rng.choice(codes)
        if len(rows) < 50:
            units = rng.choice([rng.randrange(1, 1000), rng.randrange(1000, 10 ** 7), 4, 2, 1])
        else:
            units = _tie_units(rng, source, target, rates)
            if units is None:
                continue
        amount = str(Decimal(units).scaleb(-_DIGITS[source]))
        if rng.random() < 0.3:
            amount = "-" + amount
        if rng.random() < 0.15 and "." in amount:
            amount = amount.rstrip("0").rstrip(".")   # fewer decimals than the currency has
        exact = _exact_fx(amount, source, target, rates)
        want = "!KeyError" if exact is None else _expected_fx(exact, target)
        # a row where the Decimal module's default precision alone flips the rounding is dropped,
        # so a sensible Decimal solution is never failed by an artefact of its precision
        if exact is not None and {_decimal28(amount, source, target, rates, r) for r in (False, True)} != {want}:
            continue
        ties += exact is not None and _rounded_units(exact, target)[1]
        rows.append(((amount, source, target), want))
    assert ties >= 12, "no half-way amounts for these rates"
    rows.append((("-0.001", "USD", "JPY"), "0"))
    rows.append((("-0.004", "EUR", "EUR"), "0.00"))
    rows.append((("12.345", "USD", "USD"), "12.34"))
    rng.shuffle(rows)
    table = ", ".join(f"{c} {d}" for c, d in _DIGITS.items())
    prompt = f"""Write a Python function `convert(amount, source, target, rates)` that converts an amount of money
between currencies and returns it as a string.

- `amount` is a decimal string such as "1234.50", "-7.5" or "12".
- `source` and `target` are currency codes. Digits after the decimal point per currency: {table}.
- `rates` maps pairs to decimal strings: "EUR/USD": "1.0825" means 1 EUR = 1.0825 USD.

Rules:
1. If source == target, the amount is only rounded (rule 4).
2. If "SOURCE/TARGET" is in `rates`, multiply by that rate; otherwise, if "TARGET/SOURCE" is in
   `rates`, divide by that rate.
3. Otherwise convert through USD: SOURCE to USD, then USD to TARGET, each leg by rule 2, with no
   rounding between the legs. If a leg has no rate, or there is no rate at all, raise KeyError.
4. Round the exact result once, half to even, to the target currency's digits (2.675 -> "2.68",
   2.665 -> "2.66"). Return it with exactly that many digits after the point (no point for a
   currency with 0 digits), a leading "-" for a negative result, and no sign on a result that
   rounds to zero.

Example: with {{"GBP/USD": "1.25"}}, convert("10", "GBP", "USD", rates) == "12.50".

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    solution = _FX_SOLUTION
    wrongs = [
        # binary floats and the format's rounding
        '''
DIGITS = {"USD": 2, "EUR": 2, "GBP": 2, "CHF": 2, "JPY": 0, "ISK": 0, "KWD": 3, "BHD": 3}


def _direct(rates, source, target):
    if source + "/" + target in rates:
        return float(rates[source + "/" + target])
    if target + "/" + source in rates:
        return 1 / float(rates[target + "/" + source])
    return None


def convert(amount, source, target, rates):
    value = float(amount)
    if source != target:
        factor = _direct(rates, source, target)
        if factor is None:
            legs = (_direct(rates, source, "USD"), _direct(rates, "USD", target))
            if "USD" in (source, target) or None in legs:
                raise KeyError(source + "/" + target)
            factor = legs[0] * legs[1]
        value *= factor
    text = f"{round(value, DIGITS[target]):.{DIGITS[target]}f}"
    return "0" + text[2:] if text.startswith("-0") and not text.strip("-0.") else text
''',
        # half away from zero instead of half to even
        solution.replace("    cents = round(value * 10 ** digits)          # Fraction rounds half to even\n",
                         "    scaled = value * 10 ** digits\n"
                         "    cents = int(abs(scaled) + Fraction(1, 2)) * (1 if scaled >= 0 else -1)\n"),
        # the USD leg rounded to cents before the second leg
        solution.replace("            factor = legs[0] * legs[1]\n        value *= factor\n",
                         "            value = round(value * legs[0], 2)\n            factor = legs[1]\n"
                         "        value *= factor\n"),
        # a negative amount that rounds to zero keeps its sign
        solution.replace('    sign = "-" if cents < 0 else ""\n', '    sign = "-" if value < 0 else ""\n'),
    ]
    return _case("CO-spec-fx-01", "CO-spec-fx", (5, 1),
                 "Currency conversion: direct, inverse and cross rates, one banker's rounding",
                 prompt, "convert", rows, solution, wrongs,
                 "Sixty-odd hidden rows with seeded rates, at least twelve landing exactly half-way "
                 "between two representable results, across 0-, 2- and 3-digit currencies, inverse "
                 "quotes and USD crosses, missing paths (KeyError) and negatives that round to zero. "
                 "Binary floats, half-up rounding, rounding the USD leg and '-0.00' each fail; a model "
                 "has to use exact decimals and round once, which the prompt states but does not "
                 "spell out as code.",
                 errors=("KeyError",), suffix=(rates,))


# ----------------------------------------------------------------------------------- graduated pricing

def _tiers(rng) -> tuple[list[int], list[Fraction]]:
    bounds = sorted(rng.sample([100, 250, 500, 1000, 2000, 5000], 3))
    prices = sorted((Fraction(rng.randrange(400, 2000), 8) for _ in range(4)), reverse=True)
    return bounds, prices


def _cost_table(bounds, prices):
    """Cumulative usage cost at each tier boundary (the reference loops over the tiers instead)."""
    table, cost, previous = [(0, Fraction(0))], Fraction(0), 0
    for bound, price in zip(bounds, prices):
        cost += (bound - previous) * price
        table.append((bound, cost))
        previous = bound
    return table


def _expected_charge(*args) -> int:
    return round(_exact_charge(*args))   # half to even


def _exact_charge(units, bounds, prices, threshold, discount, minimum, fee, per_tier=None) -> Fraction:
    """The exact total before the final rounding; `per_tier` (a rounding function) rounds each
    tier's cost first, to find the totals where that order of rounding matters."""
    if units == 0:
        return Fraction(0)
    if per_tier is not None:
        edges = [0] + bounds + [units]
        usage = sum(per_tier(max(0, min(units, hi) - lo) * price)
                    for lo, hi, price in zip(edges, edges[1:], prices) if units > lo)
    else:
        table = _cost_table(bounds, prices)
        for (lo, cost_lo), price in zip(reversed(table), reversed(prices)):
            if units >= lo:
                usage = cost_lo + (units - lo) * price
                break
    if units >= threshold:
        usage = usage * (100 - discount) / 100
    usage = max(usage, minimum)
    return usage + fee


def _half_way_units(bounds, prices, threshold, discount, minimum, fee, top=6000) -> list[int]:
    """Unit counts whose exact total is an even number of cents plus one half, found by walking
    the units one at a time in integers of 1/800 cent (prices are eighths of a cent)."""
    eighths = [int(p * 8) for p in prices]
    found, usage8 = [], 0
    for units in range(1, top):
        usage8 += eighths[sum(1 for b in bounds if units > b)]
        usage800 = usage8 * ((100 - discount) if units >= threshold else 100)
        total800 = max(usage800, minimum * 800) + fee * 800
        if total800 % 1600 == 400:
            found.append(units)
    return found


def _money(cents: Fraction) -> str:
    text = f"{float(cents):.3f}".rstrip("0").rstrip(".")
    return f"{text} cents"


_TIER_SOLUTION = '''
from fractions import Fraction

BOUNDS = {bounds!r}
PRICES = {prices!r}


def monthly_charge(units):
    if units < 0:
        raise ValueError("negative usage")
    if units == 0:
        return 0
    usage, lower = Fraction(0), 0
    for upper, price in zip(BOUNDS + [None], PRICES):
        top = units if upper is None else min(units, upper)
        if top > lower:
            usage += (top - lower) * Fraction(price)
        if upper is None or units <= upper:
            break
        lower = upper
    if units >= {threshold}:
        usage = usage * (100 - {discount}) / 100
    usage = max(usage, {minimum})
    return round(usage + {fee})
'''


def _tiered_case(rng) -> dict:
    bounds, prices = _tiers(rng)
    threshold = rng.choice([b for b in bounds[1:]]) + rng.choice([0, 50])
    discount = rng.choice([5, 8, 12, 15])
    fee = rng.choice([199, 250, 499])
    minimum = rng.choice([1500, 2500, 4000])
    units_list = {0, 1, 2, 3}
    for b in bounds + [threshold]:
        units_list |= {b - 1, b, b + 1}
    units_list |= {rng.randrange(1, 20000) for _ in range(20)}
    units_list |= {rng.randrange(1, 40) for _ in range(8)}
    units_list |= {10 ** 7 + rng.randrange(1000)}
    # totals exactly half-way with an even cent below: half to even rounds down, half up does not
    args = (bounds, prices, threshold, discount, minimum, fee)
    ties = _half_way_units(*args)
    assert len(ties) >= 2, "no half-way totals for these prices"
    units_list |= set(rng.sample(ties, 2))
    # totals that come out differently when every tier is rounded on its own
    split = []
    for _ in range(2000):
        u = rng.randrange(1, 20000)
        if round(_exact_charge(u, *args, per_tier=round)) != round(_exact_charge(u, *args)):
            split.append(u)
            if len(split) == 2:
                break
    assert len(split) == 2, "no total depends on rounding each tier"
    units_list |= set(split)
    rows = [((u,), _expected_charge(u, bounds, prices, threshold, discount, minimum, fee)) for u in sorted(units_list)]
    rows.append(((-1,), "!ValueError"))
    rng.shuffle(rows)
    lines = []
    lower = 0
    for i, price in enumerate(prices):
        if i < len(bounds):
            lines.append(f"   - units {lower + 1} to {bounds[i]}: {_money(price)} each")
            lower = bounds[i]
        else:
            lines.append(f"   - every unit above {lower}: {_money(price)} each")
    tier_text = "\n".join(lines)
    prompt = f"""Write a Python function `monthly_charge(units)` that returns a customer's monthly charge in whole
cents (an int) for `units` units of usage (an int).

Rules, applied in this order:
1. Usage is priced in graduated tiers: each unit is priced by the tier it falls in, so the first
   units are always priced at the first tier's rate.
{tier_text}
2. If units >= {threshold}, the usage amount is reduced by {discount}%.
3. If the usage amount is below {minimum} cents, it becomes {minimum} cents (a minimum charge).
4. A platform fee of {fee} cents is added.
5. The total is rounded once, half to even, to whole cents. Do not round any earlier amount.
6. Zero units cost 0 (no minimum, no fee). Negative units raise ValueError.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    params = dict(bounds=bounds, prices=[str(p) for p in prices], threshold=threshold, discount=discount,
                  minimum=minimum, fee=fee)
    solution = _TIER_SOLUTION.format(**params)
    wrongs = [
        # volume pricing: every unit at the rate of the tier the total reaches
        solution.replace("            usage += (top - lower) * Fraction(price)\n",
                         "            usage = units * Fraction(price)\n"),
        # each tier rounded to whole cents
        solution.replace("usage += (top - lower) * Fraction(price)", "usage += round((top - lower) * Fraction(price))"),
        # the discount threshold read as "more than"
        solution.replace(f"    if units >= {threshold}:", f"    if units > {threshold}:"),
        # the minimum applied after the fee
        solution.replace(f"    usage = max(usage, {minimum})\n    return round(usage + {fee})",
                         f"    return round(max(usage + {fee}, {minimum}))"),
        # half away from zero
        solution.replace(f"    return round(usage + {fee})", f"    return int(usage + {fee} + Fraction(1, 2))"),
    ]
    return _case("CO-spec-tiered-01", "CO-spec-tiered", (5, 1),
                 "Graduated pricing with a volume discount, a minimum, a fee and one rounding",
                 prompt, "monthly_charge", rows, solution, wrongs,
                 "Medium: every rule is stated in order, but the hidden rows sit one unit either side "
                 "of every tier bound and the discount threshold, and prices in eighths of a cent "
                 "make half-cent totals common, so graduated-versus-volume pricing, rounding per "
                 "tier, > versus >=, the minimum's place before the fee and half-up rounding each "
                 "fail. Tiers, prices and thresholds are re-rolled per seed.",
                 errors=("ValueError",))


# ----------------------------------------------------------------------------------- tax with a taper

def _expected_tax(income, allowance, taper_from, bands, top_rate) -> int:
    return int(sum(_tax_pieces(income, allowance, taper_from, bands, top_rate)))   # rounded down


def _tax_pieces(income, allowance, taper_from, bands, top_rate) -> list[Fraction]:
    """The exact tax of each band in cents, walking the taxable income band by band (the reference
    slices it with min/max)."""
    if income > taper_from:
        allowance = max(0, allowance - (income - taper_from) // 2)
    taxable = max(0, income - allowance)
    pieces = []   # p percent of a whole unit is p cents
    remaining, rates = taxable, [r for _, r in bands] + [top_rate]
    widths = [w for w, _ in bands] + [None]
    for width, rate in zip(widths, rates):
        portion = remaining if width is None else min(remaining, width)
        pieces.append(portion * Fraction(rate))
        remaining -= portion
        if remaining == 0:
            break
    return pieces


_TAX_SOLUTION = '''
from fractions import Fraction

ALLOWANCE = {allowance}
TAPER_FROM = {taper_from}
BANDS = {bands!r}        # (width, percent) of taxable income, in order
TOP_RATE = {top_rate!r}   # percent on everything above the bands


def income_tax(income):
    allowance = ALLOWANCE
    if income > TAPER_FROM:
        allowance = max(0, ALLOWANCE - (income - TAPER_FROM) // 2)
    taxable = max(0, income - allowance)
    tax = Fraction(0)
    lower = 0
    for width, rate in BANDS:
        upper = lower + width
        tax += max(0, min(taxable, upper) - lower) * Fraction(rate) / 100
        lower = upper
    tax += max(0, taxable - lower) * Fraction(TOP_RATE) / 100
    return int(tax * 100)
'''


def _tax_case(rng) -> dict:
    allowance = rng.choice([9000, 10500, 11250, 12400])
    taper_from = rng.choice([80000, 90000, 100000])
    # odd widths: a full band then leaves half a cent, so rounding each band on its own shows
    bands = [(rng.randrange(20000, 40000) | 1, rng.choice(["12.5", "19.5", "20.5"])),
             (rng.randrange(50000, 90000) | 1, rng.choice(["32.5", "37.5", "40.5"]))]
    top_rate = rng.choice(["42.5", "45", "47.5"])
    incomes = {0, allowance - 1, allowance, allowance + 1, taper_from, taper_from + 1, taper_from + 2,
               taper_from + 3, taper_from + 2 * allowance - 1, taper_from + 2 * allowance,
               taper_from + 2 * allowance + 1, taper_from + 2 * allowance + 7}
    edge = allowance + bands[0][0]
    incomes |= {edge - 1, edge, edge + 1, edge + bands[1][0], edge + bands[1][0] + 3}
    incomes |= {rng.randrange(1, 400000) for _ in range(20)}
    incomes |= {rng.randrange(taper_from, taper_from + 2 * allowance) | 1 for _ in range(6)}
    # rows where rounding to nearest differs from rounding down, and where two bands each leave a
    # fraction of a cent (rounding every band down loses a cent)
    args = (allowance, taper_from, bands, top_rate)
    nearest = split = 0
    for _ in range(100000):
        if nearest >= 3 and split >= 3:
            break
        income = rng.randrange(allowance, 300000)
        pieces = _tax_pieces(income, *args)
        total = sum(pieces)
        if nearest < 3 and round(total) != int(total):
            incomes.add(income)
            nearest += 1
        if split < 3 and sum(int(x) for x in pieces) != int(total):
            incomes.add(income)
            split += 1
    assert nearest >= 3 and split >= 3, "no income separates the rounding rules"
    rows = [((i,), _expected_tax(i, allowance, taper_from, bands, top_rate)) for i in sorted(incomes)]
    rng.shuffle(rows)
    b1, b2 = bands
    prompt = f"""Write a Python function `income_tax(income)` that returns the tax on a yearly income. `income` is a
non-negative int in whole currency units; return the tax as an int number of cents (1 unit = 100
cents).

Rules:
1. The tax-free allowance is {allowance}. For an income above {taper_from}, the allowance shrinks by 1
   for every full 2 of income above {taper_from} (an odd unit left over does not count); it never
   goes below 0.
2. Taxable income is the income minus the allowance, and never below 0.
3. The first {b1[0]} of taxable income is taxed at {b1[1]}%, the next {b2[0]} at {b2[1]}%, and
   everything above that at {top_rate}%.
4. Add the amounts from all bands exactly, then round the total down to whole cents.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    params = dict(allowance=allowance, taper_from=taper_from, bands=bands, top_rate=top_rate)
    solution = _TAX_SOLUTION.format(**params)
    wrongs = [
        # the taper by exact halves (an odd unit counts half)
        solution.replace("(income - TAPER_FROM) // 2", "(income - TAPER_FROM) / 2"),
        # the allowance may go negative
        solution.replace("max(0, ALLOWANCE - (income - TAPER_FROM) // 2)", "ALLOWANCE - (income - TAPER_FROM) // 2"),
        # rounded to the nearest cent
        solution.replace("    return int(tax * 100)", "    return round(tax * 100)"),
        # every band rounded down on its own
        solution.replace("        tax += max(0, min(taxable, upper) - lower) * Fraction(rate) / 100\n",
                         "        tax += Fraction(int(max(0, min(taxable, upper) - lower) * Fraction(rate)), 100)\n"),
    ]
    return _case("CO-spec-tax-01", "CO-spec-tax", (4, 1),
                 "Banded income tax with a tapering allowance, rounded down to cents",
                 prompt, "income_tax", rows, solution, wrongs,
                 "Medium: bands and a taper are familiar, but the numbers are re-rolled per seed (no "
                 "memorised national rules fit) and the hidden rows sit on the taper's odd-unit "
                 "steps, the point where the allowance reaches zero, and every band edge. Halving "
                 "the excess exactly, letting the allowance go negative, rounding to nearest and "
                 "rounding each band on its own each fail.")


def cases(seed):
    return [
        _allocate_case(family_rng("CO-spec-allocate", seed)),
        _fx_case(family_rng("CO-spec-fx", seed)),
        _tiered_case(family_rng("CO-spec-tiered", seed)),
        _tax_case(family_rng("CO-spec-tax", seed)),
    ]
