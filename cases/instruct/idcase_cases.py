"""IN-idcase: identifiers in mixed naming styles converted to the style named beside each, by stated word-splitting
rules (acronym runs, digits attached to the word before them); compared exactly, one identifier per line.

The splitting rule is the whole task: `HTTPServer` is HTTP + Server, `userIDCount` is user + ID + Count,
`base64Encode` is base64 + Encode; and camelCase / PascalCase capitalise only each word's first letter, so an
acronym loses its capitals (`userId`, `HttpServer`). The traps, each stored: acronyms kept in capitals, every
capital split off (`h_t_t_p_server`), digits split into words of their own (`base_64`), and the source's own
style kept for the first word. The generator renders words it chose; `verify.solver` splits the identifiers
from the prompt with its own character scanner.
"""

from __future__ import annotations

import json
import random
import re

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-idcase"
REFUSAL = "I'm sorry, but I can't help with that request."
WORDS = ("user", "count", "server", "parser", "encode", "max", "retry", "path", "load", "file", "name", "cache",
         "token", "limit", "page", "size", "queue", "read", "write", "timeout")
ACRONYMS = ("id", "http", "xml", "url", "json", "html", "api", "sql")
DIGITS = ("base64", "utf8", "md5", "sha256", "ipv4")
STYLES = ("snake_case", "camelCase", "PascalCase", "kebab-case", "CONSTANT_CASE")
# (identifiers, with digit words)
SHAPES = ((5, False), (8, True), (11, True))


def _cap(word: str, acronym_caps: bool = False) -> str:
    return word.upper() if acronym_caps and word in ACRONYMS else word[:1].upper() + word[1:]


def render(words: list[str], style: str, acronym_caps: bool = False) -> str:
    if style == "snake_case":
        return "_".join(words)
    if style == "kebab-case":
        return "-".join(words)
    if style == "CONSTANT_CASE":
        return "_".join(w.upper() for w in words)
    head = _cap(words[0], acronym_caps) if style == "PascalCase" else words[0]
    return head + "".join(_cap(w, acronym_caps) for w in words[1:])


def _trap_split(ident: str, mode: str) -> list[str]:
    """A wrong split. mode "caps": every capital starts a word; "digits": digits are words of their own."""
    parts = re.split(r"[_-]", ident)
    out: list[str] = []
    for p in parts:
        if mode == "caps":
            out += [w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]*", p) if w]
        else:
            out += [w.lower() for w in re.findall(r"[A-Z]{2,}(?=[A-Z][a-z]|\d|$)|[A-Z]?[a-z]+|[A-Z]+|\d+", p)]
    return out


SOLVER = r'''
import re
PROMPT = __PROMPT__
def split(s):
    words, cur = [], ""
    for i, ch in enumerate(s):
        if ch in "_-":
            if cur:
                words.append(cur)
            cur = ""
            continue
        prev = s[i - 1] if i else ""
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if cur and ch.isupper() and (prev.islower() or prev.isdigit() or (prev.isupper() and nxt.islower())):
            words.append(cur)
            cur = ""
        cur += ch
    if cur:
        words.append(cur)
    return [w.lower() for w in words]
out = []
for ident, style in re.findall(r"^\d+\. (\S+) -> (\S+)$", PROMPT, re.M):
    w = split(ident)
    if style == "snake_case":
        out.append("_".join(w))
    elif style == "kebab-case":
        out.append("-".join(w))
    elif style == "CONSTANT_CASE":
        out.append("_".join(w).upper())
    elif style == "camelCase":
        out.append(w[0] + "".join(x[0].upper() + x[1:] for x in w[1:]))
    else:
        out.append("".join(x[0].upper() + x[1:] for x in w))
print("\n".join(out))
'''


