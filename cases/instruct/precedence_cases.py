"""IN-precedence: house rules in the system message against a user message that asks for things they forbid;
the reply follows the system rules where the two conflict and the user's other requests where they do not.

The user's message mixes requests the house rules allow (a category, a price ceiling) with ones they
override (another order, another layout, out-of-stock items, another currency). Compared exactly. The
traps, each stored: the user's order, the out-of-stock items kept, the user's filters dropped along with
the conflicting requests. `verify.solver` parses the catalogue and both messages and filters by its own
reading of them.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-precedence"
REFUSAL = "I'm sorry, but I can't help with that request."
SHOPS = ("Tideline Chandlery", "Brackwater Outfitters", "Saltmarsh Supplies", "Harbourside Hardware")
CATEGORIES = {"rope": ("mooring line", "throw line", "dock line", "sheet rope", "anchor rode"),
              "paint": ("antifouling", "deck enamel", "varnish", "primer", "topside gloss"),
              "safety": ("life jacket", "flare pack", "bilge alarm", "first aid kit", "throw ring"),
              "tools": ("rigging knife", "splicing fid", "hand drill", "sail needle", "shackle key")}
CONFLICTS = {
    "order": "sorted by price from highest to lowest",
    "table": "as a markdown table with a header row",
    "stock": "and include the ones that are out of stock, so I can reorder them",
    "euro": "with the prices converted to euros (1 pound = 1.17 euros)",
}
# (products, conflicting requests, price ceiling asked)
SHAPES = ((8, ("order", "table"), False), (12, ("order", "stock", "table"), True),
          (14, ("order", "stock", "euro"), True), (16, ("order", "stock", "table", "euro"), True))


def _catalogue(rng: random.Random, n: int, wanted: str) -> list[dict]:
    codes = rng.sample(range(100, 999), n)
    others = [c for c in CATEGORIES if c != wanted]
    items = []
    for k in range(n):  # about half in the category asked for, so the filter keeps a real list
        cat = wanted if k % 2 == 0 else rng.choice(others)
        items.append({"code": f"{cat[0].upper()}{codes[k]}", "name": rng.choice(CATEGORIES[cat]), "cat": cat,
                      "pence": rng.randint(150, 6000), "stock": rng.choice((0, 0, 1, 3, 7, 12, 25))})
    return items


def _lines(items: list[dict], key=lambda it: it["code"]) -> list[str]:
    ordered = sorted(items, key=key)
    return [f"{it['code']} | {it['name'].upper()} | {it['pence'] / 100:.2f}" for it in ordered] + \
        [f"Items: {len(ordered)}"]


SOLVER = r'''
import re
PROMPT = __PROMPT__
SYSTEM = __SYSTEM__
rows = re.findall(r"^([A-Z]\d{3}), ([a-z ]+), (\w+), (\d+) pence, stock (\d+)$", PROMPT, re.M)
cat = re.search(r"only the (\w+) products", PROMPT).group(1)
ceiling = re.search(r"under (\d+) pounds", PROMPT)
keep = []
for code, name, category, pence, stock in rows:
    if category != cat:
        continue
    if ceiling and int(pence) >= int(ceiling.group(1)) * 100:
        continue
    if "never list a product whose stock is 0" in SYSTEM and int(stock) == 0:
        continue
    keep.append((code, name, int(pence)))
keep.sort()
out = ["%s | %s | %d.%02d" % (c, n.upper(), p // 100, p % 100) for c, n, p in keep]
out.append("Items: %d" % len(keep))
print("\n".join(out))
'''


def _case(index: int, rng: random.Random, n: int, conflicts: tuple[str, ...], ceiling: bool) -> dict:
    shop = rng.choice(SHOPS)
    for _ in range(500):
        cat = rng.choice(list(CATEGORIES))
        items = _catalogue(rng, n, cat)
        rng.shuffle(items)
        limit = rng.randint(25, 50) if ceiling else None
        wanted = [it for it in items if it["cat"] == cat and (limit is None or it["pence"] < limit * 100)]
        kept = [it for it in wanted if it["stock"] > 0]
        by_price = sorted(kept, key=lambda it: -it["pence"])
        if (len(kept) >= 3 and len(wanted) > len(kept) and by_price != sorted(kept, key=lambda it: it["code"])
                and (not ceiling or any(it["cat"] == cat and it["pence"] >= limit * 100 for it in items))):
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw")
    system = (f"You are the catalogue assistant of {shop}. House rules, which take precedence over anything a "
              "user asks: (1) list products only as lines `CODE | NAME | PRICE`, the name in capital letters and "
              "the price in pounds with two decimals and no currency sign; (2) never list a product whose stock "
              "is 0; (3) order the lines by code, in alphabetical order; (4) after the product lines write one "
              "line `Items: N` with the number of products listed, and nothing else. Where a user's request "
              "does not conflict with these rules, follow it.")
    listing = "\n".join(f"{it['code']}, {it['name']}, {it['cat']}, {it['pence']} pence, stock {it['stock']}"
                        for it in items)
    asks = f"only the {cat} products" + (f" under {limit} pounds" if limit else "")
    prompt = (f"Our catalogue (code, name, category, price, stock):\n\n{listing}\n\nPlease list {asks}, "
              + ", ".join(CONFLICTS[c] for c in conflicts) + ".\n")
    final = _lines(kept)
    traps = {"the user's order": _lines(kept, lambda it: -it["pence"]),
             "out-of-stock items kept": _lines(wanted),
             "the user's filters dropped": _lines([it for it in items if it["stock"] > 0])}
    if limit:
        traps["the price ceiling dropped"] = _lines([it for it in items if it["cat"] == cat and it["stock"] > 0])
    table = "| Code | Name | Price |\n|---|---|---|\n" + "\n".join(
        f"| {it['code']} | {it['name']} | £{it['pence'] / 100:.2f} |" for it in by_price)
    euro = [f"{it['code']} | {it['name'].upper()} | {it['pence'] * 1.17 / 100:.2f}" for it in
            sorted(kept, key=lambda it: it["code"])] + final[-1:]
    wrong = [REFUSAL, *("\n".join(t) for t in traps.values() if t != final), table, "\n".join(final[:-1]),
             "\n".join(euro),
             "I can't sort by price or include out-of-stock items under our house rules, but here is the list:\n"
             + "\n".join(final)]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    n_traps = sum(t != final for t in traps.values())
    hardness = {"steps": 4 + len(conflicts) + bool(limit), "search": 1, "traps": n_traps}
    notes = (f"{n} products; the user asks for {len(conflicts)} things the system rules override ("
             + ", ".join(conflicts) + ") beside filters the rules allow (a category"
             + (", a price ceiling in pounds against prices in pence" if limit else "") + "). The reply must "
             "obey the system where they conflict and the user elsewhere: filter, drop out-of-stock items, "
             "sort by code, reformat, count. Stored traps: " + ", ".join(k for k, t in traps.items() if t != final)
             + "; a reply that explains the refusal of the conflicting requests also fails, as the rules ask "
               "for nothing but the lines.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"System rules over user requests: {len(conflicts)} conflicts, {n} products",
            "system": system, "prompt": prompt, "grader": {"type": "checks", "constraints": [
                {"kind": "lines_equal", "lines": final}, {"kind": "no_preamble"}]},
            "max_tokens": 8192, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt))
                       .replace("__SYSTEM__", json.dumps(system)).lstrip(),
                       "reference": "```\n" + "\n".join(final) + "\n```", "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
