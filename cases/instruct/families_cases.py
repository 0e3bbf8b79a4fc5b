"""Instruction-following families: several verifiable constraints per prompt, re-rolled by the seed.

Every family writes its prompt, its constraints and a reference reply from the same parameters, so the
reference meets every constraint by construction (and `crucible cases verify` grades it to make sure).
Every instruction a prompt gives is a constraint; the content asked for (facts, a topic, data) is
graded too, so a refusal, a parroted prompt or a well-formatted reply about something else fails.
The prose pools below are written for this suite.

Families (ids IN-<family>-NN):
  memo        a notice: exact sentences, a word window, facts, banned words, case, fixed start and end
  tips        a markdown bullet list: title line, bullet count, words per line, a keyword count, a total
  json        a dispatch log to a JSON object: units converted, dates normalised, sorted, totals
  acrostic    lines whose initials spell a word, exact words per line, a banned word, a fixed ending
  lipogram    a scene described without the letter e, exact sentences, a word window, required words
  letter      paragraphs, a given opening word for paragraph 2, a P.S., facts and banned words
  ranked      a filtered, sorted, renamed list in an exact line format with a count line
  template    an email template with exact placeholders, paragraphs and a fixed sign-off
"""

from __future__ import annotations

import json
import random
import re
import sys
from decimal import Decimal

from pytest_crucible.common.yamlio import LineDict
from pytest_crucible.grading.extract import paragraphs, sentences, words
from pytest_crucible.suite.tiers import ruled

REFUSAL = "I'm sorry, but I can't help with that request."

# ---------------------------------------------------------------- shared: community events

# Every sentence avoids all of BANNABLE, so any of them can be banned without touching the reference.
BANNABLE = ("the", "and", "very", "also", "just", "really", "so", "but")

EVENTS = (
    {
        "event": "lantern walk", "name": "Brindle Cove", "date": "14 June", "place": "Quarry Hill",
        "number": "320", "what": "paper lanterns",
        "open": "Brindle Cove holds its lantern walk on 14 June this year.",
        "detail": "Walkers gather at Quarry Hill, where 320 paper lanterns wait to be lit.",
        "extras": ("Children under ten walk free with an adult.",
                   "Volunteers will hand out candles from six o'clock.",
                   "Each lantern was folded by hand over long winter evenings.",
                   "Route maps are pinned up outside every shop in town.",
                   "Warm clothes help, as evenings by water turn cold fast."),
        "closes": ("Bring a friend, a torch, or both.", "Everyone is welcome."),
        "topic": ("lantern", "lanterns", "walk", "walkers", "candles", "route"),
    },
    {
        "event": "book swap", "name": "Orrin Street", "date": "9 March", "place": "Maple Hall",
        "number": "640", "what": "donated books",
        "open": "Orrin Street hosts its spring book swap on 9 March.",
        "detail": "Tables at Maple Hall will hold some 640 donated books.",
        "extras": ("Bring one book to take one home.",
                   "Cookbooks, atlases, comics, novels: every kind is welcome.",
                   "Leftover books go to local schools afterwards.",
                   "Doors open at ten o'clock sharp.",
                   "A reading corner waits for younger guests."),
        "closes": ("See you there.", "Tell your neighbours."),
        "topic": ("book", "books", "swap", "reading", "novels", "tables"),
    },
    {
        "event": "beach clean", "name": "Kestrel Point", "date": "22 April", "place": "Harrow Sands",
        "number": "85", "what": "volunteers",
        "open": "Kestrel Point needs help with its beach clean on 22 April.",
        "detail": "Some 85 volunteers will meet at Harrow Sands car park at nine.",
        "extras": ("Gloves, bags, grabbers: all provided.",
                   "Plastic, rope, glass: everything goes in sorted sacks.",
                   "Last spring our team filled forty sacks in three hours.",
                   "Hot soup waits for everyone at noon.",
                   "Sturdy boots work best on wet rocks."),
        "closes": ("Every pair of hands counts.", "Come as you are."),
        "topic": ("beach", "clean", "sacks", "plastic", "volunteers", "litter"),
    },
    {
        "event": "mill open day", "name": "Hollins Mill", "date": "5 October", "place": "Weaver Shed",
        "number": "12", "what": "restored looms",
        "open": "Hollins Mill opens its doors to visitors on 5 October.",
        "detail": "Inside Weaver Shed, 12 restored looms will run for an hour each afternoon.",
        "extras": ("Guides explain how cotton once moved through each floor.",
                   "A small café serves tea, cake or soup.",
                   "Entry costs nothing, though donations help with repairs.",
                   "Steps are steep, yet a lift reaches two floors.",
                   "Photographs from a century ago line every corridor."),
        "closes": ("Bring your questions.", "All ages are welcome."),
        "topic": ("mill", "looms", "cotton", "weaving", "visitors", "guides"),
    },
    {
        "event": "winter concert", "name": "Tarnbeck Choir", "date": "30 November", "place": "Ashgrove Chapel",
        "number": "48", "what": "singers",
        "open": "Tarnbeck Choir sings its winter concert on 30 November.",
        "detail": "Some 48 singers will fill Ashgrove Chapel with carols, hymns, folk songs.",
        "extras": ("Tickets cost five pounds at any local shop.",
                   "Mulled apple juice will be served at half time.",
                   "Our youngest singer is nine; our oldest is ninety.",
                   "Seats fill quickly, as last year proved.",
                   "Proceeds go to a new roof for our chapel."),
        "closes": ("Come early for a good seat.", "We hope to see you there."),
        "topic": ("choir", "concert", "singers", "carols", "songs", "tickets"),
    },
    {
        "event": "seed fair", "name": "Fenwold Growers", "date": "17 February", "place": "Tithe Barn",
        "number": "210", "what": "seed varieties",
        "open": "Fenwold Growers run a seed fair on 17 February.",
        "detail": "At Tithe Barn, some 210 varieties of seed will be ready to swap.",
        "extras": ("Bring seeds saved from your own plot.",
                   "Experts will answer questions about soil, pests or pruning.",
                   "Rare beans from local gardens are a highlight.",
                   "Small paper envelopes will be provided for swaps.",
                   "Children can plant a pot of cress to take home."),
        "closes": ("Entry is free.", "Every grower is welcome."),
        "topic": ("seed", "seeds", "growers", "varieties", "beans", "gardens", "plot"),
    },
)

