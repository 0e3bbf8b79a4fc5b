"""Tool use: purchase-order arguments worked out by arithmetic on the numbers in the prompt (family TU-reorder).

The user pastes stock figures for five SKUs and states the reorder rule: stock must cover the weekly sales for a
number of weeks plus what open orders reserve, counting what is already on the way; the shortfall is ordered in
whole packs (rounded up), and a SKU with no shortfall gets no order. The tool takes packs, not units, and each
SKU's supplier. So every call's `packs` is a small computation, and which SKUs get a call at all is decided by
it. Traps: units instead of packs, packs rounded down, the incoming stock or the reserved units ignored, an order
for a SKU that needs none. Each solver re-reads the table and adds packs one at a time until the need is met.
"""

from __future__ import annotations

import math
import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-reorder"
REFUSAL = "I'm sorry, but I can't help with that request."
ITEMS = [("BRK-220", "brake pads"), ("FLT-118", "oil filters"), ("WPR-560", "wiper blades"), ("BLB-H7", "H7 bulbs"),
         ("CLN-050", "coolant, 5 l"), ("SPK-IR4", "iridium spark plugs"), ("BAT-70", "70 Ah batteries"),
         ("FUS-MIX", "fuse kits")]
SUPPLIERS = ["Nordparts", "Autoline", "Kessler & Co", "Baltic Motor Supply"]

TOOLS = [
    function_tool("create_purchase_order", "Order whole packs of one SKU from its supplier.",
                  {"sku": {"type": "string"}, "packs": {"type": "integer", "minimum": 1},
                   "supplier": {"type": "string", "enum": SUPPLIERS}}, ["sku", "packs", "supplier"]),
    function_tool("adjust_stock", "Correct the recorded stock of a SKU.",
                  {"sku": {"type": "string"}, "on_hand": {"type": "integer"}}, ["sku", "on_hand"]),
]

SOLVER = r'''
import json, re
prompt = PROMPT
weeks = int(re.search(r"cover (\d+) weeks", prompt).group(1))
calls = []
for line in re.findall(r"^- .+$", prompt, re.M):
    sku = re.search(r"^- (\S+)", line).group(1)
    get = lambda label: int(re.search(label + r" (\d+)", line).group(1))
    on_hand, reserved, incoming, weekly, pack = (get(k) for k in ("on hand", "reserved", "incoming",
                                                                 "sells", "packs of"))
    supplier = re.search(r"from (.+?)\.?$", line).group(1)
    have, packs = on_hand + incoming - reserved, 0
    while have + packs * pack < weekly * weeks:
        packs += 1
    if packs:
        calls.append({"name": "create_purchase_order", "arguments": {"sku": sku, "packs": packs, "supplier": supplier}})
print(json.dumps({"calls": calls}))
'''


def _row(rng: random.Random, sku: str, name: str, weeks: int, kind: str) -> dict:
    weekly = rng.randint(6, 40)
    pack = rng.choice([4, 6, 10, 12, 20, 24])
    target = weekly * weeks
    reserved = rng.randint(2, 15)
    incoming = rng.choice([0, pack * rng.randint(1, 3)])
    if kind == "none":  # enough stock once incoming counts (not without it)
        incoming = max(incoming, pack * rng.randint(2, 4))
        on_hand = target + reserved - incoming + rng.randint(0, 5)
    else:
        on_hand = rng.randint(0, max(1, target // 2))
        if target + reserved - on_hand - incoming <= pack:  # a real shortfall, more than one pack
            incoming = 0
    on_hand = max(on_hand, 0)
    return {"sku": sku, "name": name, "weekly": weekly, "pack": pack, "reserved": reserved, "incoming": incoming,
            "on_hand": on_hand, "supplier": rng.choice(SUPPLIERS)}


def _need(r: dict, weeks: int, incoming: bool = True, reserved: bool = True) -> int:
    return r["weekly"] * weeks + (r["reserved"] if reserved else 0) - r["on_hand"] - (r["incoming"] if incoming else 0)


def _case(number: int, rng: random.Random) -> dict:
    weeks = rng.choice([3, 4, 6])
    picks = rng.sample(ITEMS, 5)
    kinds = ["order", "order", "order", "none", "order" if number != 2 else "none"]
    rng.shuffle(kinds)
    rows = [_row(rng, sku, name, weeks, kind) for (sku, name), kind in zip(picks, kinds)]
    for r in rows:  # an order whose need is not a whole number of packs (rounding matters)
        while _need(r, weeks) > 0 and _need(r, weeks) % r["pack"] == 0:
            r["on_hand"] += 1
    lines = [f"- {r['sku']} ({r['name']}): on hand {r['on_hand']}, reserved {r['reserved']} by open orders, incoming "
             f"{r['incoming']} already ordered, sells {r['weekly']} a week, comes in packs of {r['pack']} from "
             f"{r['supplier']}." for r in rows]
    prompt = (f"Reorder stock for these SKUs. Stock must cover {weeks} weeks of sales plus what open orders have "
              f"reserved, counting what is already on its way (to cover {weeks} weeks: on hand + incoming - reserved "
              f"must reach {weeks} weeks of sales). Order each shortfall in whole packs, rounded up, from the SKU's "
              "supplier; a SKU without a shortfall gets no order.\n" + "\n".join(lines))

    def order(rule) -> dict:
        calls = [("create_purchase_order", {"sku": r["sku"], "packs": p, "supplier": r["supplier"]})
                 for r in rows if (p := rule(r)) > 0]
        return tool_turn(*calls) if calls else {"content": "No orders are needed."}

    right = lambda r: max(0, math.ceil(_need(r, weeks) / r["pack"]))  # noqa: E731
    calls = [{"name": "create_purchase_order", "arguments": {"sku": r["sku"], "packs": right(r),
                                                             "supplier": r["supplier"]}}
             for r in rows if right(r) > 0]
    wrong = [REFUSAL, f"Order {sum(right(r) for r in rows)} packs in all.",
             order(lambda r: max(0, _need(r, weeks))),
             order(lambda r: max(0, _need(r, weeks) // r["pack"])),
             order(lambda r: max(0, math.ceil(_need(r, weeks, incoming=False) / r["pack"]))),
             order(lambda r: max(0, math.ceil(_need(r, weeks, reserved=False) / r["pack"]))),
             order(lambda r: max(1, right(r))),
             tool_turn(*[(c["name"], c["arguments"]) for c in calls[:-1]])]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # per SKU: sales x weeks, plus reserved, minus on hand and incoming, divided by the pack and rounded up
        **ruled(5, 1, 4),
        "title": "Purchase orders in whole packs from a reorder rule over five pasted SKUs",
        "notes": (f"{len(calls)} orders among 5 SKUs; every shortfall is off a whole number of packs, so rounding "
                  "down or ordering units fails; one or two SKUs are covered only because incoming stock counts, "
                  "so ignoring it orders them too; ignoring reserved units orders too little."),
        "prompt": prompt, "tools": TOOLS, "max_tokens": 4096,
        "grader": {"type": "tool_calls", "calls": calls, "allow_extra": False, "forbidden": ["adjust_stock"]},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": tool_turn(
            *[(c["name"], c["arguments"]) for c in calls]), "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
