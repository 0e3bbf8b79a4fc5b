"""Agent: route a support ticket by a lookup chain to its contract and an SLA clock (family AG-escalate).

A simulated helpdesk (a Python handler). The ticket names an account; the account may hold no contract itself
(the contract belongs to its parent account: a dead end that names the parent), and it carries an old "plan"
field that no longer decides anything. The contract gives the support tier and the business hours' UTC offset;
the tier's SLA policy gives, per severity, the first-response hours and the clock they run on (24x7, or business
hours 09:00-17:00 Monday to Friday at the contract's offset). The respond-by time is the opening time plus those
hours on that clock; the queue is the tier's, unless less than four hours (wall clock) remain from now to the
respond-by time, then it is sla-breach-risk. Siblings: a business-hours clock across a weekend, close to breach; a
24x7 clock; a ticket opened after hours (the clock starts the next working morning). Traps: the child's old plan,
the 24x7 clock where business hours apply (or the reverse), the clock started at the opening time after hours,
the offset ignored, the tier queue for a ticket about to breach. The solver steps the clock minute by minute.
"""

from __future__ import annotations

import datetime as dt
import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-escalate"
QUEUES = ["sla-breach-risk", "enterprise", "business", "standard"]
COMPANIES = ["Kestrel Foods", "Arden Shipping", "Blue Fjord Energy", "Mosaic Retail", "Orchid Clinics"]
SUBJECTS = ["Invoices not syncing", "API returns 502 for bulk uploads", "Users cannot reset passwords",
            "Export stuck at 99%"]
OFFSETS = [1, 2, -5, 9]
POLICY = {"enterprise": {"S1": (4, "24x7"), "S2": (8, "business"), "S3": (16, "business")},
          "business": {"S1": (8, "24x7"), "S2": (12, "business"), "S3": (24, "business")},
          "standard": {"S1": (12, "business"), "S2": (24, "business"), "S3": (40, "business")}}

TOOLS = [
    function_tool("get_ticket", "A support ticket.", {"ticket_id": {"type": "string"}}, ["ticket_id"]),
    function_tool("get_account", "A customer account.", {"account_id": {"type": "string"}}, ["account_id"]),
    function_tool("get_contract", "A support contract.", {"contract_id": {"type": "string"}}, ["contract_id"]),
    function_tool("get_sla_policy", "The first-response SLA of a support tier, per severity.",
                  {"tier": {"type": "string", "enum": ["enterprise", "business", "standard"]}}, ["tier"]),
    function_tool("route_ticket", "Put a ticket in a queue with its respond-by time.",
                  {"ticket_id": {"type": "string"}, "queue": {"type": "string", "enum": QUEUES},
                   "respond_by": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$",
                                  "description": "UTC, e.g. 2026-03-09T14:30Z"}},
                  ["ticket_id", "queue", "respond_by"]),
    function_tool("page_manager", "Page the support manager on duty.", {"message": {"type": "string"}}, ["message"]),
]


def handler(name: str, arguments: dict, state: dict) -> dict:
    key = {"get_ticket": "ticket_id", "get_account": "account_id", "get_contract": "contract_id",
           "get_sla_policy": "tier"}.get(name)
    if key:
        found = state["records"].get(" ".join(str(arguments.get(key, "")).split()).upper())
        return {"result": found} if found else {"error": f"no {key.split('_')[0]} {arguments.get(key)!r}"}
    if name == "route_ticket":
        if state["routed"] is not None:
            return {"error": "the ticket is already routed"}
        state["routed"] = {k: str(arguments.get(k)) for k in ("ticket_id", "queue", "respond_by")}
        return {"result": "routed"}
    return {"result": "paged"}


def _add_business(start: dt.datetime, hours: int, offset: int) -> dt.datetime:
    """start (UTC) plus `hours` of 09:00-17:00 Monday-Friday at UTC+offset, by whole working days."""
    local = start + dt.timedelta(hours=offset)
    day_start = local.replace(hour=9, minute=0)
    if local.weekday() >= 5 or local >= local.replace(hour=17, minute=0):
        local = day_start + dt.timedelta(days=1)
        while local.weekday() >= 5:
            local += dt.timedelta(days=1)
    elif local < day_start:
        local = day_start
    left = dt.timedelta(hours=hours)
    while True:
        today = local.replace(hour=17, minute=0) - local
        if left <= today:
            return local + left - dt.timedelta(hours=offset)
        left -= today
        local = local.replace(hour=9, minute=0) + dt.timedelta(days=1)
        while local.weekday() >= 5:
            local += dt.timedelta(days=1)


