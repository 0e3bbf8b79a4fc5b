"""IN-ladder: a numbered list whose item k has exactly k words (or, in one sibling, the ladder runs down), with
two common words banned and the topic checked; each item's word count is its own constraint.

A list of growing length is a count that changes on every line: the model must hold a different target for
each item and count its own words (the number is not a word), which tokenised models do badly past six or
seven. The traps, each stored: the item number counted as a word (every item one word short), one item one
word off, a title line above the list, bullets instead of numbers. The reference is a ladder written for this
suite, checked by the same constraints.
"""

from __future__ import annotations

import random
import re

from pytest_crucible.grading.extract import words
from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-ladder"
REFUSAL = "I'm sorry, but I can't help with that request."
# item k of each ladder has k words, none of them "the" or "and"
LADDERS = {
    "the sea shore": (
        "Waves.", "Gulls circle.", "Boats rock gently.", "Salt stings my lips.", "Fishermen haul nets onto decks.",
        "A lighthouse beam sweeps across water.", "Crabs scuttle sideways under rocks at dawn.",
        "Foam gathers on pebbles as each tide turns.", "Children build castles from wet sand near rock pools.",
        "Sailors mend torn canvas while storm clouds gather over harbour."),
    "a city morning": (
        "Sunrise.", "Buses rumble.", "Bakers open shutters.", "Commuters hurry past cafés.",
        "Pigeons gather near fountain steps.", "Street sweepers finish their early rounds.",
        "Office windows glow as daylight slowly spreads.", "Cyclists weave between taxis on crowded avenues downtown.",
        "A newsstand owner stacks fresh papers beside his kiosk.",
        "Joggers loop around parks while sprinklers hiss across lawns nearby."),
    "a mountain hike": (
        "Climb.", "Boots crunch.", "Pine needles whisper.", "Marmots whistle from boulders.",
        "Breath clouds in cold air.", "A narrow trail zigzags up scree.", "Eagles circle high above a blue glacier.",
        "Hikers pause at a cairn to share tea.", "Snowfields glitter under noon sun as we cross slowly.",
        "From summit rocks we see valleys, lakes, forests, rivers below."),
}
TOPIC_WORDS = {"the sea shore": ("waves", "gulls", "boats", "salt", "tide", "sand", "nets", "harbour", "sea", "shore",
                                 "crabs", "foam", "water", "pebbles", "beach", "rocks", "sailors", "lighthouse"),
               "a city morning": ("buses", "bakers", "commuters", "cafés", "pigeons", "street", "office", "taxis",
                                  "cyclists", "city", "traffic", "avenues", "kiosk", "sunrise", "morning", "parks"),
               "a mountain hike": ("boots", "pine", "trail", "summit", "climb", "hikers", "glacier", "scree",
                                   "eagles", "snow", "snowfields", "valleys", "peak", "ridge", "mountain", "cairn")}
BANNED = ["the", "and"]
# (items, descending)
SHAPES = ((5, False), (8, False), (10, True))


def _item_pattern(k: int, size: int) -> str:
    return rf"\*{{0,2}}{k}[.)]\*{{0,2}} \S+(?: \S+){{{size - 1}}}"


def _case(index: int, rng: random.Random, topic: str, n: int, down: bool) -> dict:
    pool = LADDERS[topic]
    sizes = [n + 1 - k for k in range(1, n + 1)] if down else list(range(1, n + 1))
    items = [pool[s - 1] for s in sizes]
    assert all(len(words(it)) == s and not re.search(r"\b(the|and)\b", it, re.I) for it, s in zip(items, sizes))
    reference = "\n".join(f"{k}. {it}" for k, it in enumerate(items, 1))
    shape = (f"item 1 has exactly {n} words, item 2 has {n - 1}, and so on down to item {n} with exactly 1 word"
             if down else
             f"item 1 has exactly 1 word, item 2 has exactly 2 words, and so on up to item {n} with exactly {n} words")
    rules = [f"A numbered list of exactly {n} items, numbered 1. to {n}., one item per line, no title line.",
             f"Item by item: {shape}. A word is anything between spaces; the item number is not a word.",
             'Do not use the words "the" or "and" anywhere.',
             "Keep to the topic."]
    prompt = f"Write a list about {topic}. Follow every rule below.\n" + "\n".join(f"- {r}" for r in rules) + "\n"
    constraints = [
        {"kind": "numbered_list", "min": n, "max": n, "sequential": True},
        {"kind": "line_count", "min": n, "max": n},
        *({"kind": "line_matches", "line": k, "pattern": _item_pattern(k, s)} for k, s in enumerate(sizes, 1)),
        {"kind": "forbidden_words", "words": BANNED},
        {"kind": "any_words", "words": list(TOPIC_WORDS[topic]), "min": 3},
    ]
    short = "\n".join(f"{k}. {' '.join(it.split()[:-1]) or it}" for k, it in enumerate(items, 1))
    long_at = max(range(n), key=lambda k: sizes[k])
    one_off = items[:]
    one_off[long_at] = one_off[long_at].replace(" ", " the ", 1)
    other = next(t for t in LADDERS if t != topic)
    wrong = [REFUSAL,
             short,
             "\n".join(f"{k}. {it}" for k, it in enumerate(one_off, 1)),
             f"{topic.title()}\n{reference}",
             "\n".join(f"- {it}" for it in items),
             "\n".join(f"{k}. {LADDERS[other][s - 1]}" for k, s in enumerate(sizes, 1)),
             reference + "\n\nOr, counting the numbers as words:\n" + short]
    hardness = {"steps": n, "search": 1, "traps": 3}
    notes = (f"{n} items whose word counts {'fall from ' + str(n) + ' to 1' if down else 'rise from 1 to ' + str(n)}: "
             "every item is a separate exact count, checked on its own line, with \"the\" and \"and\" banned (the "
             "words that pad a line to length). Models count the item number as a word, miscount the long items "
             "(7 to 10 words), or add a title. Stored traps: every item one word short, the longest item one word "
             "long, a title line.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"Word ladder of {n} items about {topic}", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 8192, "notes": notes,
            "verify": {"reference": "Here is my list:\n\n" + reference.replace("1. ", "**1.** ", 1),
                       "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    topics = rng.sample(sorted(LADDERS), 3)
    return [_case(i, rng, topics[i - 1], *shape) for i, shape in enumerate(SHAPES, 1)]
