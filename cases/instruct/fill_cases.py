"""IN-fill: a letter template with [slots] and [if ...] lines, filled from a booking record; compared exactly.

The reply is the template with every slot replaced and every conditional line kept (without its markers) or
removed, whole, by the record's values. Most slots are not copied but derived: a title by a stated rule, a
check-out date and weekday from the check-in and the nights, a total and a balance in pounds with thousands
separators, a payment deadline a fixed number of days before arrival (across a month end). The traps, each
stored: the conditional lines kept as they stand, the check-out weekday not moved on, the deadline counted
from the check-out, the balance taken as the total. `verify.solver` reads the record and the template from
the prompt and fills it with its own calendar arithmetic.
"""

from __future__ import annotations

import datetime
import json
import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-fill"
REFUSAL = "I'm sorry, but I can't help with that request."
HOTELS = ("Harbour View Inn", "The Old Granary", "Saltmarsh Lodge", "Quayside House", "Bell Rock Hotel",
          "The Ferryman's Rest")
SURNAMES = ("Okafor", "Lindqvist", "Marsh", "Pryce", "Duarte", "Brennan", "Achebe", "Vance", "Holloway")
AGENTS = ("Nadia Rowe", "Tom Ellery", "Priya Shah", "Owen Tait")
# the template's lines: (condition or None, text)
LINES = (
    (None, "Dear [title] [surname],"),
    (None, "Your booking [ref] at [hotel] is confirmed for [nights] nights."),
    (None, "You arrive on [checkin] and leave on [checkout]."),
    ("rooms>1", "Your party has [rooms] rooms, each at [rate] a night."),
    ("rooms=1", "Your room costs [rate] a night."),
    ("breakfast", "Breakfast is included every morning."),
    ("no breakfast", "Breakfast can be added at the desk."),
    (None, "The total for your stay is [total]."),
    ("balance>0", "Please pay the balance of [balance] by [due]."),
    ("balance=0", "Your stay is paid in full."),
    (None, "Kind regards,"),
    (None, "[agent]"),
)
# (conditional template lines used, rooms drawn from)
SHAPES = ((("rooms>1", "rooms=1", "breakfast", "no breakfast"), (1, 2)),
          (("rooms>1", "rooms=1", "breakfast", "no breakfast", "balance>0", "balance=0"), (1, 3)),
          (("rooms>1", "rooms=1", "breakfast", "no breakfast", "balance>0", "balance=0"), (2, 5)))


def _money(pence: int) -> str:
    return f"£{pence // 100:,}.{pence % 100:02d}"


def _day(d: datetime.date, weekday: bool = True) -> str:
    return (d.strftime("%A ") if weekday else "") + f"{d.day} {d.strftime('%B %Y')}"


def _holds(cond: str | None, rec: dict) -> bool:
    return {None: True, "rooms>1": rec["rooms"] > 1, "rooms=1": rec["rooms"] == 1, "breakfast": rec["breakfast"],
            "no breakfast": not rec["breakfast"], "balance>0": rec["balance"] > 0,
            "balance=0": rec["balance"] == 0}[cond]


def _fill(template: list[tuple], rec: dict, mode: str = "right") -> list[str]:
    """The filled letter. mode "keep": conditional lines all kept; "weekday": the check-out keeps the check-in's
    weekday; "from_out": the deadline counted back from the check-out; "total": the balance read as the total."""
    checkout = rec["checkin"] + datetime.timedelta(days=rec["nights"])
    due = (checkout if mode == "from_out" else rec["checkin"]) - datetime.timedelta(days=rec["days_before"])
    out_text = _day(checkout)
    if mode == "weekday":
        out_text = rec["checkin"].strftime("%A ") + _day(checkout, weekday=False)
    slots = {"title": rec["title"], "surname": rec["surname"], "ref": rec["ref"], "hotel": rec["hotel"],
             "nights": str(rec["nights"]), "checkin": _day(rec["checkin"]), "checkout": out_text,
             "rooms": str(rec["rooms"]), "rate": _money(rec["rate"]), "total": _money(rec["total"]),
             "balance": _money(rec["total"] if mode == "total" else rec["balance"]),
             "due": _day(due, weekday=False), "agent": rec["agent"].upper()}
    out = []
    for cond, text in template:
        if mode != "keep" and not _holds(cond, rec):
            continue
        for name, value in slots.items():
            text = text.replace(f"[{name}]", value)
        out.append(text)
    return out


