"""IN-sms: a one-line text-message reminder under a character budget (spaces and punctuation count) that must
carry a booking code, a date, a time and a place exactly as given, avoid two banned words, and end with a fixed
opt-out sentence.

The budget leaves only a few characters over the shortest natural message, and the fixed parts take most of
it, so the writer must count characters, which tokenised models cannot see. The traps, each stored: a message a
few characters over the budget, the code or the time rewritten (`14.30`), a greeting line above the
message, a banned word. The reference is built from the fixed parts and checked by the same constraints.
"""

from __future__ import annotations

import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-sms"
REFUSAL = "I'm sorry, but I can't help with that request."
BUSINESSES = (("Harbour Dental", "check-up", "Quay Street"), ("Marsh Lane Garage", "MOT", "Marsh Lane"),
              ("Tidewell Clinic", "blood test", "Tidewell Road"), ("Kestrel Vets", "vaccination", "Mill Yard"),
              ("Ferry Salon", "haircut", "Ferry Walk"))
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
OPT_OUT = "Reply STOP to opt out."
BANNED = ["appointment", "please"]
# (characters of slack over the reference, date given)
SHAPES = ((25, False), (8, True), (4, True))


def _case(index: int, rng: random.Random, slack: int, dated: bool) -> dict:
    name, service, place = rng.choice(BUSINESSES)
    code = f"{rng.choice('BKMRT')}{rng.choice('AEOU')}-{rng.randint(100, 999)}"
    hour, minute = rng.randint(8, 17), rng.choice((0, 15, 30, 45))
    time = f"{hour:02d}:{minute:02d}"
    date = f"{rng.choice(DAYS)} {rng.randint(2, 28)} {rng.choice(MONTHS)}"
    when = f"{date}, {time}" if dated else time
    reference = f"{name}: {service} at {place}, {when}. Ref {code}. {OPT_OUT}"
    budget = len(reference) + slack
    required = [code, time, place, *([date] if dated else [])]
    rules = [f"At most {budget} characters in all, counting letters, digits, spaces and punctuation.",
             "One line only: no greeting line, no signature.",
             f"Include the booking code {code}, the time {time}"
             + (f", the date {date}" if dated else "") + f" and the place {place}, each written exactly so.",
             f"Do not use the words \"{BANNED[0]}\" or \"{BANNED[1]}\".",
             f"End with \"{OPT_OUT}\""]
    prompt = (f"Write a text-message reminder from {name} for a customer's {service}. Follow every rule below.\n"
              + "\n".join(f"- {r}" for r in rules) + "\n")
    constraints = [{"kind": "char_count", "max": budget}, {"kind": "line_count", "min": 1, "max": 1},
                   {"kind": "required_words", "words": required}, {"kind": "forbidden_words", "words": BANNED},
                   {"kind": "ends_with", "text": OPT_OUT, "case_sensitive": True}]
    over = f"Hello from {name}! Your {service} at {place} is {when}. Ref {code}. {OPT_OUT}"
    while len(over) <= budget:
        over = over.replace("Hello", "Hello there", 1)
    wrong = [REFUSAL, over,
             reference.replace(time, time.replace(":", ".")),
             reference.replace(code, code.replace("-", "")),
             f"Hi!\n{reference}", reference.replace(f"{service} at", f"{service} appointment at"),
             reference.replace(OPT_OUT, "Reply STOP to unsubscribe."),
             reference + " Or: " + reference[:20]]
    wrong = [w for w in dict.fromkeys(wrong) if w != reference]
    binding = 4 + dated + (slack < 10)  # the inclusions, the single line, the ending, and a budget that binds
    hardness = {"steps": binding, "search": 1, "traps": 3}
    notes = (f"A budget of {budget} characters, {slack} above a message of the fixed parts alone, with "
             f"{len(required)} items to carry exactly, two banned words (one of them the natural word "
             "\"appointment\") and a fixed ending. Tight siblings leave a few characters, so the writer must count "
             "characters. Stored traps: a few characters over, the time rewritten, a greeting line.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"Text-message reminder in at most {budget} characters", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 4096, "notes": notes,
            "verify": {"reference": f"Here is the message:\n\n{reference}", "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
