"""Tool use: results that need a second call (family TU-recover).

Asked in turns through the agent loop over simulated tools whose first answer is not the end: a list
that comes in pages (follow next_page_token until there is none, then count), an error that names the
valid values (retry with the one the user meant), a lookup that matches two people (retry with the
id of the one the user described), a transient failure (retry the same call). The grader checks the
calls that must be made with their exact values, in order where it matters, and the final answer on
the values the tools returned. The solvers re-derive the answer from the whole simulated data set.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-recover"
REFUSAL = "I'm sorry, but I can't help with that request."


def _arg(arguments: dict, key: str) -> str:
    return str(arguments.get(key) if arguments.get(key) is not None else "").strip()


# ------------------------------------------------------------------------------------------ pages

PAGE_TOOLS = [function_tool("list_invoices", "Invoices with a status, 5 per page; pass the next_page_token of the "
                            "previous page to get the next one.",
                            {"status": {"type": "string", "enum": ["open", "overdue", "paid"]},
                             "page_token": {"type": "string"}}, ["status"]),
              function_tool("send_reminder", "Email a payment reminder for an invoice.",
                            {"invoice_id": {"type": "string"}}, ["invoice_id"])]


def pages_handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "send_reminder":
        return {"result": "reminder sent"}
    if _arg(arguments, "status") != "overdue":
        return {"result": {"invoices": [], "next_page_token": None}}
    token = _arg(arguments, "page_token")
    index = state["tokens"].index(token) if token in state["tokens"] else -1
    if index < 0:
        return {"error": "invalid page_token"}
    pages = state["pages"]
    return {"result": {"invoices": pages[index],
                       "next_page_token": state["tokens"][index + 1] if index + 1 < len(pages) else None}}


def _pages(rng: random.Random) -> dict:
    invoices = [{"invoice_id": f"INV-{rng.randint(10000, 99999)}", "customer": rng.choice(["Acme", "Globex", "Initech", "Umbrella"]),
                 "amount_eur": rng.choice([rng.randint(100, 999), rng.randint(1000, 9000), 1000])} for _ in range(13)]
    pages = [invoices[i:i + 5] for i in range(0, len(invoices), 5)]
    tokens = [""] + [f"tok_{rng.randint(10**5, 10**6 - 1)}" for _ in pages[1:]]
    state = {"pages": pages, "tokens": tokens}
    count = sum(1 for inv in invoices if inv["amount_eur"] > 1000)
    first_page = sum(1 for inv in pages[0] if inv["amount_eur"] > 1000)
    at_least = sum(1 for inv in invoices if inv["amount_eur"] >= 1000)
    prompt = ("How many overdue invoices are there for more than €1,000? Count all of them, not just the first page, "
              "and don't send any reminders. Finish with one line: Count: <number>")
    script = [tool_turn(("list_invoices", {"status": "overdue"}))]
    script += [tool_turn(("list_invoices", {"status": "overdue", "page_token": t})) for t in tokens[1:]]
    solver = r'''
import json
pages, tokens = PAGES, TOKENS
calls = [{"name": "list_invoices", "arguments": {"status": "overdue", "page_token": t}} for t in tokens[1:]]
print(json.dumps({"calls": calls, "values": {"Count:": sum(1 for page in pages for inv in page if inv["amount_eur"] > 1000)}}))
'''.replace("PAGES", repr(pages), 1).replace("TOKENS", repr(tokens), 1)
    decoys = sorted({first_page, at_least, len(invoices)} - {count})
    # hardness: each page by the token before it, then a running count over EUR 1,000; traps: page one, >=
    return {**ruled(len(tokens) + count, 13, 2), "prompt": prompt, "tools": PAGE_TOOLS, "handler": pages_handler, "state": state,
            "calls": [{"name": "list_invoices", "arguments": {"status": "overdue", "page_token": t}} for t in tokens[1:]],
            "order": "strict", "forbidden": ["send_reminder"],
            "answer": {"values": {"Count:": count}, "decoys": decoys},
            "script": script, "final": f"Across {len(pages)} pages of overdue invoices:\nCount: {count}", "solver": solver,
            "wrong": [[script[0], f"Count: {first_page}"], [*script, f"Count: {at_least}" if at_least != count else f"Count: {count + 1}"]],
            "title": "Follow the page tokens to the end, then count with a strict threshold",
            "notes": ("Thirteen overdue invoices over three pages; each next page needs the token the previous one "
                      "returned. Some amounts are exactly €1,000, which 'more than' excludes; counting the first page "
                      "only, or counting the €1,000 ones, gives a decoy.")}


# ------------------------------------------------------------------------------------------ valid values

VM_TOOLS = [function_tool("create_vm", "Create a virtual machine.",
                          {"name": {"type": "string"}, "region": {"type": "string"}, "size": {"type": "string"}},
                          ["name", "region", "size"]),
            function_tool("delete_vm", "Delete a virtual machine.", {"vm_id": {"type": "string"}}, ["vm_id"])]
REGIONS = {"eu-central-2": "Zurich", "eu-central-1": "Frankfurt", "eu-west-1": "Dublin", "eu-west-3": "Paris",
           "eu-north-1": "Stockholm"}
SIZES = {"s-2": "2 vCPU / 4 GB", "m-4": "4 vCPU / 16 GB", "l-8": "8 vCPU / 32 GB"}


def vm_handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "delete_vm":
        return {"result": "deleted"}
    region, size = _arg(arguments, "region"), _arg(arguments, "size")
    if region not in REGIONS:
        listed = ", ".join(f"{code} ({city})" for code, city in REGIONS.items())
        return {"error": f"unknown region {region!r}; valid regions: {listed}"}
    if size not in SIZES:
        listed = ", ".join(f"{code} ({what})" for code, what in SIZES.items())
        return {"error": f"unknown size {size!r}; valid sizes: {listed}"}
    state["created"].append({"region": region, "size": size})
    return {"result": {"vm_id": state["vm_id"], "region": region, "size": size, "state": "running"}}


def _regions(rng: random.Random) -> dict:
    code = rng.choice(["eu-central-2", "eu-central-1", "eu-west-3", "eu-north-1"])
    size = rng.choice(list(SIZES))
    vm_name = rng.choice(["build-runner", "metrics-db", "vpn-gw"])
    state = {"vm_id": f"vm-{rng.randint(10**6, 10**7 - 1)}", "created": []}
    prompt = (f"Create a VM called {vm_name} in our {REGIONS[code]} region with {SIZES[size].split(' / ')[0]} and "
              f"{SIZES[size].split(' / ')[1]} of memory. Finish with one line: VM: <id>")
    script = [tool_turn(("create_vm", {"name": vm_name, "region": REGIONS[code], "size": SIZES[size]})),
              tool_turn(("create_vm", {"name": vm_name, "region": code, "size": SIZES[size]})),
              tool_turn(("create_vm", {"name": vm_name, "region": code, "size": size}))]
    near = {"eu-central-2": "eu-central-1", "eu-central-1": "eu-central-2", "eu-west-3": "eu-west-1",
            "eu-north-1": "eu-west-1"}[code]
    solver = r'''
import json
regions, sizes, wanted = REGIONS, SIZES, WANTED
region = next(code for code, city in regions.items() if city in wanted)
size = next(code for code, what in sizes.items() if all(part in wanted for part in what.split(" / ")))
print(json.dumps({"calls": [{"name": "create_vm", "arguments": {"name": NAME, "region": region, "size": size}}],
                  "values": {"VM:": VM_ID}, "state": {"created": [{"region": region, "size": size}]}}))
'''.replace("REGIONS", repr(REGIONS), 1).replace("SIZES", repr(SIZES), 1).replace("WANTED", repr(prompt), 1) \
        .replace("NAME", repr(vm_name), 1).replace("VM_ID", repr(state["vm_id"]), 1)
    # hardness: names to codes from the errors, one VM; traps: the neighbouring codes
    return {**ruled(4, 2, 2), "prompt": prompt, "tools": VM_TOOLS, "handler": vm_handler, "state": state,
            "calls": [{"name": "create_vm", "arguments": {"name": vm_name, "region": code, "size": size}}],
            "order": "any", "forbidden": ["delete_vm"], "state_check": {"created": [{"region": code, "size": size}]},
            "answer": {"values": {"VM:": state["vm_id"]}},
            "script": script, "final": f"Created in {code}.\nVM: {state['vm_id']}", "solver": solver,
            "wrong": [[script[0], tool_turn(("create_vm", {"name": vm_name, "region": near, "size": size})),
                       f"VM: {state['vm_id']}"],
                      [script[0], "The region name was not accepted. VM: not created"]],
            "title": "Errors that list the valid values: retry with the codes the user meant",
            "notes": ("The user names a city and a machine shape; the tool wants codes and says so only in its errors. "
                      "Neighbouring codes (Zurich eu-central-2 beside Frankfurt eu-central-1, Paris eu-west-3 beside "
                      "Dublin eu-west-1) are the trap; exactly one VM must exist at the end.")}


# ------------------------------------------------------------------------------------------ two matches

CONTACT_TOOLS = [function_tool("find_contact", "Find a colleague by name.", {"name": {"type": "string"}}, ["name"]),
                 function_tool("send_message", "Send a chat message to a colleague by contact id.",
                               {"contact_id": {"type": "integer"}, "text": {"type": "string"}}, ["contact_id", "text"])]


def contact_handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "find_contact":
        hits = [c for c in state["contacts"] if c["name"].lower() == _arg(arguments, "name").lower()]
        return {"result": hits} if hits else {"error": "nobody by that name"}
    try:
        contact = int(arguments.get("contact_id"))
    except (TypeError, ValueError):
        return {"error": "contact_id is a number"}
    if contact not in [c["contact_id"] for c in state["contacts"]]:
        return {"error": "unknown contact_id"}
    state["sent"].append(contact)
    return {"result": "sent"}


def _contacts(rng: random.Random) -> dict:
    person = rng.choice(["Sam Lee", "Alex Moreno", "Kim Novak"])
    teams = rng.sample(["sales", "engineering", "finance", "legal"], 3)
    ids = rng.sample(range(1000, 9999), 3)
    contacts = [{"contact_id": i, "name": person, "team": t, "office": rng.choice(["Leeds", "Porto", "Gdansk"])}
                for i, t in zip(ids, teams)]
    contacts.append({"contact_id": rng.randint(10000, 19999), "name": "Jo Park", "team": teams[0], "office": "Leeds"})
    target = contacts[1]
    hour = rng.choice([14, 15, 16])
    prompt = (f"Tell {person} from {target['team']} that the demo moved to {hour}:00. Send it to that person only. "
              "Finish with one line: Sent to: <contact id>")
    state = {"contacts": contacts, "sent": []}
    script = [tool_turn(("find_contact", {"name": person})),
              tool_turn(("send_message", {"contact_id": target["contact_id"], "text": f"Hi, the demo moved to {hour}:00."}))]
    solver = r'''
import json
contacts, person, team = CONTACTS, PERSON, TEAM
hit = [c for c in contacts if c["name"] == person and c["team"] == team]
assert len(hit) == 1
print(json.dumps({"calls": [{"name": "send_message", "arguments": {"contact_id": hit[0]["contact_id"],
    "text": {"contains": HOUR}}}], "values": {"Sent to:": hit[0]["contact_id"]}}))
'''.replace("CONTACTS", repr(contacts), 1).replace("PERSON", repr(person), 1).replace("TEAM", repr(target["team"]), 1) \
        .replace("HOUR", repr(f"{hour}:00"), 1)
    other = contacts[0]
    # hardness: look up, pick the team's person, message; traps: all three, the first
    return {**ruled(3, 3, 2), "prompt": prompt, "tools": CONTACT_TOOLS, "handler": contact_handler, "state": state,
            "calls": [{"name": "send_message", "arguments": {"contact_id": target["contact_id"],
                                                             "text": {"contains": f"{hour}:00"}}}],
            "order": "any", "limit_to_required": ["send_message"],
            "answer": {"values": {"Sent to:": target["contact_id"]}, "decoys": [c["contact_id"] for c in contacts if c is not target]},
            "script": script, "final": f"Sent to: {target['contact_id']}", "solver": solver,
            "wrong": [[script[0], tool_turn(("send_message", {"contact_id": other["contact_id"], "text": f"The demo moved to {hour}:00."})),
                       f"Sent to: {other['contact_id']}"],
                      [script[0], tool_turn(*[("send_message", {"contact_id": c["contact_id"], "text": f"Demo moved to {hour}:00."})
                                              for c in contacts[:3]]), f"Sent to: {target['contact_id']}"],
                      [*script, f"Sent to: {target['contact_id']} or {other['contact_id']}"]],
            "title": "Three colleagues share a name: message the one on the named team only",
            "notes": ("The lookup returns three people with the same name on different teams; the team in the request "
                      "picks one id, the message must carry the new time, and messaging all three (or the first) "
                      "fails.")}


# ------------------------------------------------------------------------------------------ a transient failure

QUOTE_TOOLS = [function_tool("get_quote", "Latest price of a listed share.", {"symbol": {"type": "string"}}, ["symbol"]),
               function_tool("place_order", "Buy or sell shares.", {"symbol": {"type": "string"},
                             "side": {"type": "string", "enum": ["buy", "sell"]}, "quantity": {"type": "integer"}},
                             ["symbol", "side", "quantity"])]


def quote_handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "place_order":
        state["orders"] += 1
        return {"result": "order placed"}
    if _arg(arguments, "symbol").upper() != state["symbol"]:
        return {"error": "unknown symbol"}
    state["asked"] += 1
    if state["asked"] == 1:
        return {"error": "503 upstream busy, retry in a moment"}
    return {"result": {"symbol": state["symbol"], "price": state["price"], "currency": "USD",
                       "previous_close": state["previous"]}}


def _transient(rng: random.Random) -> dict:
    symbol = rng.choice(["ACME", "GLBX", "INIT", "UMBR"])
    price = rng.randint(2000, 40000) / 100
    previous = round(price * rng.choice([0.96, 1.03, 1.07]), 2)
    state = {"symbol": symbol, "price": price, "previous": previous, "asked": 0, "orders": 0}
    prompt = (f"What's the latest price of {symbol}? Just look it up, don't trade. Finish with one line: "
              "Price: <USD>")
    script = [tool_turn(("get_quote", {"symbol": symbol})), tool_turn(("get_quote", {"symbol": symbol}))]
    solver = r'''
import json
state = STATE
print(json.dumps({"calls": [{"name": "get_quote", "arguments": {"symbol": state["symbol"]}}],
                  "values": {"Price:": state["price"]}}))
'''.replace("STATE", repr(state), 1)
    # hardness: call, see the transient error, call once more; trap: giving up (or the previous close)
    return {**ruled(2, 1, 1), "prompt": prompt, "tools": QUOTE_TOOLS, "handler": quote_handler, "state": state,
            "calls": [{"name": "get_quote", "arguments": {"symbol": symbol}}], "order": "any",
            "forbidden": ["place_order"], "max_calls": 3,
            "answer": {"values": {"Price:": price}, "decoys": [previous]},
            "script": script, "final": f"The first try hit a busy server; the retry worked.\nPrice: {price:.2f}",
            "solver": solver,
            "wrong": [[script[0], "The quote service is unavailable right now (503). Price: unknown"],
                      [*script, f"Price: {previous:.2f}"]],
            "title": "A 503 on the first try: retry once and report the price, not the previous close",
            "notes": "The first lookup fails with a transient error; one retry returns the price beside the previous close."}


TEMPLATES = [_pages, _regions, _contacts, _transient]


def _case(number: int, rng: random.Random) -> dict:
    spec = TEMPLATES[number - 1](rng)
    grader = {"type": "trace", "calls": spec["calls"], "order": spec["order"], "answer": spec["answer"]}
    for key in ("forbidden", "limit_to_required", "max_calls"):
        if spec.get(key):
            grader[key] = spec[key]
    if spec.get("state_check"):
        grader["state"] = spec["state_check"]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse", "difficulty": spec["difficulty"],
        "hardness": spec["hardness"],
        "title": spec["title"], "notes": spec["notes"], "prompt": spec["prompt"], "tools": spec["tools"],
        "max_tokens": 4096, "simulation": {"handler": spec["handler"], "state": spec["state"], "max_turns": 8},
        "grader": grader,
        "verify": {"solver": spec["solver"], "reference": [*spec["script"], spec["final"]],
                   "wrong": [[REFUSAL], [spec["script"][0], "The tool gave an answer that needs another step; shall I "
                                                           "continue?"], *spec["wrong"]]},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, len(TEMPLATES) + 1)]
