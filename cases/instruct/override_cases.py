"""IN-override: fill a booking form from a numbered list of instructions where later ones correct or withdraw
earlier ones; the reply is the form's lines, exactly.

A correction rewrites an earlier instruction in place (so a later instruction that sets the same field still
wins over it), a withdrawn instruction counts as never given (the field falls back to what an earlier one
said, or to "none"), and the last format instruction in force decides how the date and the time are written.
The traps: a correction read as the newest word on its field, a withdrawal ignored, the first format kept.
`verify.solver` parses the instructions from the prompt and resolves them by rewriting the list first.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-override"
REFUSAL = "I'm sorry, but I can't help with that request."
FIELDS = ("Name", "Venue", "Date", "Time", "Guests", "Menu")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
POOLS = {"Name": ("Ada Quill", "Bram Osei", "Cora Lind", "Dev Patel", "Edda Voss", "Finn Rowe", "Gita Rao"),
         "Venue": ("Harbour Room", "Old Granary", "Mill Loft", "Quay Hall", "Orchard Barn", "Tower Suite"),
         "Menu": ("vegetarian", "seafood", "roast", "vegan", "buffet", "tasting")}
DATE_FORMATS = ("DD/MM/YYYY", "YYYY-MM-DD", "D Month YYYY")
TIME_FORMATS = ("24-hour HH:MM", "12-hour h:MM am/pm")
# (instructions after the first settings, difficulty knobs: corrections, withdrawals)
SHAPES = ((1, 0, 1), (6, 2, 2), (7, 2, 2), (8, 3, 2))


def _value(rng: random.Random, field: str):
    if field == "Date":
        return (rng.randint(1, 28), rng.randint(1, 12))
    if field == "Time":
        return (rng.randint(8, 22), rng.choice((0, 15, 30, 45)))
    if field == "Guests":
        return rng.randint(12, 140)
    return rng.choice(POOLS[field])


def _spoken(field: str, v) -> str:
    if isinstance(v, str):  # a format, or a name
        return v
    if field == "Date":
        return f"{v[0]} {MONTHS[v[1] - 1]} 2026"
    if field == "Time":
        return f"{v[0]:02d}:{v[1]:02d}"
    return str(v)


def _written(field: str, v, fmt: dict) -> str:
    if v is None:
        return "none"
    if field == "Date":
        day, month = v
        return {"DD/MM/YYYY": f"{day:02d}/{month:02d}/2026", "YYYY-MM-DD": f"2026-{month:02d}-{day:02d}",
                "D Month YYYY": f"{day} {MONTHS[month - 1]} 2026"}[fmt["Date"]]
    if field == "Time":
        h, m = v
        if fmt["Time"].startswith("24"):
            return f"{h:02d}:{m:02d}"
        return f"{(h - 1) % 12 + 1}:{m:02d} {'am' if h < 12 else 'pm'}"
    return str(v)


def _say(ins: tuple) -> str:
    kind = ins[0]
    if kind == "set":
        return f"Set {ins[1]} to {_spoken(ins[1], ins[2])}."
    if kind == "format":
        return f"Write the {ins[1]} as {ins[2]}."
    if kind == "correct":
        return f"Correction to instruction {ins[1]}: it should say {_spoken(ins[2], ins[3])} instead."
    return f"Instruction {ins[1]} is withdrawn."


def _resolve(ins: list[tuple], mode: str = "right") -> list[str]:
    """The form. mode "right"; "newest": a correction acts as a new setting where it stands; "keep": withdrawals
    ignored; "first": the first format instruction kept."""
    body = {k + 1: list(x) for k, x in enumerate(ins)}
    active = dict(body)
    timeline = []
    for k, x in body.items():
        if x[0] == "correct" and mode != "newest":
            active[x[1]] = [active[x[1]][0], active[x[1]][1], x[3]]
        elif x[0] == "correct":
            timeline.append((k, [body[x[1]][0], x[2], x[3]]))
        elif x[0] == "withdraw" and mode != "keep":
            active.pop(x[1], None)
    order = sorted([(k, v) for k, v in active.items() if v[0] in ("set", "format")] + timeline)
    values: dict = dict.fromkeys(FIELDS)
    fmt = {"Date": DATE_FORMATS[0], "Time": TIME_FORMATS[0]}
    seen_fmt: set = set()
    for _, x in order:
        if x[0] == "set":
            values[x[1]] = x[2]
        elif mode != "first" or x[1] not in seen_fmt:
            fmt[x[1]] = x[2]
            seen_fmt.add(x[1])
    return [f"{f}: {_written(f, values[f], fmt)}" for f in FIELDS]


def _instructions(rng: random.Random, extra: int, n_correct: int, n_withdraw: int) -> list[tuple]:
    fields = list(FIELDS)
    rng.shuffle(fields)
    ins: list[tuple] = [("set", f, _value(rng, f)) for f in fields[:-1]]  # one field is never set at first
    ins.insert(rng.randint(0, len(ins)), ("format", "Date", rng.choice(DATE_FORMATS[1:])))
    kinds = ["set"] * (extra - n_correct - n_withdraw) + ["correct"] * n_correct + ["withdraw"] * n_withdraw
    rng.shuffle(kinds)
    touched: set = set()
    for kind in kinds:
        settable = [k + 1 for k, x in enumerate(ins) if x[0] in ("set", "format") and k + 1 not in touched]
        if kind == "set":
            f = rng.choice(FIELDS)
            ins.append(("format", "Time", TIME_FORMATS[1]) if f == "Time" and rng.random() < 0.4
                       else ("set", f, _value(rng, f)))
            continue
        k = rng.choice(settable)
        touched.add(k)
        target = ins[k - 1]
        if kind == "withdraw":
            ins.append(("withdraw", k))
        elif target[0] == "format":
            ins.append(("correct", k, target[1], rng.choice([f for f in (DATE_FORMATS if target[1] == "Date"
                                                                         else TIME_FORMATS) if f != target[2]])))
        else:
            ins.append(("correct", k, target[1], _value(rng, target[1])))
    return ins


SOLVER = r'''
import re
PROMPT = __PROMPT__
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
text = dict((int(k), v) for k, v in re.findall(r"^(\d+)\. (.+)$", PROMPT, re.M))
withdrawn = {int(m) for v in text.values() for m in re.findall(r"^Instruction (\d+) is withdrawn", v)}
for k, v in list(text.items()):  # rewrite corrected instructions in place
    m = re.match(r"Correction to instruction (\d+): it should say (.+) instead\.$", v)
    if m:
        old = text[int(m.group(1))]
        head = re.match(r"(Set \w+ to |Write the \w+ as )", old).group(1)
        text[int(m.group(1))] = head + m.group(2) + "."
form = {f: None for f in ["Name", "Venue", "Date", "Time", "Guests", "Menu"]}
date_fmt, time_fmt = "DD/MM/YYYY", "24-hour HH:MM"
for k in sorted(text):
    if k in withdrawn:
        continue
    m = re.match(r"Set (\w+) to (.+)\.$", text[k])
    f = re.match(r"Write the (\w+) as (.+)\.$", text[k])
    if m:
        form[m.group(1)] = m.group(2)
    elif f and f.group(1) == "Date":
        date_fmt = f.group(2)
    elif f:
        time_fmt = f.group(2)
out = []
for name, v in form.items():
    if v is None:
        v = "none"
    elif name == "Date":
        d, mon, y = v.split()
        d, mo = int(d), MONTHS.index(mon) + 1
        v = {"DD/MM/YYYY": "%02d/%02d/%s" % (d, mo, y), "YYYY-MM-DD": "%s-%02d-%02d" % (y, mo, d)}.get(date_fmt, v)
    elif name == "Time" and time_fmt.startswith("12"):
        h, mi = map(int, v.split(":"))
        v = "%d:%02d %s" % (h % 12 or 12, mi, "am" if h < 12 else "pm")
    out.append(name + ": " + v)
print("\n".join(out))
'''


def _case(index: int, rng: random.Random, extra: int, n_correct: int, n_withdraw: int) -> dict:
    for _ in range(500):  # a draw where every trap changes the form
        ins = _instructions(rng, extra, n_correct, n_withdraw)
        final = _resolve(ins)
        traps = {mode: _resolve(ins, mode) for mode in ("newest", "keep", "first")}
        if sum(t != final for t in traps.values()) >= (2 if extra > 2 else 1):
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw with distinct traps")
    listing = "\n".join(f"{k + 1}. {_say(x)}" for k, x in enumerate(ins))
    prompt = (f"Fill in a booking form with the fields {', '.join(FIELDS)}, following these instructions:\n\n"
              f"{listing}\n\nRules: a correction changes what the earlier instruction says, in its place in the "
              "list (an instruction after it that sets the same field still comes later); a withdrawn "
              "instruction counts as never given; when several instructions set a field, the latest one in "
              "force wins; a field that no instruction in force sets is written as none. Write the date as "
              "DD/MM/YYYY and the time as 24-hour HH:MM unless an instruction in force says otherwise (a "
              "12-hour time is written like 7:05 pm; a date as D Month YYYY like 3 May 2026).\n\n"
              "Output only the form: six lines `Field: value`, in the order "
              f"{', '.join(FIELDS)}, and nothing else.\n")
    constraints = [{"kind": "lines_equal", "lines": final}, {"kind": "no_preamble"}]
    naive = [f"{f}: {_written(f, x[2], {'Date': DATE_FORMATS[0], 'Time': TIME_FORMATS[0]})}" for f in FIELDS
             for x in [next((y for y in ins if y[0] == "set" and y[1] == f), (None, None, None))]]
    wrong = [REFUSAL, *("\n".join(t) for t in traps.values() if t != final), "\n".join(naive),
             "\n".join(final[:-1]), "| Field | Value |\n|---|---|\n" + "\n".join(
                 "| " + ln.replace(": ", " | ", 1) + " |" for ln in final),
             "\n".join(final) + "\n\n(If instruction corrections count as new instructions, see below.)\n"
             + "\n".join(traps["newest"] if traps["newest"] != final else traps["keep"])]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    n_traps = sum(t != final for t in traps.values())
    hardness = {"steps": len(ins), "search": 1, "traps": n_traps}
    notes = (f"{len(ins)} instructions, {n_correct} corrections and {n_withdraw} withdrawals that point back at "
             "earlier ones, and format changes for the date and time. Resolving the list is a chain: each "
             "correction or withdrawal changes which earlier instruction is in force, and a correction must not "
             f"be read as the newest word on its field. {n_traps} stored traps (a correction as the newest "
             "setting, withdrawals ignored, the first format kept) each give a different form.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"Booking form from {len(ins)} instructions with corrections and withdrawals",
            "prompt": prompt, "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 16384,
            "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "```text\n" + "\n".join(final) + "\n```", "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
