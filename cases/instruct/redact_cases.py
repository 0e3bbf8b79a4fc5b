"""IN-redact: redact a support log by stated rules (emails, phone numbers of one exact shape, card numbers down to
their last four digits, listed customers' names to initials, a customer's surname alone to its initial) and
leave everything else as it is; compared exactly, line by line.

The log plants look-alikes the rules do not cover: tracking numbers one digit short of a phone number, order
numbers in groups of four that are not cards, staff names that are not customers. So the rules must be read as
written, not as "hide anything personal". The traps, each stored: the look-alikes redacted too, staff names
redacted, a whole card hidden, a surname on its own left in. The generator substitutes what it planted;
`verify.solver` finds every item in the prompt's log with its own patterns.
"""

from __future__ import annotations

import json
import random
import re

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-redact"
REFUSAL = "I'm sorry, but I can't help with that request."
FIRST = ("Maria", "Tomasz", "Aisha", "Colm", "Ingrid", "Ravi", "Lucia", "Kwame", "Hannah", "Yusuf")
LAST = ("Lopez", "Nowak", "Bello", "Farrell", "Strand", "Menon", "Ricci", "Mensah", "Cole", "Demir")
STAFF = ("Dana Whitlock", "Piers Gale", "June Okoro", "Sam Ferris")
TITLES = {"Maria": "Ms", "Aisha": "Ms", "Ingrid": "Ms", "Lucia": "Ms", "Hannah": "Ms"}
DOMAINS = ("mailbox.example", "post.example", "inbox.example")
# (lines, customers) per sibling
SHAPES = ((6, 1), (9, 2), (12, 3))


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def _line(rng: random.Random, kind: str, cust: dict, staff: str, t: str) -> tuple[str, str, str, str]:
    """(original, redacted, with look-alikes redacted too, with staff names redacted too)."""
    phone = "0" + _digits(rng, 4) + " " + _digits(rng, 6)
    tracking = "0" + _digits(rng, 4) + " " + _digits(rng, 5)
    card = " ".join(_digits(rng, 4) for _ in range(4))
    order = " ".join(_digits(rng, 4) for _ in range(2))
    email = f"{cust['first'].lower()}.{cust['last'].lower()}{rng.randint(1, 99)}@{rng.choice(DOMAINS)}"
    full, title, sur = cust["first"] + " " + cust["last"], cust["title"], cust["last"]
    init, sinit = f"{cust['first'][0]}.{cust['last'][0]}.", f"{cust['last'][0]}."
    staff_init = "".join(p[0] + "." for p in staff.split())
    texts = {
        "call": ("{t} {full} called from {phone} about order {order}.",
                 "{t} {init} called from [PHONE] about order {order}.",
                 "{t} {init} called from [PHONE] about order [CARD]."),
        "mail": ("{t} {staff} emailed {full} at {email} with the refund form.",
                 "{t} {staff} emailed {init} at [EMAIL] with the refund form.", None),
        "card": ("{t} Card {card} was charged for order {order}.",
                 "{t} Card [CARD-{last4}] was charged for order {order}.",
                 "{t} Card [CARD-{last4}] was charged for order [CARD]."),
        "back": ("{t} {staff} noted that {title} {sur} wants a call back on {phone}.",
                 "{t} {staff} noted that {title} {sinit} wants a call back on [PHONE].", None),
        "parcel": ("{t} Parcel for {title} {sur} left the depot, tracking {tracking}.",
                   "{t} Parcel for {title} {sinit} left the depot, tracking {tracking}.",
                   "{t} Parcel for {title} {sinit} left the depot, tracking [PHONE]."),
    }
    values = dict(t=t, full=full, phone=phone, order=order, staff=staff, email=email, card=card, last4=card[-4:],
                  title=title, sur=sur, tracking=tracking, init=init, sinit=sinit)
    original, right, over = (x.format(**values) if x else None for x in texts[kind])
    over = over or right
    staffed = right.replace(staff, staff_init)
    return original, right, over, staffed