SOLVER = r'''
import re, datetime
PROMPT = __PROMPT__
rec = dict(re.findall(r"^- ([^:\n]+): (.+)$", PROMPT.split("Record:")[1].split("Template:")[0], re.M))
template = PROMPT.split("Template:\n```\n")[1].split("\n```")[0].split("\n")
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
def parse(s):
    d, m, y = s.split()[-3:]
    return datetime.date(int(y), MONTHS.index(m) + 1, int(d))
def write(d, weekday=True):
    days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    return (days[d.weekday()] + " " if weekday else "") + "%d %s %d" % (d.day, MONTHS[d.month - 1], d.year)
def money(p):
    return "£" + format(p // 100, ",") + ".%02d" % (p % 100)
checkin = parse(rec["check-in"])
nights, rooms = int(rec["nights"]), int(rec["rooms"])
rate = round(float(rec["rate per room per night"].strip("£")) * 100)
deposit = round(float(rec["deposit paid"].strip("£").replace(",", "")) * 100)
total = nights * rooms * rate
balance = total - deposit
before = int(re.search(r"(\d+) days before the check-in date", PROMPT).group(1))
title = "Dr" if rec["doctor"] == "yes" else {"female": "Ms", "male": "Mr"}.get(rec["gender"], "Mx")
slots = {"title": title, "surname": rec["surname"], "ref": rec["reference"], "hotel": rec["hotel"],
         "nights": str(nights), "checkin": write(checkin), "checkout": write(checkin + datetime.timedelta(nights)),
         "rooms": str(rooms), "rate": money(rate), "total": money(total), "balance": money(balance),
         "due": write(checkin - datetime.timedelta(before), False), "agent": rec["agent"].upper()}
conds = {"rooms>1": rooms > 1, "rooms=1": rooms == 1, "breakfast": rec["breakfast"] == "yes",
         "no breakfast": rec["breakfast"] == "no", "balance>0": balance > 0, "balance=0": balance == 0}
out = []
for line in template:
    m = re.match(r"\[if ([^\]]+)\](.*)\[end\]$", line)
    if m:
        if not conds[m.group(1)]:
            continue
        line = m.group(2)
    out.append(re.sub(r"\[(\w+)\]", lambda x: slots[x.group(1)], line))
print("\n".join(out))
'''


def _record(rng: random.Random, rooms: tuple[int, int]) -> dict:
    start = datetime.date(2026, 1, 1) + datetime.timedelta(days=rng.randint(0, 364))
    while start.day > 12:  # the deadline falls in the month before
        start += datetime.timedelta(days=1)
    rec = {"surname": rng.choice(SURNAMES), "gender": rng.choice(("female", "male", "not given")),
           "doctor": rng.random() < 0.35, "ref": f"{rng.choice('BHKQ')}{rng.randint(10000, 99999)}",
           "hotel": rng.choice(HOTELS), "nights": rng.randint(3, 11), "rooms": rng.randint(*rooms),
           "rate": rng.randint(62, 245) * 100 + rng.choice((0, 50, 95)), "breakfast": rng.random() < 0.5,
           "checkin": start, "days_before": rng.choice((14, 21, 28)), "agent": rng.choice(AGENTS)}
    rec["title"] = "Dr" if rec["doctor"] else {"female": "Ms", "male": "Mr"}.get(rec["gender"], "Mx")
    rec["total"] = rec["nights"] * rec["rooms"] * rec["rate"]
    return rec


