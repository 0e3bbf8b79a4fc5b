"""IN-columns: order records written as prose into fixed-format lines: a computed total, two sort keys and a
stated tie-break, dot-padded names and zero-padded amounts, and a closing sum line, compared exactly.

Widths are made of dots and zeros, not spaces, so the exact comparison sees every column. The generator
plants a tie (two orders of one region with the same total) that only the stated tie-break orders, and a
third order whose total beats them unless the quantity and the price are multiplied. `verify.solver`
reads the orders back from the prompt's sentences and sorts by selection.
"""

from __future__ import annotations

import json
import random
from decimal import Decimal

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-columns"
REFUSAL = "I'm sorry, but I can't help with that request."
REGIONS = ("Coast", "Downs", "Fens", "Moor", "Vale", "Weald")
GOODS = ("slate tiles", "oak beams", "lime mortar", "clay pipes", "iron nails", "flint blocks", "reed thatch",
         "glass panes", "copper wire", "sand bags")
CLIENTS = ("Ashby", "Brook", "Carrow", "Dene", "Elwick", "Farrant", "Gissing", "Holt", "Ingram", "Jessop",
           "Kettle", "Linden", "Marsh", "Norland")
SENTENCES = ("Order {no}: {client} ({region}) bought {qty} lots of {goods} at {price} each.",
             "{client} of the {region} region placed order {no} for {qty} lots of {goods}, {price} per lot.",
             "Order {no} went to {client} in {region}: {qty} lots of {goods} priced at {price} a lot.")
# (records, regions, tie planted)
SHAPES = ((4, 2, False), (7, 3, True), (8, 3, True), (9, 4, True))


def _records(rng: random.Random, n: int, n_regions: int, tie: bool) -> list[dict]:
    regions = rng.sample(REGIONS, n_regions)
    numbers = rng.sample(range(1000, 9999), n)
    recs = []
    for k in range(n):
        qty = rng.randint(2, 40)
        price = Decimal(rng.randint(120, 2400)) / 100
        recs.append({"no": numbers[k], "client": rng.choice(CLIENTS), "region": regions[k % n_regions],
                     "qty": qty, "price": price, "goods": rng.choice(GOODS)})
    if tie:  # two orders of one region with one total, and the later-numbered one listed first
        a, b = recs[0], recs[n_regions]
        a["qty"], a["price"] = 12, Decimal("4.50")
        b["qty"], b["price"] = 9, Decimal("6.00")
        if a["no"] < b["no"]:
            a["no"], b["no"] = b["no"], a["no"]
    for r in recs:
        r["total"] = r["qty"] * r["price"]
    return recs


def _line(r: dict, width: int) -> str:
    return f"{r['region'].upper()}|{r['client'].ljust(width, '.')}|{r['no']}|{r['total']:09.2f}"


def _lines(recs: list[dict], width: int, key) -> list[str]:
    ordered = sorted(recs, key=key)
    total = sum(r["total"] for r in recs)
    return [_line(r, width) for r in ordered] + [f"SUM|{len(recs)}|{total:09.2f}"]


SOLVER = r'''
import re
from decimal import Decimal
PROMPT = __PROMPT__
width = int(re.search(r"padded on the right with dots to (\d+) characters", PROMPT).group(1))
rows = []
for line in PROMPT.split("\n"):
    no = re.search(r"[Oo]rder (\d{4})", line)
    if not no or "lots of" not in line:
        continue
    client = re.search(r"^Order \d+: (\w+) \(|^(\w+) of the|went to (\w+) in", line).groups()
    client = next(x for x in client if x)
    region = re.search(r"\((\w+)\)|of the (\w+) region|in (\w+):", line).groups()
    region = next(x for x in region if x)
    qty = int(re.search(r"(\d+) lots", line).group(1))
    price = Decimal(re.search(r"(?:at|,|priced at) (\d+\.\d\d)", line).group(1))
    rows.append((region, client, int(no.group(1)), qty * price))
total = sum(r[3] for r in rows)
out = []
while rows:
    best = rows[0]
    for r in rows[1:]:
        if (r[0], -r[3], r[2]) < (best[0], -best[3], best[2]):
            best = r
    rows.remove(best)
    pad = best[1] + "." * (width - len(best[1]))
    amount = "%.2f" % best[3]
    out.append(best[0].upper() + "|" + pad + "|" + str(best[2]) + "|" + "0" * (9 - len(amount)) + amount)
amount = "%.2f" % total
out.append("SUM|" + str(len(out)) + "|" + "0" * (9 - len(amount)) + amount)
print("\n".join(out))
'''


