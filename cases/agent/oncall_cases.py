"""Agent: page whoever was on call for the machine behind an alert, joined across five tools (AG-oncall).

A simulated ops toolbox (a Python handler). The alert names an IP address and a local time. The CMDB
knows host names only (looking the IP up returns nothing: a dead end, so resolve it with dns_reverse
first), the host's service has an owning team, the team's rota lists shifts in UTC with overrides that
take precedence, and the pager wants a person id from the directory, where the on-call engineer has a
namesake in another team. Three siblings: the override covers the alert; an override ends exactly at
the alert minute (shifts are half-open, so the regular shift holds); the alert's local evening is the
next UTC day. Traps: the shift at the local time read as UTC, the regular shift under an override (or
the override that already ended), the namesake's id, the team lead, and page_team (forbidden).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import tier_of

FAMILY = "AG-oncall"
DAY = datetime(2026, 3, 10)

TOOLS = [
    function_tool("cmdb_lookup", "Look up a machine in the CMDB by host name.", {"host": {"type": "string"}}, ["host"]),
    function_tool("dns_reverse", "The host name of an IP address.", {"ip": {"type": "string"}}, ["ip"]),
    function_tool(
        "service_owner", "The team that owns a service, and its lead.", {"service": {"type": "string"}}, ["service"]
    ),
    function_tool(
        "oncall_rota",
        "A team's on-call rota: shifts and overrides, times in UTC, end exclusive.",
        {"team": {"type": "string"}},
        ["team"],
    ),
    function_tool(
        "directory_search", "People whose name matches: id, name, team.", {"name": {"type": "string"}}, ["name"]
    ),
    function_tool(
        "page",
        "Page one person.",
        {"person_id": {"type": "string"}, "message": {"type": "string"}},
        ["person_id", "message"],
    ),
    function_tool(
        "page_team",
        "Page every member of a team.",
        {"team": {"type": "string"}, "message": {"type": "string"}},
        ["team", "message"],
    ),
]


def handler(name: str, arguments: dict, state: dict) -> dict:
    key = {
        "cmdb_lookup": "host",
        "dns_reverse": "ip",
        "service_owner": "service",
        "oncall_rota": "team",
        "directory_search": "name",
    }.get(name)
    if key:
        value = str(arguments.get(key, "")).strip().lower()
        table = state[name]
        if name == "directory_search":
            return {"result": [p for p in table if value and value in p["name"].lower()]}
        if name == "cmdb_lookup" and value not in table:
            return {"result": []}
        return {"result": table[value]} if value in table else {"error": f"nothing found for {value!r}"}
    state.setdefault("paged", []).append(str(arguments.get("person_id", arguments.get("team"))))
    return {"result": "paged"}


def _fmt(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M")


def _world(rng: random.Random, kind: str) -> dict:
    people = rng.sample(
        ["Ana Ruiz", "Sam Okafor", "Lea Novak", "Ivo Petrov", "Mia Chen", "Tom Berg", "Noor Aziz", "Jon Hale"], 7
    )
    shifts = []
    for day in (-1, 0, 1):
        for start in (0, 8, 16):
            begin = DAY + timedelta(days=day, hours=start)
            shifts.append(
                {"start": _fmt(begin), "end": _fmt(begin + timedelta(hours=8)), "person": rng.choice(people[:5])}
            )
    for a, b in zip(shifts, shifts[1:]):
        if a["person"] == b["person"]:
            b["person"] = next(p for p in people[:5] if p != a["person"])
    offset = rng.choice([-5, -4, 1, 2, 9]) if kind != "nextday" else rng.choice([-5, -6, -7])
    if kind == "nextday":
        utc = DAY + timedelta(days=1, hours=rng.randint(1, 4), minutes=rng.choice([5, 20, 35, 50]))
    else:
        utc = DAY + timedelta(hours=rng.randint(9, 14), minutes=rng.choice([10, 25, 40, 55]))
    local = utc + timedelta(hours=offset)
    if kind == "boundary":
        override = {"start": _fmt(utc - timedelta(hours=3)), "end": _fmt(utc), "person": people[5]}
    elif kind == "override":
        override = {"start": _fmt(utc - timedelta(hours=2)), "end": _fmt(utc + timedelta(hours=2)), "person": people[5]}
    else:
        override = {"start": _fmt(utc + timedelta(hours=5)), "end": _fmt(utc + timedelta(hours=9)), "person": people[5]}
    return {"people": people, "shifts": shifts, "override": override, "utc": utc, "local": local, "offset": offset}


def _on_call(shifts: list, overrides: list, at: datetime) -> str:
    for entry in [*overrides, *shifts]:
        if datetime.fromisoformat(entry["start"]) <= at < datetime.fromisoformat(entry["end"]):
            return entry["person"]
    raise ValueError(at)


SOLVER = """
import json
from datetime import datetime, timedelta
ROTA, DIRECTORY, TEAM, LOCAL, OFFSET = {rota!r}, {directory!r}, {team!r}, {local!r}, {offset!r}
# minute by minute over the rota: lay the shifts down, then the overrides over them
minutes = {{}}
for layer in (ROTA["shifts"], ROTA["overrides"]):
    for entry in layer:
        t, end = datetime.strptime(entry["start"], "%Y-%m-%d %H:%M"), datetime.strptime(entry["end"], "%Y-%m-%d %H:%M")
        while t < end:
            minutes[t] = entry["person"]
            t += timedelta(minutes=1)
