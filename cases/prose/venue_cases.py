"""PR-venue: three venue descriptions checked against an event's needs; the reply recommends the one venue that
meets all of them and says why each other one fails. Judged against the pick and the reasons.

Each rejected venue fails one need, and one of them fails it subtly: its headline capacity is for standing
guests (the seated figure is lower), or its lift is out of service on the event's date, or its price is per hour
and over the budget for the evening. The screen passes only a reply that touches every reason; the near miss in
verify.wrong recommends the subtle failure with the reference's words, which only the judge can fail.
"""

from __future__ import annotations

from pytest_crucible import family_rng
from pytest_crucible.suite.tiers import ruled

FAMILY = "PR-venue"
REFUSAL = "I'm sorry, but I can't help with that."
VENUES = ("The Granary", "Mill House", "St Anne's Hall", "The Boathouse", "Quarry Rooms", "Foundry Loft")
EVENTS = ("a retirement dinner", "a quiz night", "a book launch", "a charity auction")
MONTHS = ("March", "April", "May", "June", "September", "October")
NOTES = ("Medium: three venues against four needs (seats, step-free access on the date, the budget for a five-hour "
         "evening, a kitchen); each rejected venue fails one need, one of them subtly (standing capacity, a lift out "
         "of service on the date, an hourly price). Traps: the subtle failure recommended (the stored near miss), a "
         "headline figure read as the one that matters.")


def _case(rng, number: int) -> dict:
    good, subtle, plain = rng.sample(VENUES, 3)
    event = rng.choice(EVENTS)
    guests = rng.randrange(60, 120, 5)
    budget = rng.randrange(400, 900, 50)
    day, month = rng.randint(3, 27), rng.choice(MONTHS)
    kind = rng.choice(("standing", "lift", "hourly"))
    good_price = budget - rng.randrange(50, 200, 25)
    descriptions = {
        good: f"{good}: seats {guests + rng.randrange(10, 40, 5)} at tables, step-free entrance, full kitchen, "
              f"£{good_price} for an evening.",
        plain: f"{plain}: seats {guests + rng.randrange(10, 40, 5)} at tables, step-free entrance, £"
               f"{budget - rng.randrange(50, 200, 25)} for an evening, but no kitchen (drinks only).",
    }
    if kind == "standing":
        headline = guests + rng.randrange(40, 90, 5)
        seated = guests - rng.randrange(10, 30, 5)
        descriptions[subtle] = (f"{subtle}: holds {headline} guests standing ({seated} seated), step-free entrance, "
                                f"kitchen, £{budget - rng.randrange(50, 200, 25)} for an evening.")
        why, why_any = f"it seats only {seated}", [str(seated), "standing"]
    elif kind == "lift":
        descriptions[subtle] = (f"{subtle}: seats {guests + rng.randrange(10, 40, 5)} at tables in the first-floor "
                                f"hall, reached by stairs or a lift; the lift is out of service from 1 to 28 {month}. "
                                f"Kitchen, £{budget - rng.randrange(50, 200, 25)} for an evening.")
        why, why_any = f"its lift is out of service on {day} {month}, so there is no step-free access", ["lift*"]
    else:
        hourly = budget // 5 + rng.randrange(20, 60, 5)
        descriptions[subtle] = (f"{subtle}: seats {guests + rng.randrange(10, 40, 5)} at tables, step-free entrance, "
                                f"kitchen, £{hourly} an hour.")
        why, why_any = f"five hours at £{hourly} is £{5 * hourly}, over the budget", ["hour*", f"£{5 * hourly}"]
    order = [good, subtle, plain]
    rng.shuffle(order)
    limit = 80
    prompt = (f"We are planning {event} for {guests} seated guests on {day} {month}, from 6 pm to 11 pm. We need "
              f"step-free access, a kitchen for the caterers, and at most £{budget} for the evening's hire. Which of "
              f"these venues should we book? Name one, and say in a sentence why each of the other two does not "
              f"work. At most {limit} words.\n\n" + "\n".join(f"- {descriptions[v]}" for v in order))
    points = [{"text": f"book {good}", "any": [good]},
              {"text": f"not {subtle}: {why}", "any": why_any},
              {"text": f"not {plain}: it has no kitchen", "any": ["kitchen*"]}]
    reference = (f"Book {good}: it seats everyone, has step-free access and a kitchen, and is within budget. "
                 f"{subtle} does not work because {why}. {plain} has no kitchen for the caterers.")
    accepted = [f"{good} is the one to book. Not {subtle}: {why}. Not {plain}: there is no kitchen, only drinks.",
                f"Recommendation: {good} (enough seats, step-free, kitchen, £{good_price}).\n- {subtle}: {why}.\n"
                f"- {plain}: no kitchen, so the caterers cannot work there.",
                f"Go with {good}. {plain} is ruled out because it has no kitchen, and {subtle} because {why}."]
    wrong = [REFUSAL,
             f"For {event}, good food and a friendly host matter most; send invitations early and ask guests about "
             "their diets.",
             f"Either {good} or {subtle} would work, as both have a kitchen; {plain} is out.",
             f"Book {subtle}: it has step-free access and a kitchen, and is within budget. {good} would also do, but "
             f"{subtle} is the better room even though {why}. {plain} has no kitchen for the caterers."]
    return {"id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "prose", **ruled(5, 1, 2),
            "tags": ["judged"], "notes": NOTES, "prompt": prompt,
            "grader": {"type": "judge", "rubric": "explanation", "gold": reference, "points": points,
                       "max_words": limit},
            "verify": {"reference": reference, "accepted": accepted, "wrong": wrong}}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, k) for k in (1, 2, 3)]
