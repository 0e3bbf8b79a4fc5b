"""Summaries with gold facts (family PR-notice), graded by a judge model against the facts.

Each case is a notice built from a seed: a few facts a reader needs (where, when, how much, what to do)
among distractors (a withdrawn plan, a postponed job, a rejected price, batches that are not affected).
The prompt names what the summary must carry and a word limit, and every one of those is a required
point or the screen's limit. The withdrawn alternative is forbidden: a summary that offers it, or
hedges between it and the real plan, fails before any judge is asked (naming it only to set it aside passes).
verify.accepted holds right summaries in other words, which must reach the judge. Near misses in verify.wrong keep
every fact's words and turn one of them round (a refund refused, items no longer collectable): they pass
the screen and are the judge's to fail.
"""

from __future__ import annotations

from pytest_crucible import family_rng
from pytest_crucible.suite.tiers import ruled

FAMILY = "PR-notice"
MONTHS = ["March", "April", "May", "June", "September", "October"]
STREETS = ["Mill Street", "Harbour Road", "Quarry Lane", "Orchard Row", "Tanners Yard", "Beacon Hill", "Ferry Walk",
           "Copper Street", "Salt Lane", "Weavers Close"]
NOTES = ("Medium: the notice is short, but it holds a withdrawn alternative next to each real fact and more detail "
         "than the word limit allows; a summary must pick the reader's facts, keep each one the right way round "
         "and drop the distractors. Small models copy the first sentences or carry the withdrawn plan along.")


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _date_words(day: int, month: str) -> list[str]:
    """The ways a summary may write a date."""
    return [f"{day} {month}", f"{_ordinal(day)} {month}", f"{month} {day}", f"{month} {_ordinal(day)}",
            f"{day} {month[:3]}", f"{month[:3]} {day}"]


def _two_dates(rng) -> tuple[tuple[int, str], tuple[int, str]]:
    month = rng.choice(MONTHS)
    first = rng.randint(2, 12)
    return (first, month), (first + rng.randint(5, 14), month)


def _case(number: int, prompt: str, limit: int, points: list[dict], forbidden: list[str], reference: str,
          wrong: list[str], gold: str, accepted: list[str]) -> dict:
    # pick the reader's facts, keep each the right way round, drop the withdrawn plan: 3 steps, no search;
    # traps: the withdrawn alternative, copying the opening sentences
    return {"id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "prose", **ruled(3, 1, 2),
            "tags": ["judged"], "notes": NOTES, "prompt": prompt,
            "grader": {"type": "judge", "rubric": "summary", "gold": gold, "points": points, "forbidden": forbidden,
                       "max_words": limit},
            "verify": {"reference": reference, "accepted": accepted, "wrong": wrong}}


REFUSAL = "I'm sorry, but I can't help with that."


def _moving(rng, number: int) -> dict:
    org = rng.choice(["Westbrook Council", "Alder Valley Trust", "Kestrel Bay Borough"])
    service = rng.choice(["walk-in clinic", "parcel counter", "lending library", "tax help desk"])
    old, new, decoy = rng.sample(STREETS, 3)
    (day, month), (decoy_day, decoy_month) = _two_dates(rng)
    start = rng.choice(["9:30", "10:00", "8:30"])
    end = rng.choice(["16:00", "15:30", "18:00"])
    collect, collect_word = rng.choice([("the town hall reception", "town hall"),
                                        ("the Ferry Walk post office", "post office"),
                                        ("the community centre", "community centre")])
    if "Ferry Walk" in collect:  # the collection point names a street: no street of the move may be that one
        spare = iter(s for s in STREETS if s not in (old, new, decoy, "Ferry Walk"))
        old, new, decoy = (next(spare) if s == "Ferry Walk" else s for s in (old, new, decoy))
    bus = rng.randint(11, 48)
    notice = (f"Notice from {org}. After a long consultation, the {service} now at {old} will move to {new}, "
              f"opening there on {day} {month}. An earlier proposal to move it to {decoy} on {decoy_day} "
              f"{decoy_month} has been withdrawn, because the building there failed its fire inspection. At the "
              f"new address the {service} will open from {start} to {end} on weekdays, instead of 9:00 to 17:00; "
              f"weekend hours stay as they are. Anything reserved before the move can be collected at {collect} "
              f"until the end of the month. Parking at {new} is limited, and the number {bus} bus stops outside. "
              f"Staff thank residents for their patience during the works, paid for by a regional grant.")
    prompt = (f"Summarise this notice for residents in at most 40 words. Say where and when the {service} "
              f"reopens, its new weekday hours, and where reserved items can be collected.\n\n\"{notice}\"")
    points = [{"text": f"it moves to {new}", "any": [new]},
              {"text": f"it opens there on {day} {month}", "any": _date_words(day, month)},
              {"text": f"new weekday hours {start} to {end}", "any": [start, start.replace(":", "."), end]},
              {"text": f"reserved items can be collected at {collect} (until the end of the month)",
               "any": [collect_word]}]
    reference = (f"The {service} reopens at {new} on {day} {month}, open {start} to {end} on weekdays. Reserved "
                 f"items can be collected at {collect} until the month ends.")
    wrong = [REFUSAL,
             f"{org} thanks residents for their patience during the works, which a regional grant paid for.",
             f"The {service} moves to {new} or {decoy}, on {day} or {decoy_day} {month}; hours change too.",
             f"The {service} moves to {new}, opening on {day} {month}, open {start} to {end} on weekdays. Items "
             f"reserved before the move can no longer be collected at {collect}; they will be cancelled."]
    accepted = [f"From {month} {day} the {service} is at {new}, not {decoy}. Weekdays {start}-{end}. Collect "
                f"reserved items at {collect} by the month's end.",
                f"New address: {new}, opening {_ordinal(day)} {month}. Open weekdays {start} to {end}. Reserved "
                f"items: collect them from {collect} before the month is out.",
                f"The {service} moves from {old} to {new}, reopening {day} {month}, open {start}-{end} on "
                f"weekdays; reserved items wait at {collect} until month end."]
    gold = reference
    return _case(number, prompt, 40, points, [decoy], reference, wrong, gold, accepted)


