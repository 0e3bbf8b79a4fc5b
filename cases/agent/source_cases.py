"""Agent: pick the warehouse to fulfil an order, combining three tools' answers per warehouse (AG-source).

A simulated fulfilment back office (a Python handler). No single tool answers: for each warehouse the
agent needs the stock of the SKU (stock_level), the delivery days to the customer's postcode
(transit_days) and the shipping price (shipping_quote), and picks the cheapest warehouse that holds the
whole quantity (no split shipments) and delivers within the deadline; then it allocates there. One
warehouse's transit_days call times out once (retry it: that warehouse matters). Traps: the cheapest
warehouse holds a few units too few; the next cheapest is a day too slow; the warehouse whose call
timed out, skipped, leaves a dearer answer; allocating more than once.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import tier_of

FAMILY = "AG-source"

TOOLS = [
    function_tool("list_warehouses", "Our warehouses: code and city."),
    function_tool(
        "stock_level",
        "Units of a SKU available in a warehouse.",
        {"warehouse": {"type": "string"}, "sku": {"type": "string"}},
        ["warehouse", "sku"],
    ),
    function_tool(
        "transit_days",
        "Business days from a warehouse to a postcode.",
        {"warehouse": {"type": "string"}, "postcode": {"type": "string"}},
        ["warehouse", "postcode"],
    ),
    function_tool(
        "shipping_quote",
        "Shipping price in EUR from a warehouse to a postcode for a quantity of a SKU.",
        {
            "warehouse": {"type": "string"},
            "postcode": {"type": "string"},
            "sku": {"type": "string"},
            "quantity": {"type": "integer", "minimum": 1},
        },
        ["warehouse", "postcode", "sku", "quantity"],
    ),
    function_tool(
        "allocate",
        "Allocate an order's units to a warehouse (reserves the stock).",
        {
            "order_id": {"type": "string"},
            "warehouse": {"type": "string"},
            "sku": {"type": "string"},
            "quantity": {"type": "integer", "minimum": 1},
        },
        ["order_id", "warehouse", "sku", "quantity"],
    ),
]


def handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "list_warehouses":
        return {"result": [{"code": code, "city": w["city"]} for code, w in state["warehouses"].items()]}
    code = str(arguments.get("warehouse", "")).strip().upper()
    house = state["warehouses"].get(code)
    if house is None:
        return {"error": f"unknown warehouse {arguments.get('warehouse')!r}"}
    sku = str(arguments.get("sku", state["sku"])).strip().upper()
    if sku != state["sku"]:
        return {"result": 0} if name == "stock_level" else {"error": f"unknown sku {arguments.get('sku')!r}"}
    if name == "stock_level":
        return {"result": {"warehouse": code, "sku": sku, "available": house["stock"]}}
    if str(arguments.get("postcode", "")).strip() != state["postcode"] and name != "allocate":
        return {"error": f"no route to postcode {arguments.get('postcode')!r}"}
    if name == "transit_days":
        if code == state["flaky"] and not state.get("timed_out"):
            state["timed_out"] = True
            return {"error": "carrier API timeout, try again"}
        return {"result": {"warehouse": code, "business_days": house["days"]}}
    if name == "shipping_quote":
        return {"result": {"warehouse": code, "price_eur": f"{house['price']:.2f}"}}
    quantity = arguments.get("quantity")
    if not isinstance(quantity, int) or quantity > house["stock"]:
        return {"error": f"{code} cannot allocate {quantity} units"}
    state.setdefault("allocations", []).append(code)
    return {"result": f"allocated {quantity} x {sku} from {code} to {arguments.get('order_id')}"}


def _world(rng: random.Random, kind: str) -> dict:
    codes = rng.sample(["BER", "HAM", "MUC", "CGN", "FRA", "LEJ", "STR", "NUE"], 6)
    cities = {
        "BER": "Berlin",
        "HAM": "Hamburg",
        "MUC": "Munich",
        "CGN": "Cologne",
        "FRA": "Frankfurt",
        "LEJ": "Leipzig",
        "STR": "Stuttgart",
        "NUE": "Nuremberg",
    }
    need, deadline = rng.randint(30, 80), rng.choice([2, 3])
    prices = sorted(rng.sample(range(900, 4800), 6))
    roles = ["short", "slow", "answer", "slow_or_out", "dear", "dear"]
    if kind == "flaky":
        roles = ["short", "slow", "answer", "dear", "slow_or_out", "dear"]
    houses = {}
    for code, role, price in zip(codes, roles, prices):
        stock = need - rng.randint(1, 4) if role == "short" else need + rng.randint(0, 40)
        if role == "slow_or_out":
            stock = rng.randint(0, need // 2)
        days = deadline + 1 if role == "slow" else rng.randint(1, deadline)
        if role == "answer" and kind == "edge":
            stock, days = need, deadline  # exactly enough, exactly in time
        houses[code] = {"city": cities[code], "stock": stock, "days": days, "price": price / 100}
    shuffled = list(houses.items())
    rng.shuffle(shuffled)
    answer = codes[2]
    flaky = answer if kind == "flaky" else codes[1]
    return {
        "warehouses": dict(shuffled),
        "need": need,
        "deadline": deadline,
        "answer": answer,
        "flaky": flaky,
        "short": codes[0],
        "slow": codes[1],
    }


SOLVER = """
import json
HOUSES, NEED, DEADLINE = {houses!r}, {need!r}, {deadline!r}
# every warehouse scored on all three facts; the feasible ones ranked by price
feasible = [(h["price"], code) for code, h in HOUSES.items() if h["stock"] >= NEED and h["days"] <= DEADLINE]
best = min(feasible)[1]
print(json.dumps({{"values": {{"Warehouse:": best, "Shipping:": HOUSES[best]["price"]}}}}))
"""


def _case(number: int, kind: str, rng: random.Random) -> dict:
    w = _world(rng, kind)
    houses, need, deadline, answer = w["warehouses"], w["need"], w["deadline"], w["answer"]
    sku, postcode = f"SKU-{rng.randint(10000, 99999)}", f"{rng.randint(10, 99)}{rng.randint(100, 999)}"
    order = f"ORD-{rng.randint(100000, 999999)}"
    prompt = (
        f"Order {order} needs {need} units of {sku} delivered to postcode {postcode} within {deadline} business "
        "days. Ship it from one warehouse (no split shipments): the one with the lowest shipping price among "
        f"those that have all {need} units available and deliver within {deadline} business days. Allocate "
        "the order there, once.\n\nFinish with exactly two lines:\nWarehouse: <code>\nShipping: <price in EUR>"
    )
    codes = list(houses)
    per = lambda tool, extra: tool_turn(*[(tool, {"warehouse": c, **extra}) for c in codes])  # noqa: E731
    script = [
        tool_turn(("list_warehouses", {})),
        per("stock_level", {"sku": sku}),
        per("transit_days", {"postcode": postcode}),
        tool_turn(("transit_days", {"warehouse": w["flaky"], "postcode": postcode})),
        per("shipping_quote", {"postcode": postcode, "sku": sku, "quantity": need}),
    ]
    allocate = lambda c: tool_turn(("allocate", {"order_id": order, "warehouse": c, "sku": sku, "quantity": need}))  # noqa: E731
    price = houses[answer]["price"]
    decoys = [w["short"], w["slow"]]
    skipped = min(
        (h["price"], c)
        for c, h in houses.items()
        if c not in (answer, *decoys) and h["stock"] >= need and h["days"] <= deadline
    )[1]
    hardness = {"steps": 6, "search": len(houses), "traps": 3}
    if kind == "flaky":
        hardness["steps"] = 8
    return {
        "id": f"{FAMILY}-{number:02d}",
        "family": FAMILY,
        "category": "agent",
        "difficulty": tier_of(hardness),
        "hardness": hardness,
        "title": {
            "plain": "Cheapest warehouse that has the stock and meets the deadline",
            "edge": "Cheapest feasible warehouse: exactly enough, exactly in time",
            "flaky": "Cheapest feasible warehouse: its transit call times out once",
        }[kind],
        "prompt": prompt,
        "tools": TOOLS,
        "max_tokens": 8192,
        "simulation": {
            "handler": handler,
            "max_turns": 12,
            "state": {"warehouses": houses, "sku": sku, "postcode": postcode, "flaky": w["flaky"]},
        },
        "grader": {
            "type": "trace",
            "calls": [
                {
                    "name": "allocate",
                    "arguments": {"order_id": order, "warehouse": answer, "sku": sku, "quantity": need},
                }
            ],
            "limit_to_required": ["allocate"],
            "repeats": True,
            "state": {"allocations": [answer]},
            "answer": {"values": {"Warehouse:": answer, "Shipping:": price}, "decoys": [*decoys, skipped]},
        },
        "notes": (
            f"Per warehouse three facts from three tools (stock, transit days, price), then a constrained "
            f"minimum. {w['short']} is cheapest but a few units short; {w['slow']} is next but a day too slow; "
            + {
                "plain": "",
                "edge": f"{answer} has exactly {need} units and exactly {deadline} days (both count). ",
                "flaky": f"{answer}'s transit_days times out once: skipping it gives {skipped}. ",
            }[kind]
            + "Allocating anywhere else, or twice, fails."
        ),
        "verify": {
            "solver": SOLVER.format(houses=houses, need=need, deadline=deadline),
            "reference": [*script, allocate(answer), f"Allocated.\n\nWarehouse: {answer}\nShipping: {price:.2f} EUR"],
            "wrong": [
                ["I'm sorry, I can't allocate orders."],
                [
                    *script,
                    allocate(w["short"]),
                    f"Warehouse: {w['short']}\nShipping: {houses[w['short']]['price']:.2f}",
                ],
                [*script, allocate(w["slow"]), f"Warehouse: {w['slow']}\nShipping: {houses[w['slow']]['price']:.2f}"],
                [
                    *script[:3],
                    *script[4:],
                    allocate(skipped),
                    f"Warehouse: {skipped}\nShipping: {houses[skipped]['price']:.2f}",
                ],
                [*script, allocate(answer), allocate(answer), f"Warehouse: {answer}\nShipping: {price:.2f}"],
                [*script, allocate(answer), f"Warehouse: {answer} (or {skipped})\nShipping: {price:.2f}"],
                [*script, f"Warehouse: {answer}\nShipping: {price:.2f}"],
            ],
        },
    }


def cases(seed: int) -> list[dict]:
    return [
        _case(n, kind, random.Random(f"{FAMILY}:{seed}:{n}"))
        for n, kind in enumerate(["plain", "edge", "flaky"], start=1)
    ]
