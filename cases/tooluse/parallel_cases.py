"""Tool use: several independent calls in one reply, chosen and filled from the user's data (TU-parallel).

The user gives a list or a pasted table; the reply must make exactly one call per item that qualifies,
all in the same turn, with each call's arguments normalised: units per item, rows filtered by status,
duplicates looked up once, items that need no call left out. A missing call, an extra call (a
filtered-out row, a duplicate) or one wrong argument fails. Each solver re-parses the prompt's lines.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-parallel"
REFUSAL = "I'm sorry, but I can't help with that request."


def _weather(rng: random.Random) -> dict:
    cities = rng.sample(["Oslo", "Reykjavik", "Denver", "Phoenix", "Perth", "Montreal", "Nairobi", "Lima"], 4)
    units = ["celsius", "celsius", "fahrenheit", "fahrenheit"]
    rng.shuffle(units)
    by_unit = {u: [c for c, v in zip(cities, units) if v == u] for u in ("celsius", "fahrenheit")}
    tools = [function_tool("get_weather", "Current weather for one city.",
                           {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                           ["city", "unit"]),
             function_tool("get_forecast", "A 5-day forecast for one city.",
                           {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                           ["city", "unit"])]
    prompt = (f"What's the weather right now in {' and '.join(by_unit['celsius'])} (in Celsius) and in "
              f"{' and '.join(by_unit['fahrenheit'])} (in Fahrenheit)? Look them all up at once.")
    calls = [("get_weather", {"city": c, "unit": u}) for c, u in zip(cities, units)]
    solver = r'''
import json, re
prompt = PROMPT
calls = []
for group, unit in re.findall(r"in ([\w ]+?) \(in (\w+)\)", prompt):
    for city in group.split(" and "):
        calls.append({"name": "get_weather", "arguments": {"city": city.strip(), "unit": unit.lower()}})
print(json.dumps({"calls": calls}))
'''
    swapped = [("get_weather", {"city": c, "unit": "fahrenheit" if u == "celsius" else "celsius"}) if i == 0 else (n, a)
               for i, ((n, a), c, u) in enumerate(zip(calls, cities, units))]
    # hardness: each city's unit from its group, four calls; trap: the forecast tool
    return {**ruled(2, 4, 1), "prompt": prompt, "tools": tools, "calls": calls, "solver": solver,
            "forbidden": ["get_forecast"], "wrong": [calls[:2], swapped, [(n, {"city": a["city"]}) for n, a in calls]],
            "title": "Four cities in one turn, each in the unit the user asked for",
            "notes": "Four calls in one reply, each city with the unit of its group; a forecast tool is the decoy."}


def _labels(rng: random.Random) -> dict:
    statuses = ["paid", "paid", "paid", "paid", "on hold", "refunded", "paid", "awaiting payment"]
    rng.shuffle(statuses)
    rows = []
    for status in statuses:
        rows.append({"order": f"SO-{rng.randint(10000, 99999)}", "status": status,
                     "kg": rng.randint(12, 480) / 20, "express": rng.random() < 0.4})
    tools = [function_tool("create_label", "Buy a shipping label for one order.",
                           {"order_id": {"type": "string"}, "weight_g": {"type": "integer", "description": "grams"},
                            "service": {"type": "string", "enum": ["standard", "express"]}},
                           ["order_id", "weight_g", "service"]),
             function_tool("refund_order", "Refund an order.", {"order_id": {"type": "string"}}, ["order_id"])]
    table = "\n".join(f"| {r['order']} | {r['status']} | {r['kg']:g} | {'yes' if r['express'] else 'no'} |" for r in rows)
    prompt = ("Buy shipping labels for every order in this export that is paid. Orders in any other state get "
              "nothing. Weights are in kilograms; the label tool wants grams. Use express where the customer paid "
              "for it, standard otherwise. Do all the labels in one go.\n\n"
              "| order | status | weight (kg) | express |\n|---|---|---|---|\n" + table)
    calls = [("create_label", {"order_id": r["order"], "weight_g": round(r["kg"] * 1000),
                               "service": "express" if r["express"] else "standard"}) for r in rows if r["status"] == "paid"]
    held = next(r for r in rows if r["status"] == "on hold")
    solver = r'''
import json, re
prompt = PROMPT
calls = []
for order, status, kg, express in re.findall(r"^\| (SO-\d+) \| ([\w ]+?) \| ([\d.]+) \| (yes|no) \|$", prompt, re.M):
    if status == "paid":
        grams = int(round(float(kg) * 1000))
        calls.append({"name": "create_label", "arguments": {"order_id": order, "weight_g": grams,
                      "service": "express" if express == "yes" else "standard"}})
print(json.dumps({"calls": calls}))
'''
    first = calls[0]
    # hardness: the paid rows, grams, the service; traps: a held row, a slipped conversion
    return {**ruled(3, 8, 3), "prompt": prompt, "tools": tools, "calls": calls, "solver": solver,
            "forbidden": ["refund_order"],
            "wrong": [calls + [("create_label", {"order_id": held["order"], "weight_g": round(held["kg"] * 1000),
                                                 "service": "express" if held["express"] else "standard"})],
                      [(first[0], {**first[1], "weight_g": int(first[1]["weight_g"] / 1000) or 1})] + calls[1:],
                      [(first[0], {**first[1], "service": "express" if first[1]["service"] == "standard" else "standard"})] + calls[1:],
                      calls[:-1]],
            "title": "Labels for the paid rows of a pasted table, kilograms to grams, the service per row",
            "notes": ("Eight rows, four or five of them paid, the others on hold, refunded or awaiting payment; each "
                      "paid row is one call with its weight in grams (from decimal kilograms such as 0.65) and its "
                      "service from a yes/no column. One missed row, one extra row or one slipped conversion fails.")}


def _rates(rng: random.Random) -> dict:
    names = {"USD": "US dollars", "GBP": "pounds sterling", "CHF": "Swiss francs", "JPY": "yen", "SEK": "Swedish kronor",
             "EUR": "euros"}
    foreign = rng.sample(["USD", "GBP", "CHF", "JPY", "SEK"], 3)
    lines = [(rng.choice(["Hotel", "Taxi", "Conference fee", "Dinner", "Train", "Museum"]), rng.randint(12, 900), cur)
             for cur in foreign + foreign[:2] + ["EUR", "EUR"]]
    rng.shuffle(lines)
    tools = [function_tool("get_exchange_rate", "Today's rate: how many `quote` one unit of `base` buys.",
                           {"base": {"type": "string", "pattern": "^[A-Z]{3}$"}, "quote": {"type": "string", "pattern": "^[A-Z]{3}$"}},
                           ["base", "quote"]),
             function_tool("convert_amount", "Convert one amount at today's rate (one call per amount; slow).",
                           {"amount": {"type": "number"}, "base": {"type": "string"}, "quote": {"type": "string"}},
                           ["amount", "base", "quote"])]
    prompt = ("I'm filing my travel expenses in euros. Fetch today's exchange rate into euros for each currency I "
              "need, once per currency (I'll do the arithmetic myself), all in one go:\n"
              + "\n".join(f"- {what}: {amount} {names[cur]}" for what, amount, cur in lines))
    calls = [("get_exchange_rate", {"base": cur, "quote": "EUR"}) for cur in foreign]
    solver = r'''
import json, re
prompt = PROMPT
CODES = {"US dollars": "USD", "pounds sterling": "GBP", "Swiss francs": "CHF", "yen": "JPY", "Swedish kronor": "SEK",
         "euros": "EUR"}
seen = []
for money in re.findall(r"^- [\w ]+: \d+ ([\w ]+)$", prompt, re.M):
    code = CODES[money]
    if code != "EUR" and code not in seen:
        seen.append(code)
print(json.dumps({"calls": [{"name": "get_exchange_rate", "arguments": {"base": c, "quote": "EUR"}} for c in seen]}))
'''
    # hardness: the currencies once each, their ISO codes, EUR as quote; traps: per line, euros, reversed
    return {**ruled(3, 7, 3), "prompt": prompt, "tools": tools, "calls": calls, "solver": solver,
            "forbidden": ["convert_amount"],
            "wrong": [calls + [("get_exchange_rate", {"base": foreign[0], "quote": "EUR"})],
                      calls + [("get_exchange_rate", {"base": "EUR", "quote": "EUR"})],
                      [("get_exchange_rate", {"base": "EUR", "quote": c}) for c in foreign]],
            "title": "One rate per distinct foreign currency in an expense list, none for euros",
            "notes": ("Seven expense lines in four currencies named in words, two of them repeated and two already "
                      "in euros: three calls, each currency's ISO code as base and EUR as quote. A call per line, a "
                      "call for euros, or the rate the wrong way round (EUR as base) fails; a per-amount converter is "
                      "the decoy.")}


def _stock(rng: random.Random) -> dict:
    skus = [f"{rng.choice(['KB', 'MS', 'HD', 'CB'])}-{rng.randint(100, 999)}" for _ in range(5)]
    sites = {"Leeds": "UK-LDS", "Rotterdam": "NL-RTM", "Lyon": "FR-LYS"}
    lines = []
    for i, sku in enumerate(skus):
        lines.append((sku, rng.choice(list(sites)), i == 2))   # the third line is struck out
    lines.insert(rng.randint(3, 5), (lines[0][0], lines[0][1], False))  # a repeated line
    tools = [function_tool("check_stock", "Units of one SKU on hand in one warehouse.",
                           {"sku": {"type": "string"}, "warehouse": {"type": "string", "enum": sorted(sites.values())}},
                           ["sku", "warehouse"]),
             function_tool("reserve_stock", "Reserve units of a SKU in a warehouse.",
                           {"sku": {"type": "string"}, "warehouse": {"type": "string"}, "units": {"type": "integer"}},
                           ["sku", "warehouse", "units"])]
    body = "\n".join(f"{'~~' if struck else ''}{sku} from {site}{'~~ (cancelled)' if struck else ''}" for sku, site, struck in lines)
    prompt = ("Check how much stock we have for this pick list before I reserve anything. Each line is a SKU and the "
              "warehouse it ships from (warehouse codes: Leeds UK-LDS, Rotterdam NL-RTM, Lyon FR-LYS). Skip "
              "cancelled lines and don't check the same thing twice. Check everything in one go.\n\n" + body)
    wanted = []
    for sku, site, struck in lines:
        call = ("check_stock", {"sku": sku, "warehouse": sites[site]})
        if not struck and call not in wanted:
            wanted.append(call)
    struck_line = next(l for l in lines if l[2])
    solver = r'''
import json, re
prompt = PROMPT
CODES = dict(re.findall(r"(\w+) ([A-Z]{2}-[A-Z]{3})", prompt.split("warehouse codes:")[1].split(")")[0]))
calls = []
for line in prompt.split("\n\n", 1)[1].splitlines():
    if "(cancelled)" in line:
        continue
    sku, site = re.match(r"([A-Z]{2}-\d{3}) from (\w+)", line).groups()
    call = {"name": "check_stock", "arguments": {"sku": sku, "warehouse": CODES[site]}}
    if call not in calls:
        calls.append(call)
print(json.dumps({"calls": calls}))
'''
    # hardness: drop the cancelled and repeated lines, map names to codes; traps: each of the three
    return {**ruled(3, 6, 3), "prompt": prompt, "tools": tools, "calls": wanted, "solver": solver,
            "forbidden": ["reserve_stock"],
            "wrong": [wanted + [("check_stock", {"sku": struck_line[0], "warehouse": sites[struck_line[1]]})],
                      wanted + [wanted[0]],
                      [(n, {**a, "warehouse": next(k for k, v in sites.items() if v == a["warehouse"])}) for n, a in wanted]],
            "title": "A pick list with a cancelled line and a repeated line, warehouse names as codes",
            "notes": ("Six lines: one struck through and marked cancelled, one repeating an earlier SKU and warehouse; "
                      "four calls, each warehouse name mapped to its code from the legend (the enum refuses names). "
                      "Checking the cancelled line, the repeat, or passing names fails.")}


def _onboarding(rng: random.Random) -> dict:
    people = rng.sample([("Ana Ruiz", "data"), ("Kofi Mensah", "platform"), ("Li Wei", "design"), ("Sara Holm", "data"),
                         ("Omar Haddad", "platform"), ("Eva Kral", "design")], 3)
    email = lambda name: name.lower().replace(" ", ".") + "@example.org"  # noqa: E731
    tools = [function_tool("create_account", "Create a company account.",
                           {"email": {"type": "string"}, "full_name": {"type": "string"},
                            "team": {"type": "string", "enum": ["data", "platform", "design"]}},
                           ["email", "full_name", "team"]),
             function_tool("add_to_channel", "Add a person (by email) to a chat channel.",
                           {"email": {"type": "string"}, "channel": {"type": "string"}}, ["email", "channel"]),
             function_tool("add_to_all_channels", "Add a person to every channel in the company.",
                           {"email": {"type": "string"}}, ["email"])]
    lines = "\n".join(f"- {n} ({email(n)}), {t} team" for n, t in people)
    prompt = ("Onboard these three new hires: create each one's account on their team, and add each of them to their "
              "team's chat channel, which is named #team-<team>. Nothing else. Do it all in one go.\n" + lines)
    calls = []
    for name, team in people:
        calls.append(("create_account", {"email": email(name), "full_name": name, "team": team}))
        calls.append(("add_to_channel", {"email": email(name), "channel": f"#team-{team}"}))
    solver = r'''
import json, re
prompt = PROMPT
calls = []
for name, address, team in re.findall(r"^- ([\w ]+) \((\S+)\), (\w+) team$", prompt, re.M):
    calls.append({"name": "create_account", "arguments": {"email": address, "full_name": name, "team": team}})
    calls.append({"name": "add_to_channel", "arguments": {"email": address, "channel": "#team-" + team}})
print(json.dumps({"calls": calls}))
'''
    # hardness: the channel from the template per person, six calls; trap: a sequential reply
    return {**ruled(2, 6, 1), "prompt": prompt, "tools": tools, "calls": calls, "solver": solver,
            "forbidden": ["add_to_all_channels"],
            "wrong": [[c for c in calls if c[0] == "create_account"],
                      calls[:-1] + [("add_to_channel", {**calls[-1][1], "channel": "#general"})],
                      calls + [("add_to_all_channels", {"email": calls[0][1]["email"]})]],
            "title": "Two tools for each of three people, six calls in one reply",
            "notes": "Six calls over two tools in one turn, the channel name built from the template per person."}


TEMPLATES = [_weather, _labels, _rates, _stock, _onboarding]


def _case(number: int, rng: random.Random) -> dict:
    spec = TEMPLATES[number - 1](rng)
    calls = spec["calls"]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse", "difficulty": spec["difficulty"],
        "hardness": spec["hardness"],
        "title": spec["title"], "notes": spec["notes"], "prompt": spec["prompt"], "tools": spec["tools"],
        "max_tokens": 3072,
        "grader": {"type": "tool_calls", "calls": [{"name": n, "arguments": a} for n, a in calls], "order": "any",
                   "allow_extra": False, "arguments_match": "exact", "forbidden": spec["forbidden"]},
        "verify": {"solver": spec["solver"].replace("PROMPT", repr(spec["prompt"]), 1),
                   "reference": tool_turn(*calls[::-1]),
                   "wrong": [REFUSAL, "I'll start with the first one and do the rest once you confirm.",
                             tool_turn(*calls[:1]), *[tool_turn(*w) for w in spec["wrong"]]]},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, len(TEMPLATES) + 1)]
