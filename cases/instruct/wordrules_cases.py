"""IN-wordrules: rewrite a line of words under prioritised rules (only the first matching rule applies to a
word) and, in the hard siblings, a running count: a word no rule matches becomes the number of earlier words
that a rule matched. Compared exactly.

Many words match two or three rules, so the priority decides them; the running count makes the line a chain
(every unmatched word depends on all the decisions before it). The traps, each stored: stacking every
matching rule, the last matching rule instead of the first, and the count taken over all earlier words.
`verify.solver` parses the rules' wording from the prompt and applies them with its own predicates.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-wordrules"
REFUSAL = "I'm sorry, but I can't help with that request."
WORDS = ("anchor", "bell", "cliff", "dune", "eel", "ferry", "gull", "harbour", "inlet", "jetty", "keel", "lamp",
         "mast", "net", "oar", "pier", "quay", "reef", "sail", "tide", "usher", "vessel", "wake", "yarn", "ash",
         "oak", "sea", "kelp", "moss", "otter", "buoys", "docks", "eddy", "ebb", "fog", "isles", "rocks", "sand",
         "skiff", "wharf", "egg", "ill", "inn", "ice", "bass", "kiss", "loss", "keeps", "tools", "upper", "ark")
VOWELS = "aeiou"
RULES = {
    "short": ("it has at most 3 letters", "write it in capital letters",
              lambda w: len(w) <= 3, str.upper),
    "vowel": ("it starts with a vowel (a, e, i, o or u)", "move its first letter to the end",
              lambda w: w[:1].lower() in VOWELS, lambda w: w[1:] + w[0]),
    "ends_s": ("it ends with the letter s", "reverse it",
               lambda w: w.lower().endswith("s"), lambda w: w[::-1]),
    "double": ("it contains a doubled letter (such as ll or ee)", "put it in square brackets",
               lambda w: any(a == b for a, b in zip(w.lower(), w.lower()[1:])), lambda w: f"[{w}]"),
    "has_k": ("it contains the letter k", "replace each of its vowels with =",
              lambda w: "k" in w.lower(), lambda w: "".join("=" if c.lower() in VOWELS else c for c in w)),
}
# (words, rules, running count)
SHAPES = ((10, 3, False), (16, 4, True), (18, 4, True), (22, 5, True))


def _apply(words: list[str], rules: list[str], mode: str = "right", count: bool = True) -> list[str]:
    out, matched = [], 0
    for seen, w in enumerate(words):
        hits = [r for r in rules if RULES[r][2](w)]
        if hits:
            if mode == "stack":
                for r in hits:
                    w = RULES[r][3](w)
            else:
                w = RULES[hits[-1 if mode == "last" else 0]][3](w)
            out.append(w)
            matched += 1
        else:
            out.append(str(seen if mode == "all_words" else matched) if count else w)
    return out


SOLVER = r'''
import re
PROMPT = __PROMPT__
line = re.search(r"^Words: (.+)$", PROMPT, re.M).group(1).split()
rules = re.findall(r"^R\d+\. If (.+?), (.+)\.$", PROMPT, re.M)
counting = "the number of earlier words" in PROMPT
def test(cond, w):
    if "at most 3 letters" in cond: return len(w) <= 3
    if "starts with a vowel" in cond: return w[0] in "aeiouAEIOU"
    if "ends with the letter s" in cond: return w[-1] in "sS"
    if "doubled letter" in cond: return re.search(r"(.)\1", w.lower()) is not None
    if "letter k" in cond: return "k" in w.lower()
    raise SystemExit("unknown rule " + cond)
def act(action, w):
    if "capital" in action: return w.upper()
    if "first letter to the end" in action: return w[1:] + w[:1]
    if "reverse" in action: return "".join(reversed(w))
    if "square brackets" in action: return "[" + w + "]"
    if "vowels with =" in action: return re.sub("[aeiouAEIOU]", "=", w)
    raise SystemExit("unknown action " + action)
out, hits = [], 0
for w in line:
    rule = next((r for r in rules if test(r[0], w)), None)
    if rule:
        out.append(act(rule[1], w))
        hits += 1
    else:
        out.append(str(hits) if counting else w)
print(" ".join(out))
'''


def _case(index: int, rng: random.Random, n: int, n_rules: int, count: bool) -> dict:
    for _ in range(2000):
        rules = rng.sample(sorted(RULES), n_rules)
        words = [rng.choice(WORDS) for _ in range(n)]
        final = _apply(words, rules, count=count)
        conflicts = sum(sum(RULES[r][2](w) for r in rules) >= 2 for w in words)
        unmatched = sum(not any(RULES[r][2](w) for r in rules) for w in words)
        traps = {m: _apply(words, rules, m, count) for m in ("stack", "last", *(("all_words",) if count else ()))}
        if conflicts >= n // 4 and unmatched >= (n // 4 if count else 1) and all(t != final for t in traps.values()):
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw")
    listing = "\n".join(f"R{k + 1}. If {RULES[r][0]}, {RULES[r][1]}." for k, r in enumerate(rules))
    rest = ("A word that no rule matches is replaced by the number of earlier words in the line that some rule "
            "matched (in digits: 0 if none)." if count else "A word that no rule matches stays as it is.")
    prompt = (f"Words: {' '.join(words)}\n\nRewrite the line of words above, word by word, with these rules:\n"
              f"{listing}\n\nOnly the first rule in the list that matches a word is applied to it (the rules are "
              f"tested on the original word, and a word is never changed twice). {rest} Keep the words in order, "
              "separated by single spaces. Output only the rewritten line, nothing else.\n")
    constraints = [{"kind": "lines_equal", "lines": [" ".join(final)]}, {"kind": "no_preamble"}]
    wrong = [REFUSAL, *(" ".join(t) for t in traps.values()), " ".join(words), " ".join(final[:-1]),
             "Words: " + " ".join(final)]
    wrong = [w for w in dict.fromkeys(wrong) if w != " ".join(final)]
    hardness = {"steps": n if count else n_rules, "search": 1, "traps": len(traps)}
    notes = (f"{n} words under {n_rules} prioritised rules; {conflicts} words match two or more rules, so the "
             "first-match priority decides them" + (f"; {unmatched} unmatched words each become the running count "
                                                    "of matched words before them, a chain through the whole line"
                                                    if count else "")
             + ". Stored traps: every matching rule stacked, the last match applied"
             + (", the count over all earlier words." if count else "."))
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"{n} words under {n_rules} prioritised rules" + (" and a running count" if count else ""),
            "prompt": prompt, "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 16384,
            "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "`" + " ".join(final) + "`", "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