def _iso(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%MZ")


SOLVER = """
import json, datetime as dt
OPENED, NOW, HOURS, CLOCK, OFFSET, TIER = {opened!r}, {now!r}, {hours!r}, {clock!r}, {offset!r}, {tier!r}
t = dt.datetime.strptime(OPENED, "%Y-%m-%dT%H:%MZ")
left = HOURS * 60
while left:  # step the clock a minute at a time
    local = t + dt.timedelta(hours=OFFSET)
    if CLOCK == "24x7" or (local.weekday() < 5 and 9 <= local.hour < 17):
        left -= 1
    t += dt.timedelta(minutes=1)
now = dt.datetime.strptime(NOW, "%Y-%m-%dT%H:%MZ")
queue = "sla-breach-risk" if t - now < dt.timedelta(hours=4) else TIER
due = t.strftime("%Y-%m-%dT%H:%MZ")
print(json.dumps({{"values": {{"Queue:": queue, "Respond by:": due}}}}))
"""


def _world(number: int, rng: random.Random) -> dict:
    offset = rng.choice(OFFSETS)
    monday = dt.date(2026, rng.randint(1, 11), 1)
    monday += dt.timedelta(days=(7 - monday.weekday()) % 7 + 7 * rng.randint(0, 2))
    if number == 1:  # business hours over a weekend, little time left
        tier, severity = rng.choice([("enterprise", "S2"), ("business", "S2")])
        local_open = dt.datetime.combine(monday + dt.timedelta(days=4),
                                         dt.time(rng.randint(13, 15), rng.choice([10, 25, 40])))
    elif number == 2:  # a 24x7 clock for the top severity, opened on a Saturday
        tier, severity = rng.choice([("enterprise", "S1"), ("business", "S1")])
        local_open = dt.datetime.combine(monday + dt.timedelta(days=5),
                                         dt.time(rng.randint(8, 20), rng.choice([5, 35])))
    else:  # opened after hours on a weekday: the clock starts the next morning
        tier, severity = rng.choice([("enterprise", "S3"), ("standard", "S1"), ("business", "S2")])
        local_open = dt.datetime.combine(monday + dt.timedelta(days=rng.randint(1, 3)),
                                         dt.time(rng.randint(18, 22), rng.choice([0, 20, 45])))
    opened = local_open - dt.timedelta(hours=offset)
    hours, clock = POLICY[tier][severity]
    due = opened + dt.timedelta(hours=hours) if clock == "24x7" else _add_business(opened, hours, offset)
    if number == 1:
        now = due - dt.timedelta(hours=rng.randint(1, 3), minutes=rng.choice([0, 15, 30]))
    else:
        now = due - dt.timedelta(hours=rng.randint(5, 7), minutes=rng.choice([0, 20, 40]))
        now = max(now, opened + dt.timedelta(minutes=10))
    queue = "sla-breach-risk" if due - now < dt.timedelta(hours=4) else tier
    old_plan = next(t for t in ("standard", "business", "enterprise") if t != tier)
    return {"offset": offset, "tier": tier, "severity": severity, "opened": opened, "hours": hours, "clock": clock,
            "due": due, "now": now, "queue": queue, "old_plan": old_plan}


def _case(number: int, rng: random.Random) -> dict:
    w = _world(number, rng)
    ticket, child, parent = f"TCK-{rng.randint(10000, 99999)}", f"ACC-{rng.randint(1000, 4999)}", \
        f"ACC-{rng.randint(5000, 9999)}"
    contract = f"CON-{rng.randint(100, 999)}"
    company = rng.choice(COMPANIES)
    sign = "+" if w["offset"] >= 0 else "-"
    zone = f"UTC{sign}{abs(w['offset']):02d}:00"
    records = {
        ticket: {"ticket_id": ticket, "account_id": child, "severity": w["severity"], "subject": rng.choice(SUBJECTS),
                 "opened_at": _iso(w["opened"])},
        child: {"account_id": child, "name": f"{company} (subsidiary)", "plan": w["old_plan"],
                "plan_note": "legacy field from the old billing system", "contract_id": None,
                "support": f"covered by the contract of parent account {parent}"},
        parent: {"account_id": parent, "name": company, "contract_id": contract},
        contract: {"contract_id": contract, "account_id": parent, "tier": w["tier"],
                   "business_hours": f"09:00-17:00 Monday to Friday, {zone}"},
        **{t.upper(): {"tier": t, "first_response": {s: {"hours": h, "clock": "24x7" if c == "24x7" else
                                                          "business hours"} for s, (h, c) in p.items()}}
           for t, p in POLICY.items()},
    }
    due, now = _iso(w["due"]), _iso(w["now"])
    prompt = (f"It is now {now} (UTC). Route ticket {ticket}: look up its customer's support contract and the tier's "
              "SLA policy. The respond-by time is the ticket's opening time plus the first-response hours for its "
              "severity, counted on the policy's clock (business hours are those the contract states; 24x7 counts "
              "every hour). Put it in its tier's queue, unless less than 4 hours remain from now until the respond-by "
              "time: then the queue is sla-breach-risk.\n\nFinish with exactly two lines:\nQueue: <queue>\n"
              "Respond by: <YYYY-MM-DDTHH:MMZ>")
    walk = [tool_turn(("get_ticket", {"ticket_id": ticket})), tool_turn(("get_account", {"account_id": child})),
            tool_turn(("get_account", {"account_id": parent})), tool_turn(("get_contract", {"contract_id": contract})),
            tool_turn(("get_sla_policy", {"tier": w["tier"]}))]
    route = {"ticket_id": ticket, "queue": w["queue"], "respond_by": due}
    answer = f"Queue: {w['queue']}\nRespond by: {due}"

    def routed(queue: str, when: str) -> list:
        return [tool_turn(("route_ticket", {"ticket_id": ticket, "queue": queue, "respond_by": when})),
                f"Queue: {queue}\nRespond by: {when}"]

    other_clock = _add_business(w["opened"], w["hours"], w["offset"]) if w["clock"] == "24x7" else \
        w["opened"] + dt.timedelta(hours=w["hours"])
    no_offset = w["opened"] + dt.timedelta(hours=w["hours"]) if w["clock"] == "24x7" else \
        _add_business(w["opened"], w["hours"], 0)
    wrong_queue = w["tier"] if w["queue"] == "sla-breach-risk" else "sla-breach-risk"
    wrong = [["I'm sorry, I can't route tickets."],
             [*walk, *routed(w["queue"], _iso(other_clock))],
             [*walk, *routed(wrong_queue, due)],
             [*walk[:2], tool_turn(("get_sla_policy", {"tier": w["old_plan"]})),
              *routed(w["old_plan"], due)],
             [*walk, tool_turn(("page_manager", {"message": f"{ticket} close to breach"})),
              tool_turn(("route_ticket", route)), answer]]
    if no_offset != w["due"]:
        wrong.append([*walk, *routed(w["queue"], _iso(no_offset))])
    decoys = sorted({_iso(other_clock), _iso(no_offset), wrong_queue, w["old_plan"]} - {due, w["queue"]})
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # ticket, account (dead end), parent, contract, policy; the clock over nights and weekends at the offset;
        # the four-hour comparison; the routing call and the report
        **ruled(9 if w["clock"] == "business" else 8, 1, 3),
        "title": "Route a ticket by its parent's contract and an SLA clock that runs on business hours",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 16384,
        "simulation": {"handler": handler, "max_turns": 14, "state": {"records": records, "routed": None}},
        "grader": {"type": "trace", "forbidden": ["page_manager"], "limit_to_required": ["route_ticket"],
                   "calls": [{"name": "get_contract", "arguments": {"contract_id": contract}},
                             {"name": "get_sla_policy", "arguments": {"tier": w["tier"]}},
                             {"name": "route_ticket", "arguments": route}],
                   "state": {"routed": route},
                   "answer": {"values": {"Queue:": w["queue"], "Respond by:": due}, "decoys": decoys}},
        "notes": (f"{w['tier']} {w['severity']}: {w['hours']} h on the {w['clock']} clock at {zone}; opened "
                  f"{_iso(w['opened'])}, due {due}, now {now}: queue {w['queue']}. The child account holds no "
                  f"contract (its parent does) and shows an old plan ({w['old_plan']}). Why a strong 30B model fails: "
                  "five lookups, one a dead end that only names the parent, then business-hours arithmetic across "
                  "nights and a weekend at an offset, then a comparison with now; models route by the child's plan, "
                  "add the hours on the wall clock, or start the clock at an after-hours opening time."),
        "verify": {"solver": SOLVER.format(opened=_iso(w["opened"]), now=now, hours=w["hours"], clock=w["clock"],
                                           offset=w["offset"], tier=w["tier"]),
                   "reference": [*walk, tool_turn(("route_ticket", route)), f"Routed.\n\n{answer}"],
                   "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
