"""PR-actions: the action items of a meeting note, each with its owner and due date; judged against the actions
as they stand at the end of the meeting.

The minutes change their own decisions: one task is offered by one person and handed to another, one deadline
is moved later in the meeting, and one suggested task is turned down. The screen passes only a list that names
every agreed task (so refusals and off-task replies fail at no cost); the near miss in verify.wrong names every
task with the first owner and the first deadline, which only the judge can fail.
"""

from __future__ import annotations

from pytest_crucible import family_rng
from pytest_crucible.suite.tiers import ruled

FAMILY = "PR-actions"
REFUSAL = "I'm sorry, but I can't help with that."
PEOPLE = ("Priya", "Tomas", "Lena", "Ravi", "Ines", "Owen", "Mara", "Felix")
ORGS = ("Brookside Allotment Society", "Harbour Street Residents' Group", "Millbank Community Choir",
        "Old Quay Lifeboat Friends")
# (task as an action, the screen's words for it)
TASKS = (("book the village hall for the open day", ["hall"]), ("print 500 leaflets", ["leaflet*"]),
         ("send the revised budget to the trustees", ["budget"]), ("draw up the volunteer rota", ["rota"]),
         ("renew the event insurance", ["insurance"]), ("make the direction signs", ["sign*"]))
DROPPED = ("hire a bouncy castle", "start a monthly newsletter", "move the meetings online", "buy a second gazebo")
MONTHS = ("March", "April", "May", "June", "September", "October")
NOTES = ("Medium: three actions to report with owner and date, where the minutes hand one task from its first "
         "volunteer to someone else, move one deadline later in the meeting and turn one suggestion down. The "
         "summary must report the decisions in force at the end, not as first stated; traps: the first owner, the "
         "first deadline (both in the stored near miss), the rejected suggestion listed as an action.")


def _case(rng, number: int) -> dict:
    offer, owner1, owner2, owner3, proposer, chair = rng.sample(PEOPLE, 6)
    (t1, k1), (t2, k2), (t3, k3) = rng.sample(TASKS, 3)
    dropped = rng.choice(DROPPED)
    month = rng.choice(MONTHS)
    d1, d2_old, d3 = sorted(rng.sample(range(3, 20), 3))
    d2 = d2_old + rng.randint(4, 9)
    org = rng.choice(ORGS)
    present = ", ".join(sorted([offer, owner1, owner2, owner3, proposer, chair]))
    note = (f"Minutes of the {org} committee, 1 {month}. Present: {present}.\n1. Open day. {offer} offered to "
            f"{t1}, but {offer} is away that week, so {owner1} will do it instead, by {d1} {month}."
            f"\n2. Publicity. {owner2} will {t2} by {d2_old} {month}. Later in the meeting the printer "
            f"said it needs more time, so the deadline for this is now {d2} {month}.\n3. {proposer} suggested that "
            f"we {dropped}; after some discussion the committee decided against it this year.\n4. {owner3} agreed to "
            f"{t3} by {d3} {month}.\nAny other business: {chair} thanked everyone for the cakes. Next meeting on "
            f"{d2 + 7} {month}.")
    limit = 60
    prompt = (f"List the action items agreed in these minutes, each with who will do it and by when, in at most "
              f"{limit} words.\n\n\"{note}\"")
    points = [{"text": f"{owner1} will {t1} by {d1} {month}", "any": k1},
              {"text": f"{owner2} will {t2} by {d2} {month}", "any": k2},
              {"text": f"{owner3} will {t3} by {d3} {month}", "any": k3}]
    reference = (f"- By {d1} {month}: {owner1} will {t1}\n- By {d2} {month}: {owner2} will {t2}\n"
                 f"- By {d3} {month}: {owner3} will {t3}")
    by_date = sorted([(d1, owner1, t1), (d2, owner2, t2), (d3, owner3, t3)])
    accepted = [f"{owner1} will {t1} by {d1} {month}; {owner2} will {t2} by {d2} {month} (the new deadline); and "
                f"{owner3} will {t3} by {d3} {month}.",
                "Action items, by deadline:\n" + "\n".join(f"{k}. {month} {d}: {o} to {t}"
                                                           for k, (d, o, t) in enumerate(by_date, 1)),
                f"{owner1} takes over from {offer} and will {t1} by {d1} {month}. {owner2} is to {t2}, now due "
                f"{d2} {month}. {owner3} will {t3} by {d3} {month}."]
    wrong = [REFUSAL,
             f"The committee thanked everyone for the cakes and will meet again on {d2 + 7} {month}; {proposer} made a "
             f"suggestion that was discussed.",
             f"Either {offer} or {owner1} will {t1}, by {d1} {month}; {owner2} will {t2} and {owner3} will {t3} by "
             f"{d3} {month}.",
             f"- By {d1} {month}: {offer} will {t1}\n- By {d2_old} {month}: {owner2} will {t2}\n"
             f"- By {d3} {month}: {owner3} will {t3}"]
    return {"id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "prose", **ruled(5, 1, 3),
            "tags": ["judged"], "notes": NOTES, "prompt": prompt,
            "grader": {"type": "judge", "rubric": "summary", "gold": reference, "points": points,
                       "max_words": limit},
            "verify": {"reference": reference, "accepted": accepted, "wrong": wrong}}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, k) for k in (1, 2, 3)]