def _roadworks(rng, number: int) -> dict:
    road, other = rng.sample(["Station Road", "Elm Avenue", "Church Lane", "Fenwick Street", "Rope Walk"], 2)
    via = rng.choice(["Granary Street", "Bell Lane", "Canal Side", "Tower Hill"])
    (d1, month), (d2, _) = _two_dates(rng)
    landmark = rng.choice(["fire station", "swimming baths", "old cinema", "bakery on the corner"])
    crew = rng.randint(6, 14)
    notice = (f"{road} will be closed to all traffic from {d1} {month} to {d2} {month} while a water main is "
              f"replaced. Work on {other}, planned for the same weeks, has been postponed until the autumn. Drivers "
              f"should follow the signed diversion along {via}. Pedestrians can still use the pavement on the "
              f"north side. The bus stop on {road} moves for the duration to a temporary stop outside the "
              f"{landmark}. A crew of {crew} will work from 7:30 to 18:00, and residents will get a letter before "
              f"any night work. Bins will be collected as usual.")
    prompt = (f"Summarise this road notice in at most 35 words. Say which road closes and when, the diversion "
              f"for drivers, and where the bus stop moves.\n\n\"{notice}\"")
    points = [{"text": f"{road} is closed", "any": [road]},
              {"text": f"from {d1} to {d2} {month}", "any": _date_words(d1, month) + [f"{d1}-{d2}", f"{d1}–{d2}",
                                                                                   f"{d1} to {d2}"]},
              {"text": f"the diversion is along {via}", "any": [via]},
              {"text": f"the bus stop moves to outside the {landmark}", "any": [landmark.split()[-1]]}]
    reference = (f"{road} is closed from {d1} to {d2} {month}. Drivers divert along {via}; the bus stop moves to "
                 f"outside the {landmark}.")
    wrong = [REFUSAL,
             "Bins will be collected as usual, and pedestrians can still use the pavement on the north side.",
             f"{road} or {other} closes at some point this month; follow the signs. The bus stop may move.",
             f"{road} is closed from {d1} to {d2} {month}. Drivers should avoid {via}, which is closed too; the bus "
             f"stop outside the {landmark} is cancelled for the duration."]
    accepted = [f"From {d1} to {d2} {month} {road} is shut. Drivers divert via {via}; buses use a temporary "
                f"stop outside the {landmark}.",
                f"{road} closes {d1}-{d2} {month} for water main work; the signed diversion runs along {via}, and "
                f"its bus stop moves outside the {landmark}.",
                f"Closure: {road}, {month} {d1} to {d2}. Diversion: {via}. Bus stop: temporarily outside the "
                f"{landmark}."]
    return _case(number, prompt, 35, points, [other], reference, wrong, reference, accepted)


