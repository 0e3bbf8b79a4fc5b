"""Agent: merge flagged duplicate customer records only when the tax registry confirms one company (AG-dedupe).

A simulated CRM and company registry (a Python handler). list_duplicates gives the pairs a fuzzy matcher flagged,
by name only, in the batch the prompt names (each sibling its own). get_record shows a record's tax id, street,
city and creation date; two records are one company exactly when their tax ids are equal. A record without a tax id
needs registry_search, which returns every registered company of that name: the one at the record's street and city
is the right one (another city's namesake is listed first). Each confirmed pair is merged into the record created
first. Where two pairs share a record, the first merge may remove it: merge_records then names the record it was
merged into, and the second pair is settled between the survivor and the third record (siblings 2 and 3). Traps:
merging every flagged pair, keeping the record listed first rather than the older one, reading the registry's first
hit, treating a record without a tax id as a different company, and merging a removed record.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-dedupe"
COMPANIES = ["Nordlicht Logistik", "Brightwater Foods", "Kestrel Tooling", "Alder & Finch", "Marlow Textiles",
             "Oberon Dental", "Quayside Print", "Sable Ridge Farms", "Tamsin Optics", "Vireo Analytics"]
SUFFIX = ["GmbH", "Ltd", "BV", "AB", "SARL"]
CITIES = ["Leeds", "Cork", "Utrecht", "Malmo", "Lyon", "Graz", "Aarhus", "Porto"]
STREETS = ["Harbour Road", "Mill Lane", "Kingsway", "Station Street", "Canal Walk", "Elm Row", "Quarry Hill"]
KINDS = {1: ["same", "differ", "missing_same", "missing_differ"],
         2: ["chain", "differ", "missing_same"],
         3: ["missing_differ", "chain", "same"]}

TOOLS = [
    function_tool("list_duplicates", "Pairs of customer records one matcher batch flagged as possible duplicates.",
                  {"batch": {"type": "string", "description": "the matcher batch id, e.g. DUP-1234"}}, ["batch"]),
    function_tool("get_record", "One customer record: name, tax id, street, city, created date, status.",
                  {"record_id": {"type": "string"}}, ["record_id"]),
    function_tool("registry_search", "Registered companies whose legal name contains the text: name, tax id, "
                  "street, city.", {"name": {"type": "string"}}, ["name"]),
    function_tool("merge_records", "Merge one customer record into another; the removed record's history moves "
                  "to the kept one.", {"keep_id": {"type": "string"}, "remove_id": {"type": "string"}},
                  ["keep_id", "remove_id"]),
]


def handler(name: str, arguments: dict, state: dict) -> dict:
    records = state["records"]
    if name == "list_duplicates":
        if str(arguments.get("batch", "")).strip().upper() != state["batch"]:
            return {"error": f"no matcher batch {arguments.get('batch')!r}"}
        return {"result": state["pairs"]}
    if name == "registry_search":
        text = " ".join(str(arguments.get("name", "")).lower().split())
        hits = [e for e in state["registry"] if len(text) >= 4 and text in e["name"].lower()]
        return {"result": hits}
    if name == "get_record":
        rid = str(arguments.get("record_id", "")).strip().upper()
        if rid not in records:
            return {"error": f"no record {arguments.get('record_id')!r}"}
        rec = records[rid]
        if rec["merged_into"]:
            return {"result": {"id": rid, "status": "merged", "merged_into": rec["merged_into"]}}
        return {"result": {k: v for k, v in rec.items() if k != "merged_into"} | {"status": "active"}}
    keep, remove = (str(arguments.get(k, "")).strip().upper() for k in ("keep_id", "remove_id"))
    for rid in (keep, remove):
        if rid not in records:
            return {"error": f"no record {rid!r}"}
        if records[rid]["merged_into"]:
            return {"error": f"record {rid} no longer exists: it was merged into {records[rid]['merged_into']}"}
    if keep == remove:
        return {"error": "keep_id and remove_id are the same record"}
    records[remove]["merged_into"] = keep
    state["merges"].append([keep, remove])
    return {"result": f"merged {remove} into {keep}; {remove} is now an alias of {keep}"}


class _Maker:
    """Unique record ids and tax ids."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.ids = iter(f"C-{n}" for n in rng.sample(range(10000, 99999), 20))
        self.taxes = iter(f"{rng.choice(['DE', 'GB', 'NL', 'SE', 'FR'])}{n}"
                          for n in rng.sample(range(10**8, 10**9), 20))

    def tax(self) -> str:
        return next(self.taxes)

    def record(self, name: str, city: str, street: str, tax: str | None, day: int) -> dict:
        created = date(2019, 1, 1) + timedelta(days=day)
        return {"id": next(self.ids), "name": name, "tax_id": tax, "street": street, "city": city,
                "created": str(created), "merged_into": None}


