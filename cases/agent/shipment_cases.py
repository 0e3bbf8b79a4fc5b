"""Agent: create a shipment whose required fields are discovered from the API's errors (AG-shipment).

A simulated carrier API (a Python handler). create_shipment declares most fields optional, and a call
that lacks one fails with an error that names the field and the tool that supplies it: a verified
address id (verify_address), the packed weight (items times quantities plus packaging, from
get_order), and for a destination abroad a customs declaration with one entry per line item (its HS
code from classify, its value the line total in cents). The service is the cheaper one that arrives by
the customer's deadline (get_rates, which needs the weight). A domestic shipment must carry no customs
(the API refuses one). The shipment is created once: the state must hold exactly one, with the right
values. Traps: the weight without packaging or without quantities, a customs value per unit, the
fastest or the cheapest service regardless of the deadline, and a second shipment after a wrong first.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import tier_of

FAMILY = "AG-shipment"
HOME = "DE"
CUSTOMS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"sku": {"type": "string"}, "hs_code": {"type": "string"}, "value_cents": {"type": "integer"}},
        "required": ["sku", "hs_code", "value_cents"],
        "additionalProperties": False,
    },
}

TOOLS = [
    function_tool(
        "get_order",
        "An order: line items (sku, quantity, unit weight, unit price), packaging, destination.",
        {"order_id": {"type": "string"}},
        ["order_id"],
    ),
    function_tool(
        "verify_address",
        "Verify an order's delivery address; returns an address id.",
        {"order_id": {"type": "string"}},
        ["order_id"],
    ),
    function_tool("classify", "The customs tariff (HS) code of a product.", {"sku": {"type": "string"}}, ["sku"]),
    function_tool(
        "get_rates",
        "Price and delivery date of each service for a parcel of this weight to this order.",
        {"order_id": {"type": "string"}, "weight_g": {"type": "integer"}},
        ["order_id", "weight_g"],
    ),
    function_tool(
        "create_shipment",
        "Create a shipment for an order.",
        {
            "order_id": {"type": "string"},
            "service": {"type": "string", "enum": ["economy", "express"]},
            "address_id": {"type": "string"},
            "weight_g": {"type": "integer"},
            "customs": CUSTOMS,
        },
        ["order_id", "service"],
    ),
    function_tool("cancel_shipment", "Cancel a shipment.", {"shipment_id": {"type": "string"}}, ["shipment_id"]),
]


def _missing(arguments: dict, state: dict) -> str | None:
    order = state["order"]
    if not arguments.get("address_id"):
        return "address_id is required: verify the delivery address with verify_address and pass its id"
    if str(arguments["address_id"]).strip().upper() != state["address_id"]:
        return f"unknown address id {arguments['address_id']!r}"
    if not arguments.get("weight_g"):
        return "weight_g is required: the packed weight in grams (every item, plus the packaging), see get_order"
    abroad = order["destination"]["country"] != HOME
    if abroad and not arguments.get("customs"):
        return (
            f"customs is required for shipments to {order['destination']['country']}: one entry per line item "
            "with its sku, its HS code (see classify) and the line's total value in cents"
        )
    if not abroad and arguments.get("customs"):
        return "customs must be left out for domestic shipments"
    return None


def handler(name: str, arguments: dict, state: dict) -> dict:
    order = state["order"]
    if (
        name in ("get_order", "verify_address", "get_rates", "create_shipment")
        and str(arguments.get("order_id", "")).strip().upper() != order["order_id"]
    ):
        return {"error": f"no order {arguments.get('order_id')!r}"}
    if name == "get_order":
        return {"result": order}
    if name == "verify_address":
        return {"result": {"address_id": state["address_id"], "status": "verified"}}
    if name == "classify":
        code = state["hs"].get(str(arguments.get("sku", "")).strip().upper())
        return {"result": {"hs_code": code}} if code else {"error": f"unknown sku {arguments.get('sku')!r}"}
    if name == "get_rates":
        if not isinstance(arguments.get("weight_g"), int):
            return {"error": "weight_g must be a whole number of grams"}
        return {"result": state["rates"]}
    if name == "cancel_shipment":
        return {"error": "shipments cannot be cancelled once created; contact support"}
    problem = _missing(arguments, state)
    if problem:
        return {"error": problem}
    shipment = f"SHP-{order['order_id'][-5:]}-{len(state['shipments']) + 1}"
    state["shipments"].append({k: arguments.get(k) for k in ("service", "weight_g", "customs")})
    return {"result": {"shipment_id": shipment, "status": "created"}}


def _world(rng: random.Random, kind: str) -> dict:
    country = HOME if kind == "domestic" else rng.choice(["CH", "NO", "GB"])
    skus = rng.sample(["TS-BLK-M", "HD-GRY-L", "MUG-WHT", "CAP-NVY", "SCK-RED-3", "BAG-CNV"], 3)
    hs = dict(zip(skus, rng.sample(["6109.10", "6110.20", "6912.00", "6505.00", "6115.95", "4202.92"], 3)))
    items = [
        {
            "sku": s,
            "quantity": rng.randint(1, 4),
            "unit_weight_g": rng.choice([90, 180, 240, 350, 410]),
            "unit_price": f"{rng.randint(800, 6900) / 100:.2f}",
        }
        for s in skus
    ]
    items[0]["quantity"] = rng.randint(2, 4)
    packaging = rng.choice([120, 180, 250])
    today = date(2026, 5, rng.randint(4, 8))
    deadline = today + timedelta(days=rng.randint(4, 6))
    economy_days = (deadline - today).days + (1 if kind == "express" else -rng.randint(0, 1))
    rates = [
        {
            "service": "economy",
            "price": f"{rng.randint(590, 1290) / 100:.2f}",
            "delivery": (today + timedelta(days=economy_days)).isoformat(),
        },
        {
            "service": "express",
            "price": f"{rng.randint(1890, 3990) / 100:.2f}",
            "delivery": (today + timedelta(days=rng.randint(1, 2))).isoformat(),
        },
    ]
    order = {
        "order_id": f"SO-{rng.randint(10000, 99999)}",
        "items": items,
        "packaging_g": packaging,
        "destination": {"name": rng.choice(["L. Meier", "K. Hansen", "P. Wright"]), "country": country},
    }
    return {
        "order": order,
        "hs": hs,
        "rates": rates,
        "today": today,
        "deadline": deadline,
        "address_id": f"ADR-{rng.randint(100000, 999999)}",
    }


SOLVER = """
import json
from datetime import date
ORDER, HS, RATES, DEADLINE, HOME, ADDRESS = {order!r}, {hs!r}, {rates!r}, {deadline!r}, {home!r}, {address!r}
grams = ORDER["packaging_g"]
for item in ORDER["items"]:
    grams += sum(item["unit_weight_g"] for _ in range(item["quantity"]))
