"""IN-initials: a short text under interacting constraints, each checked: exactly N sentences whose first
letters spell a given string, a word window for every sentence and for the whole, a banned letter, and
keywords that must appear in a given order.

The constraints pull against each other: the initials fix how each sentence starts, the banned letter rules
out common words (and many openers), the per-sentence window forbids padding, and the keyword order fixes
which sentence carries which word. The reference is a draw of sentences written for this suite; every
constraint is derived from it, so it meets all of them by construction (and verify grades it).
"""

from __future__ import annotations

import random

from pytest_crucible.grading.extract import sentences, words
from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-initials"
REFUSAL = "I'm sorry, but I can't help with that request."
TOPICS = {
    "a walk along a sea wall at dusk": (
        "Gulls circle above the harbour as the light fades.",
        "Boats knock gently against the stone quay.",
        "Salt hangs in the cool evening air.",
        "Every window in the old town starts to glow.",
        "Nets lie drying on the slipway below us.",
        "A ferry horn sounds once out past the point.",
        "Tide pools shine like small silver mirrors.",
        "Our footsteps echo on the wet stones.",
        "Lanterns flicker into life along the promenade.",
        "Rain clouds gather low over the distant island.",
        "Wind tugs at coats and scarves alike.",
        "Herons stand still in the shallow water.",
        "Fishermen unload their last crates of the day.",
        "Down on the sand a dog chases the foam.",
        "In the café a kettle whistles for tea.",
        "Mist rolls slowly in from the open sea.",
    ),
    "a morning in a mountain village": (
        "Smoke curls from chimneys along the valley road.",
        "A bell rings twice from the chapel tower.",
        "Goats pick their way across the rocky slope.",
        "Early light turns the snowy peaks pink.",
        "Bread is cooling on the bakery sill.",
        "Two hikers lace their boots by the fountain.",
        "Frost still clings to the shaded meadow.",
        "Old men sip coffee outside the inn.",
        "Pine trees sway in a light breeze.",
        "Milk churns clatter on the dairy cart.",
        "Ravens call from the cliffs above the pass.",
        "Under the bridge the stream runs clear and cold.",
        "Children walk to school in bright wool hats.",
        "Wooden shutters open one by one.",
        "Nobody hurries on the steep cobbled lane.",
        "High on the ridge a shepherd whistles.",
    ),
}
BANNABLE = "cmwfgypbvk"  # banned only when the draw avoids it, and never a rare letter like q or z
# (sentences, keywords)
SHAPES = ((4, 2), (5, 3), (6, 3), (8, 4))


def _draw(rng: random.Random, pool: tuple[str, ...], n: int) -> tuple[list[str], str]:
    """Of 300 draws, the one that lets the commonest letter be banned."""
    best: tuple[int, list[str], str] | None = None
    for _ in range(300):
        chosen = rng.sample(pool, n)
        text = " ".join(chosen).lower()
        absent = [c for c in BANNABLE if c not in text]
        if absent and (best is None or BANNABLE.index(absent[0]) < best[0]):
            best = (BANNABLE.index(absent[0]), chosen, absent[0])
    if best is None:
        raise ValueError(f"{FAMILY}: no draw avoids a bannable letter")
    return best[1], best[2]


def _keywords(rng: random.Random, chosen: list[str], k: int) -> list[str]:
    picks = sorted(rng.sample(range(len(chosen)), k))
    out: list[str] = []
    for i in picks:
        options = [w.strip(".,").lower() for w in chosen[i].split()[1:] if len(w.strip(".,")) >= 5]
        options = [w for w in options if w not in out and not any(w in s.lower() for s in chosen[:i])]
        out.append(rng.choice(options) if options else chosen[i].split()[-1].strip(".").lower())
    return out


def _case(index: int, rng: random.Random, topic: str, n: int, k: int) -> dict:
    chosen, banned = _draw(rng, TOPICS[topic], n)
    reference = " ".join(chosen)
    initials = "".join(s[0].upper() for s in chosen)
    keys = _keywords(rng, chosen, k)
    lengths = [len(words(s)) for s in chosen]
    low, high = min(lengths) - 1, max(lengths) + 1
    total = sum(lengths)
    t_low, t_high = total - rng.randint(2, 4), total + rng.randint(2, 4)
    assert len(sentences(reference)) == n
    rules = [f"Exactly {n} sentences, as one paragraph.",
             f"The first letters of the sentences, in order, spell {initials}.",
             f"Every sentence has between {low} and {high} words.",
             f"Between {t_low} and {t_high} words in total.",
             f"Do not use the letter \"{banned}\" anywhere, in any case.",
             "Use the words " + ", ".join(f'"{w}"' for w in keys) + ", each first appearing "
             "in this order.",
             "Output only the text: no title, no notes."]
    prompt = f"Write a short description of {topic}. Follow every rule below.\n" + "\n".join(
        f"- {r}" for r in rules) + "\n"
    constraints = [
        {"kind": "sentence_count", "min": n, "max": n},
        {"kind": "paragraph_count", "max": 1},
        {"kind": "sentence_initials", "text": initials},
        {"kind": "sentence_words", "min": low, "max": high},
        {"kind": "word_count", "min": t_low, "max": t_high},
        {"kind": "letter_count", "letter": banned, "max": 0},
        {"kind": "ordered_words", "words": keys},
        {"kind": "no_preamble"},
    ]
    swapped = chosen[:]
    a = next(i for i, s in enumerate(chosen) if keys[0] in s.lower())
    b = next(i for i, s in enumerate(chosen) if keys[-1] in s.lower())
    swapped[a], swapped[b] = swapped[b], swapped[a]
    other = next(t for t in TOPICS if t != topic)
    wrong = [REFUSAL,
             " ".join(swapped),  # keywords out of order, initials broken
             reference.replace(chosen[-1], chosen[-1][:-1] + f" with a {banned}ew more words here."),
             " ".join(chosen[:-1]),
             " ".join(TOPICS[other][:n]),
             f"{topic.capitalize()}:\n\n{reference}",
             reference + " Or, put another way: " + chosen[0]]
    wrong = [w for w in dict.fromkeys(wrong) if w != reference]
    hardness = {"steps": n, "search": 1, "traps": 2}
    notes = (f"{len(constraints)} constraints on {n} sentences at once: initials {initials}, {low}-{high} words "
             f"per sentence and {t_low}-{t_high} in all, no letter \"{banned}\" (which rules out common words such "
             f"as {_examples(banned)}), and {k} keywords in a fixed order across sentences. Each sentence must "
             "meet four constraints together; the traps are a banned letter slipping into a common word and the "
             "keyword order broken by a sentence that fits the initials.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"{n} sentences spelling {initials} without \"{banned}\"", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 8192, "notes": notes,
            "verify": {"reference": reference, "wrong": wrong}}


def _examples(letter: str) -> str:
    common = {"c": "\"can\", \"which\"", "m": "\"me\", \"from\"", "w": "\"was\", \"with\"", "f": "\"of\", "
              "\"for\"", "g": "\"going\", \"big\"", "y": "\"you\", \"they\"", "p": "\"up\", \"people\"",
              "b": "\"be\", \"but\"", "v": "\"have\", \"very\"", "k": "\"like\", \"know\""}
    return common[letter]


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    topics = list(TOPICS)
    return [_case(i, rng, topics[i % 2], *shape) for i, shape in enumerate(SHAPES, 1)]
