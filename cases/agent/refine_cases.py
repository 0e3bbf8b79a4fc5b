"""Agent: a document search that must be narrowed before it answers, then a contract read through its addenda
(family AG-refine).

A simulated document archive (a Python handler) of about 240 documents. search_documents matches any query word
in a title and lists results only when at most 20 match; above that it gives the count and says to narrow with
filters (year, department, doc_type). The department filter takes a code that list_values gives (Legal is not
"Legal", and an archive code for older Legal files sits beside it), and a single filter still leaves too many.
Among the narrowed results: the signed lease renewal, its draft (another rent), a lease for the same city's
office, and addenda. The rent in force is the lease's, unless a signed addendum changed it: the latest signed
addendum wins, a draft addendum does not count. Siblings: one signed addendum; a signed one and a later draft;
two signed ones. Traps: the lease's own rent (the addendum ignored), the draft lease's rent, the draft addendum,
the earlier addendum, the office lease.
"""

from __future__ import annotations

import random
import re

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-refine"
LIMIT = 20
CITIES = ["Rotterdam", "Antwerp", "Hamburg", "Gdansk", "Le Havre", "Bremen"]
DEPARTMENTS = [("LGL", "Legal"), ("LGL-ARC", "Legal archive (files up to 2022)"), ("FAC", "Facilities"),
               ("FIN", "Finance"), ("PRC", "Procurement")]
TYPES = ["contract", "addendum", "invoice", "memo", "report"]
SUBJECTS = ["warehouse lease", "office lease", "warehouse insurance", "depot lease", "warehouse maintenance",
            "lease payments", "office cleaning", "warehouse security", "lease review", "parking lease"]

TOOLS = [
    function_tool("search_documents", f"Search the document archive; lists results when at most {LIMIT} match.",
                  {"query": {"type": "string"}, "year": {"type": "integer"},
                   "department": {"type": "string", "description": "a department code (list_values)"},
                   "doc_type": {"type": "string", "enum": TYPES}}, ["query"]),
    function_tool("list_values", "The values a search filter takes.",
                  {"field": {"type": "string", "enum": ["department", "doc_type"]}}, ["field"]),
    function_tool("get_document", "One document's full text.", {"doc_id": {"type": "string"}}, ["doc_id"]),
]


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4}


def handler(name: str, arguments: dict, state: dict) -> dict:
    docs = state["docs"]
    if name == "list_values":
        if arguments.get("field") == "department":
            return {"result": [{"code": c, "name": n} for c, n in DEPARTMENTS]}
        return {"result": TYPES}
    if name == "get_document":
        doc = next((d for d in docs if d["doc_id"] == str(arguments.get("doc_id", "")).strip().upper()), None)
        return {"result": doc} if doc else {"error": f"no document {arguments.get('doc_id')!r}"}
    department = arguments.get("department")
    if department is not None and department not in [c for c, _ in DEPARTMENTS]:
        return {"error": f"unknown department {department!r}: use a code from list_values"}
    words = _words(str(arguments.get("query", "")))
    if not words:
        return {"error": "give at least one word of four letters or more"}
    hits = [d for d in docs if words & _words(d["title"])
            and all(arguments.get(k) is None or d[k] == arguments[k] for k in ("year", "department", "doc_type"))]
    if len(hits) > LIMIT:
        return {"result": {"count": len(hits), "results": [],
                           "note": f"more than {LIMIT} matches: narrow the search with year, department or doc_type"}}
    return {"result": {"count": len(hits), "results": [{k: d[k] for k in ("doc_id", "title", "date", "department",
                                                                             "doc_type", "status")} for d in hits]}}


def _eur(amount: int) -> str:
    return f"{amount:,}.00 EUR"


