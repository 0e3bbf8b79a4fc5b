"""IN-wrap: re-wrap a paragraph greedily at an exact line width in characters; compared line by line.

Greedy wrapping is a chain: where one line breaks decides what the next line starts with, so one miscounted
character moves every break after it. Models see tokens, not characters, so counting to the width is the hard
part. The traps, each stored: breaking one character too late (width + 1), one too early (width - 1), and a
fixed number of words per line. The generator wraps with textwrap; `verify.solver` reads the width and the
paragraph from the prompt and packs words by counting characters itself.
"""

from __future__ import annotations

import json
import random
import textwrap

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-wrap"
REFUSAL = "I'm sorry, but I can't help with that request."
CLAUSES = ("the ferry leaves at dawn", "nets dry on the harbour wall", "a gull argues with the wind",
           "old ropes creak against the posts", "the tide turns before noon", "lanterns glow along the quay",
           "children race the waves home", "rain drifts in from the west", "the lighthouse keeper waves",
           "boats knock softly in the swell", "a kettle sings in the cabin", "salt dries white on the deck",
           "the bell buoy rings twice", "crabs hide under the weed", "smoke rises from the smokehouse",
           "a heron waits in the shallows", "the market opens at seven", "fishermen mend their nets",
           "mist hangs over the moorings", "a dog barks at the gulls")
# (clauses, width)
SHAPES = ((4, (30, 36)), (9, (28, 34)), (11, (36, 44)), (13, (40, 48)))


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width=width, break_long_words=False, break_on_hyphens=False)


def _paragraph(rng: random.Random, n: int) -> str:
    parts = rng.sample(CLAUSES, n)
    sentences, k = [], 0
    while k < n:
        size = min(rng.randint(1, 3), n - k)
        chunk = parts[k:k + size]
        sentence = ", ".join(chunk[:-1]) + (" and " if size > 1 else "") + chunk[-1]
        sentences.append(sentence[0].upper() + sentence[1:] + ".")
        k += size
    return " ".join(sentences)


SOLVER = r'''
import re
PROMPT = __PROMPT__
width = int(re.search(r"at most (\d+) characters", PROMPT).group(1))
text = PROMPT.split("\n\n")[1]
lines, current = [], ""
for word in text.split():
    if not current:
        current = word
    elif len(current) + 1 + len(word) <= width:
        current = current + " " + word
    else:
        lines.append(current)
        current = word
lines.append(current)
print("\n".join(lines))
'''


def _case(index: int, rng: random.Random, n: int, widths: tuple[int, int]) -> dict:
    for _ in range(500):
        text = _paragraph(rng, n)
        width = rng.randint(*widths)
        final = _wrap(text, width)
        traps = {"late": _wrap(text, width + 1), "early": _wrap(text, width - 1)}
        if all(t != final for t in traps.values()) and (n < 8 or len(final) >= 8):
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw")
    per_line = max(1, round(len(text.split()) / len(final)))
    ws = text.split()
    by_words = [" ".join(ws[k:k + per_line]) for k in range(0, len(ws), per_line)]
    prompt = (f"Re-wrap this paragraph:\n\n{text}\n\nRules: every line has at most {width} characters, counting "
              "letters, spaces and punctuation; fill each line with as many words as fit before starting the "
              "next (words are never split, hyphenated or reordered, and every word, comma and full stop stays "
              "as it is); single spaces between words, none at the start or end of a line. Output only the "
              "wrapped lines, nothing else.\n")
    constraints = [{"kind": "lines_equal", "lines": final}, {"kind": "no_preamble"}]
    wrong = [REFUSAL, *("\n".join(t) for t in traps.values()), "\n".join(by_words), text,
             "\n".join(final[:-1]), "\n".join(final) + f"\n\n(Each line is at most {width} characters.)\n"
             + "\n".join(traps["late"])]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    hardness = {"steps": len(final), "search": 1, "traps": 2 + (by_words != final)}
    notes = (f"{len(text.split())} words into lines of at most {width} characters: {len(final)} breaks, each "
             "fixed by the character count of the line before, which tokenised models cannot see directly; "
             "one miscount shifts every later line. Stored traps: width + 1, width - 1, equal words per line.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"Greedy wrap at {width} characters ({len(final)} lines)", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 16384, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "```text\n" + "\n".join(final) + "\n```", "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