alert = datetime.strptime(LOCAL, "%Y-%m-%d %H:%M") - timedelta(hours=OFFSET)
person = minutes[alert]
pid = [p["id"] for p in DIRECTORY if p["name"] == person and p["team"] == TEAM][0]
print(json.dumps({{"values": {{"Paged:": pid}}}}))
"""


def _case(number: int, kind: str, rng: random.Random) -> dict:
    w = _world(rng, kind)
    team, other_team = rng.sample(["payments-sre", "edge-ops", "data-platform", "identity-oncall"], 2)
    service = rng.choice(["checkout-api", "ledger-writer", "token-service", "search-indexer"])
    ip = f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"
    host = f"{service.split('-')[0]}-{rng.randint(10, 99)}.prod.internal"
    answer = _on_call(w["shifts"], [w["override"]], w["utc"])
    naive = _on_call(w["shifts"], [w["override"]], w["local"])
    regular = _on_call(w["shifts"], [], w["utc"])
    if naive == answer or (kind == "override" and regular == answer):
        return _case(number, kind, rng)  # re-roll: each trap must name someone else
    ids = {p: f"u{rng.randint(1000, 9999)}" for p in w["people"]}
    namesake = f"u{rng.randint(10000, 99999)}"
    directory = [{"id": ids[p], "name": p, "team": team} for p in w["people"][:6]]
    directory += [
        {"id": namesake, "name": answer, "team": other_team},
        {"id": ids[w["people"][6]], "name": w["people"][6], "team": team},
    ]
    rng.shuffle(directory)
    lead = w["people"][6]
    rota = {"team": team, "shifts": w["shifts"], "overrides": [w["override"]]}
    state = {
        "cmdb_lookup": {host: {"host": host, "service": service, "env": "prod"}},
        "dns_reverse": {ip: host},
        "service_owner": {service: {"team": team, "lead": lead}},
        "oncall_rota": {team: rota},
        "directory_search": directory,
    }
    alert = f"ALERT-{rng.randint(1000, 9999)}"
    sign = "+" if w["offset"] >= 0 else "-"
    local_text = f"{_fmt(w['local'])} local time (UTC{sign}{abs(w['offset'])})"
    prompt = (
        f"Alert {alert} (disk latency) fired at {local_text} on the machine with IP address {ip}. Page the one "
        "engineer who was on call, at the moment the alert fired, for the service that runs on that machine, "
        f"with a message that names {alert}. Page only that person.\n\nFinish with one line: Paged: <person id>"
    )
    script = [
        tool_turn(("cmdb_lookup", {"host": ip})),
        tool_turn(("dns_reverse", {"ip": ip})),
        tool_turn(("cmdb_lookup", {"host": host})),
        tool_turn(("service_owner", {"service": service})),
        tool_turn(("oncall_rota", {"team": team})),
        tool_turn(("directory_search", {"name": answer})),
    ]
    page = lambda pid: tool_turn(("page", {"person_id": pid, "message": f"{alert}: disk latency on {host}"}))  # noqa: E731
    decoys = sorted({ids[naive], ids[regular], ids[lead], namesake, ids[w["override"]["person"]]} - {ids[answer]})
    hardness = {"steps": 9, "search": 9 * 7, "traps": 3}
    return {
        "id": f"{FAMILY}-{number:02d}",
        "family": FAMILY,
        "category": "agent",
        "difficulty": tier_of(hardness),
        "hardness": hardness,
        "title": {
            "override": "On call behind an IP: an override covers the alert",
            "boundary": "On call behind an IP: an override ends at the alert minute",
            "nextday": "On call behind an IP: the local evening is the next UTC day",
        }[kind],
        "prompt": prompt,
        "tools": TOOLS,
        "max_tokens": 8192,
        "simulation": {"handler": handler, "state": state, "max_turns": 14},
        "grader": {
            "type": "trace",
            "calls": [{"name": "page", "arguments": {"person_id": ids[answer], "message": {"contains": alert}}}],
            "limit_to_required": ["page"],
            "forbidden": ["page_team"],
            "answer": {"values": {"Paged:": ids[answer]}, "decoys": decoys},
        },
        "notes": (
            f"Nine dependent lookups: the CMDB knows no IPs (an empty result: resolve with dns_reverse), host -> "
            f"service -> team -> rota -> the person at {_fmt(w['utc'])} UTC (the alert's local time is "
            f"UTC{sign}{abs(w['offset'])}) -> the directory id of that person in {team} (a namesake in "
            f"{other_team}). "
            + {
                "override": "An override covers the alert and wins over the shift.",
                "boundary": "An override ends exactly at the alert minute: ends are "
                "exclusive, the regular shift holds.",
                "nextday": "The local evening is the next day in UTC.",
            }[kind]
            + " Traps: local time read as UTC, the override mishandled, the namesake, the lead, page_team."
        ),
        "verify": {
            "solver": SOLVER.format(
                rota=rota, directory=directory, team=team, local=_fmt(w["local"]), offset=w["offset"]
            ),
            "reference": [*script, page(ids[answer]), f"Paged {answer} of {team}.\n\nPaged: {ids[answer]}"],
            "wrong": [
                ["I'm sorry, I can't page anyone."],
                [script[0], f"The CMDB has no record of {ip}, so nobody can be paged.\n\nPaged: none"],
                [*script, page(decoys[0]), f"Paged: {decoys[0]}"],
                [*script, page(namesake), f"Paged: {namesake}"],
                [*script, tool_turn(("page_team", {"team": team, "message": alert})), f"Paged: {team}"],
                [*script, page(ids[answer]), f"Paged: {ids[answer]} (or {decoys[-1]})"],
            ],
        },
    }


def cases(seed: int) -> list[dict]:
    return [
        _case(n, kind, random.Random(f"{FAMILY}:{seed}:{n}"))
        for n, kind in enumerate(["override", "boundary", "nextday"], start=1)
    ]
