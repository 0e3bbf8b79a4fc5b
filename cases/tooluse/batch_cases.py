"""Tool use: one batch call whose nested arrays are aggregated from a pasted log (family TU-batch).

The user pastes a month's order lines and a customer directory and asks for invoices in one call:
one invoice per customer with something to bill, one line per SKU. The argument is an array of
invoice objects, each with an array of line objects, so the reply must filter (cancelled and returned
lines bill nothing), group by customer, merge repeated SKUs into one line with the summed quantity,
convert prices to integer cents, and take each customer's id and currency from the directory (not the
display name). A customer whose lines were all cancelled gets no invoice at all. Traps: a line per
row (the repeated SKU not merged), cancelled or returned lines billed, an empty invoice, prices in
units instead of cents, a display name for the id. Each solver re-parses the two pasted tables.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import tier_of

FAMILY = "TU-batch"
REFUSAL = "I'm sorry, but I can't help with that request."
LINE = {
    "type": "object",
    "properties": {
        "sku": {"type": "string"},
        "quantity": {"type": "integer", "minimum": 1},
        "unit_price_cents": {"type": "integer", "minimum": 0},
    },
    "required": ["sku", "quantity", "unit_price_cents"],
    "additionalProperties": False,
}
INVOICE = {
    "type": "object",
    "properties": {
        "customer_id": {"type": "string", "pattern": "^C-[0-9]{4}$"},
        "currency": {"type": "string", "enum": ["EUR", "USD", "GBP"]},
        "lines": {"type": "array", "items": LINE, "minItems": 1},
    },
    "required": ["customer_id", "currency", "lines"],
    "additionalProperties": False,
}
TOOLS = [
    function_tool(
        "create_invoices",
        "Create several invoices at once.",
        {"invoices": {"type": "array", "items": INVOICE, "minItems": 1}},
        ["invoices"],
    ),
    function_tool(
        "send_invoice_email", "Email an invoice to a customer.", {"customer_id": {"type": "string"}}, ["customer_id"]
    ),
]
NAMES = [
    "Harbor Coffee",
    "Kettle & Pine",
    "Nordlicht GmbH",
    "Blue Anchor Ltd",
    "Casa Verde",
    "Pixel Forge",
    "Quill Books",
    "Rook Cycles",
]
SKUS = ["BEAN-1KG", "FILTER-100", "MUG-350", "GRINDER-S", "TAMPER-58", "SCALE-01", "KETTLE-G", "CARAFE-1L"]


def _world(rng: random.Random) -> dict:
    names = rng.sample(NAMES, 4)
    directory = {n: (f"C-{rng.randint(1000, 9999)}", rng.choice(["EUR", "USD", "GBP"])) for n in names}
    prices = {s: rng.randint(150, 9900) for s in SKUS}
    rows = []
    billed, all_cancelled = names[:3], names[3]
    for name in billed:
        for sku in rng.sample(SKUS, rng.randint(2, 3)):
            rows.append([name, sku, rng.randint(1, 6), prices[sku], "delivered"])
    repeat = rows[0]
    rows.append([repeat[0], repeat[1], rng.randint(1, 5), repeat[3], "delivered"])  # same SKU again
    rows.append([names[1], rng.choice(SKUS), rng.randint(1, 3), 0, "returned"])
    rows.append([names[2], rng.choice(SKUS), rng.randint(1, 3), 0, "cancelled"])
    for sku in rng.sample(SKUS, 2):
        rows.append([all_cancelled, sku, rng.randint(1, 4), prices[sku], "cancelled"])
    for row in rows:
        if row[3] == 0:
            row[3] = prices[row[1]]
    rng.shuffle(rows)
    day = {id(r): rng.randint(1, 28) for r in rows}
    rows.sort(key=lambda r: day[id(r)])
    return {
        "directory": directory,
        "rows": [[f"2026-03-{day[id(r)]:02d}", *r] for r in rows],
        "repeat": (repeat[0], repeat[1]),
        "all_cancelled": all_cancelled,
    }


def _invoices(w: dict, *, merge: bool = True, statuses: tuple = ("delivered",), cents: int = 100) -> list[dict]:
    out: dict[str, dict] = {}
    for _, name, sku, qty, price, status in w["rows"]:
        if status not in statuses:
            continue
        cid, cur = w["directory"][name]
        invoice = out.setdefault(cid, {"customer_id": cid, "currency": cur, "lines": []})
        line = next((x for x in invoice["lines"] if merge and x["sku"] == sku), None)
        if line:
            line["quantity"] += qty
        else:
            invoice["lines"].append({"sku": sku, "quantity": qty, "unit_price_cents": price * cents // 100})
    return list(out.values())


SOLVER = r"""
import json, re
from collections import defaultdict
p = PROMPT
rows = re.findall(r"^\| ([^|]+?) \| (C-\d{4}) \| (\w{3}) \|$", p, re.M)
directory = {name.strip(): (cid, cur) for name, cid, cur in rows}
qty = defaultdict(int)
price = {}
for day, name, sku, n, unit, status in re.findall(
        r"^\| (2026-\d\d-\d\d) \| ([^|]+?) \| ([\w-]+) \| (\d+) \| ([\d.]+) \| (\w+) \|$", p, re.M):
    if status == "delivered":
        qty[(name, sku)] += int(n)
        price[(name, sku)] = round(float(unit) * 100)