def _case(index: int, rng: random.Random, n: int, n_regions: int, tie: bool) -> dict:
    recs = _records(rng, n, n_regions, tie)
    width = rng.randint(10, 12)
    shown = recs[:]
    rng.shuffle(shown)
    text = "\n".join(rng.choice(SENTENCES).format(price=f"{r['price']:.2f}", **{k: v for k, v in r.items()
                                                                              if k != "price"}) for r in shown)
    prompt = (f"Here are this week's orders:\n\n{text}\n\nWrite one line per order, in this exact form:\n"
              "`REGION|CLIENT|ORDER|TOTAL`\nwhere REGION is the region in capital letters, CLIENT is the client's "
              f"name padded on the right with dots to {width} characters (\"Holt\" becomes \"Holt"
              f"{'.' * (width - 4)}\"), ORDER is the order number, and TOTAL is the quantity times the price, "
              "with two decimals, padded on the left with zeros to 9 characters (the point counts: 42.50 "
              "becomes 000042.50).\nSort the lines by region in alphabetical order; within a region, by TOTAL "
              "from largest to smallest; when two totals are equal, the smaller order number first.\nAfter the "
              "order lines write one last line `SUM|N|TOTAL`: N is the number of orders and TOTAL the sum of "
              "all totals, written like the others.\nOutput only these lines: no heading, no table, no "
              "explanation.\n")
    final = _lines(recs, width, lambda r: (r["region"], -r["total"], r["no"]))
    constraints = [{"kind": "lines_equal", "lines": final}, {"kind": "no_preamble"}]
    traps = {
        "the order of the prompt": [_line(r, width) for r in shown] + final[-1:],
        "the order number as the second key": _lines(recs, width, lambda r: (r["region"], r["no"])),
        "the tie broken by the larger order number": _lines(recs, width, lambda r: (r["region"], -r["total"],
                                                                                    -r["no"])),
        "the total ascending": _lines(recs, width, lambda r: (r["region"], r["total"], r["no"])),
        "sorted by total alone": _lines(recs, width, lambda r: (-r["total"], r["no"])),
    }
    spaced = [ln.replace(".", " ") if not ln.startswith("SUM") else ln for ln in final]
    wrong = [REFUSAL, *("\n".join(t) for t in traps.values()),
             "\n".join(ln.replace("|0", "|", 1) if ln.count("|") == 3 else ln for ln in final),
             "| REGION | CLIENT | ORDER | TOTAL |\n|---|---|---|---|\n" + "\n".join(f"| {ln} |" for ln in final),
             "\n".join(final[:-1]), "\n".join(spaced)]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    n_traps = sum(t != final for t in traps.values())
    hardness = {"steps": n + 3, "search": 1, "traps": n_traps}
    notes = (f"{n} orders in three sentence shapes: multiply {n} quantities by prices, sort by region and then "
             "by total descending" + (", break a planted tie by the smaller order number" if tie else "")
             + f", pad names with dots to {width} characters and totals with zeros to 9, and add the count and "
               "the sum. The stored traps are the prompt's order, the order number as second key, the tie "
               "broken the other way, the totals ascending and one global sort.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"{n} orders to padded lines, two sort keys and a tie-break", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 16384, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "```\n" + "\n".join(final) + "\n```", "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
