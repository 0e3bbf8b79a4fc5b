"""Tool use: dependent calls, each needing a value the previous result returned (family TU-chain).

Asked in turns through the agent loop (pytest_crucible/suite/agent_loop.py) over simulated tools: find a
customer, then their orders, then the shipment of the right order; geocode the right one of two
same-named cities, then its forecast; fetch a rate, then invoice the converted amount; search flights,
then book the one the user's constraints pick. Every step's arguments come from the step before, so the
required calls are checked with their exact values and in order, and the final answer is graded on the
values the tools returned (decoys: the values a wrong pick would report). The solvers re-derive the
calls and the answer from the simulated world by brute force over it, not by the generator's choice.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-chain"
REFUSAL = "I'm sorry, but I can't help with that request."


def _arg(arguments: dict, key: str) -> str:
    return str(arguments.get(key, "")).strip()


# ------------------------------------------------------------------------------------------ orders

ORDER_TOOLS = [
    function_tool("find_customer", "Find a customer by email address.", {"email": {"type": "string"}}, ["email"]),
    function_tool("list_orders", "A customer's orders, newest first is NOT guaranteed.",
                  {"customer_id": {"type": "string"}}, ["customer_id"]),
    function_tool("get_shipment", "Carrier and tracking number of a shipped order.",
                  {"order_id": {"type": "string"}}, ["order_id"]),
    function_tool("cancel_order", "Cancel an order.", {"order_id": {"type": "string"}}, ["order_id"]),
]


def orders_handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "find_customer":
        hit = state["customers"].get(_arg(arguments, "email").lower())
        return {"result": hit} if hit else {"error": "no customer with that email"}
    if name == "list_orders":
        orders = state["orders"].get(_arg(arguments, "customer_id"))
        return {"result": orders} if orders is not None else {"error": "unknown customer_id"}
    if name == "get_shipment":
        shipment = state["shipments"].get(_arg(arguments, "order_id"))
        return {"result": shipment} if shipment else {"error": "order not shipped or unknown"}
    return {"error": "cancelling needs a supervisor's approval"}


def _orders(rng: random.Random) -> dict:
    email = rng.choice(["nina.k@fastmail.example", "o.adeyemi@post.example", "lars.berg@mail.example"])
    cid, other = f"C-{rng.randint(10000, 99999)}", f"C-{rng.randint(10000, 99999)}"
    base = date(2026, 5, 1) + timedelta(days=rng.randrange(60))
    kinds = ["shipped", "shipped", "shipped", "processing", "cancelled"]
    rng.shuffle(kinds)
    orders, shipments = [], {}
    for i, status in enumerate(kinds):
        oid = f"O-{rng.randint(100000, 999999)}"
        orders.append({"order_id": oid, "placed": (base + timedelta(days=rng.randrange(30))).isoformat(), "status": status})
    orders.sort(key=lambda o: rng.random())  # not in date order
    for o in orders:
        if o["status"] == "shipped":
            shipments[o["order_id"]] = {"carrier": rng.choice(["DHL", "UPS", "PostNL"]),
                                        "tracking": f"TRK{rng.randint(10**9, 10**10 - 1)}"}
    dates = [o["placed"] for o in orders]
    if len(set(dates)) != len(dates):  # distinct dates make "most recent" well defined
        for i, o in enumerate(sorted(orders, key=lambda o: o["placed"])):
            o["placed"] = (base + timedelta(days=3 * i)).isoformat()
    newest = max((o for o in orders), key=lambda o: o["placed"])
    if newest["status"] == "shipped":  # the newest order must not be the answer: swap in a trap
        pending = next(o for o in orders if o["status"] != "shipped")
        newest["placed"], pending["placed"] = pending["placed"], newest["placed"]
    target = max((o for o in orders if o["status"] == "shipped"), key=lambda o: o["placed"])
    state = {"customers": {email: {"customer_id": cid, "email": email},
                           "someone.else@mail.example": {"customer_id": other}},
             "orders": {cid: orders, other: []}, "shipments": shipments}
    prompt = (f"What is the tracking number of the most recently placed order that has already shipped, for the "
              f"customer with the email {email}? Don't change any order. Finish with one line: Tracking: <number>")
    track = shipments[target["order_id"]]["tracking"]
    decoys = [s["tracking"] for oid, s in shipments.items() if oid != target["order_id"]]
    script = [tool_turn(("find_customer", {"email": email})), tool_turn(("list_orders", {"customer_id": cid})),
              tool_turn(("get_shipment", {"order_id": target["order_id"]}))]
    solver = r'''
import json
state = STATE
email = EMAIL
cid = state["customers"][email]["customer_id"]
shipped = [o for o in state["orders"][cid] if o["status"] == "shipped"]
best = sorted(shipped, key=lambda o: o["placed"])[-1]
print(json.dumps({"calls": [{"name": "find_customer", "arguments": {"email": email}},
    {"name": "list_orders", "arguments": {"customer_id": cid}},
    {"name": "get_shipment", "arguments": {"order_id": best["order_id"]}}],
    "values": {"Tracking:": state["shipments"][best["order_id"]]["tracking"]}}))
'''.replace("STATE", repr(state), 1).replace("EMAIL", repr(email), 1)
    wrong_pick = next(o for o in orders if o["status"] == "shipped" and o is not target)
    # hardness: email -> customer -> orders -> the newest shipped of five -> tracking; traps: newest overall, cancel
    return {**ruled(5, 5, 2), "prompt": prompt, "tools": ORDER_TOOLS, "handler": orders_handler, "state": state,
            "calls": [c for turn in script for c in turn["tool_calls"]], "order": "strict",
            "answer": {"values": {"Tracking:": track}, "decoys": decoys}, "forbidden": ["cancel_order"],
            "script": script, "final": f"The most recent shipped order is {target['order_id']} ({target['placed']}).\n"
                                       f"Tracking: {track}",
            "solver": solver,
            "wrong": [[*script[:2], tool_turn(("get_shipment", {"order_id": wrong_pick["order_id"]})),
                       f"Tracking: {shipments[wrong_pick['order_id']]['tracking']}"],
                      [*script, f"Tracking: {track} (or {decoys[0]})"],
                      [script[0], tool_turn(("list_orders", {"customer_id": email})), f"Tracking: {track}"]],
            "title": "Customer by email, then their orders, then the shipment of the newest shipped one",
            "notes": ("Three dependent calls (email -> customer id -> order id -> tracking). The order list is not "
                      "sorted; the newest order overall is not shipped (processing or cancelled), so the newest "
                      "shipped one must be picked by date among five; a cancel tool is offered.")}


# ------------------------------------------------------------------------------------------ weather

WEATHER_TOOLS = [
    function_tool("geocode", "Places matching a name, with coordinates.", {"name": {"type": "string"}}, ["name"]),
    function_tool("get_forecast", "Tomorrow's forecast at coordinates, in °F.",
                  {"lat": {"type": "number"}, "lon": {"type": "number"}}, ["lat", "lon"]),
]


def weather_handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "geocode":
        query = _arg(arguments, "name").lower()
        hits = [p for p in state["places"] if p["name"].lower().startswith(query.split(",")[0].strip())]
        return {"result": hits} if hits else {"error": "no place found"}
    try:
        lat, lon = float(arguments["lat"]), float(arguments["lon"])
    except (KeyError, TypeError, ValueError):
        return {"error": "lat and lon are numbers"}
    for place in state["places"]:
        if abs(place["lat"] - lat) < 0.01 and abs(place["lon"] - lon) < 0.01:
            return {"result": place["forecast"]}
    return {"error": "no forecast for those coordinates"}


def _weather(rng: random.Random) -> dict:
    town, right_region, wrong_region = rng.choice([("Portland", "Maine", "Oregon"), ("Springfield", "Illinois", "Missouri"),
                                                   ("Cambridge", "England", "Massachusetts")])
    places = []
    for region in (wrong_region, right_region):
        high_c, low_c = rng.randint(5, 30), None
        low_c = high_c - rng.randint(5, 12)
        places.append({"name": f"{town}, {region}", "lat": round(rng.uniform(30, 55), 4), "lon": round(rng.uniform(-120, 2), 4),
                       "forecast": {"high_f": high_c * 9 / 5 + 32, "low_f": low_c * 9 / 5 + 32,
                                    "summary": rng.choice(["sunny", "showers", "cloudy"])}, "high_c": high_c, "low_c": low_c})
    if places[0]["high_c"] == places[1]["high_c"]:
        places[0]["high_c"] += 3
        places[0]["forecast"]["high_f"] = places[0]["high_c"] * 9 / 5 + 32
    state = {"places": [{k: v for k, v in p.items() if k not in ("high_c", "low_c")} for p in places]}
    right, wrong = places[1], places[0]
    prompt = (f"What will tomorrow's high be in {town}, {right_region}? The forecast service speaks Fahrenheit; I want "
              "Celsius. Finish with one line: High: <°C>")
    script = [tool_turn(("geocode", {"name": f"{town}, {right_region}"})),
              tool_turn(("get_forecast", {"lat": right["lat"], "lon": right["lon"]}))]
    solver = r'''
import json
state = STATE
region = REGION
place = next(p for p in state["places"] if p["name"].endswith(region))
print(json.dumps({"calls": [{"name": "get_forecast", "arguments": {"lat": place["lat"], "lon": place["lon"]}}],
                  "values": {"High:": round((place["forecast"]["high_f"] - 32) * 5 / 9)}}))
'''.replace("STATE", repr(state), 1).replace("REGION", repr(right_region), 1)
    # hardness: geocode, pick the region's place, forecast, convert; traps: the namesake, Fahrenheit
    return {**ruled(4, 2, 2), "prompt": prompt, "tools": WEATHER_TOOLS, "handler": weather_handler, "state": state,
            "calls": [{"name": "get_forecast", "arguments": {"lat": right["lat"], "lon": right["lon"]}}], "order": "any",
            "answer": {"values": {"High:": right["high_c"]},
                       "decoys": [wrong["high_c"], right["forecast"]["high_f"], right["low_c"]]},
            "forbidden": [], "script": script, "final": f"Tomorrow in {town}, {right_region}: High: {right['high_c']}",
            "solver": solver,
            "wrong": [[script[0], tool_turn(("get_forecast", {"lat": wrong["lat"], "lon": wrong["lon"]})),
                       f"High: {wrong['high_c']}"],
                      [*script, f"High: {right['forecast']['high_f']:g}"],
                      [*script, f"High: {right['high_c']} or {wrong['high_c']}"]],
            "title": "Two places share a name: geocode, pick the right one, forecast, convert",
            "notes": ("The geocoder returns two places with the same name; the coordinates of the one in the named "
                      "region go into the forecast call, and its Fahrenheit high must come back in Celsius.")}


# ------------------------------------------------------------------------------------------ invoice

INVOICE_TOOLS = [
    function_tool("get_exchange_rate", "Today's rate: units of `quote` for one unit of `base`.",
                  {"base": {"type": "string"}, "quote": {"type": "string"}}, ["base", "quote"]),
    function_tool("create_invoice", "Create and send an invoice.",
                  {"customer_id": {"type": "string"}, "amount_minor": {"type": "integer", "description": "In cents"},
                   "currency": {"type": "string", "pattern": "^[A-Z]{3}$"}}, ["customer_id", "amount_minor", "currency"]),
]


def invoice_handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "get_exchange_rate":
        pair = (_arg(arguments, "base").upper(), _arg(arguments, "quote").upper())
        rate = state["rates"].get(f"{pair[0]}/{pair[1]}")
        return {"result": {"base": pair[0], "quote": pair[1], "rate": rate}} if rate else {"error": "unknown pair"}
    state.setdefault("invoices", []).append(dict(arguments))
    number = f"INV-{state['next']}"
    state["next"] += 1
    return {"result": {"invoice_number": number, "status": "sent"}}


def _invoice(rng: random.Random) -> dict:
    usd = Decimal(rng.randint(40000, 900000)) / 100
    rate = Decimal(rng.randint(8500, 9700)) / 10000 + Decimal(rng.choice([5, 15, 35])) / 10**6
    customer = f"CUST-{rng.randint(100, 999)}"
    cents = int((usd * rate * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    state = {"rates": {"USD/EUR": float(rate), "EUR/USD": float((1 / rate).quantize(Decimal("0.000001")))},
             "next": rng.randint(5000, 9000)}
    number = f"INV-{state['next']}"
    prompt = (f"Invoice customer {customer} for ${usd:,.2f} of consulting, billed in euros at today's USD to EUR rate, "
              "rounded to the nearest cent (half a cent rounds up). Finish with two lines: Invoice: <invoice number> "
              "and Amount: <euros>")
    script = [tool_turn(("get_exchange_rate", {"base": "USD", "quote": "EUR"})),
              tool_turn(("create_invoice", {"customer_id": customer, "amount_minor": cents, "currency": "EUR"}))]
    truncated = int(usd * rate * 100)
    solver = r'''
import json
from fractions import Fraction
usd, rate, customer, first = USD, RATE, CUSTOMER, FIRST
exact = Fraction(usd) * Fraction(rate) * 100
cents = int(exact) + (1 if exact - int(exact) >= Fraction(1, 2) else 0)
print(json.dumps({"calls": [{"name": "get_exchange_rate", "arguments": {"base": "USD", "quote": "EUR"}},
                            {"name": "create_invoice", "arguments": {"customer_id": customer, "amount_minor": cents,
                                                                     "currency": "EUR"}}],
                  "values": {"Invoice:": "INV-%d" % first, "Amount:": cents / 100}}))
'''.replace("USD", repr(str(usd)), 1).replace("RATE", repr(str(rate)), 1).replace("CUSTOMER", repr(customer), 1) \
        .replace("FIRST", repr(state["next"]), 1)
    inverse = int((usd / rate * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    # hardness: rate, multiply, round half up, cents, invoice; traps: dividing, rounding down
    return {**ruled(5, 1, 2), "prompt": prompt, "tools": INVOICE_TOOLS, "handler": invoice_handler, "state": state,
            "calls": [{"name": "get_exchange_rate", "arguments": {"base": "USD", "quote": "EUR"}},
                      {"name": "create_invoice", "arguments": {"customer_id": customer, "amount_minor": cents,
                                                               "currency": "EUR"}}], "order": "strict",
            "answer": {"values": {"Invoice:": number, "Amount:": float(Decimal(cents) / 100)}},
            "forbidden": [], "script": script,
            "final": f"Invoice: {number}\nAmount: €{Decimal(cents) / 100:,.2f}", "solver": solver, "max_calls": 3,
            "wrong": [[script[0], tool_turn(("create_invoice", {"customer_id": customer, "amount_minor": inverse, "currency": "EUR"})),
                       f"Invoice: {number}\nAmount: {Decimal(inverse) / 100}"],
                      [script[0], tool_turn(("create_invoice", {"customer_id": customer, "amount_minor": int(usd * 100), "currency": "EUR"})),
                       f"Invoice: {number}\nAmount: {usd}"],
                      [*script, f"Invoice: {number}\nAmount: {Decimal(truncated + 7) / 100}"]],
            "title": "A rate from one call, a converted and rounded amount in cents into the next",
            "notes": ("The invoice amount depends on the rate the first call returns (six decimals): multiply, not "
                      "divide, then round half up to the cent and pass cents; the answer must carry the invoice "
                      "number the second call returned and the euro amount.")}


# ------------------------------------------------------------------------------------------ flights

FLIGHT_TOOLS = [
    function_tool("search_flights", "Flights on one date.",
                  {"origin": {"type": "string"}, "destination": {"type": "string"}, "date": {"type": "string"}},
                  ["origin", "destination", "date"]),
    function_tool("book_flight", "Book a seat on a flight and charge the saved card.",
                  {"flight_id": {"type": "string"}, "passenger": {"type": "string"}}, ["flight_id", "passenger"]),
]


def flights_handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "search_flights":
        if _arg(arguments, "date") != state["date"] or _arg(arguments, "origin").lower() != state["origin"].lower():
            return {"result": []}
        return {"result": state["flights"]}
    flight = next((f for f in state["flights"] if f["flight_id"] == _arg(arguments, "flight_id")), None)
    if flight is None:
        return {"error": "unknown flight_id"}
    state["booked"] = flight["flight_id"]
    return {"result": {"flight_id": flight["flight_id"], "status": "confirmed", "price_eur": flight["price_eur"]}}


def _flights(rng: random.Random) -> dict:
    origin, destination = rng.choice([("Lisbon", "Warsaw"), ("Dublin", "Athens"), ("Oslo", "Seville")])
    day = (date(2026, 6, 1) + timedelta(days=rng.randrange(90))).isoformat()
    flights = []
    for i in range(7):
        hour = rng.choice([6, 7, 8, 9, 11, 12, 14, 16, 18, 20])
        flights.append({"flight_id": f"{rng.choice(['TP', 'FR', 'LO', 'W6'])}{rng.randint(100, 9999)}",
                        "departs": f"{hour:02d}:{rng.choice(['05', '20', '40', '55'])}", "stops": rng.choice([0, 0, 1, 1, 2]),
                        "price_eur": rng.randint(89, 420)})
    # traps: the cheapest flight overall has a stop; the cheapest nonstop leaves before 10:00
    flights[0].update(stops=1, price_eur=61, departs="13:20")
    flights[1].update(stops=0, price_eur=74, departs="07:55")
    flights[2].update(stops=0, price_eur=rng.randint(95, 140), departs=f"{rng.choice([10, 11, 15]):02d}:35")
    for f in flights[3:]:
        if f["stops"] == 0 and f["departs"] >= "10:00":
            f["price_eur"] = max(f["price_eur"], flights[2]["price_eur"] + rng.randint(5, 60))
    rng.shuffle(flights)
    state = {"origin": origin, "date": day, "flights": flights, "booked": None}
    passenger = rng.choice(["Mira Kovac", "Jonas Weber", "Aoife Byrne"])
    pick = min((f for f in flights if f["stops"] == 0 and f["departs"] >= "10:00"), key=lambda f: f["price_eur"])
    prompt = (f"Book {passenger} on the cheapest nonstop flight from {origin} to {destination} on {day} that leaves "
              "at 10:00 or later. Book exactly one flight. Finish with two lines: Booked: <flight id> and Price: <euros>")
    script = [tool_turn(("search_flights", {"origin": origin, "destination": destination, "date": day})),
              tool_turn(("book_flight", {"flight_id": pick["flight_id"], "passenger": passenger}))]
    cheapest = min(flights, key=lambda f: f["price_eur"])
    early = next(f for f in flights if f["price_eur"] == 74)
    solver = r'''
import json
state, passenger = STATE, PASSENGER
ok = [f for f in state["flights"] if f["stops"] == 0 and int(f["departs"][:2]) * 60 + int(f["departs"][3:]) >= 600]
best = sorted(ok, key=lambda f: f["price_eur"])[0]
print(json.dumps({"calls": [{"name": "book_flight", "arguments": {"flight_id": best["flight_id"], "passenger": passenger}}],
                  "values": {"Booked:": best["flight_id"], "Price:": best["price_eur"]}}))
'''.replace("STATE", repr(state), 1).replace("PASSENGER", repr(passenger), 1)
    # hardness: list, filter nonstop from 10:00, cheapest, book once; traps: the stop, the 07:55
    return {**ruled(4, 7, 2), "prompt": prompt, "tools": FLIGHT_TOOLS, "handler": flights_handler, "state": state,
            "calls": [{"name": "book_flight", "arguments": {"flight_id": pick["flight_id"], "passenger": passenger}}],
            "order": "any", "limit_to_required": ["book_flight"],
            "answer": {"values": {"Booked:": pick["flight_id"], "Price:": pick["price_eur"]},
                       "decoys": [cheapest["flight_id"], early["flight_id"]]},
            "forbidden": [], "script": script, "final": f"Booked: {pick['flight_id']}\nPrice: {pick['price_eur']} EUR",
            "solver": solver,
            "wrong": [[script[0], tool_turn(("book_flight", {"flight_id": cheapest["flight_id"], "passenger": passenger})),
                       f"Booked: {cheapest['flight_id']}\nPrice: {cheapest['price_eur']}"],
                      [script[0], tool_turn(("book_flight", {"flight_id": early["flight_id"], "passenger": passenger})),
                       f"Booked: {early['flight_id']}\nPrice: 74"],
                      [*script, tool_turn(("book_flight", {"flight_id": early["flight_id"], "passenger": passenger})),
                       f"Booked: {pick['flight_id']}\nPrice: {pick['price_eur']}"]],
            "title": "Search, filter by stops and departure time, book the cheapest that is left",
            "notes": ("Seven flights: the cheapest overall has a stop, the cheapest nonstop leaves at 07:55; the "
                      "booking must go to the cheapest nonstop leaving at 10:00 or later, once, with the passenger's "
                      "name, and the answer must carry its id and price.")}


TEMPLATES = [_orders, _weather, _invoice, _flights]


def _case(number: int, rng: random.Random) -> dict:
    spec = TEMPLATES[number - 1](rng)
    grader = {"type": "trace", "calls": spec["calls"], "order": spec["order"], "answer": spec["answer"]}
    for key in ("forbidden", "limit_to_required", "max_calls"):
        if spec.get(key):
            grader[key] = spec[key]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse", "difficulty": spec["difficulty"],
        "hardness": spec["hardness"],
        "title": spec["title"], "notes": spec["notes"], "prompt": spec["prompt"], "tools": spec["tools"],
        "max_tokens": 4096,
        "simulation": {"handler": spec["handler"], "state": spec["state"], "max_turns": 8},
        "grader": grader,
        "verify": {"solver": spec["solver"], "reference": [*spec["script"], spec["final"]],
                   "wrong": [[REFUSAL], [spec["script"][0], "I found what you need; let me know if you want the details."],
                             *spec["wrong"]]},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, len(TEMPLATES) + 1)]