def _fees(rng, number: int) -> dict:
    club = rng.choice(["Riverside Rowing Club", "Hollin Chess Society", "Marsh Lane Tennis Club",
                       "Old Quay Swimming Club"])
    old_fee = rng.choice([36, 40, 45, 50])
    new_fee = old_fee + rng.choice([6, 8, 10, 12])
    rejected = new_fee + rng.choice([9, 15, 20])
    month = rng.choice(MONTHS)
    discount = rng.choice([25, 30, 40, 50])
    pay = rng.choice(["bank transfer", "card at the clubhouse bar", "the club's online form"])
    pay_word = {"bank transfer": "transfer", "card at the clubhouse bar": "clubhouse",
                "the club's online form": "online"}[pay]
    members = rng.randint(120, 340)
    notice = (f"At its annual meeting the {club} agreed that the yearly membership fee will rise from £{old_fee} to "
              f"£{new_fee}, starting on 1 {month}. A committee proposal to charge £{rejected} was rejected by the "
              f"{members} members present. Members under 18 will keep a {discount}% discount on the new fee. "
              f"Fees can be paid by {pay}; cheques are no longer accepted. The meeting also thanked the outgoing "
              f"treasurer and approved new curtains for the hall.")
    prompt = (f"Summarise this club notice in at most 35 words. Give the new fee and when it starts, the discount "
              f"for under-18s, and how to pay.\n\n\"{notice}\"")
    points = [{"text": f"the fee becomes £{new_fee} a year", "any": [f"£{new_fee}", f"{new_fee} pounds"]},
              {"text": f"from 1 {month}", "any": _date_words(1, month) + [month]},
              {"text": f"under-18s keep a {discount}% discount", "any": [f"{discount}%", f"{discount} %",
                                                                        f"{discount} percent"]},
              {"text": f"pay by {pay} (no cheques)", "any": [pay_word]}]
    reference = (f"From 1 {month} the yearly fee rises from £{old_fee} to £{new_fee}; under-18s keep a {discount}% "
                 f"discount. Pay by {pay}; cheques are no longer accepted.")
    wrong = [REFUSAL,
             "The meeting thanked the outgoing treasurer and approved new curtains for the hall.",
             f"The fee rises to £{new_fee} or £{rejected} from {month}; juniors may get a discount.",
             f"From 1 {month} the fee is £{new_fee}, and under-18s lose their {discount}% discount. Pay by {pay} "
             f"or by cheque."]
    accepted = [f"Membership goes up to £{new_fee} a year from 1 {month} (the £{rejected} proposal was rejected). "
                f"Under-18s still get {discount}% off. Pay by {pay}; no cheques.",
                f"New yearly fee: £{new_fee}, starting {month} 1st. Members under 18 keep their {discount} percent "
                f"discount. Payment by {pay} only, as cheques are no longer taken.",
                f"The annual fee rises from £{old_fee} to £{new_fee} on 1 {month}; juniors under 18 pay "
                f"{discount}% less. Fees are paid by {pay}."]
    return _case(number, prompt, 35, points, [f"£{rejected}"], reference, wrong, reference, accepted)


def _recall(rng, number: int) -> dict:
    product = rng.choice(["Brightway 2-litre kettle", "Nordvik desk lamp", "Calder hand blender",
                          "Puffin travel adaptor"])
    brand = product.split()[0]
    prefix, other = rng.sample(["B24", "K71", "R09", "T33", "M58"], 2)
    shop = rng.choice(["Hartley's", "Moorgate Home", "Quayside Electrical"])
    fault, fault_words = rng.choice([("the cable can overheat", ["overheat*", "cable"]),
                                     ("a loose contact can give a shock", ["shock*", "contact"]),
                                     ("the switch can stick on", ["switch*", "stick*", "stuck"])])
    notice = (f"Safety recall. {shop} is recalling the {product} with batch codes starting {prefix}, because "
              f"{fault}. Units with codes starting {other} were made at another plant and are not affected. If "
              f"you own an affected unit, stop using it and return it to any {shop} store for a full refund; no "
              f"receipt is needed. The batch code is printed under the base. {shop} apologises and says no "
              f"injuries have been reported.")
    prompt = (f"Summarise this recall for a customer in at most 45 words. Say which product and batches are "
              f"affected, why, what to do, and whether a receipt is needed.\n\n\"{notice}\"")
    points = [{"text": f"the {product} is recalled", "any": [brand]},
              {"text": f"batch codes starting {prefix}", "any": [prefix]},
              {"text": f"because {fault}", "any": fault_words},
              {"text": f"stop using it and return it to a {shop} store for a full refund", "any": ["refund*"]},
              {"text": "no receipt is needed", "any": ["receipt*"]}]
    reference = (f"{shop} recalls the {product}, batch codes starting {prefix}: {fault}. Stop using it and "
                 f"return it to any of its stores for a full refund; no receipt needed.")
    wrong = [REFUSAL,
             f"The batch code is printed under the base, and {shop} says no injuries have been reported.",
             f"The {product} is recalled, batches {prefix} or {other}, maybe; keep the receipt to be safe.",
             f"{shop} is recalling the {product} with batch codes starting {prefix}, as {fault}. Keep using it "
             f"until a refund arrives by post; a receipt is needed."]
    accepted = [f"Recall: {product}, batch codes beginning {prefix}, because {fault}. Stop using it and take it "
                f"back to any {shop} store for a full refund. You don't need a receipt.",
                f"If your {product} has a batch code starting {prefix}, stop using it: {fault}. Any {shop} store "
                f"will refund it in full, receipt or not.",
                f"{shop} is recalling {prefix}-batch units of the {product} since {fault}. Return yours to a "
                f"{shop} shop for a full refund; no receipt required. Units from other batches are fine."]
    return _case(number, prompt, 45, points, [other], reference, wrong, reference, accepted)


TEMPLATES = (_moving, _roadworks, _fees, _recall)


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [template(rng, 2 * k + i + 1) for k, template in enumerate(TEMPLATES) for i in range(2)]
