"""Agent: find the right tickets in a paginated helpdesk and change exactly those (family AG-ticket).

The helpdesk (a Python handler) holds a dozen tickets on one topic. Search results show id, title,
status and the reporter's display name, five per page, newest first; only get_ticket shows the
reporter's email and the creation date. Decoys: another customer with the same display name and the
same complaint, the same customer's ticket on a different problem, and an old closed ticket with the
same title. Two tasks: close the newer of a customer's two open duplicates as a duplicate of the older
(`dup`), and close as fixed every open ticket a customer has on the topic (`fixed`). Changing anything
else (a comment, a reassignment, another ticket) fails, and so does any call after the last change.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-ticket"
PAGE = 5
TOPICS = [
    ("VPN", "VPN drops every 10 minutes", "VPN is slow in the morning", ["VPN client crashes on start",
     "Cannot install VPN profile", "VPN asks for password twice", "VPN blocked on hotel wifi"]),
    ("printer", "Printer on floor 3 jams on duplex", "Printer prints blank pages", ["Printer driver missing",
     "Printer shows offline", "Printer toner warning", "Printer queue stuck"]),
    ("mailbox", "Mailbox full warning after cleanup", "Mailbox rules not applied", ["Mailbox shared access",
     "Mailbox search finds nothing", "Mailbox sync slow on phone", "Mailbox archive missing"]),
]
FIRST = ["Priya", "Tomas", "Aiko", "Lena", "Omar", "Greta"]
LAST = ["Raman", "Novak", "Sato", "Ortiz", "Haddad", "Lind"]
OTHER_LAST = ["Reyes", "Nilsen", "Suzuki", "Okafor", "Hale", "Lopes"]

TOOLS = [
    function_tool("search_tickets", "Search helpdesk tickets by words in the title or the reporter's name. "
                  "Returns five results per page, newest first, with the number of pages.",
                  {"query": {"type": "string"}, "page": {"type": "integer", "minimum": 1}}, ["query"]),
    function_tool("get_ticket", "The full ticket: reporter name and email, created date, status, description.",
                  {"id": {"type": "string"}}, ["id"]),
    function_tool("close_ticket", "Close a ticket with a resolution. duplicate_of is required when the "
                  "resolution is duplicate.",
                  {"id": {"type": "string"},
                   "resolution": {"type": "string", "enum": ["fixed", "duplicate", "wont_fix", "invalid"]},
                   "duplicate_of": {"type": "string"}}, ["id", "resolution"]),
    function_tool("add_comment", "Add a public comment to a ticket.",
                  {"id": {"type": "string"}, "text": {"type": "string"}}, ["id", "text"]),
    function_tool("reassign_ticket", "Assign a ticket to a team.",
                  {"id": {"type": "string"}, "team": {"type": "string"}}, ["id", "team"]),
]


def handler(name: str, arguments: dict, state: dict) -> dict:
    tickets = state["tickets"]
    by_id = {t["id"].lower(): t for t in tickets}
    if name == "search_tickets":
        words = [w for w in str(arguments.get("query", "")).lower().replace(",", " ").split() if len(w) >= 3]
        if not words:
            return {"error": "query needs at least one word of three letters or more"}
        hits = [t for t in sorted(tickets, key=lambda t: t["id"], reverse=True)
                if any(w in f"{t['title']} {t['name']}".lower().split() for w in words)]
        page = arguments.get("page") or 1
        pages = max(1, -(-len(hits) // PAGE))
        if not isinstance(page, int) or not 1 <= page <= pages:
            return {"error": f"page must be between 1 and {pages}"}
        shown = [{k: t[k] for k in ("id", "title", "status")} | {"reporter": t["name"]}
                 for t in hits[(page - 1) * PAGE:page * PAGE]]
        return {"result": {"results": shown, "page": page, "pages": pages, "total": len(hits)}}
    ticket = by_id.get(str(arguments.get("id", "")).strip().lower())
    if ticket is None:
        return {"error": f"no ticket {arguments.get('id')!r}"}
    if name == "get_ticket":
        return {"result": {k: ticket[k] for k in ("id", "title", "status", "created", "description")}
                | {"reporter": f"{ticket['name']} <{ticket['email']}>"}}
    if ticket["status"] == "closed":
        return {"error": f"{ticket['id']} is already closed"}
    if name == "close_ticket":
        resolution = str(arguments.get("resolution", "")).strip().lower()
        if resolution not in ("fixed", "duplicate", "wont_fix", "invalid"):
            return {"error": "resolution must be one of fixed, duplicate, wont_fix, invalid"}
        original = str(arguments.get("duplicate_of") or "").strip().lower()
        if resolution == "duplicate" and original not in by_id:
            return {"error": "duplicate_of must name an existing ticket when the resolution is duplicate"}
        ticket["status"] = "closed"
        state["closed"][ticket["id"]] = resolution
        return {"result": f"{ticket['id']} closed ({resolution})"}
    return {"result": f"{name} done on {ticket['id']}"}


def _world(rng: random.Random, i: int) -> dict:
    topic, problem, other_problem, fillers = rng.choice(TOPICS)
    first, last = FIRST[i], LAST[i]
    name = f"{first} {last[0]}."          # the display name search shows; a namesake shares it
    email = f"{first.lower()}.{last.lower()}@northwind.example"
    namesake = f"{first.lower()}.{OTHER_LAST[i].lower()}@contoso.example"
    start = rng.randint(4100, 4800)
    ids = [f"HD-{n}" for n in sorted(rng.sample(range(start, start + 90), 12))]
    day0 = date(2026, 2, 2)
    # roles in creation order; the customer's two open duplicates land on different result pages
    roles = ["old_closed", "filler", "mine_a", "filler", "namesake", "filler", "mine_other", "filler", "filler",
             "mine_b", "filler", "namesake_b"]
    filler_titles = iter(rng.sample(fillers, len(fillers)) * 2)
    tickets = []
    for k, (ident, role) in enumerate(zip(ids, roles)):
        title = next(filler_titles) if role == "filler" else other_problem if role == "mine_other" else problem
        if role == "filler":
            owner = (f"{rng.choice(FIRST)} {rng.choice(OTHER_LAST)}", "someone@fabrikam.example")
        else:
            owner = (name, namesake if role.startswith("namesake") else email)
        office = rng.choice(["Lisbon", "Oslo", "Kyiv", "Pune"])
        tickets.append({"id": ident, "title": title, "status": "closed" if role == "old_closed" else "open",
                        "name": owner[0], "email": owner[1], "created": str(day0 + timedelta(days=2 * k)),
                        "description": f"{title}. Reported from the {office} office.", "role": role})
    return {"tickets": tickets, "email": email, "name": name, "topic": topic, "problem": problem}


SOLVER = '''
import json
TICKETS = {tickets!r}
EMAIL, TOPIC, PROBLEM, KIND = {email!r}, {topic!r}, {problem!r}, {kind!r}
mine = [t for t in TICKETS if t["email"] == EMAIL and t["status"] == "open" and TOPIC.lower() in t["title"].lower()]
if KIND == "dup":
    same = sorted((t for t in mine if t["title"] == PROBLEM), key=lambda t: t["created"])
    assert len(same) == 2
    older, newer = same
    calls = [{{"name": "close_ticket", "arguments": {{"id": newer["id"], "resolution": "duplicate", "duplicate_of": older["id"]}}}}]
    print(json.dumps({{"calls": calls, "values": {{"Closed:": newer["id"], "Duplicate of:": older["id"]}}}}))
else:
    calls = [{{"name": "close_ticket", "arguments": {{"id": t["id"], "resolution": "fixed"}}}} for t in mine]
    print(json.dumps({{"calls": calls, "answer": [t["id"] for t in mine]}}))
'''


def _case(number: int, kind: str, person: int, rng: random.Random) -> dict:
    world = _world(rng, person)
    tickets, email, topic = world["tickets"], world["email"], world["topic"]
    role = {t["role"]: t["id"] for t in tickets}
    decoys = [role["namesake"], role["namesake_b"], role["old_closed"]]
    state = {"tickets": tickets, "closed": {}}
    search = [tool_turn(("search_tickets", {"query": topic, "page": p})) for p in (1, 2, 3)]
    looks = tool_turn(*[("get_ticket", {"id": t["id"]}) for t in tickets if t["name"] == world["name"]])
    intro = (f"You work the helpdesk queue through tools. The customer {email} (display name {world['name']}) "
             f"called about their {topic} tickets. ")
    if kind == "dup":
        a, b = role["mine_a"], role["mine_b"]
        prompt = intro + (f"They opened two tickets for the same problem, \"{world['problem']}\". Close the newer "
                          "of those two open tickets as a duplicate of the older one. Change nothing else.\n\n"
                          "Finish with two lines:\nClosed: <ticket id>\nDuplicate of: <ticket id>")
        calls = [{"name": "close_ticket", "arguments": {"id": b, "resolution": "duplicate", "duplicate_of": a}}]
        act = tool_turn(("close_ticket", {"id": b, "resolution": "duplicate", "duplicate_of": a}))
        answer = {"values": {"Closed:": b, "Duplicate of:": a}, "forbidden": decoys}
        final = f"Closed: {b}\nDuplicate of: {a}"
        near = [*search, looks, tool_turn(("close_ticket", {"id": a, "resolution": "duplicate", "duplicate_of": b})),
                f"Closed: {a}\nDuplicate of: {b}"]
        extra = [*search, looks, act, tool_turn(("add_comment", {"id": b, "text": f"Duplicate of {a}."})), final]
        hedge = [*search, looks, act, f"Closed: {b} (or {role['namesake_b']})\nDuplicate of: {a}"]
        goal = [{"name": "close_ticket", "arguments": {"id": b}}]
        notes = ("Twelve tickets on three result pages; the customer's two duplicates are on different pages, a "
                 "namesake (same display name, other email) has the same complaint twice, and the customer's "
                 "old closed ticket has the same title. Telling them apart takes get_ticket on every candidate.")
    else:
        ids = [t["id"] for t in tickets if t["email"] == email and t["status"] == "open"]
        prompt = intro + (f"All their open {topic} problems are solved now. Close every open ticket this customer "
                          f"reported about the {topic} with resolution fixed, and change nothing else.\n\n"
                          "Finish with one line: Closed: <the ticket ids, comma-separated>")
        calls = [{"name": "close_ticket", "arguments": {"id": i, "resolution": "fixed"}} for i in ids]
        act = tool_turn(*[("close_ticket", {"id": i, "resolution": "fixed"}) for i in ids])
        answer = {"all": ids, "forbidden": decoys}
        final = "Closed: " + ", ".join(ids)
        near = [*search[:2], looks, tool_turn(*[("close_ticket", {"id": i, "resolution": "fixed"}) for i in ids[:-1]]),
                "Closed: " + ", ".join(ids[:-1])]
        extra = [*search, looks, tool_turn(*[("close_ticket", {"id": i, "resolution": "fixed"})
                                             for i in [*ids, role["namesake"]]]), final + f", {role['namesake']}"]
        hedge = [*search, looks, act, final + f" (and maybe {role['namesake_b']})"]
        goal = []
        notes = (f"The customer has {len(ids)} open tickets on the topic, two of them on the last result pages; a "
                 "namesake with the same display name has two more, and the customer's old ticket is already "
                 "closed (closing it again is an error). Only get_ticket shows whose ticket is whose.")
    grader = {"type": "trace", "calls": calls, "forbidden": ["add_comment", "reassign_ticket"],
              "limit_to_required": ["close_ticket"], "answer": answer}
    if goal:
        grader["stop_after"] = goal
    public = [{k: t[k] for k in ("id", "title", "status", "email", "created")} for t in tickets]
    solver = SOLVER.format(tickets=public, email=email, topic=topic, problem=world["problem"], kind=kind)
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # three result pages, get_ticket on each candidate, tell the customer from the namesake, pick the
        # keeper, close the duplicates, report: 8 steps over 12 tickets; 3 traps
        **ruled(8, 12, 3),
        "title": {"dup": "Close a customer's newer duplicate ticket, found across result pages",
                  "fixed": "Close exactly one customer's open tickets on a topic"}[kind],
        "prompt": prompt, "tools": TOOLS, "max_tokens": 6144,
        "simulation": {"handler": handler, "state": state, "max_turns": 12},
        "grader": grader, "notes": notes,
        "verify": {"solver": solver, "reference": [*search, looks, act, final],
                   "wrong": [["I'm sorry, but I can't modify helpdesk tickets."],
                             [search[0], f"There are several {topic} tickets in the queue; most are open."],
                             near, extra, hedge,
                             [f"Closed: {decoys[0]}"]]},
    }


def cases(seed: int) -> list[dict]:
    people = random.Random(f"{FAMILY}:{seed}").sample(range(len(FIRST)), 4)
    return [_case(n, kind, person, random.Random(f"{FAMILY}:{seed}:{n}"))
            for n, (kind, person) in enumerate(zip(["dup", "fixed", "dup", "fixed"], people), start=1)]
