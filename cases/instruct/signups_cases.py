"""IN-signups: a sign-up sheet where people wrote their names in different forms ("Ada Quill", "quill, ada",
"ADA  QUILL") becomes a de-duplicated, sorted register (`SURNAME, First`, sorted by surname then first name,
two-word surnames kept whole) with a count line; compared exactly.

Two entries are one person when their first name and surname match ignoring case and spacing, whichever form
they were written in. The traps, each stored: duplicates matched only when written the same way, the register
sorted by first name, "van Dijk" sorted under its last word, the count line counting every entry. The generator
de-duplicates people it chose; `verify.solver` parses each written form from the prompt itself.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-signups"
REFUSAL = "I'm sorry, but I can't help with that request."
FIRST = ("Ada", "Bram", "Cleo", "Dev", "Esme", "Femi", "Gus", "Hana", "Ivo", "Juno", "Kit", "Lars", "Mina")
SURNAMES = ("Quill", "Osei", "Lind", "Marsh", "Patel", "Rowe", "Voss", "Berg", "Nair", "van Dijk", "de Souza",
            "Okafor", "le Roux")
# (people, entries written twice or more)
SHAPES = ((5, 2), (8, 4), (11, 6))


def _forms(first: str, last: str) -> list[str]:
    return [f"{first} {last}", f"{last}, {first}", f"{first.lower()} {last.lower()}", f"{last.upper()}, {first}",
            f"{first}  {last}", f"{last.lower()}, {first.lower()}"]


def _register(people: list[tuple], entries: list[str], mode: str = "right") -> list[str]:
    """mode "exact": entries de-duplicated only when written identically (each form its own person);
    "first": sorted by first name; "lastword": sorted by the surname's last word; "count": every entry counted."""
    if mode == "exact":
        seen: dict[str, tuple] = {}
        for e, p in zip(entries, people):
            seen.setdefault(e, p)
        rows = list(seen.values())
    else:
        rows = list(dict.fromkeys(people))
    if mode == "first":
        rows.sort(key=lambda p: (p[0].lower(), p[1].lower()))
    elif mode == "lastword":
        rows.sort(key=lambda p: (p[1].split()[-1].lower(), p[0].lower()))
    else:
        rows.sort(key=lambda p: (p[1].lower(), p[0].lower()))
    count = len(entries) if mode == "count" else len(rows)
    return [f"{last.upper()}, {first}" for first, last in rows] + [f"People: {count}"]


SOLVER = r'''
import re
PROMPT = __PROMPT__
sheet = re.findall(r"^\d+\. (.+)$", PROMPT.split("Sign-up sheet:\n")[1].split("\n\n")[0], re.M)
people = {}
for entry in sheet:
    if "," in entry:
        last, first = [x.strip() for x in entry.split(",")]
    else:
        parts = entry.split()
        first, last = parts[0], " ".join(parts[1:])
    last = " ".join(last.split())
    key = (last.lower(), first.lower())
    people.setdefault(key, (first.capitalize(), last))
out = [people[k][1].upper() + ", " + people[k][0] for k in sorted(people)]
out.append("People: %d" % len(people))
print("\n".join(out))
'''


def _case(index: int, rng: random.Random, n: int, n_dup: int) -> dict:
    for _ in range(500):
        firsts = rng.sample(FIRST, n)
        lasts = rng.sample(SURNAMES, n)
        people = list(zip(firsts, lasts))
        entries, owners = [], []
        for p in people:
            entries.append(f"{p[0]} {p[1]}")
            owners.append(p)
        for p in rng.sample(people, n_dup):
            for form in rng.sample(_forms(*p)[1:], rng.randint(1, 2)):
                entries.append(form)
                owners.append(p)
        order = list(range(len(entries)))
        rng.shuffle(order)
        entries = [entries[k] for k in order]
        owners = [owners[k] for k in order]
        final = _register(owners, entries)
        traps = {m: _register(owners, entries, m) for m in ("exact", "first", "lastword", "count")}
        if all(t != final for t in traps.values()):
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw")
    prompt = ("Sign-up sheet:\n" + "\n".join(f"{k + 1}. {e}" for k, e in enumerate(entries)) + "\n\n"
              "People wrote their names in different forms: `First Surname` or `Surname, First`, in any case and "
              "spacing. A surname may have two words (such as van Dijk); the first name is always one word. Make a "
              "register with one line per person, `SURNAME, First`: the whole surname in capital letters, then a "
              "comma and a space, then the first name with only its first letter in capitals. Two entries are the "
              "same person when their first names and surnames match, ignoring case and spacing. Sort the lines by "
              "surname (the whole surname, as a word-by-word string, ignoring case), then by first name. After the "
              "register write one line `People: N` with the number of different people. Write nothing after it.\n")
    constraints = [{"kind": "lines_equal", "lines": final}]
    wrong = [REFUSAL, *("\n".join(t) for t in traps.values()), "\n".join(entries), "\n".join(final[:-1]),
             "\n".join(final) + "\n\nIf differently written entries are different people:\n"
             + "\n".join(traps["exact"])]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    hardness = {"steps": n_dup + 3, "search": 1, "traps": len(traps)}
    notes = (f"{len(entries)} entries for {n} people, {n_dup} of them written two or three times in other forms "
             "(reversed with a comma, lower or upper case, extra spaces): every repeated person must be recognised "
             "across forms, then the register normalised, sorted by whole surname (two-word surnames such as van "
             "Dijk and le Roux sort under their first word) and counted. Stored traps: duplicates matched only "
             "when written identically, sorted by first name, sorted by the surname's last word, every entry "
             "counted.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"Sign-up sheet of {len(entries)} entries to a de-duplicated register", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 8192, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "Here is the register:\n\n```\n" + "\n".join(final) + "\n```", "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
