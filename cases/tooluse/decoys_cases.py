"""Tool use: the right tool among near namesakes (family TU-decoy).

Each case offers three or four tools whose names and arguments are nearly the same and whose
descriptions differ in the one thing the user's request decides: whose account, which folder, whether
connections drop, before or after delivery, one date or a window of dates, a deprecated copy. The right
call has to be read from the descriptions, not the names; every decoy called with the same arguments
is a wrong reply. Each solver re-reads the values from the prompt text and names the tool by the rule
the descriptions state.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-decoy"
REFUSAL = "I'm sorry, but I can't help with that request."


def _accounts(rng: random.Random) -> dict:
    user = rng.choice(["m.okafor", "j.lindgren", "a.costa", "p.dubois"])
    email = f"{user}@{rng.choice(['northwind.example', 'fabrikam.example', 'tailspin.example'])}"
    tools = [function_tool("get_user", "Fetch one account by its numeric id.", {"user_id": {"type": "integer"}}, ["user_id"]),
             function_tool("get_user_by_email", "DEPRECATED: reads the old directory, which stopped syncing in "
                           "2024 and misses every account created or changed since. Do not use.",
                           {"email": {"type": "string"}}, ["email"]),
             function_tool("find_users", "Search the current directory by email address or by name.",
                           {"email": {"type": "string"}, "name": {"type": "string"}}),
             function_tool("delete_user", "Delete an account.", {"user_id": {"type": "integer"}}, ["user_id"])]
    prompt = f"Look up the account that uses the email address {email}. It was created last month."
    right = ("find_users", {"email": email})
    solver = r'''
import json, re
prompt = PROMPT
email = re.search(r"address (\S+@\S+?)\.\s", prompt).group(1)
# the by-email tool reads a directory that stopped syncing; the search tool reads the current one
print(json.dumps({"calls": [{"name": "find_users", "arguments": {"email": email}}]}))
'''
    # hardness: read the tool descriptions, call the generic search; trap: the deprecated tool
    return {**ruled(2, 3, 1), "prompt": prompt, "tools": tools, "right": right, "solver": solver,
            "wrong": [("get_user_by_email", {"email": email}), ("find_users", {"name": user})],
            "forbidden": ["get_user_by_email", "delete_user"],
            "title": "A search tool beside a deprecated lookup whose name fits the request better",
            "notes": ("The tool named for the task (get_user_by_email) is deprecated and cannot see accounts created "
                      "after 2024, and the user says the account is new; only the generic search reads the current "
                      "directory.")}


def _transfers(rng: random.Random) -> dict:
    cents = rng.randint(5000, 250000)
    savings, checking = f"SAV-{rng.randint(1000, 9999)}", f"CHK-{rng.randint(1000, 9999)}"
    amount = {"type": "integer", "description": "Amount in cents"}
    tools = [function_tool("transfer_between_accounts", "Move money now between two accounts the user owns.",
                           {"from_account": {"type": "string"}, "to_account": {"type": "string"}, "amount_cents": amount},
                           ["from_account", "to_account", "amount_cents"]),
             function_tool("send_payment", "Pay someone else's account now.",
                           {"from_account": {"type": "string"}, "to_account": {"type": "string"}, "amount_cents": amount,
                            "reference": {"type": "string"}}, ["from_account", "to_account", "amount_cents"]),
             function_tool("schedule_transfer", "Move money between the user's own accounts on a future date.",
                           {"from_account": {"type": "string"}, "to_account": {"type": "string"}, "amount_cents": amount,
                            "date": {"type": "string"}}, ["from_account", "to_account", "amount_cents", "date"])]
    prompt = (f"Move €{cents / 100:,.2f} from my savings account ({savings}) to my own checking account ({checking}), "
              "right away please.")
    args = {"from_account": savings, "to_account": checking, "amount_cents": cents}
    solver = r'''
import json, re
prompt = PROMPT
euros = re.search(r"€([\d,]+\.\d\d)", prompt).group(1).replace(",", "").replace(".", "")
source = re.search(r"savings account \((\S+)\)", prompt).group(1)
target = re.search(r"checking account \((\S+)\)", prompt).group(1)
print(json.dumps({"calls": [{"name": "transfer_between_accounts", "arguments": {"from_account": source,
    "to_account": target, "amount_cents": int(euros)}}]}))
'''
    # hardness: pick the tool, cents, direction; traps: the other transfer tools, flipped direction
    return {**ruled(3, 3, 2), "prompt": prompt, "tools": tools, "right": ("transfer_between_accounts", args),
            "solver": solver, "forbidden": ["send_payment", "schedule_transfer"],
            "wrong": [("send_payment", args), ("transfer_between_accounts", {**args, "from_account": checking, "to_account": savings}),
                      ("transfer_between_accounts", {**args, "amount_cents": cents // 100})],
            "title": "Between the user's own accounts now, not a payment and not a scheduled transfer",
            "notes": ("Three transfer tools with the same three arguments; own accounts and 'right away' pick one, the "
                      "amount goes to cents and the direction must not flip.")}


def _mail(rng: random.Random) -> dict:
    message = rng.randint(10000, 99999)
    folder = rng.choice(["Receipts", "Travel", "Taxes 2026", "Kids' school"])
    mid = {"message_id": {"type": "integer"}}
    tools = [function_tool("archive_message", "Take a message out of the inbox into All Mail.", mid, ["message_id"]),
             function_tool("move_message", "Move a message out of the inbox into a named folder.",
                           {**mid, "folder": {"type": "string"}}, ["message_id", "folder"]),
             function_tool("label_message", "Add a label to a message; it stays in the inbox.",
                           {**mid, "label": {"type": "string"}}, ["message_id", "label"]),
             function_tool("delete_message", "Move a message to the trash.", mid, ["message_id"])]
    prompt = f"File message {message} under my \"{folder}\" folder so it is no longer in the inbox."
    solver = r'''
import json, re
prompt = PROMPT
message = int(re.search(r"message (\d+)", prompt).group(1))
folder = re.search(r'"([^"]+)" folder', prompt).group(1)
print(json.dumps({"calls": [{"name": "move_message", "arguments": {"message_id": message, "folder": folder}}]}))
'''
    # hardness: pick move over label and archive; traps: label, archive
    return {**ruled(2, 3, 2), "prompt": prompt, "tools": tools,
            "right": ("move_message", {"message_id": message, "folder": folder}), "solver": solver,
            "forbidden": ["delete_message", "archive_message"],
            "wrong": [("label_message", {"message_id": message, "label": folder}), ("archive_message", {"message_id": message})],
            "title": "A named folder, out of the inbox: move, not label or archive",
            "notes": ("Labelling files the message under the folder's name but leaves it in the inbox; archiving "
                      "takes it out of the inbox but into no folder; only move does both.")}


def _services(rng: random.Random) -> dict:
    service, host = rng.choice(["nginx", "haproxy", "envoy"]), f"web-{rng.randint(10, 49)}"
    args = {"host": {"type": "string"}, "service": {"type": "string"}}
    tools = [function_tool("restart_service", "Stop and start a service; open connections are dropped.", args,
                           ["host", "service"]),
             function_tool("reload_service", "Make a running service re-read its configuration; open connections "
                           "are kept.", args, ["host", "service"]),
             function_tool("reload_all_services", "Re-read the configuration of every service on a host.",
                           {"host": {"type": "string"}}, ["host"]),
             function_tool("reboot_host", "Reboot a host.", {"host": {"type": "string"}}, ["host"])]
    prompt = (f"I've just edited the {service} configuration on {host}. Apply it, but don't cut off anyone who is "
              "connected right now, and leave the other services on that host alone.")
    solver = r'''
import json, re
prompt = PROMPT
service, host = re.search(r"edited the (\w+) configuration on ([\w-]+)\.", prompt).groups()
print(json.dumps({"calls": [{"name": "reload_service", "arguments": {"host": host, "service": service}}]}))
'''
    # hardness: pick reload of one service; traps: restart, the plural reload
    return {**ruled(2, 3, 2), "prompt": prompt, "tools": tools,
            "right": ("reload_service", {"host": host, "service": service}), "solver": solver,
            "forbidden": ["restart_service", "reboot_host", "reload_all_services"],
            "wrong": [("restart_service", {"host": host, "service": service}), ("reload_all_services", {"host": host})],
            "title": "Apply a configuration without dropping connections: reload one service, not restart or reload all",
            "notes": ("'Restart' is the habitual answer to 'apply the config'; the descriptions say it drops "
                      "connections. The plural reload also fits the words but touches the other services the user "
                      "said to leave alone.")}


def _orders(rng: random.Random) -> dict:
    order = rng.randint(100000, 999999)
    item = rng.choice(["kettle", "desk lamp", "blender", "toaster"])
    oid = {"order_id": {"type": "integer"}}
    reason = {"type": "string", "enum": ["damaged", "wrong_item", "not_needed", "late"]}
    tools = [function_tool("cancel_order", "Cancel an order that has not shipped yet.", {**oid, "reason": reason},
                           ["order_id", "reason"]),
             function_tool("return_order", "Start a return for a delivered order; the customer gets a prepaid label.",
                           {**oid, "reason": reason}, ["order_id", "reason"]),
             function_tool("report_delivery_problem", "Report a parcel that was lost or never arrived.",
                           {**oid, "details": {"type": "string"}}, ["order_id", "details"])]
    prompt = (f"Order {order} was delivered yesterday, but the {item} inside arrived cracked and doesn't work. "
              "I'd like to send it back.")
    solver = r'''
import json, re
prompt = PROMPT
order = int(re.search(r"Order (\d+)", prompt).group(1))
state = "delivered" if "delivered" in prompt else "pending"
tool = "return_order" if state == "delivered" else "cancel_order"
reason = "damaged" if "cracked" in prompt else "not_needed"
print(json.dumps({"calls": [{"name": tool, "arguments": {"order_id": order, "reason": reason}}]}))
'''
    # hardness: return, not a delivery problem, the reason enum; traps: the other tool, not_needed
    return {**ruled(3, 3, 2), "prompt": prompt, "tools": tools,
            "right": ("return_order", {"order_id": order, "reason": "damaged"}), "solver": solver,
            "forbidden": ["cancel_order"],
            "wrong": [("cancel_order", {"order_id": order, "reason": "damaged"}),
                      ("return_order", {"order_id": order, "reason": "not_needed"}),
                      ("report_delivery_problem", {"order_id": order, "details": f"The {item} arrived cracked."})],
            "title": "A delivered, broken item: a return with the right reason, not a cancellation",
            "notes": ("'Send it back' after delivery is a return; the reason enum must say damaged, not not_needed; "
                      "the delivery-problem tool is for parcels that never arrived.")}


def _flights(rng: random.Random) -> dict:
    start = date(2026, rng.randint(4, 9), rng.randint(3, 20))
    window = rng.choice([1, 2, 3])
    end = start + timedelta(days=2 * window)
    pair = rng.choice([("Vienna", "Porto"), ("Krakow", "Bilbao"), ("Tallinn", "Nice"), ("Bergen", "Palermo")])
    place = {"origin": {"type": "string"}, "destination": {"type": "string"},
             "date": {"type": "string", "description": "YYYY-MM-DD"}}
    tools = [function_tool("search_flights", "Flights on exactly one date.", place, list(place)),
             function_tool("search_flights_flexible", "Flights on every date from date - window_days to date + "
                           "window_days.", {**place, "window_days": {"type": "integer", "minimum": 1, "maximum": 7}},
                           [*place, "window_days"]),
             function_tool("book_flight", "Book a flight by its number.", {"flight_number": {"type": "string"}},
                           ["flight_number"])]
    said = lambda d: f"{d.strftime('%B')} {d.day}"  # noqa: E731
    prompt = (f"I can fly from {pair[0]} to {pair[1]} on any day from {said(start)} to {said(end)}, 2026 (both "
              "included). Show me all the flights in that range in one search; don't book anything.")
    middle = start + timedelta(days=window)
    args = {"origin": pair[0], "destination": pair[1], "date": middle.isoformat(), "window_days": window}
    solver = r'''
import json, re
from datetime import date, timedelta
prompt = PROMPT
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
origin, destination = re.search(r"fly from (\w+) to (\w+)", prompt).groups()
(m1, d1), (m2, d2) = re.findall(r"(\w+) (\d+)(?=,| to)", prompt.split("on any day from ")[1])[:2]
first = date(2026, MONTHS.index(m1) + 1, int(d1))
last = date(2026, MONTHS.index(m2) + 1, int(d2))
days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
centre, window = days[len(days) // 2], len(days) // 2
print(json.dumps({"calls": [{"name": "search_flights_flexible", "arguments": {"origin": origin,
    "destination": destination, "date": centre.isoformat(), "window_days": window}}]}))
'''
    # hardness: the range's middle day and half-width; traps: start at the first day, the full width
    return {**ruled(4, 2, 2), "prompt": prompt, "tools": tools, "right": ("search_flights_flexible", args),
            "solver": solver, "forbidden": ["book_flight"],
            "wrong": [("search_flights", {k: v for k, v in args.items() if k != "window_days"}),
                      ("search_flights_flexible", {**args, "date": start.isoformat(), "window_days": 2 * window}),
                      ("search_flights_flexible", {**args, "window_days": 2 * window})],
            "title": "A range of days as one flexible search: its middle date and half-width",
            "notes": ("The flexible tool takes a centre and a half-width, not a start and an end: the range has to be "
                      "turned into its middle day (across a month end for some seeds) and half its length; a search "
                      "starting at the first day, or a window as wide as the whole range, covers the wrong days.")}


TEMPLATES = [_accounts, _transfers, _mail, _services, _orders, _flights]


def _case(number: int, rng: random.Random) -> dict:
    spec = TEMPLATES[number - 1](rng)
    name, args = spec["right"]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse", "difficulty": spec["difficulty"],
        "hardness": spec["hardness"],
        "title": spec["title"], "notes": spec["notes"], "prompt": spec["prompt"], "tools": spec["tools"],
        "max_tokens": 2048,
        "grader": {"type": "tool_calls", "calls": [{"name": name, "arguments": args}], "allow_extra": False,
                   "arguments_match": "exact", "forbidden": spec["forbidden"]},
        "verify": {"solver": spec["solver"].replace("PROMPT", repr(spec["prompt"]), 1),
                   "reference": tool_turn((name, args)),
                   "wrong": [REFUSAL, "There are several tools that could do this; which one would you like me to use?",
                             *[tool_turn(w) for w in spec["wrong"]], tool_turn((name, args), *spec["wrong"][:1])]},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, len(TEMPLATES) + 1)]
