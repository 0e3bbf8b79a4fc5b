"""Tool use: nested contact objects built from pasted email signatures, optional parts left out when absent
(family TU-signature).

The address book's create_contact takes a nested object: name {given, family}, optional job_title and organization,
an address {street, optional unit, postal_code, city, optional region, country as ISO alpha-2} and an optional
array of phones {type: mobile|work, number in E.164}. The user pastes two email signatures written the way their
countries write them: German (street then number, "2nd floor" after it, postcode before the city, +49 numbers
with spaces, "M"/"T" markers), US (unit before the street, "City, ST 12345", "(415) 555-0134"), British ("Flat 2,
18 Elm Road", "Leeds LS6 2AB", "07700 900123" with the national 0). Each signature leaves some optional parts
out (no organization, no phone, no unit, no region outside the US). The grader compares exactly: a part that is
absent must be left out, not sent empty or null. Traps: an honorific in the given name, an empty organization or
phones array, a phone in national form or with spaces, the country's name instead of its code, the unit inside
the street, the US state left out. Each solver classifies the signature's lines by their shapes and rebuilds the
objects.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-signature"
REFUSAL = "I'm sorry, but I can't help with that request."
STRING = {"type": "string"}
ADDRESS = {"type": "object", "additionalProperties": False, "required": ["street", "postal_code", "city", "country"],
           "properties": {"street": {"type": "string", "description": "house number and street, as the country writes "
                                                                      "them"},
                          "unit": {"type": "string", "description": "floor, suite, flat; omit if none"},
                          "postal_code": STRING, "city": STRING,
                          "region": {"type": "string", "description": "state code (US only); omit otherwise"},
                          "country": {"type": "string", "pattern": "^[A-Z]{2}$", "description": "ISO 3166-1 alpha-2"}}}
PHONE = {"type": "object", "additionalProperties": False, "required": ["type", "number"],
         "properties": {"type": {"type": "string", "enum": ["mobile", "work"]},
                        "number": {"type": "string", "pattern": r"^\+\d{8,15}$", "description": "E.164"}}}
NAME = {"type": "object", "additionalProperties": False, "required": ["given", "family"],
        "properties": {"given": {"type": "string", "description": "first name(s) only, no titles"},
                       "family": STRING}}
TOOLS = [function_tool("create_contact", "Add a contact to the address book. Leave out every optional field the "
                       "source does not give (no empty strings, nulls or empty arrays).",
                       {"name": NAME, "job_title": STRING, "organization": STRING, "address": ADDRESS,
                        "phones": {"type": "array", "items": PHONE, "minItems": 1},
                        "emails": {"type": "array", "items": STRING, "minItems": 1}},
                       ["name", "address"]),
         function_tool("send_email", "Send an email.", {"to": STRING, "body": STRING}, ["to", "body"])]

PEOPLE = {"DE": [("Maria", "Keller"), ("Jonas", "Brandt"), ("Aylin", "Demir")],
          "US": [("Jon", "Park"), ("Alicia", "Moreno"), ("Grace", "Whitfield")],
          "GB": [("Oliver", "Hughes"), ("Priya", "Shah"), ("Fiona", "McLeod")]}
ORGS = {"DE": ["Nordwind Logistics GmbH", "Kaltwasser Technik GmbH"],
        "US": ["Brightline Media Inc.", "Redwood Labs LLC"], "GB": ["Harbour Analytics Ltd", "Pennine Foods Ltd"]}
TITLES = ["Head of Procurement", "Account Director", "Senior Engineer", "Operations Lead"]
PLACES = {"DE": [("Hafenweg", "20457", "Hamburg"), ("Kanalstrasse", "50667", "Cologne")],
          "US": [("Market Street", "94103", "San Francisco", "CA"), ("Congress Avenue", "78701", "Austin", "TX")],
          "GB": [("Elm Road", "LS6 2AB", "Leeds"), ("Harbour Street", "G2 4JR", "Glasgow")]}
COUNTRY = {"DE": "Germany", "US": "USA", "GB": "United Kingdom"}

SOLVER = r'''
import json, re
prompt = PROMPT
blocks = [b.strip() for b in re.split(r"^-- ?$", prompt, flags=re.M)[1:]]
countries = {"Germany": "DE", "USA": "US", "United Kingdom": "GB"}
calls = []
for block in blocks:
    lines = [l.strip() for l in block.splitlines() if l.strip()]
    c = {}
    words = re.sub(r"^(Dr\.|Prof\.) ", "", lines[0]).split()
    c["name"] = {"given": " ".join(words[:-1]), "family": words[-1]}
    country = next(countries[l] for l in lines if l in countries)
    shapes = r"\d{5} .+|.+, [A-Z]{2} \d{5}|.+ [A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}"
    k = next(i for i, l in enumerate(lines) if re.fullmatch(shapes, l))
    for part in lines[1:k - 1]:
        for piece in part.split(" | "):
            if re.search(r"\b(GmbH|Inc\.|LLC|Ltd)$", piece):
                c["organization"] = piece
            else:
                c["job_title"] = piece
    street_parts = lines[k - 1].split(", ")
    unit = [p for p in street_parts if re.search(r"floor|Suite|Flat|Apt", p)]
    address = {"street": next(p for p in street_parts if p not in unit)}
    if unit:
        address["unit"] = unit[0]
    m = re.fullmatch(r"(\d{5}) (.+)", lines[k]) or None
    if country == "DE":
        address["postal_code"], address["city"] = m.groups()
    elif country == "US":
        us = re.fullmatch(r"(.+), ([A-Z]{2}) (\d{5})", lines[k])
        address["city"], address["region"], address["postal_code"] = us.groups()
    else:
        uk = re.fullmatch(r"(.+) ([A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2})", lines[k])
        address["city"], address["postal_code"] = uk.groups()
    address["country"] = country
    c["address"] = address
    phones = []
    for kind, number in re.findall(r"\b(M|T|Mobile|Office|Tel)[: ]+([+\d(][\d ()+-]*\d)", block):
        digits = re.sub(r"\D", "", number)
        if number.startswith("+"):
            e164 = "+" + digits
        elif country == "US":
            e164 = "+1" + digits
        else:
            e164 = "+44" + digits[1:]
        phones.append({"type": "mobile" if kind in ("M", "Mobile") else "work", "number": e164})
    if phones:
        c["phones"] = phones
    emails = re.findall(r"[\w.]+@[\w.]+\w", block)
    if emails:
        c["emails"] = emails
    calls.append({"name": "create_contact", "arguments": c})
print(json.dumps({"calls": calls}))
'''


def _digits(rng: random.Random, n: int) -> str:
    return "".join(str(rng.randint(0, 9)) for _ in range(n))


def _contact(country: str, rng: random.Random, keep: set[str]) -> tuple[str, dict, str]:
    """The signature text, the right arguments, and the honorific (or "")."""
    given, family = rng.choice(PEOPLE[country])
    place = rng.choice(PLACES[country])
    number = str(rng.randint(2, 180))
    honor = "Dr. " if "honor" in keep else ""
    args: dict = {"name": {"given": given, "family": family}}
    title, org = rng.choice(TITLES), rng.choice(ORGS[country])
    if "title" in keep:
        args["job_title"] = title
    if "org" in keep:
        args["organization"] = org
    lines = [f"{honor}{given} {family}"]
    role = " | ".join(x for x, k in ((title, "title"), (org, "org")) if k in keep)
    if role:
        lines.append(role)
    phones, shown = [], []
    if country == "DE":
        street, unit = f"{place[0]} {number}", rng.choice(["2nd floor", "4th floor"])
        lines.append(street + (f", {unit}" if "unit" in keep else ""))
        lines += [f"{place[1]} {place[2]}", COUNTRY[country]]
        mobile, work = f"151{_digits(rng, 8)}", f"40{rng.randint(1_000_000, 9_999_999)}"
        if "mobile" in keep:
            phones.append({"type": "mobile", "number": f"+49{mobile}"})
            shown.append(f"M +49 {mobile[:3]} {mobile[3:7]} {mobile[7:]}")
        if "work" in keep:
            phones.append({"type": "work", "number": f"+49{work}"})
            shown.append(f"T +49 {work[:2]} {work[2:5]} {work[5:]}")
        address = {"street": street, "postal_code": place[1], "city": place[2]}
    elif country == "US":
        street, unit = f"{rng.randint(1, 99)}00 {place[0]}", f"Suite {rng.randint(2, 9)}00"
        lines.append((f"{unit}, " if "unit" in keep else "") + street)
        lines += [f"{place[2]}, {place[3]} {place[1]}", COUNTRY[country]]
        area = rng.choice(["415", "512"])
        mobile, work = f"{area}555{_digits(rng, 4)}", f"{area}555{_digits(rng, 4)}"
        if "mobile" in keep:
            phones.append({"type": "mobile", "number": f"+1{mobile}"})
            shown.append(f"Mobile ({mobile[:3]}) {mobile[3:6]}-{mobile[6:]}")
        if "work" in keep:
            phones.append({"type": "work", "number": f"+1{work}"})
            shown.append(f"Office ({work[:3]}) {work[3:6]}-{work[6:]}")
        address = {"street": street, "postal_code": place[1], "city": place[2], "region": place[3]}
    else:
        street, unit = f"{number} {place[0]}", f"Flat {rng.randint(1, 12)}"
        lines.append((f"{unit}, " if "unit" in keep else "") + street)
        lines += [f"{place[2]} {place[1]}", COUNTRY[country]]
        mobile, work = f"7700{_digits(rng, 6)}", f"113{rng.randint(1_000_000, 9_999_999)}"
        if "mobile" in keep:
            phones.append({"type": "mobile", "number": f"+44{mobile}"})
            shown.append(f"Mobile: 0{mobile[:4]} {mobile[4:]}")
        if "work" in keep:
            phones.append({"type": "work", "number": f"+44{work}"})
            shown.append(f"Tel: 0{work[:3]} {work[3:6]} {work[6:]}")
        address = {"street": street, "postal_code": place[1], "city": place[2]}
    if "unit" in keep:
        address["unit"] = unit
    address["country"] = country
    args["address"] = address
    if shown:
        lines.append(" · ".join(shown))
        args["phones"] = phones
    email = f"{given.lower()}.{family.lower()}@{rng.choice(['mail', 'team'])}.example"
    lines.append(email)
    args["emails"] = [email]
    return "\n".join(lines), args, honor


OPTIONAL = ["honor", "title", "org", "unit", "mobile", "work"]


def _case(number: int, rng: random.Random) -> dict:
    countries = {1: ["DE", "US"], 2: ["US", "GB"], 3: ["GB", "DE"]}[number]
    contacts = []
    for i, country in enumerate(countries):
        keep = {k for k in OPTIONAL if rng.random() < 0.5}
        keep |= {"honor"} if i == 0 else set()
        keep -= {"org", "mobile", "work"} if i == 1 else set()  # the second has no organization and no phone
        keep |= {"unit"} if i == 0 else set()
        keep |= {"mobile"} if i == 0 else set()
        contacts.append(_contact(country, rng, keep))
    prompt = ("Add the senders of these two emails to my address book, from their signatures.\n\n"
              + "\n\n".join(f"--\n{text}" for text, _, _ in contacts))
    right = [("create_contact", args) for _, args, _ in contacts]
    first, second = right[0][1], right[1][1]
    honor = contacts[0][2].strip()

    def swap(i: int, changed: dict) -> dict:
        return tool_turn(*[("create_contact", changed if j == i else a) for j, (_, a) in enumerate(right)])

    wrong = [REFUSAL, "Added: " + ", ".join(f"{a['name']['given']} {a['name']['family']}" for _, a in right),
             swap(0, {**first, "name": {**first["name"], "given": f"{honor} {first['name']['given']}"}}),
             swap(1, {**second, "organization": "", "phones": []}),
             swap(1, {**second, "organization": None}),
             swap(0, {**first, "address": {**first["address"], "country": COUNTRY[countries[0]]}}),
             swap(0, {**first, "phones": [{**p, "number": p["number"][:3] + " " + p["number"][3:]}
                                          for p in first["phones"]]}),
             swap(0, {**first, "address": {k: v for k, v in first["address"].items() if k != "unit"}
                      | {"street": first["address"]["street"] + ", " + first["address"]["unit"]}}),
             tool_turn(right[0])]
    us = next((i for i, c in enumerate(countries) if c == "US"), None)
    if us is not None:
        a = right[us][1]
        wrong.append(swap(us, {**a, "address": {k: v for k, v in a["address"].items() if k != "region"}}))
    gb = next((i for i, c in enumerate(countries) if c == "GB"), None)
    if gb is not None and right[gb][1].get("phones"):
        a = right[gb][1]
        wrong.append(swap(gb, {**a, "phones": [{**p, "number": "0" + p["number"][3:]} for p in a["phones"]]}))
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # per signature: split name and role, find the address lines by shape, normalise phones and country,
        # leave out what is absent
        **ruled(4, 2 ** 6, 4),
        "title": "Two email signatures turned into nested contact objects, absent parts left out",
        "notes": (f"Signatures from {countries[0]} and {countries[1]}; the first has an honorific, a unit and a "
                  "mobile, the second no organization and no phone. Compared exactly: empty or null optional parts, "
                  "the honorific in the name, national phone forms, the country's name, the unit inside the street "
                  "or a missing US state fail."),
        "prompt": prompt, "tools": TOOLS, "max_tokens": 4096,
        "grader": {"type": "tool_calls", "calls": [{"name": n, "arguments": {**a, **(
            {"phones": {"set": a["phones"]}} if "phones" in a else {})}} for n, a in right],
                   "allow_extra": False, "arguments_match": "exact", "forbidden": ["send_email"]},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": tool_turn(*right),
                   "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
