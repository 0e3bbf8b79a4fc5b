"""PR-errata: a guidebook paragraph checked against the record card it was written from; the reply names every
statement that contradicts the card and gives the card's value. Judged against the planted contradictions.

Six facts, three of them planted wrong in the paragraph (a year a few years off, a count one or two off, a name or
a material swapped), three right; the paragraph words them differently from the card, so the check is a
comparison of meaning, fact by fact. The screen passes only a reply that gives every corrected value (refusals
and off-task replies fail at no cost); the near miss in verify.wrong names the same three statements but takes
the paragraph's side against the card, which only the judge can fail.
"""

from __future__ import annotations

from pytest_crucible import family_rng
from pytest_crucible.suite.tiers import ruled

FAMILY = "PR-errata"
REFUSAL = "I'm sorry, but I can't help with that."
BRIDGES = ("Tarn Crossing", "Kelder Bridge", "Ashby Viaduct", "Morrow Span", "Fennick Bridge")
RIVERS = ("Esk", "Wenning", "Lune", "Calder", "Ribble")
DESIGNERS = ("Alder", "Brunton", "Castell", "Dunmore", "Ferris", "Gorst")
MATERIALS = ("granite", "sandstone", "cast iron", "brick", "limestone")
NOTES = ("Medium: six facts to compare between a paragraph and a record card, worded differently in each; three "
         "are planted wrong. The reply must find exactly those three and give the card's values. Traps: a correct "
         "statement flagged, the direction reversed (the paragraph's value defended against the card: the stored "
         "near miss).")


def _facts(rng) -> dict:
    # every value but the arches is above 200, so a spray of small numbers makes at most one point
    return {"year": rng.randint(1852, 1912), "arches": rng.randint(3, 9), "designer": rng.choice(DESIGNERS),
            "material": rng.choice(MATERIALS), "length": rng.randrange(215, 480, 5), "toll": None}


def _wrong_value(rng, field: str, right):
    if field == "year":
        return right + rng.choice((-1, 1)) * rng.randint(3, 9)
    if field == "arches":
        return right + rng.choice((-2, -1, 1, 2)) if right > 3 else right + rng.randint(1, 2)
    if field == "designer":
        return rng.choice([d for d in DESIGNERS if d != right])
    if field == "material":
        return rng.choice([m for m in MATERIALS if m != right])
    return right + rng.choice((-1, 1)) * rng.randrange(20, 60, 5)


def _said(field: str, v) -> str:
    return {"year": f"it was opened in {v}", "arches": f"it stands on {v} arches",
            "designer": f"the engineer {v} designed it", "material": f"it is built of {v}",
            "length": f"it is {v} metres long", "toll": f"its toll was abolished in {v}"}[field]


def _case(rng, number: int) -> dict:
    name, river = rng.choice(BRIDGES), rng.choice(RIVERS)
    card = _facts(rng)
    card["toll"] = card["year"] + rng.randint(25, 60)
    fields = ["year", "arches", "designer", "material", "length", "toll"]
    planted = rng.sample(fields, 3)
    text = dict(card)
    for f in planted:
        text[f] = _wrong_value(rng, f, card[f])
        if f == "toll":
            text[f] = card["toll"] + rng.choice((-1, 1)) * rng.randint(4, 11)
    paragraph = (f"The {name} carries the old coach road over the {river}. Designed by {text['designer']}, it opened "
                 f"to traffic in {text['year']}. Its {text['arches']} arches of {text['material']} span "
                 f"{text['length']} metres in all, and for years carters paid to cross, until the toll was lifted in "
                 f"{text['toll']}. "
                 f"Painters still come for the view of the weir below it.")
    card_text = (f"Record card: {name}. Engineer: {card['designer']}. Opened: {card['year']}. "
                 f"Arches: {card['arches']}. Material: {card['material']}. Length: {card['length']} m. "
                 f"Toll abolished: {card['toll']}.")
    limit = 80
    prompt = (f"A guidebook paragraph was written from a record card. Check the paragraph against the card: name "
              f"every statement in the paragraph that contradicts the card, and give the card's value for each. "
              f"Answer in at most {limit} words.\n\nParagraph: \"{paragraph}\"\n\n{card_text}")
    labels = {"year": "the opening year", "arches": "the number of arches", "designer": "the designer",
              "material": "the material", "length": "the length", "toll": "the year the toll ended"}
    points = [{"text": f"{labels[f]} is wrong: the paragraph says {text[f]}, the card {card[f]}",
               "any": [str(card[f])]} for f in planted]
    reference = "Three statements contradict the card:\n" + "\n".join(
        f"- {labels[f].capitalize()}: the paragraph says {text[f]}, the card says {card[f]}." for f in planted)
    accepted = [
        "The paragraph gets three things wrong. " + " ".join(
            f"{_said(f, card[f]).capitalize()}, not {text[f]}." for f in planted) + " The rest matches the card.",
        "\n".join(f"{k}. {labels[f].capitalize()}: {card[f]} (paragraph: {text[f]})" for k, f in enumerate(planted, 1)),
        "Corrections from the record card: " + "; ".join(f"{labels[f]} should be {card[f]} rather than {text[f]}"
                                                         for f in planted) + "."]
    ok = [f for f in fields if f not in planted]
    wrong = [REFUSAL,
             f"The {name} is a fine old bridge over the {river}, and painters still come for the view of the weir "
             "below it.",
             f"Either {labels[planted[0]]} or {labels[ok[0]]} is wrong in the paragraph; the card may say "
             f"{card[planted[0]]}.",
             "Three statements disagree, and the paragraph is right each time:\n" + "\n".join(
                 f"- {labels[f].capitalize()}: the card's {card[f]} should read {text[f]}." for f in planted)]
    return {"id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "prose", **ruled(6, 1, 2),
            "tags": ["judged"], "notes": NOTES, "prompt": prompt,
            "grader": {"type": "judge", "rubric": "facts", "gold": reference, "points": points, "max_words": limit},
            "verify": {"reference": reference, "accepted": accepted, "wrong": wrong}}


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, k) for k in (1, 2, 3)]
