"""PR-fleet: a dense passage about three boats of a museum fleet, summarised as the year each was built and what
each does today; judged against the facts, each attached to its own boat.

The passage interleaves the boats: every launch year sits among refit years and lengths, every present role
beside a former one, and the boats are named in a different order in each part. The screen lets through only a
summary that names every year and role (so a refusal or an off-task reply fails at no cost); the near miss in
verify.wrong holds every year and every role with two of them on the wrong boats, which only the judge can
fail: keyword soup is not a summary.
"""

from __future__ import annotations

from pytest_crucible import family_rng
from pytest_crucible.suite.tiers import ruled

FAMILY = "PR-fleet"
REFUSAL = "I'm sorry, but I can't help with that."
BOATS = ("Merrow", "Kittiwake", "Sea Lark", "Brent Goose", "Cormorant", "Whimbrel", "Shearwater")
YARDS = ("Appledore", "Leith", "Brixham", "Peterhead", "Lowestoft")
# (what it does today, the screen's words for it, what it was first)
ROLES = (("ferries school groups across the estuary", ["school*", "ferr*"], "a pilot cutter"),
         ("takes visitors on seal-watching trips", ["seal*"], "a fishing smack"),
         ("trains young sailors at weekends", ["train*"], "a customs launch"),
         ("carries the harbour master on inspections", ["inspection*", "harbour master"], "a lifeboat"),
         ("serves as a floating classroom for the marine college", ["classroom*"], "a mission ship"),
         ("lays and lifts the moorings in the outer harbour", ["mooring*"], "an oyster dredger"))
NOTES = ("Medium: three boats, two facts each, in a passage that names them in a different order in each part and "
         "sets a refit year beside every launch year and a former role beside every present one. The summary must "
         "bind six facts to the right subjects within a word limit; the traps are a refit year given as the build "
         "year and facts swapped between boats (the stored near miss).")


def _case(rng, number: int) -> dict:
    names = rng.sample(BOATS, 3)
    roles = rng.sample(ROLES, 3)
    years = rng.sample(range(1888, 1972), 3)
    refits = [y + rng.randint(18, 45) for y in years]
    feet = rng.sample(range(34, 96), 3)
    yards = rng.sample(YARDS, 3)
    boats = [{"name": n, "year": y, "refit": r, "feet": f, "yard": yd, "role": ro[0], "any": ro[1], "former": ro[2]}
             for n, y, r, f, yd, ro in zip(names, years, refits, feet, yards, roles)]
    first, second = boats[:], boats[:]
    rng.shuffle(first)
    while [b["name"] for b in second] == [b["name"] for b in first]:
        rng.shuffle(second)
    history = " ".join(f"The {b['name']} was launched at {b['yard']} in {b['year']} as {b['former']} and refitted in "
                       f"{b['refit']}; she is {b['feet']} feet long." for b in first)
    today = " ".join(f"These days the {b['name']} {b['role']}." for b in second)
    passage = (f"The Estuary Museum keeps three working boats. {history} All three are maintained by volunteers, who "
               f"spend about 3,000 hours a year on them. {today} The museum hopes to add a fourth boat by 2030.")
    limit = 60
    prompt = (f"Summarise this for a visitor leaflet in at most {limit} words. For each of the three boats, give the "
              f"year it was built and what it does today.\n\n\"{passage}\"")
    points = [p for b in boats for p in (
        {"text": f"the {b['name']} was built in {b['year']}", "any": [str(b["year"])]},
        {"text": f"the {b['name']} {b['role']} today", "any": b["any"]})]
    a, b, c = boats
    reference = (f"The {a['name']}, built in {a['year']}, now {a['role']}. The {b['name']}, built in {b['year']}, "
                 f"{b['role']}. The {c['name']}, built in {c['year']}, {c['role']}.")
    oldest = sorted(boats, key=lambda x: x["year"])
    accepted = [
        f"Built in {a['year']}, the {a['name']} {a['role']}. The {b['name']} dates from {b['year']} and {b['role']}; "
        f"the {c['name']} ({c['year']}) {c['role']}.",
        "\n".join(f"- {x['name']} (built {x['year']}): {x['role']}" for x in boats),
        "Oldest first: " + "; ".join(f"the {x['name']} ({x['year']}) {x['role']}" for x in oldest) + "."]
    swapped = (f"The {a['name']}, built in {b['year']}, now {b['role']}. The {b['name']}, built in {a['year']}, "
               f"{a['role']}. The {c['name']}, built in {c['year']}, {c['role']}.")
    wrong = [REFUSAL,
             "The museum's boats are kept by volunteers, who put in about 3,000 hours a year, and a fourth boat may "
             "join the fleet by 2030.",
             f"Either the {a['name']} or the {b['name']} was built in {a['year']}; one of them {a['role']}, and the "
             f"{c['name']} {c['role']}.",
             swapped]
    return {"id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "prose", **ruled(6, 1, 2),
            "tags": ["judged"], "notes": NOTES, "prompt": prompt,
            "grader": {"type": "judge", "rubric": "summary", "gold": reference, "points": points,
                       "max_words": limit},
            "verify": {"reference": reference, "accepted": accepted, "wrong": wrong}}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, k) for k in (1, 2, 3)]
