"""Corpus entries for prose: the contains grader's fact checks (IN03, the one built-in summary it grades) and the
judge's programmatic screen (every judged case)."""

from __future__ import annotations

import itertools
import re

from grading_corpus import REFUSALS, Reply, prompt_of, typographic

from pytest_crucible.grading.extract import clean_answer

# IN03's facts, and summaries that state them in other words
_FACTS = {"y1": "1911", "length": "186", "cost": "3.8 million", "y2": "2026"}
_TEMPLATES = [
    "The Varnholt Footbridge, designed by Tamsin Okoro, opened in {y1} and is {length} metres long; a {cost} "
    "euro restoration should let it reopen in {y2}.",
    "Tamsin Okoro's Varnholt Footbridge over the Esk opened to walkers in {y1}. It spans {length} metres. Closed "
    "in 2023 for corroded hangers, it is being restored at a cost of {cost} euros and is due to reopen in {y2}.",
    "- Bridge: Varnholt Footbridge, River Esk\n- Designed by: Tamsin Okoro\n- Opened: {y1}\n- Length: {length} "
    "metres\n- Restoration cost: {cost} euros\n- Reopens: {y2}",
]
_RIGHT = [t.format(**_FACTS) for t in _TEMPLATES] + [
    "Designed by engineer Tamsin Okoro, the Varnholt Footbridge first carried pedestrians in 1911 and runs 186 m. "
    "After corrosion closed it in 2023, a restoration costing 3.8 million euros is under way, with a reopening "
    "planned for 2026.",
    "Varnholt Footbridge (engineer: Tamsin Okoro) opened in 1911; its wrought-iron deck is 186 metres long. The "
    "restoration costs 3.8 million euros, and it should reopen in 2026.",
]
_DRESS = [
    ("bare", "{}"), ("preamble", "Sure! Here is the summary:\n\n{}"), ("sign-off", "{}\n\nHope this helps!"),
    ("bold name", None), ("reasoning first", "<think>Six facts, at most 60 words.</think>{}"),
    ("typographic", None), ("heading", "**Summary**\n\n{}"), ("quoted", "> {}"),
]


def _dress(text: str, how: str, form: str | None) -> str:
    if how == "bold name":
        return text.replace("Varnholt Footbridge", "**Varnholt Footbridge**")
    if how == "typographic":
        return typographic(text).replace("Okoro's", "Okoro\u2019s")
    return form.format(text)


def contains(cases) -> list[Reply]:
    case = next(c for c in cases if c.grader.get("type") == "contains")
    out = [Reply("contains", case, f"paraphrase {i}, {how}", _dress(text, how, form), True)
           for i, text in enumerate(_RIGHT) for how, form in _DRESS]
    wrong: dict[str, str] = {}
    for a, b in itertools.combinations(_FACTS, 2):
        swapped = {**_FACTS, a: _FACTS[b], b: _FACTS[a]}
        for n, template in enumerate(_TEMPLATES):
            wrong[f"swapped {a} and {b} ({n})"] = template.format(**swapped)
    wrong["designer and name swapped"] = _RIGHT[0].replace("Varnholt", "X").replace("Okoro", "Varnholt") \
        .replace("X", "Okoro")
    for n, soup in enumerate(["Varnholt, Okoro, 1911, 186, 3.8 million, 2026.",
                              "Varnholt Footbridge: Okoro; 1911; 186; 3.8 million; 2026.",
                              "Keywords: Varnholt Footbridge, Tamsin Okoro, 1911, 186 metres, 3.8 million euros, "
                              "2026."]):
        wrong[f"keyword soup {n}"] = soup
    for fact, year in (("y1", "1912"), ("y2", "2027"), ("length", "168")):
        wrong[f"hedge on {fact}"] = _TEMPLATES[0].format(**{**_FACTS, fact: f"{_FACTS[fact]} or {year}"})
        wrong[f"correction of {fact}"] = f"{_RIGHT[0]}\n\nCorrection: it is {year}, not {_FACTS[fact]}."
    wrong["admission"] = f"{_RIGHT[2]}\n\nI made an error in the summary above."
    wrong["two versions"] = f"Version one: {_RIGHT[0]}\n\nVersion two: {_RIGHT[3]}"
    for fact in _FACTS:
        wrong[f"missing {fact}"] = _TEMPLATES[1].format(**{**_FACTS, fact: "an unknown"})
    wrong["over the limit"] = f"{_RIGHT[1]} {_RIGHT[2]}"
    wrong["correction naming a new cost"] = f"{_RIGHT[1]}\n\nActually, the restoration costs 4.2 million euros."
    wrong["parrot"] = prompt_of(case)
    for n, refusal in enumerate(REFUSALS):
        wrong[f"refusal {n}"] = refusal
    out += [Reply("contains", case, label, text, False) for label, text in wrong.items()]
    return out


def screen(cases) -> list[Reply]:
    """Right answers (the reference and its paraphrases, dressed) must pass the judge's screen, and what is
    certainly wrong must fail it."""
    judged = [c for c in cases if c.grader.get("type") == "judge"]
    out = []
    dress = [("bold", "**{}**"), ("preamble", "Sure, here is the answer.\n\n{}"),
             ("sign-off", "{}\n\nHope this helps."),
             ("heading and bullet", "## Answer\n\n- {}"), ("reasoning first", "<think>Let me think.</think>{}"),
             ("typographic", None)]
    for i, case in enumerate(judged):
        right = [case.verify["reference"], *case.verify["accepted"]]
        for n, (how, form) in enumerate(dress):
            text = right[n % len(right)]
            out.append(Reply("judge-screen", case, f"{how} (answer {n % len(right)})",
                             typographic(text) if form is None else form.format(text), True))
        other = judged[(i + len(judged) // 2) % len(judged)]  # another kind of question
        limit = case.grader.get("max_words")
        wrong = {"refusal": REFUSALS[i % len(REFUSALS)], "parrot": prompt_of(case),
                 "another question's answer (off-task)": other.verify["reference"],
                 "yes and no": "Yes. No. It depends.",
                 "hedged opening": "It could be that " + re.sub(r"[.:;!?]", "", " ".join(clean_answer(right[0])
                                                                                          .split()[:8]))
                                   + ", or it could be something else entirely.",
                 "spray": "yes no true false maybe none A B C D E 0 1"}
        if limit:
            wrong["over the word limit"] = " ".join([clean_answer(right[0])] * 3)
        forbidden = case.grader.get("forbidden")
        if forbidden:
            wrong["asserts the forbidden"] = f"{right[0]} Or perhaps {forbidden[0]}."
        out += [Reply("judge-screen", case, label, text, False) for label, text in wrong.items()]
    return out


__all__ = ["contains", "screen"]
