"""IN-cadence: one paragraph of exactly N sentences whose end marks follow a repeating pattern (for example
? . . ! ? . . ! ...), every sentence within a word window, on a given topic; each constraint checked.

The pattern fixes the kind of every sentence by its position (a question, a statement, an exclamation), so the
writer must track where it stands in the cycle while also counting sentences and words; the cycle and the count
rarely line up, so the last sentence's kind is not the pattern's last mark. The traps, each stored: the pattern
started one place late, every sentence a statement, one sentence too few, the paragraph split in two. The
reference is a draw of sentences written for this suite, checked by the same constraints.
"""

from __future__ import annotations

import random

from pytest_crucible.grading.extract import sentences, words
from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-cadence"
REFUSAL = "I'm sorry, but I can't help with that request."
POOLS = {
    "a night market": {
        "?": ("Have you ever tasted grilled squid at midnight?", "Which stall sells the sweetest mango sticky rice?",
              "Can anyone resist the smell of frying garlic?", "Where else do lanterns glow above so many tables?",
              "Who needs a restaurant when the street feeds everyone?", "How many skewers can one person carry?"),
        "!": ("What a crowd fills the square tonight!", "The noodle seller flips his wok like a juggler!",
              "Those lanterns make everything look golden!", "How loud the sizzling grills are!",
              "Nobody goes home hungry here!"),
        ".": ("Steam rises from a dozen copper pots.", "A grandmother folds dumplings with quick fingers.",
              "Children queue for shaved ice in paper cups.", "Music drifts from a speaker near the fountain.",
              "Traders call out prices over the noise.", "Plastic stools fill every gap between stalls.",
              "The last stalls close long after midnight.", "Cats wait patiently beneath the fish stall."),
        "topic": ("market", "stall", "stalls", "lanterns", "squid", "noodle", "dumplings", "skewers", "grills",
                  "traders", "food", "street", "garlic", "mango", "midnight", "crowd", "square", "wok", "steam",
                  "pots", "ice", "music", "prices", "fish", "tables", "seller"),
    },
    "a storm at sea": {
        "?": ("Will the little boat reach the harbour in time?", "Can you hear the wind howling through the rigging?",
              "How high can these waves really climb?", "Who is still out on the water tonight?",
              "Did anyone see the lighthouse flash just then?", "Where did all the gulls go?"),
        "!": ("What a wave just broke over the bow!", "Hold on to the rail with both hands!",
              "The whole deck is under water!", "How the thunder shakes the cabin!",
              "That lightning lit up the whole bay!"),
        ".": ("Black clouds roll in from the west.", "Rain hammers against the wheelhouse windows.",
              "The skipper turns the bow into the swell.", "Spray freezes on the ropes and railings.",
              "A distant bell buoy clangs in the dark.", "The radio crackles with warnings from shore.",
              "Sea water sloshes across the cabin floor.", "By dawn the wind finally begins to drop."),
        "topic": ("storm", "wave", "waves", "wind", "boat", "sea", "deck", "thunder", "lightning", "rain",
                  "skipper", "swell", "harbour", "rigging", "cabin", "bow", "water", "clouds", "spray", "gulls",
                  "lighthouse", "ropes", "buoy", "shore", "wheelhouse", "bay"),
    },
}
LOW, HIGH = 4, 10
# (sentences, pattern)
SHAPES = ((4, ".?"), (7, "?.!"), (10, "?..!"))


def _draw(rng: random.Random, pool: dict, marks: str, n: int) -> list[str]:
    picks = {m: rng.sample(pool[m], sum(1 for k in range(n) if marks[k % len(marks)] == m)) for m in ".?!"}
    out = [picks[marks[k % len(marks)]].pop() for k in range(n)]
    assert all(LOW <= len(words(s)) <= HIGH for s in out)
    return out


def _case(index: int, rng: random.Random, topic: str, n: int, marks: str) -> dict:
    pool = POOLS[topic]
    chosen = _draw(rng, pool, marks, n)
    reference = " ".join(chosen)
    assert len(sentences(reference)) == n
    spelled = " ".join(marks[k % len(marks)] for k in range(len(marks) + 2))
    names = {".": "a full stop", "?": "a question mark", "!": "an exclamation mark"}
    rules = [f"Exactly {n} sentences, as one paragraph.",
             "The sentences end, in turn, with " + ", ".join(names[m] for m in marks) + ", and then the same "
             f"pattern again from the start as often as needed ({spelled} ...).",
             f"Every sentence has between {LOW} and {HIGH} words.",
             "Keep to the topic."]
    prompt = (f"Write a short paragraph about {topic}. Follow every rule below.\n" + "\n".join(f"- {r}" for r in rules)
              + "\n")
    constraints = [{"kind": "sentence_count", "min": n, "max": n}, {"kind": "paragraph_count", "max": 1},
                   {"kind": "sentence_ends", "marks": marks}, {"kind": "sentence_words", "min": LOW, "max": HIGH},
                   {"kind": "any_words", "words": list(pool["topic"]), "min": 2}]
    shifted = _draw(rng, pool, marks[1:] + marks[0], n)
    flat = " ".join(s[:-1] + "." for s in chosen)
    other = next(t for t in POOLS if t != topic)
    half = n // 2
    wrong = [REFUSAL, " ".join(shifted), flat, " ".join(chosen[:-1]),
             " ".join(chosen[:half]) + "\n\n" + " ".join(chosen[half:]),
             " ".join(_draw(rng, POOLS[other], marks, n)),
             reference.replace(chosen[0], chosen[0][:-1] + " on this long and wild evening by the water"
                               + chosen[0][-1], 1),
             reference + " Or, as statements: " + flat]
    wrong = [w for w in dict.fromkeys(wrong) if w != reference]
    hardness = {"steps": n, "search": 1, "traps": 3}
    notes = (f"{n} sentences whose end marks follow the cycle {marks} (a {len(marks)}-mark pattern over {n} sentences, "
             "so the writer must track each sentence's place in the cycle), each of 4 to 10 words, in one "
             "paragraph. Stored traps: the pattern started one place late, every sentence a statement, one "
             "sentence too few.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"{n} sentences ending in the pattern {' '.join(marks)}", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 8192, "notes": notes,
            "verify": {"reference": "Here is the paragraph:\n\n" + reference, "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    topics = sorted(POOLS)
    return [_case(i, rng, topics[(i + seed) % 2], *shape) for i, shape in enumerate(SHAPES, 1)]