SOLVER = r'''
import re
PROMPT = __PROMPT__
log = PROMPT.split("Log:\n")[1].split("\n\n")[0].split("\n")
customers = re.search(r"The customers are (.+?)\.\n", PROMPT).group(1).replace(" and ", ", ").split(", ")
out = []
for line in log:
    line = re.sub(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", "[EMAIL]", line)
    line = re.sub(r"(?<!\d)0\d{4} \d{6}(?!\d)", "[PHONE]", line)
    line = re.sub(r"(?<!\d)\d{4} \d{4} \d{4} (\d{4})(?!\d)", r"[CARD-\1]", line)
    for name in customers:
        first, last = name.split()
        line = line.replace(name, first[0] + "." + last[0] + ".")
        line = re.sub(r"\b(Ms|Mr) " + last + r"\b", lambda m: m.group(1) + " " + last[0] + ".", line)
    out.append(line)
print("\n".join(out))
'''


def _case(index: int, rng: random.Random, n_lines: int, n_customers: int) -> dict:
    firsts = rng.sample(FIRST, n_customers)
    lasts = rng.sample(LAST, n_customers)
    custs = [{"first": f, "last": s, "title": TITLES.get(f, "Mr")} for f, s in zip(firsts, lasts)]
    staff = rng.sample(STAFF, 2)
    kinds = ["call", "mail", "card", "back", "parcel"]
    minute = rng.randint(8 * 60, 10 * 60)
    rows = []
    for k in range(n_lines):
        minute += rng.randint(3, 40)
        kind = kinds[k] if k < len(kinds) else rng.choice(kinds)
        clock = f"{minute // 60:02d}:{minute % 60:02d}"
        rows.append(_line(rng, kind, custs[k % n_customers], rng.choice(staff), clock))
    original = [r[0] for r in rows]
    final = [r[1] for r in rows]
    traps = {"look-alikes redacted too": [r[2] for r in rows], "staff names redacted": [r[3] for r in rows],
             "whole card hidden": [re.sub(r"\[CARD-\d{4}\]", "[CARD]", x) for x in final],
             "surname alone left in": [r[1] if "noted that" not in r[0] and "Parcel for" not in r[0]
                                       else r[1].replace(re.search(r"(Ms|Mr) (\w)\.", r[1]).group(0),
                                                         re.search(r"(Ms|Mr) \w+", r[0]).group(0)) for r in rows]}
    names = ", ".join(c["first"] + " " + c["last"] for c in custs)
    if n_customers > 1:
        names = names.rsplit(", ", 1)[0] + " and " + names.rsplit(", ", 1)[1]
    prompt = ("Redact this support log before it is shared.\n\nLog:\n" + "\n".join(original) + "\n\n"
              f"The customers are {names}.\nRules:\n"
              "1. Replace every email address with [EMAIL].\n"
              "2. Replace every phone number with [PHONE]. A phone number is written as 0 and four more digits, a "
              "space, and exactly six digits (like 01632 960001); nothing else is a phone number.\n"
              "3. Replace every card number (four groups of four digits) with [CARD-NNNN], where NNNN is its last "
              "four digits.\n"
              "4. Replace a customer's full name with the initials followed by dots (Jane Doe becomes J.D.), and a "
              "customer's surname after Ms or Mr with its initial and a dot (Ms Doe becomes Ms D.).\n"
              "5. Change nothing else: staff names, times, order and tracking numbers stay exactly as they are.\n"
              "Write the redacted log, one line per line, and nothing after it.\n")
    constraints = [{"kind": "lines_equal", "lines": final}]
    wrong = [REFUSAL, *("\n".join(t) for t in traps.values()), "\n".join(original), "\n".join(final[:-1]),
             "\n".join(final) + "\n\nNote: if tracking numbers count as phone numbers, line "
             + str(next(i for i, r in enumerate(rows) if "tracking" in r[0]) + 1) + " would read [PHONE] instead."]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    n_traps = sum(t != final for t in traps.values())
    # five rules and the look-alikes they leave alone; the lines are redacted independently of each other, so
    # more lines add work but no dependent steps
    hardness = {"steps": 6, "search": 1, "traps": n_traps}
    notes = (f"{n_lines} log lines with {n_customers} customers: emails, phone numbers of one exact shape, cards cut "
             "to their last four digits, full names to initials and surnames after Ms/Mr to an initial, beside "
             "look-alikes the rules leave alone (tracking numbers one digit short of a phone number, order numbers "
             "in two groups of four, staff names). Each line must be redacted by the rules as written, not by a "
             "general sense of privacy; the lines are independent, so the tier stays medium at any "
             "length. Stored traps: " + ", ".join(k for k, t in traps.items() if t != final) + ".")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"Redact a {n_lines}-line support log by five rules", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 8192, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "Here is the redacted log:\n\n```\n" + "\n".join(final) + "\n```", "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