def _world(number: int, rng: random.Random, city: str) -> dict:
    year = rng.choice([2024, 2025])
    ids = iter(f"DOC-{n}" for n in rng.sample(range(10000, 99999), 300))
    docs = []

    def doc(title, month, dept, kind, status, text, y=year):
        day = f"{y}-{month:02d}-{rng.randint(1, 28):02d}"
        d = {"doc_id": next(ids), "title": title, "date": day, "year": y, "department": dept, "doc_type": kind,
             "status": status, "text": text}
        docs.append(d)
        return d

    rents = rng.sample(range(12_000, 30_000, 50), 7)
    lease = doc(f"Lease renewal - {city} warehouse", rng.randint(3, 5), "LGL", "contract", "signed", "")
    draft = doc(f"Lease renewal - {city} warehouse (draft)", 2, "LGL", "contract", "draft",
                f"Draft. Monthly rent: {_eur(rents[1])}.")
    office = doc(f"Lease - {city} office", rng.randint(3, 9), "LGL", "contract", "signed",
                 f"Monthly rent: {_eur(rents[2])}. Term: five years.")
    doc(f"Lease renewal - {city} warehouse", rng.randint(3, 6), "LGL", "contract", "signed",
        f"Monthly rent: {_eur(rents[3])}. Term: one year.", y=year - 1)
    addenda = []
    plan = {1: [("signed", 9)], 2: [("signed", 7), ("draft", 11)], 3: [("signed", 7), ("signed", 11)]}[number]
    for i, (status, month) in enumerate(plan, start=1):
        addenda.append(doc(f"Addendum {i} to lease renewal - {city} warehouse", month, "LGL", "addendum", status,
                           f"{'Draft. ' if status == 'draft' else ''}The monthly rent under {lease['doc_id']} is "
                           f"changed to {_eur(rents[3 + i])} from the first day of the month after signature."))
    lease["text"] = (f"Lease of the {city} warehouse, renewed for three years. Monthly rent: {_eur(rents[0])}, "
                     "unless changed by a signed addendum referring to this lease. Deposit: three months' rent.")
    others = [c for c in CITIES if c != city]
    while len(docs) < 240:
        place = rng.choice([city, *others])
        subject = rng.choice(SUBJECTS)
        dept, _ = rng.choice(DEPARTMENTS)
        y = rng.choice([2021, 2022] if dept == "LGL-ARC" else [2023, 2024, 2025])
        doc(f"{subject.capitalize()} - {place}", rng.randint(1, 12), dept, rng.choice(TYPES), "signed",
            f"Routine {subject} document for {place}.", y=y)
    signed = [a for a in addenda if a["status"] == "signed"]
    in_force = signed[-1] if signed else lease
    rent = rents[3 + addenda.index(in_force) + 1] if signed else rents[0]
    return {"docs": docs, "city": city, "year": year, "lease": lease, "draft": draft, "office": office,
            "addenda": addenda, "in_force": in_force, "rent": rent, "rents": rents}


SOLVER = """
import json, re
DOCS, CITY, YEAR = {docs!r}, {city!r}, {year!r}
# read every document of the archive: the year's signed Legal lease renewal of the city's warehouse, then every
# signed addendum that names it; the latest one's rent, else the lease's own
[lease] = [d for d in DOCS if d["doc_type"] == "contract" and d["status"] == "signed" and d["department"] == "LGL"
           and d["year"] == YEAR and CITY + " warehouse" in d["title"]]
changes = sorted((d["date"], d["doc_id"], d["text"]) for d in DOCS if d["doc_type"] == "addendum"
                 and d["status"] == "signed" and lease["doc_id"] in d["text"])
date, source, text = changes[-1] if changes else (None, lease["doc_id"], lease["text"])
rent = int(re.search(r"([0-9,]+)\\.00 EUR", text).group(1).replace(",", ""))
print(json.dumps({{"values": {{"Monthly rent:": rent, "Set by:": source}}}}))
"""


def _ok(w: dict, query: str) -> bool:
    """Each single filter leaves too many hits for the plain query; year and Legal together list them all."""
    words = _words(query)
    hits = [d for d in w["docs"] if words & _words(d["title"])]
    by_year = [d for d in hits if d["year"] == w["year"]]
    by_dept = [d for d in hits if d["department"] == "LGL"]
    both = [d for d in by_year if d["department"] == "LGL"]
    return len(by_year) > LIMIT and len(by_dept) > LIMIT and len(both) <= LIMIT