def _facts(e: dict) -> str:
    return (f"event: {e['event']} organised by {e['name']}; date: {e['date']}; place: {e['place']}; "
            f"{e['number']} {e['what']}")


def _quoted(items) -> str:
    items = [f'"{w}"' for w in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _binding(constraints: list, traps: int, loose: int = 0) -> tuple[int, int, int]:
    """Hardness facts of a writing task: a step per constraint a reply does not meet by writing naturally (they
    interact: rewording for one moves the counts of the others); the topic check, the no-preamble rule and the
    `loose` bounds (windows wide enough not to need counting) are none. Writing has no search."""
    steps = sum(c["kind"] not in ("any_words", "no_preamble") for c in constraints) - loose
    return steps, 1, traps


def _case(case_id: str, family: str, hardness: tuple[int, int, int], title: str, prompt: str, constraints: list,
          reference: str, wrong: list, notes: str, max_tokens: int | None = None) -> dict:
    facts = ruled(*hardness)
    case = LineDict({
        "id": case_id, "family": family, "category": "instruct", **facts, "title": title,
        "prompt": prompt, "grader": {"type": "checks", "constraints": constraints},
        "max_tokens": max_tokens or (8192 if facts["difficulty"] == "hard" else 4096),
        "notes": " ".join(notes.split()),
        "verify": {"reference": reference, "wrong": [REFUSAL, *wrong]},
    })
    case.line, case.key_lines = sys._getframe(1).f_lineno, {}  # problems point at the family's call
    return case


def _rules(rules: list[str]) -> str:
    return "\n".join(f"- {r}" for r in rules)


# ---------------------------------------------------------------- memo

MEMO_STARTS = ("Notice:", "Reminder:", "Community news:", "For all residents:")


def memo_cases(rng: random.Random) -> list[dict]:
    out = []
    events = rng.sample(EVENTS, 6)
    for i, e in enumerate(events):
        hard = i % 2 == 0
        n_sentences = 5 if hard else rng.choice((3, 4))
        extras = rng.sample(e["extras"], n_sentences - 3)
        close = rng.choice(e["closes"])
        start = rng.choice(MEMO_STARTS)
        case_rule = ("lower", "upper", None)[i % 3] if hard else (None, "lower")[i % 2]
        body = [e["open"], e["detail"], *extras, close]
        reference = f"{start} " + " ".join(body)
        if case_rule == "lower":
            reference = reference.lower()
        elif case_rule == "upper":
            reference = reference.upper()
        n_words = len(words(reference))
        slack = rng.randint(1, 2) if hard else rng.randint(6, 10)
        low, high = n_words - slack, n_words + rng.randint(1, 2 if hard else 10)
        banned = (["the", "and"] + rng.sample(BANNABLE[2:], 1)) if hard else rng.sample(BANNABLE[2:], 2)
        assert len(sentences(reference)) == n_sentences, reference
        rules = [f'Begin with the label "{start}"',
                 f"Exactly {n_sentences} sentences after the label (the label itself is not a sentence).",
                 f"Between {low} and {high} words in total, the label included (a number counts as a word).",
                 f"Mention {e['name']}, {e['place']} and the number {e['number']}.",
                 f"Do not use the words {_quoted(banned)} anywhere."]
        if case_rule == "lower":
            rules.append("Write everything in lower-case letters: no capital letter anywhere.")
        elif case_rule == "upper":
            rules.append("Write everything in capital letters: no lower-case letter anywhere.")
        rules += [f'End with the sentence "{close}"', "Output only the notice: no title, no notes."]
        prompt = (f"Write a short notice for local residents about this event ({_facts(e)}). "
                  f"Follow every rule below.\n{_rules(rules)}\n")
        constraints = [
            {"kind": "starts_with", "text": start},
            {"kind": "sentence_count", "min": n_sentences, "max": n_sentences},
            {"kind": "word_count", "min": low, "max": high},
            {"kind": "required_words", "words": [e["name"], e["place"], e["number"]]},
            {"kind": "forbidden_words", "words": banned},
            *([{"kind": "case", "value": case_rule}] if case_rule else []),
            {"kind": "ends_with", "text": close},
            {"kind": "no_preamble"},
        ]
        other = events[(i + 1) % len(events)]
        off_task = f"{start} " + " ".join([other["open"], other["detail"], *other["extras"][:n_sentences - 3],
                                           close])
        recase = (str.lower if case_rule == "lower" else str.upper if case_rule == "upper" else str)
        wrong = [
            recase(off_task),
            recase(f"{start} Version one: " + " ".join(body) + f" Version two: {e['open']} {close}"),
            recase(f"{start} " + " ".join([e["open"], e["detail"], *extras, "The day should be fun.", close])),
            recase(f"Here is your notice:\n\n{reference}"),
            reference.replace(e["place"].lower() if case_rule == "lower" else
                              e["place"].upper() if case_rule == "upper" else e["place"], "town"),
        ]
        if case_rule == "lower":
            wrong.append(reference.replace(e["name"].lower(), e["name"], 1))
        notes = (f"{len(constraints)} constraints at once on {n_sentences} sentences: a word window only "
                 f"{high - low} wide ({low}-{high}), which needs real counting, "
                 + ("the two commonest English words banned (\"the\", \"and\"), which fluent prose uses in "
                    "nearly every sentence, " if hard else "two banned filler words, ")
                 + (f"all {case_rule}-case text, " if case_rule else "")
                 + "three facts, a fixed opening label and a fixed final sentence.")
        out.append(_case(f"IN-memo-{i + 1:02d}", "IN-memo", _binding(constraints, 2 if hard else 1, loose=0 if hard else 1),
                         f"Notice about the {e['event']}: {len(constraints)} constraints", prompt, constraints,
                         reference, wrong, notes))
    return out


# ---------------------------------------------------------------- tips

TIPS = (
    {"task": "keeping a sourdough starter", "keyword": "flour", "title": "## Sourdough starter care",
     "topic": ("starter", "flour", "jar", "feed", "dough", "bake", "bubbles", "rye"),
     "tips": ("Feed it flour and water every day.", "Keep the jar somewhere warm but not hot.",
              "Discard half before each feed.", "Use rye flour for a livelier starter.",
              "Mark the level with a rubber band.", "Stir well so fresh flour reaches every bubble.",
              "Store it in the fridge when you travel.", "Bake once it doubles within eight hours.")},
    {"task": "cycling through the winter", "keyword": "lights", "title": "## Winter cycling",
     "topic": ("bike", "ride", "tyre", "chain", "lights", "brake", "cycling", "roads"),
     "tips": ("Fit bright front and rear lights.", "Check your lights before every ride.",
              "Lower tyre pressure slightly for grip.", "Wear thin layers instead of one thick coat.",
              "Clean road salt off the chain after rides.", "Leave earlier, since dark evenings slow traffic.",
              "Carry spare batteries for both lights.", "Brake earlier on icy corners.")},
    {"task": "packing for a day hike", "keyword": "water", "title": "## Day hike packing",
     "topic": ("hike", "trail", "boots", "map", "pack", "route", "water", "jacket"),
     "tips": ("Carry more water than you think you need.", "Pack a light waterproof jacket.",
              "Bring a paper map as well as your phone.", "Add snacks that will not melt.",
              "Wear boots you have already broken in.", "Put a small first aid kit in the lid.",
              "Freeze one water bottle to keep food cool.", "Tell someone your route and return time.")},
    {"task": "looking after a cast-iron pan", "keyword": "oil", "title": "## Cast-iron pan care",
     "topic": ("pan", "iron", "seasoning", "rust", "cook", "hob", "salt"),
     "tips": ("Dry the pan on the hob after washing.", "Rub a thin film of oil over it while warm.",
              "Never leave it soaking in the sink.", "Scrub stuck food with coarse salt.",
              "Heat it slowly before adding oil.", "Cook fatty foods often to build the seasoning.",
              "Store it with a paper towel inside.", "Strip rust with steel wool, then oil it again.")},
    {"task": "learning to juggle", "keyword": "ball", "title": "## First steps in juggling",
     "topic": ("juggle", "juggling", "throw", "throws", "catch", "ball", "balls", "hands"),
     "tips": ("Start with one ball, tossing it hand to hand.", "Throw to eye height, no higher.",
              "Add a second ball once throws feel even.", "Practise over a bed to save your back.",
              "Count your catches to track progress.", "Keep your elbows close to your sides.",
              "Use bean bags, since a ball rolls away.", "Rest when your throws get sloppy.")},
    {"task": "growing basil on a windowsill", "keyword": "leaves", "title": "## Windowsill basil",
     "topic": ("basil", "pot", "leaves", "sill", "water", "sun", "grow", "buds"),
     "tips": ("Choose a sill with six hours of sun.", "Water at the base, not over the leaves.",
              "Pinch out the top leaves to keep it bushy.", "Remove flower buds as soon as they appear.",
              "Turn the pot weekly so it grows straight.", "Use a pot with drainage holes.",
              "Pick leaves from the top down.", "Keep it away from cold draughts at night.")},
)


def _count_word(text: str, word: str) -> int:
    return len(re.findall(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.I))


def tips_cases(rng: random.Random) -> list[dict]:
    out = []
    topics = rng.sample(TIPS, 5)
    for i, t in enumerate(topics):
        hard = i < 2
        for _ in range(200):  # a draw where the keyword occurs (twice or more for the hard tier)
            n = rng.randint(6, 7) if hard else rng.randint(4, 5)
            chosen = rng.sample(t["tips"], n)
            uses = sum(_count_word(tip, t["keyword"]) for tip in chosen)
            if uses >= (2 if hard else 1):
                break
        else:
            raise ValueError(f"no draw of tips for {t['task']} uses {t['keyword']!r}")
        longest = max(len(words(tip)) for tip in chosen)
        cap = longest + (0 if hard else rng.randint(1, 3))
        total = f"Total tips: {n}"
        lines = [t["title"], *(f"- {tip}" for tip in chosen), total]
        reference = "\n".join(lines)
        prompt = (f"Give exactly {n} tips for {t['task']}. Follow this format exactly:\n"
                  f"- First a title line that starts with \"## \".\n"
                  f"- Then the tips as a bulleted list, one tip per line, each line starting with \"- \". "
                  f"Do not number the tips.\n"
                  f"- Then one last line: \"{total}\".\n"
                  f"Every line, the title included, has at most {cap} words. Use the word "
                  f"\"{t['keyword']}\" exactly {uses} times in the whole answer (as a word on its own: longer "
                  f"words that contain it do not count). Write nothing else.\n")
        constraints = [
            {"kind": "line_matches", "line": 1, "pattern": r"#{2} \S.*"},
            {"kind": "bullet_count", "min": n, "max": n},
            {"kind": "line_format", "pattern": r"- \S.*", "all": False, "min_lines": n, "max_lines": n},
            {"kind": "numbered_list", "max": 0},
            {"kind": "line_matches", "line": -1, "pattern": re.escape(total)},
            {"kind": "line_count", "min": n + 2, "max": n + 2},
            {"kind": "words_per_line", "max": cap},
            {"kind": "keyword_count", "word": t["keyword"], "min": uses, "max": uses},
            {"kind": "any_words", "words": list(t["topic"]), "min": 2},
            {"kind": "no_preamble"},
        ]
        other = topics[(i + 1) % len(topics)]
        wrong = [
            "\n".join([other["title"], *(f"- {tip}" for tip in other["tips"][:n]), total]),
            "\n".join([t["title"], *(f"{k + 1}. {tip}" for k, tip in enumerate(chosen)), total]),
            "\n".join([t["title"], *(f"* {tip}" for tip in chosen), total]),
            "\n".join([t["title"], *(f"- {tip}" for tip in chosen), total, "Or, if you prefer:",
                       *(f"- {tip}" for tip in chosen[:2])]),
            "\n".join([t["title"], *(f"- {tip}" for tip in chosen[:-1]), total]),
            "\n".join([t["title"], *(f"- {tip}" for tip in chosen),
                       f"- Buy good {t['keyword']} from a trusted shop near you.", total]),
            "\n".join([t["title"], *(f"- {tip}" for tip in chosen)]),
        ]
        notes = (f"Ten format constraints at once: a title line, exactly {n} bullets and no numbering, a "
                 f"fixed last line, a cap of {cap} words on every line"
                 + (" equal to the longest natural tip" if hard else "")
                 + f", and the keyword \"{t['keyword']}\" exactly {uses} times, which the model must count "
                   "across its own tips (models tend to repeat a topic word more often than asked).")
        out.append(_case(f"IN-tips-{i + 1:02d}", "IN-tips", _binding(constraints, 2 if hard else 1, loose=0 if hard else 1),
                         f"{n} bulleted tips: {t['task']}", prompt, constraints, reference, wrong, notes))
    return out


# ---------------------------------------------------------------- json

TOWNS = ("Ardlow", "Bexholm", "Carrick Vale", "Dunmere", "Eskby", "Fallowfield", "Greyhaven", "Hollinsey")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
_LOG_LINES = (
    "Parcel {code} left for {town} on {day} {month}, weighing {weight}.",
    "On {day} {month} we sent {code} to {town}; it weighed {weight}.",
    "{code} ({weight}) was dispatched to {town} on the {nth} of {month}.",
    "A {weight} parcel, {code}, went out to {town} on {month} {day}.",
)


def _nth(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def json_cases(rng: random.Random) -> list[dict]:
    out = []
    for i in range(5):
        hard = i < 3
        n = rng.randint(5, 6) if hard else 4
        codes = [f"{rng.choice('BKMRTW')}{rng.choice('AEOU')}-{num}" for num in rng.sample(range(100, 1000), n + 1)]
        dates = sorted(rng.sample(range(1, 29), n + 1))
        month = rng.randint(1, 12)
        year = 2025
        grams = rng.sample(range(35, 980), n + 1)  # tens of grams: every weight has at most 2 decimals in kg
        parcels = []
        for k in range(n + 1):
            g = grams[k] * 10
            in_grams = hard and rng.random() < 0.5
            weight = f"{g} g" if in_grams else f"{Decimal(g) / 1000:.2f} kg".replace(".00 kg", " kg")
            parcels.append({"code": codes[k], "day": dates[k], "grams": g, "weight": weight,
                            "town": rng.choice(TOWNS)})
        cancelled = parcels.pop(rng.randrange(n + 1)) if hard else None
        if not hard:
            parcels = parcels[:n]
        story = parcels[:]
        rng.shuffle(story)
        lines = []
        for p in story:
            template = rng.choice(_LOG_LINES)
            lines.append(template.format(code=p["code"], town=p["town"], day=p["day"], nth=_nth(p["day"]),
                                         month=MONTHS[month - 1], weight=p["weight"]))
        if cancelled:
            at = rng.randrange(len(lines) + 1)
            lines.insert(at, f"Parcel {cancelled['code']} for {cancelled['town']} ({cancelled['weight']}) was "
                             f"booked for {cancelled['day']} {MONTHS[month - 1]} but cancelled before dispatch.")
        by_date = sorted(parcels, key=lambda p: p["day"])
        heaviest = max(parcels, key=lambda p: p["grams"])
        total = sum(Decimal(p["grams"]) for p in parcels) / 1000
        rows = [{"code": p["code"], "kg": float(Decimal(p["grams"]) / 1000),
                 "date": f"{year}-{month:02d}-{p['day']:02d}"} for p in by_date]
        answer = {"count": len(parcels), "total_kg": float(total), "heaviest": heaviest["code"], "parcels": rows}
        # a second derivation, from the log text as written, guards the generator against itself
        mentioned = [c for c in codes if c in "\n".join(lines)]
        assert len(mentioned) == len(parcels) + (1 if cancelled else 0)
        towns_key = hard and i == 0
        if towns_key:
            answer["towns"] = sorted({p["town"].lower() for p in parcels})
        keys = ('"count" (integer: how many parcels were dispatched), "total_kg" (number: their total '
                'weight in kilograms), "heaviest" (string: the code of the heaviest parcel), '
                + ('"towns" (array of strings: the distinct destination towns in lower case, in '
                   'alphabetical order), ' if towns_key else "")
                + '"parcels" (array: one object per dispatched parcel, ordered by date, earliest first, '
                  'each with exactly the keys "code" (string), "kg" (number, the weight in kilograms) and '
                  '"date" (string, YYYY-MM-DD))')
        prompt = (f"Here is a dispatch log from {MONTHS[month - 1]} {year}:\n\n" + "\n".join(lines) + "\n\n"
                  + ("Parcels that were cancelled do not count anywhere. " if cancelled else "")
                  + f"Return a JSON object with exactly these keys and no others: {keys}. Output only the "
                    "JSON object, nothing before or after it.\n")
        required = {"count": "integer", "total_kg": "number", "heaviest": "string", "parcels": "array"}
        if towns_key:
            required["towns"] = "array"
        constraints = [
            {"kind": "json_shape", "required": required, "exact": answer, "extra_keys": False},
            {"kind": "starts_with", "text": "{"},
            {"kind": "ends_with", "text": "}"},
            {"kind": "no_preamble"},
        ]
        reference = "```json\n" + json.dumps(answer, indent=2) + "\n```"
        swapped = dict(answer, parcels=list(reversed(rows)))
        grams_kg = dict(answer, parcels=[dict(r, kg=r["kg"] * 1000) for r in rows])
        wrong = [
            f"The log lists {len(lines)} parcels sent in {MONTHS[month - 1]} to towns such as {parcels[0]['town']}.",
            json.dumps(swapped),
            json.dumps(grams_kg),
            json.dumps(dict(answer, note="weights converted to kg")),
            json.dumps(answer) + "\nLet me know if you need the cancelled parcel too.",
            json.dumps({"count": 3, "total_kg": 2.5, "heaviest": "AB-123", "parcels": []}),
            json.dumps(dict(answer, heaviest=[answer["heaviest"], by_date[0]["code"]])),
        ]
        if cancelled:
            with_cancelled = sorted(parcels + [cancelled], key=lambda p: p["day"])
            wrong.append(json.dumps(dict(answer, count=len(parcels) + 1)))
            wrong.append(json.dumps(dict(answer, parcels=[
                {"code": p["code"], "kg": float(Decimal(p["grams"]) / 1000),
                 "date": f"{year}-{month:02d}-{p['day']:02d}"} for p in with_cancelled])))
        notes = (f"{len(parcels)} parcels written in four phrasings, "
                 "dates in three spoken forms to normalise to ISO, "
                 + ("weights mixed in grams and kilograms to convert, a cancelled parcel that must be left "
                    "out of every key, " if hard else "")
                 + "a sort by date, an exact total and the heaviest code, all in a JSON object with no "
                   "extra key: one slip anywhere fails the case.")
        out.append(_case(f"IN-json-{i + 1:02d}", "IN-json", (8, 1, 3) if hard else (5, 1, 1),
                         f"Dispatch log to JSON ({len(parcels)} parcels)", prompt, constraints, reference,
                         wrong, notes))
    return out


# ---------------------------------------------------------------- acrostic

# Six words per line, no "the" and no "and", on the coast.
COAST_LINES = {
    "A": ("Along cold sand gulls argue loudly,", "At dusk fishing boats drift homeward,"),
    "B": ("Beneath grey cliffs small waves gather,", "Boats knock softly against wooden posts,"),
    "C": ("Crabs scuttle sideways under slick weed,", "Cold spray stings every sailor's face,"),
    "D": ("Driftwood bleaches white in summer sun,", "Distant bells ring out from buoys,"),
    "E": ("Every morning brings fresh salty air,", "Evening light turns water into copper,"),
    "F": ("Foam lace settles on wet pebbles,", "Fishermen mend their nets by lamplight,"),
    "H": ("High tide swallows half our beach,", "Herons wait motionless in shallow pools,"),
    "I": ("In rock pools tiny shrimp hide,", "Inland winds carry salt for miles,"),
    "L": ("Lighthouse beams sweep across black water,", "Low clouds hang over quiet moorings,"),
    "M": ("Mussels cling tightly to harbour walls,", "Moonlight silvers every slow rolling swell,"),
    "N": ("Nets hang drying along stone quays,", "Nothing stays still where oceans breathe,"),
    "O": ("Old ropes creak as hulls sway,", "Oystercatchers call over mudflats at dawn,"),
    "R": ("Rain sweeps in from open sea,", "Rusty anchors rest beside lobster pots,"),
    "S": ("Seals bask lazily on warm rocks,", "Sand shifts with every passing tide,"),
    "T": ("Tall masts sway above rocking decks,", "Terns dive sharply into cold water,"),
    "W": ("Waves break white against harbour stone,", "Wind whistles through rigging all night,"),
}
ACROSTIC_WORDS = ("BEACON", "ANCHOR", "FLOTSAM", "TIDES", "STORM", "WHARF", "CORAL", "DRIFT", "BRINE",
                  "SHORE")
COAST_WORDS = ("sea", "sand", "waves", "tide", "harbour", "boats", "gulls", "water", "rocks", "beach", "salt",
               "salty", "spray", "shore", "swell", "quays", "moorings", "cliffs", "oceans", "fishing", "masts",
               "crabs", "weed", "driftwood", "buoys", "pebbles", "fishermen", "nets", "pools", "shrimp",
               "lighthouse", "mussels", "hulls", "ropes", "oystercatchers", "mudflats", "anchors", "lobster",
               "seals", "decks", "terns", "rigging", "sailor's", "herons")
# An off-topic acrostic opener for every letter the words above need.
CITY_WORDS = {"A": "Ambulances", "B": "Buses", "C": "Cars", "D": "Drivers", "E": "Electricians", "F": "Forklifts",
              "H": "Hawkers", "I": "Ice-cream vans", "L": "Lorries", "M": "Motorbikes", "N": "Newsagents",
              "O": "Office workers", "R": "Roadworks", "S": "Scooters", "T": "Taxis", "W": "Workers"}


def acrostic_cases(rng: random.Random) -> list[dict]:
    out = []
    long_words = [w for w in ACROSTIC_WORDS if len(w) >= 6]
    short_words = [w for w in ACROSTIC_WORDS if len(w) == 5]
    picks = rng.sample(long_words, 3) + rng.sample(short_words, 2)
    for i, word in enumerate(picks):
        hard = len(word) >= 6
        lines = [rng.choice(COAST_LINES[letter]) for letter in word]
        ending = "!" if hard else "."
        lines[-1] = lines[-1].rstrip(",") + ending
        reference = "\n".join(lines)
        banned = ["the", "and"] if hard else ["the"]
        rules = [f"Exactly {len(word)} lines, no blank lines, no title.",
                 f"The first letters of the lines, read downwards, spell {word}.",
                 "Every line has exactly 6 words." if hard else "Every line has between 5 and 7 words.",
                 f"Do not use the word{'s' if len(banned) > 1 else ''} {_quoted(banned)} anywhere.",
                 f"End the last line with {'an exclamation mark' if hard else 'a full stop'}.",
                 "Output only the poem."]
        prompt = f"Write a short poem about the sea shore that follows every rule below.\n{_rules(rules)}\n"
        constraints = [
            {"kind": "line_count", "min": len(word), "max": len(word)},
            {"kind": "paragraph_count", "max": 1},
            {"kind": "acrostic", "text": word},
            {"kind": "words_per_line", "min": 6, "max": 6} if hard else {"kind": "words_per_line", "min": 5, "max": 7},
            {"kind": "forbidden_words", "words": banned},
            {"kind": "ends_with", "text": ending},
            {"kind": "any_words", "words": list(COAST_WORDS), "min": 2},
            {"kind": "no_preamble"},
        ]
        other = ACROSTIC_WORDS[(ACROSTIC_WORDS.index(word) + 1) % len(ACROSTIC_WORDS)]
        wrong = [
            "\n".join(f"{CITY_WORDS[letter]} fill busy streets at noon," for letter in word).rstrip(",") + ending,
            "\n".join(rng.choice(COAST_LINES[letter]) for letter in other),
            f"{word}\n\n{reference}",
            reference.replace(lines[0], lines[0].rstrip(",").replace(" ", " the ", 1) + ","),
            reference + f"\nOr start again: {lines[0]}",
            "\n".join(lines[:-1]),
        ]
        notes = (f"A {len(word)}-letter acrostic where "
                 + ("every line must have exactly six words, with both \"the\" and \"and\" banned, "
                    if hard else "every line needs 5-7 words, with \"the\" banned, ")
                 + "no title and a fixed final punctuation mark: models add a title, slip an article in, "
                   "or miscount one line's words; the initials are checked after markdown is removed.")
        out.append(_case(f"IN-acrostic-{i + 1:02d}", "IN-acrostic", _binding(constraints, 2 if hard else 1, loose=0 if hard else 1),
                         f"Acrostic on {word}", prompt, constraints, reference, wrong, notes))
    return out


# ---------------------------------------------------------------- lipogram

# Sentences without the letter e; the first `required` sentences carry the required words.
SCENES = (
    {"scene": "a fishing harbour at dawn", "required": ("harbour", "gulls"),
     "sentences": ("A cold mist hangs low on our harbour at dawn.", "Gulls cry loudly as boats drift back to port.",
                   "Old sailors haul up full crab pots.", "A dog trots along a damp stony quay.",
                   "Salt and tar fill cold morning air.", "Soon a kiosk puts out hot cocoa and buns.",
                   "By noon, sunlight warms our calm harbour again.",
                   "Fishing crowds talk about wind and tidal swings.")},
    {"scene": "a busy Saturday food bazaar", "required": ("bazaar", "stalls"),
     "sentences": ("Our Saturday bazaar fills a long, narrow road.", "Stalls hold fruit, grain, nuts and fish.",
                   "A man calls out a low plum cost.", "Crowds push past a cart of fat apricots.",
                   "Kids hold brown bags of warm nuts.", "A busking violinist plays for coins.",
                   "By two o'clock, most stalls pack up.", "Birds hunt for crumbs as crowds thin out.")},
    {"scene": "a forest walk in winter", "required": ("snow", "owl"),
     "sentences": ("Snow sits thick on tall fir boughs.", "An owl calls from a hollow oak.",
                   "Our boots crunch loudly on an icy path.", "Small birds hop about, looking for food.",
                   "A cold wind stirs boughs high up.", "Fox tracks cross a frosty hollow.",
                   "Warm air from our mouths turns to mist.", "At dusk, a faint pink glow lights up hills.")},
    {"scene": "a thunderstorm over a city", "required": ("lightning", "rain"),
     "sentences": ("Lightning splits a black sky in two.", "Rain drums hard on roofs and cars.",
                   "Dark clouds roll across our city at dusk.", "Drains gush and spill onto roads.",
                   "Crowds dash into shop doorways.", "A loud crack jolts windows all along our road.",
                   "Taxis crawl through flooding junctions.", "By midnight, calm falls, and stars show again.")},
)


def lipogram_cases(rng: random.Random) -> list[dict]:
    out = []
    for i, s in enumerate(rng.sample(SCENES, 4)):
        n = rng.randint(4, 6)
        body = list(s["sentences"][:2]) + rng.sample(s["sentences"][2:], n - 2)
        reference = " ".join(body)
        assert "e" not in reference.lower() and len(sentences(reference)) == n, reference
        n_words = len(words(reference))
        low, high = n_words - rng.randint(2, 5), n_words + rng.randint(2, 5)
        prompt = (f"Describe {s['scene']} without using the letter \"e\" anywhere: not in any word, not in a "
                  f"title, not in a note. Write exactly {n} sentences, between {low} and "
                  f"{high} words in total, and use the words \"{s['required'][0]}\" and "
                  f"\"{s['required'][1]}\". Output only the description.\n")
        constraints = [
            {"kind": "letter_count", "letter": "e", "max": 0},
            {"kind": "sentence_count", "min": n, "max": n},
            {"kind": "word_count", "min": low, "max": high},
            {"kind": "required_words", "words": list(s["required"])},
            {"kind": "no_preamble"},
        ]
        other = SCENES[(SCENES.index(s) + 1) % len(SCENES)]
        wrong = [
            " ".join(other["sentences"][:n]),
            reference.replace(body[-1], body[-1][:-1] + " with the tide."),
            f"Harbour scene: {reference}",
            reference + " " + s["sentences"][2 if body[2] != s["sentences"][2] else 3],
            "Option A: " + " ".join(body[:n // 2 + 1]) + " Option B: " + " ".join(body[n // 2:]),
        ]
        notes = ("A lipogram without the commonest English letter over a whole description: tokenisers "
                 "hide letters inside subword pieces, so models routinely let an \"e\" through (\"the\", "
                 f"\"are\", \"were\"); on top, exactly {n} sentences, a {high - low}-word window and two "
                 "required words. Checked on the reply as sent, so a preamble with an e fails too.")
        out.append(_case(f"IN-lipogram-{i + 1:02d}", "IN-lipogram", _binding(constraints, 2),
                         f"No letter e: {s['scene']}",
                         prompt, constraints, reference, wrong, notes))
    return out


# ---------------------------------------------------------------- letter

CONNECTIVES = ("Meanwhile", "Besides", "Today", "Remember", "Happily")


def letter_cases(rng: random.Random) -> list[dict]:
    out = []
    for i, e in enumerate(rng.sample(EVENTS, 5)):
        hard = i < 3
        n_paras = 3 if hard else 2
        extras = rng.sample(e["extras"], 2 * n_paras - 2)
        opener = rng.choice(CONNECTIVES)
        paras = [[e["open"], e["detail"]]]
        for k in range(1, n_paras):
            first, second = extras[2 * k - 2], extras[2 * k - 1]
            paras.append([f"{opener}, {_lower_first(first)}" if k == 1 else first, second])
        close = rng.choice(e["closes"])
        ps = f"P.S. {close}"
        reference = "\n\n".join(" ".join(p) for p in paras) + f"\n\n{ps}"
        n_sentences = len(sentences(reference))
        assert n_sentences == 2 * n_paras + 1 and len(paragraphs(reference)) == n_paras + 1
        n_words = len(words(reference))
        low, high = n_words - rng.randint(3, 8), n_words + rng.randint(3, 8)
        banned = (["and"] if hard else []) + rng.sample(BANNABLE[2:], 2)
        rules = [f"Write {n_paras} paragraphs of exactly two sentences each, separated by blank lines.",
                 f"The second paragraph begins with the word \"{opener}\".",
                 f"After the last paragraph, add a blank line and a one-sentence postscript starting with "
                 f"\"P.S.\", as the very last line.",
                 f"Mention {e['name']}, {e['date']}, {e['place']} and the number {e['number']}.",
                 f"Between {low} and {high} words in all, the postscript included (a number counts as a word).",
                 f"Do not use the words {_quoted(banned)}.",
                 "No greeting line, no signature, no title: only the paragraphs and the postscript."]
        prompt = (f"Write a letter to your neighbours inviting them to this event ({_facts(e)}). Follow every "
                  f"rule below.\n{_rules(rules)}\n")
        constraints = [
            {"kind": "paragraph_count", "min": n_paras + 1, "max": n_paras + 1},
            {"kind": "paragraph_sentences", "min": 2, "max": 2, "paragraphs": list(range(1, n_paras + 1))},
            {"kind": "sentence_count", "min": n_sentences, "max": n_sentences},
            {"kind": "paragraph_starts", "paragraph": 2, "word": opener},
            {"kind": "line_matches", "line": -1, "pattern": r"P\.S\. [^\n]+"},
            {"kind": "required_words", "words": [e["name"], e["date"], e["place"], e["number"]]},
            {"kind": "word_count", "min": low, "max": high},
            {"kind": "forbidden_words", "words": banned},
            {"kind": "no_preamble"},
        ]
        other = EVENTS[(EVENTS.index(e) + 1) % len(EVENTS)]
        off = "\n\n".join([f"{other['open']} {other['detail']}",
                           f"{opener}, {_lower_first(other['extras'][0])} {other['extras'][1]}",
                           *([f"{other['extras'][2]} {other['extras'][3]}"] if hard else [])]) + f"\n\n{ps}"
        wrong = [
            off,
            f"Dear neighbours,\n\n{reference}",
            reference.replace(f"{opener}, ", "", 1),
            reference.replace(f"\n\n{ps}", f" {ps}"),
            reference + f"\n\nOr, in short: {e['open']}",
            "\n\n".join(" ".join(p) for p in paras),
        ]
        notes = (f"{len(constraints)} constraints on a {n_paras}-paragraph letter: exact paragraph and sentence "
                 f"counts, a given first word for paragraph 2 (\"{opener}\"), a P.S. as the last line, four facts, "
                 f"a {high - low}-word window and banned words"
                 + (" including \"and\"" if hard else "")
                 + "; models add a greeting or a signature, or merge the P.S. into the last paragraph.")
        out.append(_case(f"IN-letter-{i + 1:02d}", "IN-letter", _binding(constraints, 2 if hard else 1, loose=0 if hard else 1),
                         f"Letter about the {e['event']} in {n_paras} paragraphs and a P.S.", prompt, constraints,
                         reference, wrong, notes))
    return out


# ---------------------------------------------------------------- ranked

RANKED = (
    {"what": "ferry crossings", "unit": "min", "quantity": "crossing time in minutes", "short": "crossing time",
     "more": "longer than",
     "names": ("Skarra Sound", "Holm Beg", "Mewstone", "Caldey Reach", "Inchmarra", "Port Tavy", "Sula Rock",
               "Garvel", "Ronsay", "Eilan Dubh"), "range": (20, 140)},
    {"what": "hill summits", "unit": "m", "quantity": "height in metres", "short": "height", "more": "greater than",
     "names": ("Crag Vennor", "Blea Tor", "Harran Fell", "Scarth Knott", "Glas Mheall", "Brantwood Pike",
               "High Yarrow", "Cold Pike", "Stenner Law", "Mallow Top"), "range": (300, 990)},
    {"what": "market stalls", "unit": "GBP", "quantity": "takings on Saturday in pounds", "short": "takings",
     "more": "more than",
     "names": ("Pie Corner", "Hollybush Eggs", "Tanner Cheese", "Oak Loaf", "Brindle Honey", "Greenbank Veg",
               "Fisher Smokehouse", "Plum Tree Jams", "Mill Lane Flowers", "Kettle Teas"), "range": (80, 760)},
    {"what": "bird species", "unit": "birds", "quantity": "count in the winter survey", "short": "count",
     "more": "more than",
     "names": ("Redshank", "Turnstone", "Dunlin", "Curlew", "Knot", "Golden Plover", "Bar-tailed Godwit",
               "Sanderling", "Grey Heron", "Little Egret"), "range": (12, 400)},
    {"what": "library branches", "unit": "loans", "quantity": "loans in March", "short": "number of loans",
     "more": "more than",
     "names": ("Eastgate", "Wharfside", "Hillcrest", "Old Market", "Birch Lane", "Canal Basin", "Northfield",
               "Priory", "Station Road", "Cherry Walk"), "range": (150, 2400)},
)


def ranked_cases(rng: random.Random) -> list[dict]:
    out = []
    for i, d in enumerate(rng.sample(RANKED, 5)):
        hard = i < 4
        n = rng.randint(8, 10) if hard else 6
        names = rng.sample(d["names"], n)
        values = rng.sample(range(*d["range"]), n)
        items = dict(zip(names, values))
        ordered_values = sorted(values, reverse=True)
        # the threshold equals one item's value: "more than" leaves that item out (a boundary trap)
        threshold = ordered_values[rng.randint(3, n - 3)] if hard else ordered_values[3] - 1
        kept = sorted((v, k) for k, v in items.items() if v > threshold)
        kept.reverse()
        # a second derivation by selection, independent of the sort above
        check, pool = [], {k: v for k, v in items.items() if v > threshold}
        while pool:
            best = max(pool, key=pool.get)
            check.append((pool.pop(best), best))
        assert check == kept
        lines = [f"{r + 1}) {name.upper()} - {value} {d['unit']}" for r, (value, name) in enumerate(kept)]
        lines.append(f"Count: {len(kept)}")
        listing = "; ".join(f"{k} {v} {d['unit']}" for k, v in items.items())
        prompt = (f"Here are {n} {d['what']} with their {d['quantity']}: {listing}.\n\n"
                  f"List only the {d['what']} whose {d['short']} is {d['more']} {threshold} {d['unit']}, from "
                  f"the largest value to the smallest, one per line, in exactly this form: "
                  f"`1) NAME - VALUE {d['unit']}`, that is the rank, a closing parenthesis, the name in capital "
                  f"letters, a space, a hyphen, a space, the number and the unit. After the list write one more "
                  f"line, `Count: K`, where K is how many you listed. Write nothing else: no heading, no "
                  f"explanation.\n")
        constraints = [{"kind": "lines_equal", "lines": lines}, {"kind": "no_preamble"}]
        every = sorted(((v, k) for k, v in items.items()), reverse=True)
        boundary = [(v, k) for v, k in every if v >= threshold]
        wrong = [
            f"The {d['what']} range from {min(values)} to {max(values)} {d['unit']}; {names[0]} is one of them.",
            "\n".join([*(f"{r + 1}) {k.upper()} - {v} {d['unit']}" for r, (v, k) in enumerate(every)),
                      f"Count: {n}"]),
            "\n".join([*(f"{r + 1}) {k.upper()} - {v} {d['unit']}" for r, (v, k) in enumerate(reversed(kept))),
                      f"Count: {len(kept)}"]),
            "\n".join([*(f"{r + 1}) {k} - {v} {d['unit']}" for r, (v, k) in enumerate(kept)),
                      f"Count: {len(kept)}"]),
            "\n".join(lines[:-1] + [f"Count: {len(kept)} (or {len(boundary)} if the limit counts)"]),
            "```\n" + "\n".join(lines) + "\n```\nThe list above is sorted by value.",
        ]
        if hard:  # the boundary item let in
            wrong.append("\n".join([*(f"{r + 1}) {k.upper()} - {v} {d['unit']}" for r, (v, k) in enumerate(boundary)),
                                    f"Count: {len(boundary)}"]))
        notes = (f"Filter {n} items by a threshold that equals one item's value (\"{d['more']}\" excludes it), "
                 "sort the rest descending, rename to capitals and rank them in an exact line format, then "
                 "count: five steps where one slip (the boundary item, the order, the case, the count) "
                 "fails the case." if hard else
                 "Filter, sort, rename and count six items into an exact line format.")
        out.append(_case(f"IN-ranked-{i + 1:02d}", "IN-ranked", (5, 1, 2 if hard else 1),
                         f"Ranked list of {d['what']} above a threshold", prompt, constraints, "\n".join(lines),
                         wrong, notes))
    return out


# ---------------------------------------------------------------- template

TEMPLATES = (
    {"purpose": "confirming a place on a pottery workshop", "facts": ("clay", "apron"),
     "fact_rule": 'say that clay is included and that an apron is needed',
     "paras": ("Hello [recipient_name],",
               "Thank you for booking a place on our pottery workshop on [date] at [start_time]. All clay is "
               "included; please bring an apron, as glazes can splash.",
               "Our studio is at [studio_address]. If you cannot come, reply before [cancel_by] for a refund.",
               "Kind regards,\n[sender_name]")},
    {"purpose": "reminding a tenant about a rent review", "facts": ("review", "notice"),
     "fact_rule": 'use the words "review" and "notice"',
     "paras": ("Hello [recipient_name],",
               "This is a reminder that your annual rent review takes place on [date]. Your new monthly rent "
               "will be [new_rent], starting from [start_date].",
               "As agreed in your lease, this letter serves as two months' notice. Please call [phone_number] "
               "with any questions.",
               "Kind regards,\n[sender_name]")},
    {"purpose": "welcoming a new member to a rowing club", "facts": ("boathouse", "induction"),
     "fact_rule": 'mention the boathouse and the induction session',
     "paras": ("Hello [recipient_name],",
               "Welcome to [club_name]! Your induction session is on [date] at our boathouse by the river.",
               "Please wear clothes you can move in and bring a water bottle. Your coach, [coach_name], will "
               "meet you at the door.",
               "Kind regards,\n[sender_name]")},
    {"purpose": "asking a supplier to a product tasting", "facts": ("tasting", "samples"),
     "fact_rule": 'use the words "tasting" and "samples"',
     "paras": ("Hello [recipient_name],",
               "We would like to invite [company_name] to a tasting of our new range on [date]. We would be "
               "glad if you could bring samples of your latest teas.",
               "The tasting starts at [start_time] and lasts about an hour.",
               "Kind regards,\n[sender_name]")},
)


def template_cases(rng: random.Random) -> list[dict]:
    out = []
    for i, t in enumerate(rng.sample(TEMPLATES, 4)):
        hard = i == 0
        reference = "\n\n".join(t["paras"])
        slots = re.findall(r"\[([a-z_]+)\]", reference)
        n_paras = len(paragraphs(reference))
        n_words = len(words(reference))
        cap = n_words + rng.randint(0, 3) if hard else n_words + rng.randint(10, 25)
        required_slots = ["recipient_name", "date", "sender_name"]
        rules = [f"Use exactly {len(slots)} placeholders in square brackets (such as [date]), "
                 f"including {', '.join(f'[{s}]' for s in required_slots)}; no other square brackets.",
                 "Start with the line \"Hello [recipient_name],\" on its own.",
                 f"Exactly {n_paras} paragraphs separated by blank lines, the greeting and the sign-off "
                 "counting as one paragraph each.",
                 "End with the line \"Kind regards,\" followed by a last line \"[sender_name]\".",
                 f"At most {cap} words in all (a placeholder counts as one word).",
                 f"In the body, {t['fact_rule']}.",
                 "Output only the template."]
        prompt = f"Write a reusable email template for {t['purpose']}. Follow every rule below.\n{_rules(rules)}\n"
        constraints = [
            {"kind": "placeholders", "min": len(slots), "max": len(slots), "names": required_slots},
            {"kind": "line_matches", "line": 1, "pattern": r"Hello \[recipient_name\],"},
            {"kind": "paragraph_count", "min": n_paras, "max": n_paras},
            {"kind": "line_matches", "line": -2, "pattern": "Kind regards,"},
            {"kind": "line_matches", "line": -1, "pattern": r"\[sender_name\]"},
            {"kind": "word_count", "max": cap},
            {"kind": "required_words", "words": list(t["facts"])},
            {"kind": "no_preamble"},
        ]
        other = TEMPLATES[(TEMPLATES.index(t) + 1) % len(TEMPLATES)]
        wrong = [
            "\n\n".join(other["paras"]),
            reference.replace("[date]", "Friday 3 May", 1),
            reference.replace("Kind regards,\n[sender_name]", "Kind regards,\n[sender_name]\n[sender_title]"),
            reference.replace("Hello [recipient_name],\n\n", "Hello [recipient_name], "),
            reference.replace("\n\nKind regards,", "\n\nKind regards, or Best wishes,"),
            "Subject: [subject]\n\n" + reference,
        ]
        notes = (f"Exactly {len(slots)} bracketed placeholders with three named ones, {n_paras} paragraphs, a fixed "
                 f"greeting and two-line sign-off, required words and a word cap"
                 + (f" only {cap - n_words} above a natural template" if hard else "")
                 + "; models add a subject line or an extra placeholder such as [sender_title].")
        out.append(_case(f"IN-template-{i + 1:02d}", "IN-template", _binding(constraints, 2 if hard else 1, loose=0 if hard else 1),
                         f"Email template: {t['purpose']}", prompt, constraints, reference, wrong, notes))
    return out


FAMILIES = (memo_cases, tips_cases, json_cases, acrostic_cases, lipogram_cases, letter_cases, ranked_cases,
            template_cases)


def cases(seed):
    out = []
    for k, family in enumerate(FAMILIES):
        out += family(random.Random(f"{seed}/{family.__name__}"))
    return out
