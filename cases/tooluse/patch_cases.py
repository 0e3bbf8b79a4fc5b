"""Tool use: a partial update that carries exactly the fields that change, null for a cleared one (TU-patch).

The CRM's update tool changes only the fields it is given; null clears a field; a field left out keeps its value.
The user pastes the contact's current record and then says what happened in words: some fields change (a move
changes the street and postcode, the city perhaps not), one is cleared (left the company: no company now), and
one is restated with the value it already has, in another spelling (the same phone written with spaces, the same
email in capitals). The right call names the record's id and sends the changed fields with their new values, null
for the cleared one, and nothing else. Traps: the whole record sent back, the restated field sent, the unchanged
city sent with the new address, an empty string or a word for the cleared field, the person's name for the id.
Each solver re-reads the record and the message and compares field by field.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-patch"
REFUSAL = "I'm sorry, but I can't help with that request."
FIELDS = ["email", "phone", "street", "postcode", "city", "company", "job_title"]
PEOPLE = [("Maria Keller", "maria.keller"), ("Jonas Brandt", "jonas.brandt"), ("Aylin Demir", "aylin.demir"),
          ("Pieter de Vries", "pieter.devries")]
STREETS = ["Lindenstrasse 14", "Hafenweg 3", "Am Markt 27", "Bergstrasse 112", "Kanalstrasse 8", "Rosenweg 41"]
CITIES = [("Hamburg", "20"), ("Cologne", "50"), ("Leipzig", "04"), ("Bremen", "28")]
COMPANIES = ["Nordwind Logistics", "Brightline Media", "Kaltwasser GmbH", "Orbis Health"]
TITLES = ["Head of Procurement", "Independent consultant", "Operations Lead", "Senior Buyer"]

PROPS = {"contact_id": {"type": "string"},
         **{f: {"type": ["string", "null"], "description": "give null to clear"} for f in FIELDS}}
TOOLS = [function_tool("update_contact", "Change a contact. Only the fields given change; null clears a field; fields "
                       "left out keep their value.", PROPS, ["contact_id"]),
         function_tool("create_contact", "Create a new contact.", {f: {"type": "string"} for f in ["name", *FIELDS]},
                       ["name"])]

SOLVER = r'''
import json, re
prompt = PROMPT
record = dict(re.findall(r"^(\w+): (.*)$", prompt.split("Message:")[0], re.M))
message = prompt.split("Message:")[1]
new = dict(record)
m = re.search(r"moved to (.+?), (\d{5}) (\w+)\.", message)
if m:
    new["street"], new["postcode"], new["city"] = m.groups()
m = re.search(r"Write to ([\w.@-]+) from now on", message)
if m:
    new["email"] = m.group(1)
m = re.search(r"new mobile is ([+\d]+)", message)
if m:
    new["phone"] = m.group(1)
m = re.search(r"title is now (.+?)\.", message)
if m:
    new["job_title"] = m.group(1)
if re.search(r"no company now", message):
    new["company"] = None
def same(a, b):
    if a is None or b is None:
        return a is b
    return re.sub(r"\s", "", a).lower() == re.sub(r"\s", "", b).lower()
args = {"contact_id": record["id"]}
for field in ("email", "phone", "street", "postcode", "city", "company", "job_title"):
    if not same(new.get(field), record.get(field)):
        args[field] = new[field]
print(json.dumps({"calls": [{"name": "update_contact", "arguments": args}]}))
'''


def _record(rng: random.Random) -> tuple[str, dict]:
    name, handle = rng.choice(PEOPLE)
    city, prefix = rng.choice(CITIES)
    return name, {"id": f"CT-{rng.randint(10000, 99999)}", "email": f"{handle}@{rng.choice(['mail', 'post'])}.example",
                  "phone": f"+49151{rng.randint(10_000_000, 99_999_999)}", "street": rng.choice(STREETS),
                  "postcode": f"{prefix}{rng.randint(100, 999)}", "city": city, "company": rng.choice(COMPANIES),
                  "job_title": rng.choice(TITLES)}


def _spaced(phone: str) -> str:
    digits = phone[3:]
    return f"+49 {digits[:3]} {digits[3:7]} {digits[7:]}"


def _case(number: int, rng: random.Random) -> dict:
    name, old = _record(rng)
    first = name.split()[0]
    changes, sentences = {}, []
    street = rng.choice([s for s in STREETS if s != old["street"]])
    postcode = f"{old['postcode'][:2]}{rng.randint(100, 999)}"
    while postcode == old["postcode"]:
        postcode = f"{old['postcode'][:2]}{rng.randint(100, 999)}"
    if number in (1, 3):  # a move within the same city: street and postcode change, the city does not
        sentences.append(f"{first} moved to {street}, {postcode} {old['city']}.")
        changes.update(street=street, postcode=postcode)
    if number in (1, 2):
        sentences.append(f"{first} left {old['company']} and works freelance: no company now.")
        changes["company"] = None
    if number in (2, 3):
        title = rng.choice([t for t in TITLES if t != old["job_title"]])
        sentences.append(f"Her title is now {title}." if first in ("Maria", "Aylin") else f"His title is now {title}.")
        changes["job_title"] = title
    if number == 2:
        email = old["email"].replace("@", ".work@")
        sentences.append(f"Write to {email} from now on.")
        changes["email"] = email
    if number == 3:
        phone = f"+49160{rng.randint(10_000_000, 99_999_999)}"
        sentences.append(f"The new mobile is {phone}.")
        changes["phone"] = phone
    restated = {1: f"The phone number is still {_spaced(old['phone'])}.",
                2: f"The phone number is still {_spaced(old['phone'])}.",
                3: f"The email stays {old['email'].upper()}."}[number]
    sentences.insert(rng.randint(0, len(sentences)), restated)
    record = "\n".join(f"{k}: {v}" for k, v in old.items())
    prompt = (f"Update {name}'s contact in the CRM with what changed. Current record:\nname: {name}\n{record}\n\n"
              "Message: " + " ".join(sentences))
    args = {"contact_id": old["id"], **changes}
    send = lambda a: tool_turn(("update_contact", a))  # noqa: E731
    full = {k: v for k, v in old.items() if k != "id"} | changes
    wrong = [REFUSAL, f"I'd change {', '.join(changes)} for {name}.", send({"contact_id": old["id"], **full}),
             send({**args, **({"phone": _spaced(old["phone"])} if number != 3 else {"email": old["email"].upper()})}),
             send({**args, "contact_id": name})]
    if "street" in changes:
        wrong.append(send({**args, "city": old["city"]}))
    if "company" in changes:
        wrong.append(send({**args, "company": ""}))
        wrong.append(send({**args, "company": "freelance"}))
        wrong.append(send({k: v for k, v in args.items() if k != "company"}))
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # per field: compare the message's value with the record's (spelling aside), send only the differences,
        # null for the cleared one
        **ruled(3, 2 ** len(FIELDS), 3),
        "title": "A partial contact update with exactly the changed fields and null for a cleared one",
        "notes": (f"Changes: {', '.join(changes)}; restated unchanged in another spelling: "
                  f"{'the phone' if number != 3 else 'the email'}. Arguments are compared exactly: the whole record, "
                  "the restated field, the unchanged city, an empty string for the cleared company, or the name "
                  "for the id fails."),
        "prompt": prompt, "tools": TOOLS, "max_tokens": 2048,
        "grader": {"type": "tool_calls", "calls": [{"name": "update_contact", "arguments": args}], "allow_extra": False,
                   "arguments_match": "exact", "forbidden": ["create_contact"]},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": send(args), "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