def _case(number: int, rng: random.Random, city: str) -> dict:
    w = _world(number, rng, city)
    while not _ok(w, f"{w['city']} warehouse lease renewal"):
        w = _world(number, rng, city)
    city, year, lease = w["city"], w["year"], w["lease"]
    query = f"{city} warehouse lease renewal"
    prompt = (
        f"What monthly rent do we pay now for our {city} warehouse? I need the figure from the lease renewal for "
        f"the {city} warehouse that Legal signed in {year}, as changed by any signed addendum to it (a later signed "
        "addendum replaces an earlier one; drafts do not count). Use the document archive tools; today is "
        f"{year + 1}-01-20.\n\nFinish with exactly two lines:\nMonthly rent: <EUR per month>\n"
        "Set by: <the doc id of the document that sets that rent>"
    )
    search = lambda **f: tool_turn(("search_documents", {"query": query, **f}))  # noqa: E731
    get = lambda d: tool_turn(("get_document", {"doc_id": d["doc_id"]}))  # noqa: E731
    narrowed = search(year=year, department="LGL")
    base = [search(), search(year=year), tool_turn(("list_values", {"field": "department"})), narrowed, get(lease)]
    script = [*base, *[get(a) for a in w["addenda"]]]
    answer = f"Monthly rent: {_eur(w['rent'])}\nSet by: {w['in_force']['doc_id']}"
    say = lambda rent, doc: f"Monthly rent: {_eur(rent)}\nSet by: {doc['doc_id']}"  # noqa: E731
    addenda, rents = w["addenda"], w["rents"]
    wrong = [
        ["I'm sorry, I can't search the document archive."],
        [search(), f"There are too many documents to tell. Monthly rent: {_eur(rents[0])}"],
        [*base, say(rents[0], lease)],
        [*base[:4], get(w["draft"]), say(rents[1], w["draft"])],
        [*base[:4], get(w["office"]), say(rents[2], w["office"])],
    ]
    if number == 2:
        wrong.append([*script, say(rents[5], addenda[1])])
    if number == 3:
        wrong.append([*script, say(rents[4], addenda[0])])
    required = [{"name": "get_document", "arguments": {"doc_id": lease["doc_id"]}},
                {"name": "get_document", "arguments": {"doc_id": w["in_force"]["doc_id"]}}]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # a too-wide search, the department codes, the narrowed search, the lease, its addenda: about 6 steps
        # over some 240 documents; traps: the lease's own rent, the draft lease, the office lease (and per
        # sibling the draft or earlier addendum)
        **ruled(5 + len(addenda), len(w["docs"]), 3),
        "title": "Narrow an archive search that lists nothing until filtered, then read a lease through its addenda",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 6144,
        "simulation": {"handler": handler, "max_turns": 20, "state": {"docs": w["docs"]}},
        "grader": {"type": "trace", "calls": required, "repeats": True, "max_calls": 24,
                   "answer": {"values": {"Monthly rent:": w["rent"], "Set by:": w["in_force"]["doc_id"]},
                              "decoys": [d["doc_id"] for d in [lease, w["draft"], w["office"], *addenda]
                                         if d is not w["in_force"]]}},
        "notes": (f"{len(w['docs'])} documents; the query alone, or with only the year or only the department, "
                  f"matches more than {LIMIT} and lists nothing; Legal's code comes from list_values (beside an "
                  f"archive code). {len(addenda)} addend{'um' if len(addenda) == 1 else 'a'} to the lease; the rent in "
                  "force is the latest signed one's. Decoy rents: the lease's own, the draft lease's, the office "
                  "lease's, the draft or earlier addendum's."),
        "verify": {"solver": SOLVER.format(docs=w["docs"], city=city, year=year),
                   "reference": [*script, f"The latest signed addendum sets the rent.\n\n{answer}"],
                   "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    cities = random.Random(f"{FAMILY}:{seed}:cities").sample(CITIES, 3)  # each sibling asks about its own city
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}"), cities[n - 1]) for n in range(1, 4)]
