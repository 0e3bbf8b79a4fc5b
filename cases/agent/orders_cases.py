"""Agent: sum a customer's open orders across pages, for the right one of two namesakes (family AG-orders).

A shop back office (a Python handler): find_customers returns every customer whose name matches,
so the agent must pick by city and email; list_orders pages four orders at a time (an optional status
filter narrows them). The open orders of the right customer are spread over three pages between
shipped and cancelled ones. Decoy totals (the namesake's, every status, the first page only) are what
a careless run reports. cancel_order and refund_order are offered and must stay unused.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-orders"
PAGE = 4
NAMES = ["Lena Ortiz", "Jonas Berg", "Mira Kovac", "Samir Nadeem", "Elin Holm", "Rui Castro"]
CITIES = ["Porto", "Graz", "Tartu", "Lyon", "Bergen", "Malmo", "Gent"]

TOOLS = [
    function_tool("find_customers", "Customers whose name contains the given text: id, name, email, city.",
                  {"name": {"type": "string"}}, ["name"]),
    function_tool("list_orders", f"A customer's orders, newest first, {PAGE} per page: id, date, status "
                  "(open, shipped or cancelled) and total in EUR.",
                  {"customer_id": {"type": "string"}, "page": {"type": "integer", "minimum": 1},
                   "status": {"type": "string", "enum": ["open", "shipped", "cancelled"]}}, ["customer_id"]),
    function_tool("cancel_order", "Cancel an order.", {"order_id": {"type": "string"}}, ["order_id"]),
    function_tool("refund_order", "Refund an order.", {"order_id": {"type": "string"}}, ["order_id"]),
]


def handler(name: str, arguments: dict, state: dict) -> dict:
    if name in ("cancel_order", "refund_order"):
        return {"result": f"{arguments.get('order_id')}: {name.split('_')[0]}ed"}
    if name == "find_customers":
        text = " ".join(str(arguments.get("name", "")).lower().split())
        if len(text) < 3:
            return {"error": "give at least three letters of the name"}
        return {"result": [c for c in state["customers"] if text in c["name"].lower()]}
    cid = str(arguments.get("customer_id", "")).strip().upper()
    if cid not in state["orders"]:
        return {"error": f"no customer {arguments.get('customer_id')!r}"}
    orders = state["orders"][cid]
    status = arguments.get("status")
    if status is not None:
        if status not in ("open", "shipped", "cancelled"):
            return {"error": "status is open, shipped or cancelled"}
        orders = [o for o in orders if o["status"] == status]
    pages = max(1, -(-len(orders) // PAGE))
    page = arguments.get("page") or 1
    if not isinstance(page, int) or not 1 <= page <= pages:
        return {"error": f"page must be between 1 and {pages}"}
    return {"result": {"orders": orders[(page - 1) * PAGE:page * PAGE], "page": page, "pages": pages}}


def _orders(rng: random.Random, prefix: str, count: int, open_count: int) -> list[dict]:
    statuses = ["open"] * open_count + [rng.choice(["shipped", "shipped", "cancelled"]) for _ in range(count - open_count)]
    rng.shuffle(statuses)
    while count > PAGE + open_count and statuses[:PAGE].count("open") == open_count:
        rng.shuffle(statuses)  # the customer asked about has open orders beyond the first page
    day = date(2026, 3, 20)
    out = []
    for i, status in enumerate(statuses):
        day -= timedelta(days=rng.randint(1, 9))
        cents = rng.randint(1_500, 180_000)
        out.append({"id": f"{prefix}-{rng.randint(10000, 99999)}", "date": str(day), "status": status,
                    "total_eur": f"{cents // 100}.{cents % 100:02d}"})
    return out


def _sum(orders: list[dict], statuses=("open",)) -> int:
    return sum(int(o["total_eur"].replace(".", "")) for o in orders if o["status"] in statuses)


def _eur(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


SOLVER = '''
import json
from decimal import Decimal
CUSTOMERS, ORDERS, NAME, CITY = {customers!r}, {orders!r}, {name!r}, {city!r}
[me] = [c for c in CUSTOMERS if c["name"] == NAME and c["city"] == CITY]
total = sum((Decimal(o["total_eur"]) for o in ORDERS[me["id"]] if o["status"] == "open"), Decimal(0))
print(json.dumps({{"values": {{"Open total:": float(total)}}}}))
'''


def _case(number: int, name: str, rng: random.Random) -> dict:
    first = name.split()[0]
    city, other_city = rng.sample(CITIES, 2)
    ids = [f"C-{n}" for n in rng.sample(range(1000, 9999), 3)]
    handle = name.lower().replace(" ", ".")
    customers = [{"id": ids[0], "name": name, "email": f"{handle}@mail.example", "city": city},
                 {"id": ids[1], "name": name, "email": f"{handle}.{other_city.lower()}@mail.example", "city": other_city},
                 {"id": ids[2], "name": f"{name}-Sandberg", "email": f"{first.lower()}.os@mail.example", "city": city}]
    rng.shuffle(customers)
    mine = _orders(rng, "SO", rng.randint(10, 12), rng.randint(4, 5))
    theirs = _orders(rng, "SO", rng.randint(5, 8), rng.randint(2, 3))
    cousin = _orders(rng, "SO", rng.randint(3, 5), 2)
    orders = {ids[0]: mine, ids[1]: theirs, ids[2]: cousin}
    truth = _sum(mine)
    decoys = {_sum(mine, ("open", "shipped", "cancelled")), _sum(theirs), _sum(mine[:PAGE]),
              _sum(mine, ("open", "shipped")), truth + _sum(cousin)} - {truth}
    prompt = (f"You answer questions about the shop's data through tools. What is the total value of all open "
              f"orders of our customer {name} from {city}? Count only orders whose status is open; do not change "
              "any order.\n\nFinish with one line: Open total: <the sum in EUR, with two decimals>")
    find = tool_turn(("find_customers", {"name": name}))
    pages = -(-len(mine) // PAGE)
    listing = [tool_turn(("list_orders", {"customer_id": ids[0], "page": p})) for p in range(1, pages + 1)]
    final = f"Open total: {_eur(truth)} EUR"
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # find the customer, pick the one in the city, list the open orders (the status filter makes the
        # paging moot), sum four or five amounts: 5 steps over 3 candidates; 3 decoy totals
        **ruled(5, 3, 3),
        "title": "The sum of one customer's open orders, over three pages, with a namesake",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 4096,
        "simulation": {"handler": handler, "max_turns": 10,
                       "state": {"customers": customers, "orders": orders}},
        "grader": {"type": "trace", "calls": [{"name": "list_orders", "arguments": {"customer_id": ids[0]}}],
                   "forbidden": ["cancel_order", "refund_order"],
                   "answer": {"values": {"Open total:": float(_eur(truth))},
                              "forbidden": [_eur(d) for d in sorted(decoys)]}},
        "notes": (f"Three customers match the name (two exactly, in {city} and {other_city}); the right one has "
                  f"{len(mine)} orders on {pages} pages, {sum(o['status'] == 'open' for o in mine)} of them open and "
                  "some beyond page 1. The sum of four or five amounts with cents must be exact; decoy totals "
                  "(all statuses, the namesake's, page 1 only) are refused."),
        "verify": {"solver": SOLVER.format(customers=customers, orders=orders, name=name, city=city),
                   "reference": [find, *listing, final],
                   "wrong": [["I'm sorry, I can't look up customer data."],
                             [find, f"There are {len(customers)} customers called {name}."],
                             [find, listing[0], f"Open total: {_eur(_sum(mine[:PAGE]))} EUR"],
                             [find, tool_turn(("list_orders", {"customer_id": ids[1]})),
                              f"Open total: {_eur(_sum(theirs))} EUR"],
                             [find, *listing, f"Open total: {_eur(truth)} EUR (about {_eur(truth + 1000)} with pending refunds)"],
                             [f"Open total: {_eur(truth)} EUR"]]},
    }


def cases(seed: int) -> list[dict]:
    names = random.Random(f"{FAMILY}:{seed}").sample(NAMES, 3)
    return [_case(n, name, random.Random(f"{FAMILY}:{seed}:{n}")) for n, name in enumerate(names, start=1)]
