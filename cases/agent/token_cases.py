"""Agent: salary corrections through an HR API whose tokens run out after a few calls (family AG-token).

A simulated HR API (a Python handler). Every call carries a token from login; a token says how many calls it
allows (read tokens four, write tokens two) and, used up, is refused with an error that says to log in again; a
read token cannot write. The task: bring every active member of a team whose salary is below the minimum of
their grade's band up to that minimum. That takes the team list, one read per member (grade and salary), one
band per grade, and the updates: more calls than any token allows, so the agent logs in again (each new token
must be the one used next) and carries the work across tokens. Traps: the member whose read was refused by an
expired token, never read again (skipped); a member who left the team; a salary exactly at the band minimum (no
raise); the band of the wrong grade.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-token"
ALLOWED = {"read": 4, "write": 2}
FIRST = ["Ada", "Bruno", "Cleo", "Dmitri", "Elsa", "Farid", "Gwen", "Hugo", "Iris", "Jalen", "Kira", "Luca"]
LAST = ["Moss", "Quint", "Reyes", "Strand", "Tiller", "Umber", "Vance", "Wolfe", "Yates", "Zell"]
TEAMS = ["data-platform", "payments-core", "mobile-apps", "site-reliability"]

TOKEN = {"type": "string", "description": "a token from login"}
TOOLS = [
    function_tool("login", "A fresh API token for a scope; the result says how many calls it allows.",
                  {"scope": {"type": "string", "enum": ["read", "write"]}}, ["scope"]),
    function_tool("list_team", "A team's members: employee id, name, status (active or left).",
                  {"token": TOKEN, "team": {"type": "string"}}, ["token", "team"]),
    function_tool("get_employee", "An employee's grade and annual salary in EUR.",
                  {"token": TOKEN, "employee_id": {"type": "string"}}, ["token", "employee_id"]),
    function_tool("get_band", "The salary band of a grade: minimum and maximum annual salary in EUR.",
                  {"token": TOKEN, "grade": {"type": "string"}}, ["token", "grade"]),
    function_tool("update_salary", "Set an employee's annual salary in EUR.",
                  {"token": TOKEN, "employee_id": {"type": "string"},
                   "annual_salary": {"type": "integer", "minimum": 1}},
                  ["token", "employee_id", "annual_salary"]),
]


def _spend(state: dict, token: str, scope: str) -> str | None:
    """Why the token cannot make this call (None: it can, and one call is spent)."""
    live = state["live"].get(token)
    if live is None:
        return "invalid token: call login for a token"
    if live["left"] <= 0:
        return f"token expired: it allowed {ALLOWED[live['scope']]} calls. Call login again for a new token"
    if scope == "write" and live["scope"] != "write":
        return "this token has the read scope: changes need a token from login with scope write"
    live["left"] -= 1
    return None


def handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "login":
        scope = arguments.get("scope")
        if not isinstance(scope, str) or scope not in ALLOWED:
            return {"error": "scope is read or write"}
        issued = state["issued"]
        token = state["pool"][issued] if issued < len(state["pool"]) else f"tk_{issued:04d}{state['pool'][0][3:]}"
        state["issued"] += 1
        state["live"][token] = {"scope": scope, "left": ALLOWED[scope]}
        return {"result": {"token": token, "scope": scope, "calls_allowed": ALLOWED[scope]}}
    why = _spend(state, str(arguments.get("token", "")).strip(), "write" if name == "update_salary" else "read")
    if why:
        return {"error": why}
    people = state["people"]
    if name == "list_team":
        if str(arguments.get("team", "")).strip().lower() != state["team"]:
            return {"error": f"no team {arguments.get('team')!r}"}
        return {"result": [{"employee_id": p["id"], "name": p["name"], "status": p["status"]} for p in people.values()]}
    if name == "get_band":
        band = state["bands"].get(str(arguments.get("grade", "")).strip().upper())
        return {"result": band} if band else {"error": f"no grade {arguments.get('grade')!r}"}
    person = people.get(str(arguments.get("employee_id", "")).strip().upper())
    if person is None:
        return {"error": f"no employee {arguments.get('employee_id')!r}"}
    if name == "get_employee":
        return {"result": {"employee_id": person["id"], "grade": person["grade"], "annual_salary": person["salary"]}}
    salary = arguments.get("annual_salary")
    state["salaries"][person["id"]] = salary
    return {"result": f"{person['id']}: annual salary set to {salary}"}


def _world(number: int, rng: random.Random, team: str) -> dict:
    grades = rng.sample(["E3", "E4", "E5", "E6", "E7"], 3)
    bands = {}
    for g in grades:
        low = rng.randrange(48_000, 80_000, 500)
        bands[g] = {"grade": g, "min": low, "max": low + rng.randrange(15_000, 30_000, 500)}
    names = rng.sample([f"{f} {s}" for f in FIRST for s in LAST], 6)
    ids = [f"E{n}" for n in rng.sample(range(1000, 9999), 6)]
    kinds = {1: ["below", "below", "equal", "above", "above", "left"],
             2: ["below", "below", "below", "equal", "above", "left"],
             3: ["below", "below", "above", "above", "equal", "left"]}[number]
    rng.shuffle(kinds)
    people = {}
    for i, (pid, name, kind) in enumerate(zip(ids, names, kinds)):
        grade = grades[i % 3]
        low = bands[grade]["min"]
        salary = {"below": low - rng.randrange(500, 6_000, 250), "equal": low,
                  "above": low + rng.randrange(500, 9_000, 250), "left": low - rng.randrange(1_000, 5_000, 250)}[kind]
        people[pid] = {"id": pid, "name": name, "status": "left" if kind == "left" else "active", "grade": grade,
                       "salary": salary, "kind": kind}
    pool = [f"tk_{rng.getrandbits(48):012x}" for _ in range(20)]
    return {"bands": bands, "people": people, "pool": pool, "team": team}


SOLVER = """
import json
PEOPLE, BANDS = {people!r}, {bands!r}
# every active member read against the band of their own grade: raise those strictly below its minimum
raises = {{p["id"]: BANDS[p["grade"]]["min"] for p in PEOPLE.values()
          if p["status"] == "active" and p["salary"] < BANDS[p["grade"]]["min"]}}