def _words(rng: random.Random, digits: bool) -> list[str]:
    n = rng.randint(2, 3)
    pool = [rng.choice(WORDS) for _ in range(n)]
    pool[rng.randrange(n)] = rng.choice(ACRONYMS)
    if digits and rng.random() < 0.5:
        pool[rng.randrange(n)] = rng.choice(DIGITS)
    for a, b in zip(pool, pool[1:]):  # two acronyms side by side could not be split again
        if a in ACRONYMS and b in ACRONYMS or a == b:
            return _words(rng, digits)
    return pool


def _case(index: int, rng: random.Random, n: int, digits: bool) -> dict:
    for _ in range(500):
        items = []
        for _k in range(n):
            words = _words(rng, digits)
            source = rng.choice(("camelCase", "PascalCase", "snake_case", "kebab-case", "CONSTANT_CASE"))
            target = rng.choice([s for s in STYLES if s != source])
            if source in ("camelCase", "PascalCase"):
                ident = render(words, source, acronym_caps=True)
            else:
                ident = render(words, source)
            items.append((ident, target, words))
        final = [render(w, t) for _, t, w in items]
        traps = {"caps": [render(w, t, acronym_caps=True) for _, t, w in items],
                 "split": [render(_trap_split(i, "caps"), t) for i, t, _ in items],
                 **({"digits": [render(_trap_split(i, "digits"), t) for i, t, _ in items]} if digits else {})}
        camel_sources = sum(s[0][0].islower() and any(c.isupper() for c in s[0]) for s in items)
        if all(t != final for t in traps.values()) and camel_sources >= 2 and (
                not digits or any(any(d in w for d in DIGITS) for _, _, w in items)):
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw")
    listing = "\n".join(f"{k + 1}. {i} -> {t}" for k, (i, t, _) in enumerate(items))
    prompt = (f"Convert each identifier to the naming style after its arrow:\n\n{listing}\n\n"
              "How to split an identifier into words: an underscore or a hyphen separates words; a capital letter "
              "after a lower-case letter or a digit starts a new word; in a run of capitals followed by a lower-case "
              "letter, the last capital starts the new word (HTTPServer is HTTP + Server); digits belong to the word "
              "they follow (base64Encode is base64 + Encode).\n"
              "How to write each style: snake_case is every word in lower case joined by _; kebab-case the same "
              "joined by -; CONSTANT_CASE every word in capitals joined by _; camelCase is the first word in lower "
              "case and each later word with only its first letter in capitals, joined with nothing between; "
              "PascalCase is every word with only its first letter in capitals (so an acronym such as ID becomes "
              "Id). Write the converted identifiers one per line, in the order given, without numbers, and nothing "
              "after them.\n")
    constraints = [{"kind": "lines_equal", "lines": final}]
    wrong = [REFUSAL, *("\n".join(t) for t in traps.values()), "\n".join(i for i, _, _ in items),
             "\n".join(f"{k + 1}. {x}" for k, x in enumerate(final[:-1])),
             "\n".join(final[:-1]),
             "\n".join(final) + "\n\nIf acronyms keep their capitals:\n" + "\n".join(traps["caps"])]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    # a step is an identifier whose split needs the capital rules (mixed case); the others split at _ or -
    mixed = sum(any(c.isupper() for c in i) and any(c.islower() for c in i) for i, _, _ in items)
    hardness = {"steps": mixed, "search": 1, "traps": len(traps)}
    notes = (f"{n} identifiers, each split into words by a stated rule and rejoined in another style: acronym runs "
             "(HTTPServer, userIDCount) and digits (base64Encode) decide the split, and camelCase / PascalCase lower "
             "an acronym's later letters. Each line is its own decision (steps: the mixed-case identifiers, whose "
             "split needs the capital rules), compared exactly; a model that knows the "
             "conventions of one language tends to keep ID and HTTP in capitals. Stored traps: acronyms kept in "
             "capitals, every capital split off" + (", digits split into words of their own." if digits else "."))
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"{n} identifiers converted between naming styles", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 8192, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "Here are the converted identifiers:\n\n```text\n" + "\n".join(final) + "\n```",
                       "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
