"""Agent: reconcile a shop's listed stock with the warehouse, where the two APIs' records disagree (AG-restock).

Two simulated systems (a Python handler). The warehouse (wms_stock) lists stock per bin, a few rows a
page behind a cursor, and its second page is rate limited once (retry the same cursor). The shop
(shop_products) lists products by its own product id with the warehouse SKU beside it. The agent sets
every product whose listed quantity differs from the sellable quantity (on hand minus reserved, summed
over all of the SKU's bins, never below 0; a product the warehouse has no record of sells 0) and
touches nothing else. Traps: a SKU split over bins on different pages, reserved units, a reservation
larger than the stock, a product the warehouse dropped, warehouse SKUs the shop does not list, and a
product whose listed quantity equals its on-hand count (right only if reserved is ignored).
"""

from __future__ import annotations

import json
import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import tier_of

FAMILY = "AG-restock"
PAGE = 5

TOOLS = [
    function_tool(
        "wms_stock",
        "Warehouse stock, one row per SKU and bin, a page at a time.",
        {"cursor": {"type": "string", "description": "next_cursor of the previous page; omit for the first"}},
    ),
    function_tool("shop_products", "Every product of the web shop: product id, warehouse SKU, listed quantity."),
    function_tool(
        "shop_set_qty",
        "Set a shop product's listed quantity.",
        {"product_id": {"type": "string"}, "quantity": {"type": "integer", "minimum": 0}},
        ["product_id", "quantity"],
    ),
    function_tool(
        "wms_adjust",
        "Correct the warehouse's on-hand count of a SKU in a bin.",
        {"sku": {"type": "string"}, "bin": {"type": "string"}, "on_hand": {"type": "integer"}},
        ["sku", "bin", "on_hand"],
    ),
    function_tool(
        "shop_delete_product", "Remove a product from the shop.", {"product_id": {"type": "string"}}, ["product_id"]
    ),
]


def handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "wms_stock":
        cursor = str(arguments.get("cursor") or "").strip()
        pages = state["pages"]
        index = 0 if not cursor else next((i for i, p in enumerate(pages) if p["cursor"] == cursor), None)
        if index is None:
            return {"error": f"invalid cursor {cursor!r}"}
        if index == 1 and not state.get("limited"):
            state["limited"] = True
            return {"error": "429 rate limited: too many requests, retry this page"}
        nxt = pages[index + 1]["cursor"] if index + 1 < len(pages) else None
        return {"result": {"items": pages[index]["items"], "next_cursor": nxt}}
    if name == "shop_products":
        return {"result": [{"product_id": p, "sku": s, "listed": state["listed"][p]} for p, s in state["skus"].items()]}
    if name == "shop_set_qty":
        pid = str(arguments.get("product_id", "")).strip().upper()
        qty = arguments.get("quantity")
        if pid not in state["listed"]:
            return {"error": f"no product {arguments.get('product_id')!r}; use the shop's product id"}
        if not isinstance(qty, int) or isinstance(qty, bool) or qty < 0:
            return {"error": "quantity must be a whole number, 0 or more"}
        state["listed"][pid] = qty
        return {"result": f"{pid} now lists {qty}"}
    return {"result": "done"}


