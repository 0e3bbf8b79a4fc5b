"""Tool use: per parcel, the one of three lookup tools whose required inputs the user supplied (family TU-track).

Three tracking tools need different inputs: track_by_number a tracking number and its carrier, track_by_order an
order number and the email the order was placed with, track_by_reference a shipment reference and the delivery
postcode. The user asks about three parcels and tells what they have for each, in passing and incompletely: a
tracking number without the carrier ("no idea which company"), an order number without the email ("I used some
old address"), a reference with the postcode inside an address. The stated preference is number, then order,
then reference, but only a tool whose every required input is known may be called: each parcel needs the first
tool in that order that the details complete, and each case uses all three tools once. Traps: a carrier guessed
for a tracking number the user could not place, an order lookup without the email (or with the email of another
parcel), the postcode missing, a parcel looked up twice. Each solver parses each parcel's sentence for every input
and tries the tools in the stated order.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-track"
REFUSAL = "I'm sorry, but I can't help with that request."
CARRIERS = {"dhl": "DHL", "ups": "UPS", "dpd": "DPD", "gls": "GLS"}
ITEMS = ["the kitchen scales", "the running shoes", "the printer toner", "the birthday present for Mia",
         "the replacement charger", "the garden hose", "the winter jacket"]
CITIES = [("10115", "Berlin"), ("80331", "Munich"), ("50667", "Cologne"), ("20095", "Hamburg"), ("04109", "Leipzig")]
TOOLS = [function_tool("track_by_number", "Track a parcel by its tracking number; needs the carrier.",
                       {"tracking_number": {"type": "string"}, "carrier": {"type": "string", "enum": list(CARRIERS)}},
                       ["tracking_number", "carrier"]),
         function_tool("track_by_order", "Track the parcel of a shop order; needs the email the order was placed with.",
                       {"order_id": {"type": "string"}, "email": {"type": "string"}}, ["order_id", "email"]),
         function_tool("track_by_reference", "Track a parcel by the shop's shipment reference and the delivery "
                       "postcode.", {"reference": {"type": "string"}, "postcode": {"type": "string"}},
                       ["reference", "postcode"])]

SOLVER = r'''
import json, re
prompt = PROMPT
carriers = {"DHL": "dhl", "UPS": "ups", "DPD": "dpd", "GLS": "gls"}
calls = []
for line in re.findall(r"^- (.+)$", prompt, re.M):
    found = {}
    m = re.search(r"tracking number ([A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4})", line)
    if m:
        found["tracking_number"] = m.group(1)
    m = re.search(r"\b(DHL|UPS|DPD|GLS)\b", line)
    if m:
        found["carrier"] = carriers[m.group(1)]
    m = re.search(r"order (?:number )?(\d{7})", line)
    if m:
        found["order_id"] = m.group(1)
    m = re.search(r"[\w.]+@[\w.]+\w", line)
    if m:
        found["email"] = m.group(0)
    m = re.search(r"reference (?:is )?(SR-\d{5})", line)
    if m:
        found["reference"] = m.group(1)
    m = re.search(r"\b(\d{5}) [A-Z][a-z]+", line)
    if m:
        found["postcode"] = m.group(1)
    for tool, needs in (("track_by_number", ["tracking_number", "carrier"]), ("track_by_order", ["order_id", "email"]),
                        ("track_by_reference", ["reference", "postcode"])):
        if all(k in found for k in needs):
            calls.append({"name": tool, "arguments": {k: found[k] for k in needs}})
            break
print(json.dumps({"calls": calls}))
'''


def _code(rng: random.Random) -> str:
    chars = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
    return "-".join("".join(rng.choice(chars) for _ in range(4)) for _ in range(3))


def _parcel(target: str, rng: random.Random, item: str) -> tuple[str, dict, dict]:
    """A parcel's sentence, the right call's arguments and a trap call (tool, arguments)."""
    number, carrier = _code(rng), rng.choice(list(CARRIERS))
    order = str(rng.randint(1_000_000, 9_999_999))
    email = f"{rng.choice(['ana', 'jo', 'kim'])}.{rng.randint(10, 99)}@{rng.choice(['mailbox', 'webpost'])}.example"
    ref, (postcode, city) = f"SR-{rng.randint(10000, 99999)}", rng.choice(CITIES)
    street = f"{rng.choice(['Linden', 'Garten', 'Schiller', 'Park'])}strasse {rng.randint(2, 80)}"
    if target == "track_by_number":
        parts = [f"tracking number {number}, sent with {CARRIERS[carrier]}"]
        if rng.random() < 0.5:
            parts.append(f"it was order {order}, placed with {email}")
        args, trap = {"tracking_number": number, "carrier": carrier}, \
            ("track_by_order", {"order_id": order, "email": email})
    elif target == "track_by_order":
        parts = [f"I have the tracking number {number} but no idea which company delivers it",
                 f"it's order number {order}, I ordered with {email}"]
        args, trap = {"order_id": order, "email": email}, \
            ("track_by_number", {"tracking_number": number, "carrier": carrier})
    else:
        parts = [f"order {order}, but I used some old email address I no longer have",
                 f"the shop's reference is {ref} and it goes to {street}, {postcode} {city}"]
        if rng.random() < 0.5:
            parts.insert(0, f"the tracking number {number} came without a carrier name")
        args, trap = {"reference": ref, "postcode": postcode}, ("track_by_reference", {"reference": ref})
    return f"- {item[0].upper()}{item[1:]}: " + "; ".join(parts) + ".", args, {"tool": trap[0], "arguments": trap[1]}


def _case(number: int, rng: random.Random) -> dict:
    targets = ["track_by_number", "track_by_order", "track_by_reference"]
    rng.shuffle(targets)
    items = rng.sample(ITEMS, 3)
    parcels = [_parcel(t, rng, item) for t, item in zip(targets, items)]
    prompt = ("Where are my three parcels? Look each one up once, with the tracking number where you can, otherwise "
              "the order number, otherwise the shop's reference; only use a lookup when you have everything it "
              "needs.\n" + "\n".join(p[0] for p in parcels))
    right = [(t, p[1]) for t, p in zip(targets, parcels)]
    expected = [{"name": t, "arguments": a} for t, a in right]
    wrong = [REFUSAL, "I'd need the carrier for one of these; could you tell me which company delivers it?"]
    for i, (t, p) in enumerate(zip(targets, parcels)):
        trap = p[2]
        others = [c for j, c in enumerate(right) if j != i]
        wrong.append(tool_turn(*others, (trap["tool"], trap["arguments"])))  # guessed carrier, lost email, no postcode
        wrong.append(tool_turn(*others))
    wrong.append(tool_turn(*right, right[0]))
    wrong.append(tool_turn(*[(t, {**a, "carrier": CARRIERS[a["carrier"]]} if t == "track_by_number" else a)
                             for t, a in right]))
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # per parcel: collect its inputs and take the first tool in the stated order that they complete
        **ruled(3, 3 ** 3, 2),
        "title": "Three parcels, each tracked with the first of three tools whose inputs the user actually gave",
        "notes": (f"Order of tools by parcel: {', '.join(targets)}. The tracking number of the parcel that needs the "
                  "order lookup has no carrier (a guessed carrier fails); the reference parcel names an order whose "
                  "email is lost, and its postcode sits inside an address. Calls are compared exactly, in any order."),
        "prompt": prompt, "tools": TOOLS, "max_tokens": 2048,
        "grader": {"type": "tool_calls", "calls": expected, "allow_extra": False, "arguments_match": "exact"},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": tool_turn(*right),
                   "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
