"""PR-plainwords: a jargon-heavy boil-water notice rewritten for a ten-year-old, keeping what to do, until when,
why, what is still safe and where to get bottled water; judged against those facts and the plain wording.

The notice hides its instructions in officialese ("bring all water intended for consumption to a rolling boil",
"suitable for ablutions"), so the rewrite must translate each fact, not copy it, and keep the one exception
(washing is fine) the right way round. The screen passes only a rewrite that carries most of the facts; the
near miss in verify.wrong keeps every fact's words but turns the exception round (no washing either), which only
the judge can fail. Whether the words suit a child is a point for the judge.
"""

from __future__ import annotations

from pytest_crucible import family_rng
from pytest_crucible.suite.tiers import ruled

FAMILY = "PR-plainwords"
REFUSAL = "I'm sorry, but I can't help with that."
AREAS = ("Ferndale", "Upper Marsh", "Kilnworth", "Saltcote", "Brackenby", "Hollins Cross")
PLACES = (("the leisure centre car park", "leisure centre"), ("the primary school hall", "school"),
          ("the Co-op on Station Road", "Co-op"), ("the library on Bridge Street", "library"))
CAUSES = (("a trunk main failure", "a big water pipe burst", ["pipe*", "burst*", "broke*"]),
          ("a loss of treatment at the works", "the cleaning machine at the water works broke",
           ["clean*", "machine*", "works"]),
          ("flood water entering a service reservoir", "flood water got into a water tank", ["flood*", "tank*"]))
MONTHS = ("March", "April", "May", "June", "September", "October")
NOTES = ("Medium: five facts to carry from officialese into a child's words within a word limit: the action (boil and "
         "cool), the end date, the cause, the exception (washing and flushing are fine) and the collection point. "
         "Traps: copying the jargon, and the exception turned round (the stored near miss).")


def _case(rng, number: int) -> dict:
    area = rng.choice(AREAS)
    place, place_word = rng.choice(PLACES)
    cause, cause_plain, cause_words = rng.choice(CAUSES)
    day, month = rng.randint(3, 26), rng.choice(MONTHS)
    notice = (f"Following {cause}, there is a risk of microbiological contamination of the potable supply in the "
              f"{area} distribution zone. As a precautionary measure, customers are advised to bring all water "
              f"intended for consumption, including for food preparation and dental hygiene, to a rolling boil and to "
              f"allow it to cool prior to use, until {day} {month} inclusive. The supply remains suitable for "
              f"ablutions and toilet flushing. Bottled water may be collected free of charge from {place}.")
    limit = 70
    prompt = (f"Rewrite this notice so that a ten-year-old in {area} understands it, in at most {limit} words. Keep "
              f"what to do, until when, why, what is still fine to do with the water, and where to get bottled "
              f"water.\n\n\"{notice}\"")
    dates = [f"{day} {month}", f"{month} {day}"]
    points = [{"text": "boil tap water before drinking it, cooking with it or brushing teeth with it, and let it cool",
               "any": ["boil*"]},
              {"text": f"until {day} {month}", "any": dates},
              {"text": f"because {cause_plain}, so germs might have got in", "any": cause_words + ["germ*"]},
              {"text": "washing, showering and flushing the toilet are fine", "any": ["wash*", "shower*", "bath*",
                                                                                    "flush*", "toilet*"]},
              {"text": f"free bottled water from {place}", "any": [place_word]},
              "in plain words a ten-year-old knows (no jargon such as potable, ablutions or microbiological)"]
    reference = (f"Until {day} {month}, boil tap water and let it cool before you drink it, cook with it or brush "
                 f"your teeth with it. This is because {cause_plain}, so germs might have got into the water. You can "
                 f"still wash, have a shower and flush the toilet. You can get free bottled water at {place}.")
    accepted = [
        f"{cause_plain.capitalize()}, and germs might be in the water. So until {day} {month}, boil water and wait "
        f"for it to cool before drinking it or brushing your teeth. Baths, showers and flushing are fine. Free bottles "
        f"of water are at {place}.",
        f"Important: boil your tap water, then let it cool, before you drink it or use it for food or teeth. Do this "
        f"until {month} {day}. Why? {cause_plain.capitalize()}, so the water might have germs. Washing and the toilet "
        f"are OK. Free bottled water: {place}.",
        f"Don't drink tap water straight away until {day} {month}: boil it first and let it cool, even for brushing "
        f"teeth. {cause_plain.capitalize()}, which may have let germs in. You can still wash and flush the toilet "
        f"as normal, and you can pick up free bottled water at {place}."]
    wrong = [REFUSAL,
             f"{area} is a nice place to live, and everyone there should drink plenty of water every day.",
             f"Either boil your water or buy bottles until {day} {month}; {cause_plain}, and washing might be fine.",
             f"Until {day} {month}, boil tap water and let it cool before you drink it or brush your teeth. This is "
             f"because {cause_plain}, so germs might have got into the water. Don't wash, shower or flush the toilet "
             f"with it either. You can get free bottled water at {place}."]
    return {"id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "prose", **ruled(5, 1, 2),
            "tags": ["judged"], "notes": NOTES, "prompt": prompt,
            "grader": {"type": "judge", "rubric": "summary", "gold": reference, "points": points,
                       "max_words": limit},
            "verify": {"reference": reference, "accepted": accepted, "wrong": wrong}}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, k) for k in (1, 2, 3)]
