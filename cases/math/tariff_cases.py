"""MA-tariff: a multi-step word problem with large numbers: two years of tiered electricity bills
with growing usage, a fixed charge and a surcharge above a threshold. The generator prices each
month's tiers with clamped differences; the solver prices every kilowatt-hour one at a time."""

from pytest_crucible import family_rng, numeric_case, program
from pytest_crucible.suite.tiers import declare

FAMILY = "MA-tariff"

SOLVER = """
total = 0
for month in range(MONTHS):
    usage = START + month * GROWTH
    total += FIXED
    for kwh in range(1, usage + 1):
        if kwh <= TIER1:
            price = PRICE1
        elif kwh <= TIER1 + TIER2:
            price = PRICE2
        else:
            price = PRICE3
        if usage > THRESHOLD and kwh > THRESHOLD:
            price += SURCHARGE
        total += price
print(total)
"""


def bill_total(months, start, growth, tier1, tier2, prices, fixed, threshold, surcharge,
               surcharge_all=False):
    """Sum of the monthly bills, in cents."""
    total = 0
    for month in range(months):
        usage = start + month * growth
        first = min(usage, tier1)
        second = min(max(usage - tier1, 0), tier2)
        third = max(usage - tier1 - tier2, 0)
        total += fixed + first * prices[0] + second * prices[1] + third * prices[2]
        if usage > threshold:
            total += surcharge * (usage if surcharge_all else usage - threshold)
    return total


def _case(rng, index, difficulty):
    months = 12 if difficulty == "medium" else 24
    tier1 = rng.randrange(20, 50) * 100
    tier2 = rng.randrange(50, 100) * 100
    prices = (rng.randrange(9, 14), rng.randrange(14, 19), rng.randrange(19, 27))
    fixed = rng.randrange(25, 90) * 100 + rng.choice([0, 50])
    start = rng.randrange(1500, 4000) + rng.randrange(10) * 7
    growth = rng.randrange(450, 900)
    last = start + (months - 1) * growth
    threshold = rng.randrange(tier1 + tier2, max(tier1 + tier2 + 1, last - 2 * growth)) // 100 * 100
    surcharge = 0 if difficulty == "medium" else rng.randrange(2, 7)
    args = (tier1, tier2, prices, fixed, threshold, surcharge)
    answer = bill_total(months, start, growth, *args)
    traps = [answer - months * fixed, bill_total(months, start + growth, growth, *args),
             bill_total(months - 1, start, growth, *args)]
    if surcharge:
        traps.append(bill_total(months, start, growth, *args, surcharge_all=True))
    extra = (f" In any month whose usage is more than {threshold:,} kWh, each kWh above {threshold:,} "
             f"costs an extra {surcharge} cents on top of its tier price." if surcharge else "")
    prompt = f"""
        A cold-storage warehouse is billed for electricity every month. Within a month the first
        {tier1:,} kWh cost {prices[0]} cents each, the next {tier2:,} kWh cost {prices[1]} cents each,
        and every kWh beyond those costs {prices[2]} cents. Each monthly bill also carries a fixed
        charge of {fixed:,} cents.{extra} The warehouse uses {start:,} kWh in its first month, and in
        each later month it uses {growth} kWh more than in the month before. What is the total of its
        first {months} monthly bills, in cents?
    """
    per_month = [bill_total(1, start + m * growth, growth, *args) for m in range(months)]
    lines = "\n        ".join(f"| {m + 1} | {start + m * growth:,} | {b:,} |" for m, b in enumerate(per_month))
    reference = f"""
        Usage in month m is {start:,} + {growth}(m − 1) kWh. Pricing each month by tiers:

        | month | kWh | bill (cents) |
        |---|---|---|
        {lines}

        The {months} bills add up to {answer:,} cents.

        **Answer:** {answer:,} cents
    """
    crossings = sum(1 for m in range(months) for edge in (tier1, tier1 + tier2, threshold)
                    if start + m * growth > edge >= start + (m - 1) * growth and m > 0)
    notes = f"""{months} monthly bills of three tiers each{', plus a surcharge that applies only above ' + f'{threshold:,}' + ' kWh and only in the months over it' if surcharge else ''};
        the usage crosses a tier or threshold edge {crossings} times, so the months fall into phases
        that each need an arithmetic series (or {months} separate bills), with totals in the millions
        of cents. Traps: leaving out the fixed charge ({traps[0]}), starting the growth one
        month early ({traps[1]}), {months - 1} bills instead of {months}{', charging the surcharge on every kWh of a month over the threshold' if surcharge else ''}."""
    return numeric_case(
        family=FAMILY, index=index, difficulty=difficulty, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, MONTHS=months, START=start, GROWTH=growth, TIER1=tier1, TIER2=tier2,
                       PRICE1=prices[0], PRICE2=prices[1], PRICE3=prices[2], FIXED=fixed,
                       THRESHOLD=threshold, SURCHARGE=surcharge),
        reference=reference, notes=notes, max_tokens=16384 if difficulty == "medium" else 32768,
        title=f"{months} tiered electricity bills with growing usage")


# Hardness facts (steps, search, traps) per shape: one bill per month (or one series per phase), summed
# exactly.
HARDNESS = {"medium": (12, 1, 3), "hard": (14, 1, 3)}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    out = [_case(rng, i, difficulty) for i, difficulty in
            enumerate(["medium", "hard", "hard", "hard", "hard", "hard"], 1)]
    for case in out:  # the plan's label names the shape (shorter or longer); the rule gives the tier
        declare(case, *HARDNESS[case["difficulty"]])
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