def _pair(kind: str, m: _Maker, company: str, rng: random.Random) -> tuple[list[dict], list[list[str]], list[dict]]:
    """(records, flagged pairs of ids, registry entries) for one kind of pair."""
    city, other = rng.sample(CITIES, 2)
    street, other_street = rng.sample(STREETS, 2)
    legal = f"{company} {rng.choice(SUFFIX)}"
    days = sorted(rng.sample(range(0, 2400), 3))
    if kind == "chain":  # X newest, listed first in both pairs
        tax = m.tax()
        y, z = rng.sample(days[:2], 2)
        x = m.record(legal, city, street, tax, days[2])
        recs = [x, m.record(company, city, street, tax, y), m.record(legal.upper(), city, street, tax, z)]
        return recs, [[recs[0]["id"], recs[1]["id"]], [recs[0]["id"], recs[2]["id"]]], []
    first, second = (days[1], days[0]) if rng.random() < 0.7 else (days[0], days[1])  # the older one mostly listed 2nd
    tax = m.tax()
    a = m.record(legal, city, street, tax, first)
    if kind == "same":
        b = m.record(company, city, street, tax, second)
        return [a, b], [[a["id"], b["id"]]], []
    if kind == "differ":
        b = m.record(legal, other, other_street, m.tax(), second)
        return [a, b], [[a["id"], b["id"]]], []
    b = m.record(company, city if kind == "missing_same" else other, street if kind == "missing_same" else other_street,
                 None, second)
    right = {"name": legal, "tax_id": tax if kind == "missing_same" else m.tax(), "street": b["street"],
             "city": b["city"]}
    decoy_tax = m.tax() if kind == "missing_same" else tax
    decoy = {"name": legal, "tax_id": decoy_tax, "street": other_street if kind == "missing_same" else street,
             "city": other if kind == "missing_same" else city}
    return [a, b], [[a["id"], b["id"]]], [decoy, right]


SOLVER = """
import json
RECORDS, PAIRS, REGISTRY = {records!r}, {pairs!r}, {registry!r}
# settle the pairs in order over a union-find of merged records; a missing tax id comes from the registry entry
# at the record's own street and city
alias = {{}}
def alive(r):
    while r in alias:
        r = alias[r]
    return r
def tax(r):
    rec = RECORDS[r]
    if rec["tax_id"]:
        return rec["tax_id"]
    [hit] = [e for e in REGISTRY if e["street"] == rec["street"] and e["city"] == rec["city"]
             and rec["name"].lower() in e["name"].lower()]
    return hit["tax_id"]
merged = left = 0
calls = []
for a, b in PAIRS:
    a, b = alive(a), alive(b)
    if a != b and tax(a) == tax(b):
        keep, gone = sorted([a, b], key=lambda r: RECORDS[r]["created"])
        alias[gone] = keep
        calls.append({{"name": "merge_records", "arguments": {{"keep_id": keep, "remove_id": gone}}}})
        merged += 1
    else:
        left += 1
print(json.dumps({{"calls": calls, "values": {{"Merged:": merged, "Left alone:": left}},
                  "state": {{"merges": [[c["arguments"]["keep_id"], c["arguments"]["remove_id"]] for c in calls]}}}}))
"""


