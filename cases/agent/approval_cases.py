"""Agent: a purchase request walked up its approval chain, where each approver's reply names the next (AG-approval).

A simulated approvals desk (a Python handler). The prompt names only the first approver. request_approval takes a
person id, which find_person gives for a name, and every reply decides the next call: an approval whose amount is
above the approver's limit names the next approver (by name and department); an out-of-office auto-reply names a
delegate, who approves in that person's place; the last approval says no further approval is needed. One person
of the chain has a namesake in another department (the reply's department picks the id). Then the request is
submitted once, with every approval reference collected. Siblings differ in the chain's length (three or four
approvals), where the absence falls and which approver has the namesake. Traps: submitting after the first
approval, the namesake's id, waiting out the absence by going over the absent person's head, asking one level
too many, and a final report that names the absent person instead of the delegate.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-approval"
FIRST = ["Jonas", "Karin", "Priya", "Mateo", "Ines", "Tomasz", "Aiko", "Lars", "Nadia", "Felix", "Greta", "Omar"]
LAST = ["Weber", "Lindqvist", "Raman", "Silva", "Moreau", "Kowalski", "Sato", "Berg", "Haddad", "Novak"]
ROLES = [("team lead", "Platform"), ("head of engineering", "Engineering"), ("finance director", "Finance"),
         ("chief financial officer", "Executive")]
LIMITS = [5_000, 25_000, 100_000, 1_000_000]

TOOLS = [
    function_tool("find_person", "People whose name matches: id, name, department, title.",
                  {"name": {"type": "string"}}, ["name"]),
    function_tool("request_approval", "Ask one person to approve a purchase request; returns their reply.",
                  {"request_id": {"type": "string"}, "approver_id": {"type": "string"}},
                  ["request_id", "approver_id"]),
    function_tool("submit_request", "Submit a purchase request with the references of its approvals.",
                  {"request_id": {"type": "string"},
                   "approval_refs": {"type": "array", "items": {"type": "string"}}},
                  ["request_id", "approval_refs"]),
]


def handler(name: str, arguments: dict, state: dict) -> dict:
    people = state["people"]
    if name == "find_person":
        text = " ".join(str(arguments.get("name", "")).lower().split())
        found = [p for p in people.values() if text and text in p["name"].lower()]
        return {"result": found} if found else {"error": f"nobody called {arguments.get('name')!r}"}
    if str(arguments.get("request_id", "")).strip().upper() != state["request"]:
        return {"error": f"no request {arguments.get('request_id')!r}"}
    if name == "submit_request":
        refs = sorted(str(r).strip().upper() for r in arguments.get("approval_refs") or [])
        if state["submitted"] is not None:
            return {"error": "the request was already submitted"}
        if refs != sorted(state["refs"]):
            return {"error": "rejected: the approvals do not cover the amount"}
        state["submitted"] = refs
        return {"result": f"{state['request']} submitted for ordering"}
    who = str(arguments.get("approver_id", "")).strip().lower()
    if who not in people:
        return {"error": f"no person {arguments.get('approver_id')!r}"}
    step = state["steps"][state["next"]] if state["next"] < len(state["steps"]) else None
    if who in state["absent"] and step and step["asked"] == who:
        return {"result": state["absent"][who]}
    if step is None or step["approver"] != who:
        return {"error": f"{people[who]['name']} cannot approve {state['request']} at this point: not the "
                         "approver this request is waiting for"}
    state["next"] += 1
    state["refs"].append(step["ref"])
    return {"result": step["reply"]}


def _people(rng: random.Random, count: int) -> list[dict]:
    names = rng.sample([f"{f} {s}" for f in FIRST for s in LAST], count)
    ids = [f"{n.split()[0][0].lower()}.{n.split()[1].lower()}{rng.randint(10, 99)}" for n in names]
    return [{"id": i, "name": n} for i, n in zip(ids, names)]


def _world(number: int, rng: random.Random) -> dict:
    length = 3 if number != 2 else 4
    absent_at = {1: 1, 2: 2, 3: 0}[number]
    twin_at = {1: 2, 2: 3, 3: 1}[number]
    base = _people(rng, length + 3)
    chain = [dict(p, title=ROLES[i][0], department=ROLES[i][1]) for i, p in enumerate(base[:length])]
    absent = chain[absent_at]
    delegate = dict(base[length], title=f"deputy {absent['title']}", department=absent["department"])
    twin_dept = rng.choice([d for d in ("Procurement", "Sales", "Legal", "Support")
                            if d != chain[twin_at]["department"]])
    twin = {"id": f"{chain[twin_at]['id'][:-2]}{rng.randint(10, 99)}", "name": chain[twin_at]["name"],
            "title": "account manager", "department": twin_dept}
    if twin["id"] == chain[twin_at]["id"]:
        twin["id"] += "x"
    beyond = dict(base[length + 1], title=ROLES[length][0], department=ROLES[length][1]) if length < 4 else None
    amount = rng.randint(LIMITS[length - 2] + 1, LIMITS[length - 1] - 1) // 10 * 10
    request = f"PR-{rng.randint(10000, 99999)}"
    steps = []
    for i, person in enumerate(chain):
        approver = delegate if i == absent_at else person
        ref = f"APR-{rng.randint(100000, 999999)}"
        if i + 1 < length:
            nxt = chain[i + 1]
            tail = (f"The amount is above my approval limit of {LIMITS[i]:,} EUR, so it also needs "
                    f"{nxt['name']} ({nxt['department']}).")
        else:
            tail = "No further approval is needed."
        step = {"approver": approver["id"], "asked": person["id"], "ref": ref,
                "reply": f"Approved by {approver['name']} ({approver['title']}), reference {ref}. {tail}"}
        steps.append(step)
    absent = {chain[absent_at]["id"]: (f"Automatic reply: {chain[absent_at]['name']} is out of office until "
                                       f"{rng.randint(12, 27)} April. Approvals are delegated to {delegate['name']} "
                                       f"({delegate['department']}) while I am away.")}
    people = [*chain, delegate, twin, *([beyond] if beyond else []), dict(base[-1], title="analyst",
                                                                          department="Finance")]
    rng.shuffle(people)
    return {"chain": chain, "delegate": delegate, "twin": twin, "beyond": beyond, "amount": amount,
            "request": request, "steps": steps, "absent": absent, "people": {p["id"]: p for p in people},
            "absent_at": absent_at, "twin_at": twin_at}


SOLVER = """
import json, re
STEPS, ABSENT, PEOPLE, FIRST = {steps!r}, {absent!r}, {people!r}, {first!r}
# replay the conversation: read each reply for the next name (and department), look the id up by both
def person(name, dept=None):
    hits = [p for p in PEOPLE.values() if p["name"] == name and (dept is None or p["department"] == dept)]
    assert len(hits) == 1, (name, dept)
    return hits[0]["id"]