on_time = [r for r in RATES if date.fromisoformat(r["delivery"]) <= date.fromisoformat(DEADLINE)]
service = sorted(on_time, key=lambda r: float(r["price"]))[0]["service"]
args = {{"order_id": ORDER["order_id"], "service": service, "address_id": ADDRESS, "weight_g": grams}}
if ORDER["destination"]["country"] != HOME:
    args["customs"] = [{{"sku": i["sku"], "hs_code": HS[i["sku"]],
                         "value_cents": round(float(i["unit_price"]) * 100) * i["quantity"]}} for i in ORDER["items"]]
values = {{"Shipment:": "SHP-" + ORDER["order_id"][-5:] + "-1", "Service:": service}}
print(json.dumps({{"calls": [{{"name": "create_shipment", "arguments": args}}], "values": values}}))
"""


def _case(number: int, kind: str, rng: random.Random) -> dict:
    w = _world(rng, kind)
    order, oid = w["order"], w["order"]["order_id"]
    weight = order["packaging_g"] + sum(i["unit_weight_g"] * i["quantity"] for i in order["items"])
    service = "express" if kind == "express" else "economy"
    customs = [
        {
            "sku": i["sku"],
            "hs_code": w["hs"][i["sku"]],
            "value_cents": int(i["unit_price"].replace(".", "")) * i["quantity"],
        }
        for i in order["items"]
    ]
    args = {"order_id": oid, "service": service, "address_id": w["address_id"], "weight_g": weight}
    if kind != "domestic":
        args["customs"] = customs
    want = {**args, "customs": {"set": customs} if kind != "domestic" else {"optional": []}}
    prompt = (
        f"Today is {w['today']:%A, %B} {w['today'].day}, {w['today'].year}. Ship order {oid} with our carrier's API. "
        f"The customer needs it by {w['deadline']:%A, %B} {w['deadline'].day}: use the cheaper service that "
        "delivers by then. Create exactly one shipment, with correct data.\n\n"
        "Finish with exactly two lines:\nShipment: <shipment id>\nService: <service>"
    )
    shipment = f"SHP-{oid[-5:]}-1"
    script = [
        tool_turn(("create_shipment", {"order_id": oid, "service": "economy"})),
        tool_turn(("verify_address", {"order_id": oid})),
        tool_turn(("get_order", {"order_id": oid})),
        tool_turn(("get_rates", {"order_id": oid, "weight_g": weight})),
    ]
    if kind != "domestic":
        script.append(tool_turn(*[("classify", {"sku": i["sku"]}) for i in order["items"]]))
    script.append(tool_turn(("create_shipment", args)))
    light = {**args, "weight_g": weight - order["packaging_g"]}
    per_unit = (
        {
            **args,
            "customs": [
                {**c, "value_cents": int(i["unit_price"].replace(".", ""))} for c, i in zip(customs, order["items"])
            ],
        }
        if kind != "domestic"
        else {**args, "customs": customs}
    )
    other = "economy" if service == "express" else "express"
    steps = 5 if kind == "domestic" else 9
    hardness = {"steps": steps, "search": 2 * 2 ** len(order["items"]), "traps": 3}
    return {
        "id": f"{FAMILY}-{number:02d}",
        "family": FAMILY,
        "category": "agent",
        "difficulty": tier_of(hardness),
        "hardness": hardness,
        "title": {
            "abroad": "Shipment abroad: fields and customs discovered from errors",
            "express": "Shipment abroad: economy misses the deadline",
            "domestic": "Domestic shipment: no customs, the packaging counts",
        }[kind],
        "prompt": prompt,
        "tools": TOOLS,
        "max_tokens": 8192,
        "simulation": {
            "handler": handler,
            "max_turns": 14,
            "state": {
                "order": order,
                "hs": w["hs"],
                "rates": w["rates"],
                "address_id": w["address_id"],
                "shipments": [],
            },
        },
        "grader": {
            "type": "trace",
            "calls": [{"name": "create_shipment", "arguments": want}],
            "repeats": True,
            "forbidden": ["cancel_shipment"],
            "stop_after": ["create_shipment"],
            "state": {
                "shipments": [
                    {"service": service, "weight_g": weight, "customs": customs if kind != "domestic" else None}
                ]
            },
            "answer": {"values": {"Shipment:": shipment, "Service:": service}, "decoys": [other]},
        },
        "notes": (
            f"The API names what it lacks one error at a time. Weight: {weight} g (quantities times unit weights "
            f"plus {order['packaging_g']} g packaging), needed before get_rates; the service: {service}, the "
            "cheaper one delivering by the deadline"
            + (
                "; customs: one entry per line, HS code from classify, value = unit price x quantity in cents"
                if kind != "domestic"
                else "; domestic, so no customs (the API refuses them)"
            )
            + ". Traps: the weight without packaging, a customs value per unit, the other service, a second "
            "shipment after a wrong first (the state must hold exactly one)."
        ),
        "verify": {
            "solver": SOLVER.format(
                order=order,
                hs=w["hs"],
                rates=w["rates"],
                deadline=w["deadline"].isoformat(),
                home=HOME,
                address=w["address_id"],
            ),
            "reference": [*script, f"Created.\n\nShipment: {shipment}\nService: {service}"],
            "wrong": [
                ["I'm sorry, I can't create shipments."],
                [script[0], f"The API needs an address id I don't have.\n\nShipment: none\nService: {service}"],
                [*script[:-1], tool_turn(("create_shipment", light)), f"Shipment: {shipment}\nService: {service}"],
                [*script[:-1], tool_turn(("create_shipment", per_unit)), f"Shipment: {shipment}\nService: {service}"],
                [
                    *script[:-1],
                    tool_turn(("create_shipment", {**args, "service": other})),
                    f"Shipment: {shipment}\nService: {other}",
                ],
                [
                    *script[:-1],
                    tool_turn(("create_shipment", light)),
                    tool_turn(("create_shipment", args)),
                    f"Shipment: SHP-{oid[-5:]}-2\nService: {service}",
                ],
                [*script, f"Shipment: {shipment}\nService: {service} (or {other})"],
            ],
        },
    }


def cases(seed: int) -> list[dict]:
    return [
        _case(n, kind, random.Random(f"{FAMILY}:{seed}:{n}"))
        for n, kind in enumerate(["abroad", "express", "domestic"], start=1)
    ]