def _case(number: int, rng: random.Random, batch: str) -> dict:
    m = _Maker(rng)
    companies = rng.sample(COMPANIES, len(KINDS[number]))
    records, pairs, registry, kinds = [], [], [], []
    for kind, company in zip(KINDS[number], companies):
        recs, flagged, entries = _pair(kind, m, company, rng)
        records += recs
        pairs += flagged
        registry += entries
        kinds += [kind] * len(flagged)
    by_id = {r["id"]: r for r in records}
    flagged_rows = [{"pair": f"D{i + 1}", "records": [{"id": r, "name": by_id[r]["name"]} for r in (a, b)]}
                    for i, (a, b) in enumerate(pairs)]
    merges, alias = [], {}
    alive = lambda r: alive(alias[r]) if r in alias else r  # noqa: E731
    for (a, b), kind in zip(pairs, kinds):
        if kind in ("same", "missing_same", "chain"):
            keep, gone = sorted([alive(a), alive(b)], key=lambda r: by_id[r]["created"])
            alias[gone] = keep
            merges.append([keep, gone])
    merged, left = len(merges), len(pairs) - len(merges)
    prompt = (
        f"Our CRM's matcher flagged possible duplicate customer records in batch {batch}. Settle every flagged pair "
        "with the tools, in the order listed. Two records are the same company exactly when their tax ids are "
        "equal. A record without a tax id: look its company up in the registry and take the tax id of the entry at "
        "the record's own street and city. Merge each pair that is one company into the record that was created "
        "first; leave the other pairs alone. When a record of a pair has already been merged, settle the pair "
        "between the record it was merged into and the other one.\n\n"
        "Finish with exactly two lines:\nMerged: <how many pairs you merged>\n"
        "Left alone: <how many pairs you did not merge>"
    )
    listing = tool_turn(("list_duplicates", {"batch": batch}))
    reads = [tool_turn(("get_record", {"record_id": r["id"]})) for r in records]
    lookups = [tool_turn(("registry_search", {"name": by_id[b]["name"]})) for (a, b), kind in zip(pairs, kinds)
               if kind.startswith("missing")]
    merge_turns = [tool_turn(("merge_records", {"keep_id": k, "remove_id": g})) for k, g in merges]
    answer = f"Merged: {merged}\nLeft alone: {left}"
    calls = [{"name": "merge_records", "arguments": {"keep_id": k, "remove_id": g}} for k, g in merges]
    every = [tool_turn(("merge_records", {"keep_id": a, "remove_id": b})) for a, b in pairs]
    newer_kept = [tool_turn(("merge_records", {"keep_id": merges[0][1], "remove_id": merges[0][0]}))]
    no_lookup = [tool_turn(("merge_records", {"keep_id": k, "remove_id": g})) for (k, g), kind in
                 zip(merges, [k for k in kinds if k in ("same", "missing_same", "chain")]) if kind != "missing_same"]
    wrong = [
        ["I'm sorry, I can't merge customer records."],
        [listing, *reads, *every, f"Merged: {len(pairs)}\nLeft alone: 0"],
        [listing, *reads, *lookups, *newer_kept, *merge_turns[1:], answer],
        [listing, *reads, *merge_turns, f"Merged: {merged}\nLeft alone: {left + 1}"],
        [listing, *reads, *lookups, *merge_turns, f"Merged: {merged} (maybe {merged + 1})\nLeft alone: {left}"],
    ]
    if "missing_same" in kinds:
        wrong.append([listing, *reads, *no_lookup,
                      f"Merged: {len(no_lookup)}\nLeft alone: {len(pairs) - len(no_lookup)}"])
    if "missing_differ" in kinds:
        i = kinds.index("missing_differ")
        a, b = pairs[i]
        keep, gone = sorted([a, b], key=lambda r: by_id[r]["created"])
        wrong.append([listing, *reads, *lookups, *merge_turns,
                      tool_turn(("merge_records", {"keep_id": keep, "remove_id": gone})),
                      f"Merged: {merged + 1}\nLeft alone: {left - 1}"])
    if "chain" in kinds:
        i = kinds.index("chain")
        (x, _), (_, z) = pairs[i], pairs[i + 1]
        stale = sorted([x, z], key=lambda r: by_id[r]["created"])
        cut = merge_turns[:[k for k in kinds if k in ("same", "missing_same", "chain")].index("chain") + 1]
        wrong.append([listing, *reads, *lookups, *cut,
                      tool_turn(("merge_records", {"keep_id": stale[0], "remove_id": stale[1]})),
                      f"Merged: {len(cut)}\nLeft alone: {len(pairs) - len(cut)}"])
    steps = 1 + len(records) + len(lookups) + len(merges)
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # the list, every record read, a registry lookup per record without a tax id, the merges (the chain's
        # second depends on the first's result); search: each pair merged either way or not; traps: merge every
        # flagged pair, keep the listed-first record, the registry's first hit
        **ruled(steps, 3 ** len(pairs), 3),
        "title": "Merge flagged duplicate customers only where the tax registry confirms one company",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 8192,
        "simulation": {"handler": handler, "max_turns": 24,
                       "state": {"batch": batch, "records": by_id, "pairs": flagged_rows, "registry": registry,
                                 "merges": []}},
        "grader": {"type": "trace", "calls": calls, "order": "strict", "repeats": True,
                   "limit_to_required": ["merge_records"], "state": {"merges": merges},
                   "answer": {"values": {"Merged:": merged, "Left alone:": left}}},
        "notes": (f"{len(pairs)} flagged pairs ({', '.join(kinds)}), {len(records)} records to read, "
                  f"{len(lookups)} registry lookup(s) where the right entry is the second hit (the first is a "
                  "namesake elsewhere); the older record is mostly listed second. "
                  + ("Two pairs share a record that the first merge removes, so the second pair is settled between "
                     "the survivor and the third record. " if "chain" in kinds else "")
                  + "Traps: merge every flagged pair, keep the listed-first record, trust the registry's first hit, "
                    "treat a missing tax id as a different company. Why a strong 30B model fails: a dozen reads "
                    "must be joined per pair, the registry's first hit is the wrong one, and the second merge of a "
                    "chain needs the first merge's result, not the flagged ids."),
        "verify": {"solver": SOLVER.format(records=by_id, pairs=pairs, registry=registry),
                   "reference": [listing, *reads, *lookups, *merge_turns, f"All pairs settled.\n\n{answer}"],
                   "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    batches = random.Random(f"{FAMILY}:{seed}:batches").sample(range(1000, 10000), 3)  # one per sibling
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}"), f"DUP-{batches[n - 1]}") for n in range(1, 4)]