def _case(index: int, rng: random.Random, conds: tuple[str, ...], rooms: tuple[int, int]) -> dict:
    for _attempt in range(500):
        rec = _record(rng, rooms)
        paid = "balance>0" in conds and rng.random() < 0.25
        rec["deposit"] = rec["total"] if paid else rng.randint(0, rec["total"] // 300) * 100
        rec["balance"] = rec["total"] - rec["deposit"]
        if "balance>0" not in conds:
            rec["deposit"], rec["balance"] = 0, rec["total"]
        template = [(c, t) for c, t in LINES if c is None or c in conds]
        if "balance>0" not in conds:
            template.insert(-2, (None, "Please pay [balance] by [due]."))
        final = _fill(template, rec)
        traps = {m: _fill(template, rec, m) for m in ("keep", "weekday", "from_out", "total")}
        if rec["total"] >= 100000 and sum(t != final for t in traps.values()) >= 3:
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw")
    shown = ["[if " + c + "]" + t + "[end]" if c else t for c, t in template]
    record = [f"surname: {rec['surname']}", f"gender: {rec['gender']}", f"doctor: {'yes' if rec['doctor'] else 'no'}",
              f"reference: {rec['ref']}", f"hotel: {rec['hotel']}", f"check-in: {_day(rec['checkin'])}",
              f"nights: {rec['nights']}", f"rooms: {rec['rooms']}",
              f"rate per room per night: £{rec['rate'] // 100}.{rec['rate'] % 100:02d}",
              f"breakfast: {'yes' if rec['breakfast'] else 'no'}",
              f"deposit paid: £{rec['deposit'] // 100:,}.{rec['deposit'] % 100:02d}", f"agent: {rec['agent']}"]
    prompt = ("Fill in this letter template from the booking record.\n\nRecord:\n" + "\n".join(f"- {r}" for r in record)
              + "\n\nTemplate:\n```\n" + "\n".join(shown) + "\n```\n\nRules:\n"
              "- [title] is Dr when the guest is a doctor; otherwise Ms for female, Mr for male, and Mx when the "
              "gender is not given.\n"
              "- [checkin] and [checkout] are written with the weekday, like Friday 3 July 2026; [due] is written "
              "without it, like 3 July 2026.\n"
              "- [checkout] is the check-in date plus the number of nights.\n"
              "- [total] is nights x rooms x the rate; [balance] is the total minus the deposit paid; "
              f"[due] is {rec['days_before']} days before the check-in date.\n"
              "- Money is written in pounds with a £ sign, a comma between thousands and two decimals, like "
              "£1,234.50.\n- [agent] is the agent's name in capital letters.\n"
              "- A line written [if CONDITION]...[end] is kept, without the markers, only when the condition holds "
              "for this booking; otherwise the whole line is left out.\n"
              "- Every other character of the template stays as it is. Give the filled letter one line per line, "
              "with no blank lines, and write nothing after it.\n")
    constraints = [{"kind": "lines_equal", "lines": final}]
    wrong = [REFUSAL, *("\n".join(t) for t in traps.values()), "\n".join(shown),
             "\n".join(ln.replace(",", "", 1) if "£" in ln else ln for ln in final),
             "\n".join(final[:-1]),
             "\n".join(final) + "\n\n(If the deadline counts from check-out instead:)\n" + "\n".join(traps["from_out"])]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    n_traps = sum(t != final for t in traps.values())
    # title, check-out date, its weekday, the total, the deadline; each pair of conditional lines; the balance
    steps = 5 + len(conds) // 2 + ("balance>0" in conds)
    hardness = {"steps": steps, "search": 1, "traps": n_traps}
    notes = (f"{len(template)} template lines, {len(conds)} of them conditional on the record, and derived slots: a "
             "title by a three-way rule, the check-out date and its weekday from the nights, a total of three "
             "factors and a balance with thousands separators, a deadline a fixed number of days before arrival "
             "that always crosses into the previous month. Every line is compared exactly. Stored traps: "
             + ", ".join({"keep": "conditional lines kept", "weekday": "the check-in weekday kept for check-out",
                          "from_out": "the deadline counted from check-out",
                          "total": "the balance written as the total"}[m]
                         for m, t in traps.items() if t != final) + ".")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"Letter template with {len(conds)} conditional lines filled from a booking", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 16384, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "Here is the filled letter:\n\n```text\n" + "\n".join(final) + "\n```",
                       "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