def _world(rng: random.Random) -> dict:
    prefix = rng.choice(["KB", "LMP", "CH", "MUG", "TR", "BK"])
    skus = [f"{prefix}-{n}" for n in rng.sample(range(1000, 9999), 12)]
    rows = []
    for sku in skus:
        on_hand = rng.randint(5, 60)
        rows.append(
            {
                "sku": sku,
                "bin": f"A{rng.randint(1, 9)}-{rng.randint(10, 99)}",
                "on_hand": on_hand,
                "reserved": rng.choice([0, 0, rng.randint(1, on_hand // 2 + 1)]),
            }
        )
    split, over, equal_on_hand, dropped_src = skus[0], skus[1], skus[2], None
    rows.append(
        {
            "sku": split,
            "bin": f"C{rng.randint(1, 9)}-{rng.randint(10, 99)}",
            "on_hand": rng.randint(6, 30),
            "reserved": 0,
        }
    )
    rows[1]["reserved"] = rows[1]["on_hand"] + rng.randint(1, 4)  # reserved beyond the stock
    rows[2]["reserved"] = rng.randint(2, 6)
    order = rows[1:-1]
    rng.shuffle(order)
    rows = [rows[0], *order[:7], rows[-1], *order[7:]]  # the split's bins on pages 1 and 2
    pages = [
        {"cursor": f"cur_{rng.randint(10**5, 10**6 - 1)}" if i else "", "items": rows[i : i + PAGE]}
        for i in range(0, len(rows), PAGE)
    ]
    sellable: dict[str, int] = {}
    for r in rows:
        sellable[r["sku"]] = sellable.get(r["sku"], 0) + r["on_hand"] - r["reserved"]
    sellable = {k: max(v, 0) for k, v in sellable.items()}
    listed_skus = skus[:9]  # three warehouse SKUs are not sold
    dropped_src = f"{prefix}-{rng.randint(1000, 9999)}"
    pids = [f"P-{n}" for n in rng.sample(range(20000, 99999), 10)]
    shop, listed = {}, {}
    for pid, sku in zip(pids, [*listed_skus, dropped_src]):
        want = sellable.get(sku, 0)
        if sku == equal_on_hand:
            value = sum(r["on_hand"] for r in rows if r["sku"] == sku)
        elif sku == dropped_src:
            value = rng.randint(2, 9)
        else:
            value = want if rng.random() < 0.55 else max(want + rng.choice([-3, -2, 2, 4, 7]), 0)
        shop[pid], listed[pid] = sku, value
    return {"pages": pages, "skus": shop, "listed": listed, "split": split, "over": over, "dropped": dropped_src}


SOLVER = """
import json
from collections import defaultdict
PAGES, SHOP = json.loads({pages!r}), json.loads({shop!r})
bins = defaultdict(list)
for page in PAGES:
    for row in page["items"]:
        bins[row["sku"]].append(row["on_hand"] - row["reserved"])
calls, final = [], {{}}
for product in SHOP:
    sellable = max(sum(bins[product["sku"]]), 0) if product["sku"] in bins else 0
    final[product["product_id"]] = sellable
    if sellable != product["listed"]:
        arguments = {{"product_id": product["product_id"], "quantity": sellable}}
        calls.append({{"name": "shop_set_qty", "arguments": arguments}})
print(json.dumps({{"calls": calls, "state": {{"listed": final}}, "values": {{"Updated:": len(calls)}}}}))
"""


def _targets(world: dict) -> dict:
    total: dict[str, int] = {}
    for page in world["pages"]:
        for r in page["items"]:
            total[r["sku"]] = total.get(r["sku"], 0) + r["on_hand"] - r["reserved"]
    return {pid: max(total.get(sku, 0), 0) for pid, sku in world["skus"].items()}


def _case(number: int, rng: random.Random) -> dict:
    world = _world(rng)
    target = _targets(world)
    changes = {p: q for p, q in target.items() if q != world["listed"][p]}
    if len(changes) < 4:
        return _case(number, rng)
    shop_rows = [{"product_id": p, "sku": s, "listed": world["listed"][p]} for p, s in world["skus"].items()]
    calls = [{"name": "shop_set_qty", "arguments": {"product_id": p, "quantity": q}} for p, q in changes.items()]
    shop = ["Lumen Home", "Tallow & Twine", "Northbound Gear", "Kiln Street"][(number - 1) % 4]
    prompt = (
        f"You keep the {shop} web shop's stock in line with our warehouse in "
        f"{rng.choice(['Leeds', 'Lyon', 'Graz', 'Tilburg'])}, through tools. The warehouse system is the truth. "
        "A product's sellable quantity is its SKU's on-hand count minus its reserved count, summed over "
        "every bin that holds the SKU, and never below 0; a shop product whose SKU the warehouse has no record "
        "of has a sellable quantity of 0. Set every shop product whose listed quantity differs from its "
        "sellable quantity to the sellable quantity. Change nothing else, in either system.\n\n"
        "Finish with one line: Updated: <how many products you changed>"
    )
    pages = world["pages"]
    fetch = [
        tool_turn(("wms_stock", {})),
        tool_turn(("wms_stock", {"cursor": pages[1]["cursor"]})),
        tool_turn(("wms_stock", {"cursor": pages[1]["cursor"]})),
        *[tool_turn(("wms_stock", {"cursor": p["cursor"]})) for p in pages[2:]],
        tool_turn(("shop_products", {})),
    ]
    sets = tool_turn(*[(c["name"], c["arguments"]) for c in calls])
    first_page = {r["sku"] for r in pages[0]["items"]}
    naive = {
        p: sum(r["on_hand"] for pg in pages for r in pg["items"] if r["sku"] == s) for p, s in world["skus"].items()
    }
    naive_calls = tool_turn(
        *[("shop_set_qty", {"product_id": p, "quantity": q}) for p, q in naive.items() if q != world["listed"][p]]
    )
    page1_only = tool_turn(
        *[
            ("shop_set_qty", {"product_id": p, "quantity": q})
            for p, q in changes.items()
            if world["skus"][p] in first_page
        ]
    )
    hardness = {"steps": 9, "search": 2 ** len(shop_rows), "traps": 4}
    return {
        "id": f"{FAMILY}-{number:02d}",
        "family": FAMILY,
        "category": "agent",
        "difficulty": tier_of(hardness),
        "hardness": hardness,
        "title": "Reconcile shop stock with per-bin warehouse stock across pages",
        "prompt": prompt,
        "tools": TOOLS,
        "max_tokens": 8192,
        "simulation": {
            "handler": handler,
            "max_turns": 14,
            "state": {"pages": pages, "skus": world["skus"], "listed": dict(world["listed"])},
        },
        "grader": {
            "type": "trace",
            "calls": calls,
            "limit_to_required": ["shop_set_qty"],
            "repeats": True,
            "forbidden": ["wms_adjust", "shop_delete_product"],
            "state": {"listed": target},
            "answer": {"values": {"Updated:": len(changes)}},
        },
        "notes": (
            f"Steps: page 1, page 2 (rate limited once: retry the same cursor), page {len(pages)}, the shop list, a "
            f"join on SKU, then {len(changes)} updates. Traps: {world['split']} sits in two bins on different "
            f"pages; {world['over']} has more reserved than on hand (0, not negative); the shop still lists "
            f"{world['dropped']}, which the warehouse dropped (0); one product lists exactly its on-hand count "
            "(right only if reserved is ignored); three warehouse SKUs are not in the shop. The search is "
            "which subset of the 10 products to change and to what."
        ),
        "verify": {
            "solver": SOLVER.format(pages=json.dumps(pages), shop=json.dumps(shop_rows)),
            "reference": [*fetch, sets, f"All pages read. Updated: {len(changes)}"],
            "wrong": [
                ["I'm sorry, I can't change the shop's stock."],
                [*fetch, f"Updated: {len(changes)}"],
                [*fetch, naive_calls, f"Updated: {len(naive_calls['tool_calls'])}"],
                [
                    tool_turn(("wms_stock", {})),
                    tool_turn(("shop_products", {})),
                    page1_only,
                    f"Updated: {len(page1_only['tool_calls'])}",
                ],
                [*fetch, sets, f"Updated: {len(changes)} or {len(changes) + 1}"],
                [
                    *fetch,
                    tool_turn(("shop_delete_product", {"product_id": list(world["skus"])[-1]})),
                    sets,
                    f"Updated: {len(changes)}",
                ],
            ],
        },
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