invoices = defaultdict(list)
for (name, sku), n in qty.items():
    invoices[name].append({"sku": sku, "quantity": n, "unit_price_cents": price[(name, sku)]})
args = {"invoices": [{"customer_id": directory[n][0], "currency": directory[n][1], "lines": lines}
                     for n, lines in invoices.items()]}
print(json.dumps({"calls": [{"name": "create_invoices", "arguments": args}]}))
"""


def _case(number: int, rng: random.Random) -> dict:
    w = _world(rng)
    log = "\n".join(f"| {d} | {n} | {s} | {q} | {p / 100:.2f} | {st} |" for d, n, s, q, p, st in w["rows"])
    directory = "\n".join(f"| {n} | {cid} | {cur} |" for n, (cid, cur) in w["directory"].items())
    prompt = (
        "Bill last month's orders. Make every invoice in one create_invoices call: one invoice per customer "
        "that has something to bill, with one line per SKU (the summed quantity at its unit price, in cents). "
        "Only delivered lines are billed; cancelled and returned lines are not. Use the customer ids and "
        "currencies from the directory. Don't email anything yet.\n\nOrder lines:\n"
        "| date | customer | sku | qty | unit price | status |\n|---|---|---|---|---|---|\n"
        + log
        + "\n\nCustomer directory:\n| customer | id | currency |\n|---|---|---|\n"
        + directory
    )
    right = _invoices(w)
    want = {"invoices": {"set": [{**inv, "lines": {"set": inv["lines"]}} for inv in right]}}
    traps = [
        _invoices(w, merge=False),
        _invoices(w, statuses=("delivered", "returned")),
        _invoices(w, cents=1),
        [
            *right,
            {
                "customer_id": w["directory"][w["all_cancelled"]][0],
                "currency": w["directory"][w["all_cancelled"]][1],
                "lines": [],
            },
        ],
        [
            {**inv, "customer_id": next(n for n, v in w["directory"].items() if v[0] == inv["customer_id"])}
            for inv in right
        ],
    ]
    rows = len(w["rows"])
    hardness = {"steps": 5, "search": 2**rows, "traps": len(traps)}
    return {
        "id": f"{FAMILY}-{number:02d}",
        "family": FAMILY,
        "category": "tooluse",
        "difficulty": tier_of(hardness),
        "hardness": hardness,
        "title": "Invoices from a pasted log: filter, group, merge, cents, one nested call",
        "notes": (
            f"{rows} order lines into {len(right)} invoices in one call: drop cancelled and returned lines, "
            f"group by customer, merge the repeated {w['repeat'][1]} of {w['repeat'][0]} into one line, prices "
            f"in integer cents, ids and currencies from the directory; {w['all_cancelled']} had only cancelled "
            "lines and gets no invoice. Five dependent operations over the rows; which rows go where is a "
            "choice over every subset of the rows, and each shortcut above lands on a stored wrong call."
        ),
        "prompt": prompt,
        "tools": TOOLS,
        "max_tokens": 4096,
        "grader": {
            "type": "tool_calls",
            "calls": [{"name": "create_invoices", "arguments": want}],
            "allow_extra": False,
            "arguments_match": "exact",
            "forbidden": ["send_invoice_email"],
        },
        "verify": {
            "solver": SOLVER.replace("PROMPT", repr(prompt), 1),
            "reference": tool_turn(("create_invoices", {"invoices": right[::-1]})),
            "wrong": [
                REFUSAL,
                "Here are the invoices:\n" + log,
                tool_turn(("create_invoices", {})),
                *[tool_turn(("create_invoices", {"invoices": t})) for t in traps],
                tool_turn(*[("create_invoices", {"invoices": [inv]}) for inv in right]),
                tool_turn(("create_invoices", {"invoices": right}), ("create_invoices", {"invoices": traps[0]})),
                tool_turn(
                    ("create_invoices", {"invoices": right}),
                    ("send_invoice_email", {"customer_id": right[0]["customer_id"]}),
                ),
            ],
        },
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
