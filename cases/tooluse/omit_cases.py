"""Tool use: optional arguments that must be left out, because any value narrows the search (family TU-omit).

A search tool with several optional filters, each described as "omit for any": max_stops 0 means nonstop only,
a cabin picks one cabin, pets false means only homes that forbid pets. The user states some constraints and
waives others in words that tempt a value ("stopovers are fine", "any cabin", "we have no pets but do not mind").
The right call carries the stated values, normalised (a date in ISO form, a count as an integer), and no argument
for a waived filter: the grader compares the arguments exactly, so a default filled in fails. Three tools (flights,
rentals, used cars), with the stated and waived filters drawn from the seed. Each solver re-reads the stated
values with its own patterns and ignores the waiving phrases.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-omit"
REFUSAL = "I'm sorry, but I can't help with that request."


def _day(rng: random.Random) -> date:
    return date(2026, 4, 1) + timedelta(days=rng.randint(0, 150))


def _said(d: date) -> str:
    return f"{d.day} {d:%B %Y}"


# per template: the tool's optional filters as (argument, schema, value maker, stated phrase, waiving phrase,
# the value a careless reply fills in for the waived filter)
FLIGHTS = {
    "tool": ("search_flights", "Search flights. Every optional filter narrows the results; omit it for any."),
    "required": {"origin": {"type": "string"}, "destination": {"type": "string"},
                 "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
                 "passengers": {"type": "integer", "minimum": 1}},
    "filters": [
        ("max_stops", {"type": "integer", "minimum": 0, "maximum": 2, "description": "0: nonstop only; omit for any"},
         lambda r: r.choice([0, 1]), lambda v: "nonstop only" if v == 0 else "at most one stop",
         "stopovers are fine", 0),
        ("cabin", {"type": "string", "enum": ["economy", "premium_economy", "business"],
                   "description": "one cabin; omit for all cabins"},
         lambda r: r.choice(["business", "premium_economy"]), lambda v: f"in {v.replace('_', ' ')}",
         "any cabin will do", "economy"),
        ("max_price", {"type": "integer", "description": "EUR per person; omit for no limit"},
         lambda r: r.randrange(150, 900, 50), lambda v: f"no more than {v} euros a ticket",
         "the fare does not matter", 0),
        ("return_date", {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "omit for one way"},
         None, None, "it is a one-way trip", None),
    ],
}
RENTALS = {
    "tool": ("search_rentals", "Search homes to rent. Every optional filter narrows the results; omit it for any."),
    "required": {"city": {"type": "string"}, "max_rent": {"type": "integer", "description": "EUR per month"}},
    "filters": [
        ("bedrooms_min", {"type": "integer", "minimum": 1}, lambda r: r.choice([2, 3]),
         lambda v: f"at least {v} bedrooms", "any number of bedrooms is fine", 1),
        ("pets", {"type": "boolean", "description": "true: only homes that allow pets; false: only homes that forbid "
                                                    "them; omit for either"},
         lambda r: True, lambda v: "we have a dog, so pets must be allowed",
         "we have no pets, but we don't mind whether they are allowed", False),
        ("furnished", {"type": "boolean", "description": "true: only furnished; false: only unfurnished; omit for "
                                                         "either"},
         lambda r: r.choice([True, False]), lambda v: "furnished" if v else "unfurnished",
         "furnished or not, either is fine", False),
        ("balcony", {"type": "boolean", "description": "true: only with a balcony; omit for either"},
         lambda r: True, lambda v: "with a balcony", "a balcony would be nice but is no must", True),
    ],
}
CARS = {
    "tool": ("search_used_cars", "Search used cars for sale. Every optional filter narrows the results; omit it for "
                                 "any."),
    "required": {"make": {"type": "string"}, "max_price": {"type": "integer", "description": "EUR"}},
    "filters": [
        ("fuel", {"type": "string", "enum": ["petrol", "diesel", "hybrid", "electric"], "description": "omit for any"},
         lambda r: r.choice(["diesel", "hybrid", "electric"]), lambda v: f"it has to be {v}", "any fuel is fine",
         "petrol"),
        ("gearbox", {"type": "string", "enum": ["manual", "automatic"], "description": "omit for either"},
         lambda r: "automatic", lambda v: "automatic only", "I can drive either gearbox", "manual"),
        ("max_km", {"type": "integer", "description": "odometer limit; omit for any"},
         lambda r: r.randrange(40_000, 160_000, 10_000), lambda v: f"fewer than {v:,} km on the clock",
         "mileage is not a concern", 0),
        ("min_year", {"type": "integer", "description": "first registration year; omit for any"},
         lambda r: r.randint(2016, 2022), lambda v: f"registered in {v} or later", "the age does not matter", 2000),
    ],
}
TEMPLATES = {1: FLIGHTS, 2: RENTALS, 3: CARS}

SOLVER = r'''
import json, re
from datetime import datetime
prompt = PROMPT
def day(text):
    return datetime.strptime(text, "%d %B %Y").strftime("%Y-%m-%d")
args = {}
if "flight" in prompt:
    name = "search_flights"
    m = re.search(r"fly from (\w+) to (\w+) on (\d+ \w+ \d{4})", prompt)
    args.update(origin=m.group(1), destination=m.group(2), date=day(m.group(3)))
    args["passengers"] = {"alone": 1, "with my partner": 2, "with my partner and our son": 3}[
        re.search(r"travelling (alone|with my partner and our son|with my partner)", prompt).group(1)]
    if "nonstop only" in prompt: args["max_stops"] = 0
    if "at most one stop" in prompt: args["max_stops"] = 1
    m = re.search(r"\bin (business|premium economy)\b", prompt)
    if m: args["cabin"] = m.group(1).replace(" ", "_")
    m = re.search(r"no more than (\d+) euros", prompt)
    if m: args["max_price"] = int(m.group(1))
    m = re.search(r"back on (\d+ \w+ \d{4})", prompt)
    if m: args["return_date"] = day(m.group(1))
elif "to rent" in prompt:
    name = "search_rentals"
    args["city"] = re.search(r"to rent in (\w+)", prompt).group(1)
    args["max_rent"] = int(re.search(r"up to ([\d,]+) euros a month", prompt).group(1).replace(",", ""))
    m = re.search(r"at least (\d) bedrooms", prompt)
    if m: args["bedrooms_min"] = int(m.group(1))
    if "pets must be allowed" in prompt: args["pets"] = True
    if re.search(r"\bunfurnished\b", prompt): args["furnished"] = False
    elif re.search(r"(?<!, )\bfurnished\b(?! or not)", prompt): args["furnished"] = True
    if "with a balcony" in prompt: args["balcony"] = True
else:
    name = "search_used_cars"
    args["make"] = re.search(r"a used (\w+)", prompt).group(1)
    args["max_price"] = int(re.search(r"for at most ([\d,]+) euros", prompt).group(1).replace(",", ""))
    m = re.search(r"it has to be (\w+)", prompt)
    if m: args["fuel"] = m.group(1)
    if "automatic only" in prompt: args["gearbox"] = "automatic"
    m = re.search(r"fewer than ([\d,]+) km", prompt)
    if m: args["max_km"] = int(m.group(1).replace(",", ""))
    m = re.search(r"registered in (\d{4}) or later", prompt)
    if m: args["min_year"] = int(m.group(1))
print(json.dumps({"calls": [{"name": name, "arguments": args}]}))
'''


def _base(number: int, rng: random.Random) -> tuple[str, dict]:
    if number == 1:
        a, b = rng.sample(["Lisbon", "Vienna", "Oslo", "Dublin", "Athens", "Krakow"], 2)
        d = _day(rng)
        who, n = rng.choice([("alone", 1), ("with my partner", 2), ("with my partner and our son", 3)])
        return (f"Find me flights: I want to fly from {a} to {b} on {_said(d)}, travelling {who}",
                {"origin": a, "destination": b, "date": d.isoformat(), "passengers": n})
    if number == 2:
        city, rent = rng.choice(["Utrecht", "Leipzig", "Ghent", "Bologna"]), rng.randrange(900, 2400, 50)
        return f"We are looking for a home to rent in {city} for up to {rent:,} euros a month", {"city": city,
                                                                                                "max_rent": rent}
    make, price = rng.choice(["Skoda", "Toyota", "Volvo", "Peugeot"]), rng.randrange(6_000, 25_000, 500)
    return f"I want to buy a used {make} for at most {price:,} euros", {"make": make, "max_price": price}


def _case(number: int, rng: random.Random) -> dict:
    template = TEMPLATES[number]
    opening, args = _base(number, rng)
    filters = list(template["filters"])
    rng.shuffle(filters)
    clauses, waived, stated_count = [], [], 0
    for name, _, make, phrase, waive, careless in filters:
        if stated_count < 2 and make is not None:
            stated_count += 1
            value = make(rng)
            args[name] = value
            clauses.append(phrase(value))
        elif stated_count < 2 and name == "return_date":
            stated_count += 1
            back = date.fromisoformat(args["date"]) + timedelta(days=rng.randint(3, 12))
            args[name] = back.isoformat()
            clauses.append(f"coming back on {_said(back)}")
        else:
            clauses.append(waive)
            waived.append((name, careless))
    rng.shuffle(clauses)
    prompt = f"{opening}. What matters: {'; '.join(clauses)}."
    tool_name, description = template["tool"]
    props = {**template["required"], **{f[0]: f[1] for f in template["filters"]}}
    tool = function_tool(tool_name, description, props, list(template["required"]))
    other = function_tool("save_search_alert", "Email me new results of a search every day.",
                          {"query": {"type": "string"}}, ["query"])
    reply = tool_turn((tool_name, args))
    wrong = [REFUSAL, f"I would search with {', '.join(f'{k}={v}' for k, v in args.items())}."]
    for name, careless in waived:
        if careless is not None:
            wrong.append(tool_turn((tool_name, {**args, name: careless})))
    wrong.append(tool_turn((tool_name, {**args, **{n: c for n, c in waived if c is not None}})))
    stated = [k for k in args if k not in template["required"]]
    wrong.append(tool_turn((tool_name, {k: v for k, v in args.items() if k != stated[0]})))
    wrong.append(tool_turn((tool_name, args), ("save_search_alert", {"query": prompt})))
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # per filter: stated (read and normalise the value) or waived (leave it out); traps: the defaults a
        # careless reply fills in for waived filters
        **ruled(3, 2 ** len(filters), 3),
        "title": f"One {tool_name} call: stated filters given, waived ones left out",
        "notes": (f"{len(stated)} stated filters ({', '.join(stated)}) and {len(waived)} waived in words that tempt a "
                  f"value ({', '.join(n for n, _ in waived)}); arguments compared exactly, so a default filled in for "
                  "a waived filter (max_stops 0, economy, pets false, manual) narrows the search and fails."),
        "prompt": prompt, "tools": [tool, other], "max_tokens": 2048,
        "grader": {"type": "tool_calls", "calls": [{"name": tool_name, "arguments": args}], "allow_extra": False,
                   "arguments_match": "exact", "forbidden": ["save_search_alert"]},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": reply, "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
