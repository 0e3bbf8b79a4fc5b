"""IN-numstyle: a report edited to a house style for numbers (zero to nine in words and 10 up in digits, a number
that opens a sentence always in words, percentages always as digits with %, a measurement with a unit always in
digits); compared exactly, one sentence per line.

The numbers arrive in both forms, so each must be converted one way or the other, and three rules override the
first one. The traps, each stored: the sentence-start rule ignored, percentages treated as plain numbers (and
"per cent" kept), measurements treated as plain numbers, every number turned into digits. The generator renders
numbers it chose; `verify.solver` reads each number in the prompt's text (in digits or in words) and writes it
by its own spelling table.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-numstyle"
REFUSAL = "I'm sorry, but I can't help with that request."
ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
# {s}: a number opening the sentence; {c}: a count; {p}: a percentage; {u}: a measurement
TEMPLATES = ("{s} volunteers arrived before noon.", "The crew of {c} rowed {u} km before breakfast.",
             "About {p} of the seats were empty.", "We counted {c} gulls and {c} terns on the pier.",
             "The ferry carried {c} cars and waited {c} minutes.", "Only {p} of the tickets were sold online.",
             "Each of the {c} sacks weighed {u} kg.", "{s} boats left the harbour at dawn.",
             "The path climbs {u} m over {c} bends.", "{s} stalls sold out, and {p} of the stallholders came back.",
             "The choir has {c} singers, of whom {c} are new.", "Rain fell on {c} of the {c} days.")
# (sentences, of which opening with a number)
SHAPES = ((4, 1), (7, 2), (9, 3))


def spell(n: int) -> str:
    if n < 20:
        return ONES[n]
    return TENS[n // 10] + ("-" + ONES[n % 10] if n % 10 else "")


def _write(kind: str, n: int, mode: str = "right") -> str:
    """A number as the house style writes it. mode "start": the start rule ignored; "pct": percentages as plain
    numbers with "per cent"; "unit": measurements as plain numbers; "digits": every number in digits."""
    if mode == "digits":
        return f"{n}%" if kind == "p" else str(n)
    if kind == "s" and mode != "start":
        return spell(n).capitalize()
    if kind == "p":
        return (spell(n) if n < 10 else str(n)) + " per cent" if mode == "pct" else f"{n}%"
    if kind == "u" and mode != "unit":
        return str(n)
    return spell(n) if n < 10 else str(n)


def _given(rng: random.Random, kind: str, n: int) -> str:
    """A number as the draft writes it: digits or words, at random."""
    words = rng.random() < 0.5
    if kind == "s":
        return spell(n).capitalize() if words else str(n)
    if kind == "p":
        return (spell(n) if words else str(n)) + " per cent"
    return spell(n) if words else str(n)


SOLVER = r'''
import re
PROMPT = __PROMPT__
lines = PROMPT.split("Draft:\n")[1].split("\n\n")[0].split("\n")
small = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen " \
        "seventeen eighteen nineteen".split()
tens = "twenty thirty forty fifty sixty seventy eighty ninety".split()
names = {w: i for i, w in enumerate(small)}
for t, w in enumerate(tens):
    names[w] = 20 + 10 * t
    for i in range(1, 10):
        names[w + "-" + small[i]] = 20 + 10 * t + i
def words(n):
    return small[n] if n < 20 else tens[n // 10 - 2] + ("-" + small[n % 10] if n % 10 else "")
token = r"\d+|" + "|".join(sorted(names, key=len, reverse=True))
out = []
for line in lines:
    def fix(m):
        n = int(m.group(1)) if m.group(1).isdigit() else names[m.group(1).lower()]
        after = m.group(2)
        if after.startswith(" per cent"):
            return str(n) + "%" + after[len(" per cent"):]
        if m.start() == 0:
            return words(n).capitalize() + after
        if re.match(r" (km|kg|m)\b", after):
            return str(n) + after
        return (words(n) if n < 10 else str(n)) + after
    out.append(re.sub(r"\b(" + token + r")\b( per cent| \w+)", fix, line, flags=re.I))
print("\n".join(out))
'''


def _case(index: int, rng: random.Random, n: int, n_start: int) -> dict:
    for _ in range(500):
        starts = [t for t in TEMPLATES if t.startswith("{s}")]
        others = [t for t in TEMPLATES if not t.startswith("{s}")]
        chosen = rng.sample(starts, n_start) + rng.sample(others, n - n_start)
        rng.shuffle(chosen)
        draft, outs = [], {m: [] for m in ("right", "start", "pct", "unit", "digits")}
        for t in chosen:
            values = []
            for part in t.split("{")[1:]:
                kind = part[0]
                values.append((kind, rng.randint(2, 9) if rng.random() < 0.5 else rng.randint(10, 60)))
            if "of whom" in t or "of the {c} days" in t:  # a part of a whole: the part is the smaller
                small, large = sorted({v for _, v in values}) if len({v for _, v in values}) == 2 else (1, 2)
                values = [("c", large), ("c", small)] if "of whom" in t else [("c", small), ("c", large)]
            pieces = t.replace("{s}", "{}").replace("{c}", "{}").replace("{p}", "{}").replace("{u}", "{}")
            draft.append(pieces.format(*(_given(rng, k, v) for k, v in values)))
            for m in outs:
                outs[m].append(pieces.format(*(_write(k, v, m) for k, v in values)))
        final = outs.pop("right")
        if all(t != final for t in outs.values()) and draft != final:
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw")
    prompt = ("Edit this draft to our house style for numbers.\n\nDraft:\n" + "\n".join(draft) + "\n\n"
              "House style:\n1. Write whole numbers from zero to nine in words and numbers from 10 up in digits.\n"
              "2. A number that opens a sentence is always written in words, with a capital letter and a hyphen "
              "between tens and units (Twenty-three).\n"
              "3. A percentage is always written in digits followed by % with no space (\"five per cent\" becomes "
              "5%).\n4. A measurement with a unit (km, kg, m) is always written in digits (\"three km\" becomes "
              "3 km).\n"
              "Change nothing else. Write the edited draft one sentence per line, and nothing after it.\n")
    constraints = [{"kind": "lines_equal", "lines": final}]
    wrong = [REFUSAL, *("\n".join(t) for t in outs.values()), "\n".join(draft), "\n".join(final[:-1]),
             "\n".join(final) + "\n\n(Or, if a sentence may open with digits: " + outs["start"][0] + ")"]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    hardness = {"steps": 5, "search": 1, "traps": len(outs)}
    notes = (f"{n} sentences whose numbers arrive in digits or in words; a base rule and three overriding rules "
             "(sentence start, percentages, measurements) decide each number's form, and the writer must convert "
             "in both directions, with hyphenated words for 21 to 99 at a sentence start. The numbers are "
             "independent of each other, so the tier is medium at any length. Stored traps: the start rule "
             "ignored, percentages as plain numbers with per cent kept, measurements as plain numbers, all digits.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"House style for numbers over {n} sentences", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 8192, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "Here is the edited draft:\n\n" + "\n".join(final), "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