replies = {{s["approver"]: s["reply"] for s in STEPS}}
who, refs, final = person(*FIRST), [], None
while True:
    if who in ABSENT:
        who = person(*re.search(r"delegated to (.+?) \\((\\w+)\\)", ABSENT[who]).groups())
        continue
    reply = replies[who]
    refs.append(re.search(r"reference (APR-\\d+)", reply).group(1))
    final = who
    nxt = re.search(r"also needs (.+?) \\((\\w+)\\)", reply)
    if not nxt:
        break
    who = person(*nxt.groups())
print(json.dumps({{"values": {{"Final approver:": final, "Approvals:": len(refs)}},
                  "state": {{"submitted": sorted(refs)}}}}))
"""


def _case(number: int, rng: random.Random) -> dict:
    w = _world(number, rng)
    chain, steps, req = w["chain"], w["steps"], w["request"]
    refs = [s["ref"] for s in steps]
    final = steps[-1]["approver"]
    first = chain[0]
    prompt = (
        f"Get purchase request {req} ({w['amount']:,} EUR for lab equipment) approved and submitted, through the "
        f"approvals tools. Start with my team lead, {first['name']} ({first['department']}). Follow what each "
        "reply says: when an approver says someone else must also approve, ask that person next; when someone is "
        "away and names a delegate, ask the delegate instead. Once no further approval is needed, submit the "
        "request once, with the references of all the approvals.\n\n"
        "Finish with exactly two lines:\nFinal approver: <the person id of whoever gave the last approval>\n"
        "Approvals: <how many approvals you collected>"
    )
    find = lambda p: tool_turn(("find_person", {"name": p["name"]}))  # noqa: E731
    ask = lambda i: tool_turn(("request_approval", {"request_id": req, "approver_id": i}))  # noqa: E731
    walk = []
    for i, person in enumerate(chain):
        walk += [find(person), ask(person["id"])]
        if i == w["absent_at"]:
            walk += [find(w["delegate"]), ask(w["delegate"]["id"])]
    submit = tool_turn(("submit_request", {"request_id": req, "approval_refs": refs}))
    answer = f"Final approver: {final}\nApprovals: {len(refs)}"
    approvals = [{"name": "request_approval", "arguments": {"request_id": req, "approver_id": s["approver"]}}
                 for s in steps]
    absent_id = chain[w["absent_at"]]["id"]
    asked_absent = {"name": "request_approval", "arguments": {"request_id": req, "approver_id": absent_id}}
    required = [*approvals, asked_absent,
                {"name": "submit_request", "arguments": {"request_id": req, "approval_refs": {"set": refs}}}]
    cut = 2 * (w["twin_at"] + (w["twin_at"] > w["absent_at"]))  # where the twin's turn starts in the walk
    twin_walk = [*walk[:cut + 1], ask(w["twin"]["id"]), *walk[cut + 1:], submit, answer]
    over = walk[:2 * w["absent_at"] + 2]
    skip_to = chain[w["absent_at"] + 1] if w["absent_at"] + 1 < len(chain) else None
    wrong = [
        ["I'm sorry, I can't request approvals on your behalf."],
        [*walk[:2], tool_turn(("submit_request", {"request_id": req, "approval_refs": refs[:1]})),
         f"Final approver: {steps[0]['approver']}\nApprovals: 1"],
        twin_walk,
        [*walk, submit, f"Final approver: {final}\nApprovals: {len(refs) + 1}"],
        [*walk, tool_turn(("submit_request", {"request_id": req, "approval_refs":
                                              [r for r in refs if r != steps[w["absent_at"]]["ref"]]})),
         submit, answer],
        [*walk, submit, f"Final approver: {chain[-1]['id'] if final != chain[-1]['id'] else absent_id}\n"
                        f"Approvals: {len(refs)}"],
    ]
    if skip_to is not None:
        wrong.append([*over, find(skip_to), ask(skip_to["id"]), tool_turn(
            ("submit_request", {"request_id": req, "approval_refs": refs[:w["absent_at"]]})),
            f"Final approver: {skip_to['id']}\nApprovals: {w['absent_at'] + 1}"])
    if w["beyond"] is not None:
        wrong.append([*walk, find(w["beyond"]), ask(w["beyond"]["id"]), submit, answer])
    count = len(walk) + 1
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # a lookup and a request per approver (each reply names the next), the delegate's lookup and request,
        # the submission; traps: early submission, the namesake, going over the absent person's head
        **ruled(count, 1, 3),
        "title": "Walk a purchase request up an approval chain that each reply reveals, past an absence",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 8192,
        "simulation": {"handler": handler, "max_turns": 20,
                       "state": {"people": w["people"], "steps": steps, "absent": w["absent"], "request": req,
                                 "next": 0, "refs": [], "submitted": None}},
        "grader": {"type": "trace", "calls": required, "repeats": True,
                   "limit_to_required": ["request_approval", "submit_request"],
                   "state": {"submitted": sorted(refs)},
                   "answer": {"values": {"Final approver:": final, "Approvals:": len(refs)},
                              "decoys": sorted({absent_id, w["twin"]["id"], chain[0]["id"]} - {final})}},
        "notes": (f"{len(refs)} approvals over {count} dependent calls: only the first approver is named, each "
                  f"reply names the next by name and department; {chain[w['absent_at']]['name']} is away and names "
                  f"a delegate; {chain[w['twin_at']]['name']} has a namesake in {w['twin']['department']}. Traps: "
                  "submitting after the first approval, the namesake's id, going over the absent person's head, one "
                  "level too many, the absent person reported as approver. Why a strong 30B model fails: it must "
                  "carry ids and references over a dozen turns whose next step only the last reply names, and models "
                  "stop at the first approval or take the first id a lookup returns."),
        "verify": {"solver": SOLVER.format(steps=steps, absent=w["absent"], people=w["people"],
                                           first=(first["name"], first["department"])),
                   "reference": [*walk, submit, f"All approvals are in and the request is submitted.\n\n{answer}"],
                   "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