total = sum(m - PEOPLE[i]["salary"] for i, m in raises.items())
print(json.dumps({{"values": {{"Raised:": len(raises), "Total increase:": total}},
                  "state": {{"salaries": raises}}}}))
"""


class _Script:
    """A scripted run that logs in again whenever its token is spent (tokens come from the pool in order)."""

    def __init__(self, pool: list[str]):
        self.pool, self.issued, self.turns, self.token, self.left, self.scope = pool, 0, [], "", 0, ""

    def call(self, name: str, scope: str, **arguments) -> None:
        if self.left == 0 or self.scope != scope:
            self.turns.append(tool_turn(("login", {"scope": scope})))
            self.token, self.left, self.scope = self.pool[self.issued], ALLOWED[scope], scope
            self.issued += 1
        self.turns.append(tool_turn((name, {"token": self.token, **arguments})))
        self.left -= 1


def _run(w: dict, team: str, skip_read: str | None = None, raise_left: bool = False) -> list:
    script = _Script(w["pool"])
    script.call("list_team", "read", team=team)
    active = [p for p in w["people"].values() if p["status"] == "active" or raise_left]
    for p in active:
        if p["id"] != skip_read:
            script.call("get_employee", "read", employee_id=p["id"])
    for g in sorted({p["grade"] for p in active}):
        script.call("get_band", "read", grade=g)
    for p in active:
        if p["id"] != skip_read and p["salary"] < w["bands"][p["grade"]]["min"]:
            script.call("update_salary", "write", employee_id=p["id"], annual_salary=w["bands"][p["grade"]]["min"])
    return script.turns


def _case(number: int, rng: random.Random, team: str) -> dict:
    w = _world(number, rng, team)
    people, bands, team = w["people"], w["bands"], w["team"]
    raises = {p["id"]: bands[p["grade"]]["min"] for p in people.values()
              if p["status"] == "active" and p["salary"] < bands[p["grade"]]["min"]}
    total = sum(m - people[i]["salary"] for i, m in raises.items())
    prompt = (
        f"Bring every active member of team {team} whose annual salary is below the minimum of their grade's salary "
        "band up to exactly that minimum, through the HR tools. Leave everyone else as they are. Every HR call needs "
        "a token from login; a token allows only a few calls, and changes need a token with the write scope.\n\n"
        "Finish with exactly two lines:\nRaised: <how many salaries you changed>\n"
        "Total increase: <the sum of the raises, in EUR per year>"
    )
    script = _run(w, team)
    answer = f"Raised: {len(raises)}\nTotal increase: {total}"
    skipped = next(i for i in raises)
    short = {i: m for i, m in raises.items() if i != skipped}
    gone = next(p for p in people.values() if p["status"] == "left")
    equal = next(p for p in people.values() if p["kind"] == "equal")
    other_band = next(g for g in bands if g != people[skipped]["grade"])
    wrong_band = [t if not (t["tool_calls"][0]["name"] == "update_salary"
                            and t["tool_calls"][0]["arguments"]["employee_id"] == skipped) else
                  tool_turn(("update_salary", {**t["tool_calls"][0]["arguments"],
                                               "annual_salary": bands[other_band]["min"]}))
                  for t in script]
    steps = len(script)
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # every call needs the live token (logins interleave when one is spent): the team, six reads, three
        # bands, the updates; traps: a member skipped after the expiry error, the leaver, the salary at the minimum
        **ruled(steps, 1, 3),
        "title": "Salary corrections through an API whose tokens run out after a few calls",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 8192,
        "simulation": {"handler": handler, "max_turns": 28,
                       "state": {"people": people, "bands": bands, "pool": w["pool"], "team": team, "issued": 0,
                                 "live": {}, "salaries": {}}},
        "grader": {"type": "trace", "repeats": True,
                   "calls": [{"name": "update_salary", "arguments": {"employee_id": i, "annual_salary": m}}
                             for i, m in raises.items()],
                   "state": {"salaries": raises},
                   "answer": {"values": {"Raised:": len(raises), "Total increase:": total}}},
        "notes": (f"{steps} calls where a read token lasts {ALLOWED['read']} and a write token {ALLOWED['write']}: the "
                  f"agent must log in again about {steps // 5} times mid-task and use each new token next. "
                  f"{len(raises)} raises; {gone['name']} left the team (below the band, but not raised); "
                  f"{equal['name']} earns exactly the minimum. Traps: the member whose read hit the expired token "
                  "left unread, the leaver raised, a raise to another grade's minimum. Why a strong 30B model "
                  "fails: the expiry error lands in the middle of the reads, and the member it interrupted is easily "
                  "never read again; the work spans three or four tokens over fifteen calls."),
        "verify": {"solver": SOLVER.format(people=people, bands=bands),
                   "reference": [*script, f"Done.\n\n{answer}"],
                   "wrong": [
                       ["I'm sorry, I can't change salaries."],
                       [*_run(w, team, skip_read=skipped),
                        f"Raised: {len(short)}\nTotal increase: "
                        f"{sum(m - people[i]['salary'] for i, m in short.items())}"],
                       [*_run(w, team, raise_left=True),
                        f"Raised: {len(raises) + 1}\nTotal increase: "
                        f"{total + bands[gone['grade']]['min'] - gone['salary']}"],
                       [*wrong_band, answer],
                       [*script, f"Raised: {len(raises) + 1}\nTotal increase: {total}"],
                       [tool_turn(("update_salary", {"token": "none", "employee_id": skipped,
                                                     "annual_salary": raises[skipped]})), answer],
                   ]},
    }


def cases(seed: int) -> list[dict]:
    teams = random.Random(f"{FAMILY}:{seed}:teams").sample(TEAMS, 3)  # each sibling asks about its own team
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}"), teams[n - 1]) for n in range(1, 4)]
