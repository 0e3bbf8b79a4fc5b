"""IN-citations: author-year citations in a text become numbered ones ([1], [2], ...) in order of first citation,
a source cited again keeping its number, and a reference list of only the cited sources, in number order, in a
given entry format; compared exactly, line by line.

The bibliography is given in alphabetical order and holds sources the text never cites, and some sentences cite
two sources at once (written [2, 5], numbers ascending). The traps, each stored: numbers taken from the
bibliography's order, a repeated source given a new number, every bibliography entry listed, a double citation
left in its written order. `verify.solver` scans the prompt's text left to right with its own numbering.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-citations"
REFUSAL = "I'm sorry, but I can't help with that request."
SOURCES = (("Abara", 2014, "Tidal mills of the north coast"), ("Brisco", 2009, "Salt and the medieval town"),
           ("Castell", 2021, "Harbour walls and their builders"), ("Dunmore", 2017, "Fishing fleets in decline"),
           ("Ellison", 2011, "The herring trade"), ("Farrow", 2019, "Lighthouses of the outer isles"),
           ("Greaves", 2005, "Ropewalks and rigging"), ("Hallam", 2023, "Ferries before steam"),
           ("Iqbal", 2016, "Coastal erosion records"), ("Jarvis", 2012, "Smugglers' routes"),
           ("Kerr", 2020, "Chapels of the fishing villages"), ("Lomax", 2008, "Weather lore at sea"))
CLAIMS = ("Tide mills ground grain along the estuary for three centuries",
          "Salt pans once lined the southern shore", "The harbour wall was rebuilt twice after storms",
          "Catches fell by half within one generation", "Herring boats followed the shoals south each autumn",
          "The outer light was first lit by oil lamps", "Rope was spun on a walk four hundred yards long",
          "Ferries crossed the sound under sail until the 1880s", "The cliffs retreat about a metre each decade",
          "Brandy came ashore in the coves at night", "Every village built its own chapel by the quay",
          "Sailors read the sky for signs of a gale", "The fish market moved inland in 1902",
          "Women gutted and packed the catch on the pier")
# (sentences, sources cited, bibliography size, double citations)
SHAPES = ((4, 3, 5, 0), (7, 5, 9, 2), (9, 6, 12, 3))


def _key(src: tuple) -> str:
    return f"({src[0]} {src[1]})"


def _number(text: list[list[int]], mode: str = "right") -> dict[int, int]:
    """Source index -> citation number. mode "bib": the bibliography's order among cited sources."""
    cited = list(dict.fromkeys(s for cites in text for s in cites))
    if mode == "bib":
        cited.sort()
    return {s: k + 1 for k, s in enumerate(cited)}


def _render(claims: list[str], cites: list[list[int]], bib: list[tuple], mode: str = "right") -> list[str]:
    """The reply. mode "bib"; "fresh": each citation gets the next number; "all": every entry listed; "asis":
    a double citation keeps its written order."""
    numbers = _number(cites, "bib" if mode == "bib" else "right")
    out, counter, fresh_refs = [], 0, []
    for claim, cs in zip(claims, cites):
        if mode == "fresh":
            ns = []
            for s in cs:
                counter += 1
                ns.append(counter)
                fresh_refs.append(s)
        else:
            ns = [numbers[s] for s in cs]
        if mode != "asis":
            ns = sorted(ns)
        out.append(f"{claim} [{', '.join(map(str, ns))}].")
    out.append("References")
    if mode == "fresh":
        listing = [(k + 1, s) for k, s in enumerate(fresh_refs)]
    else:
        listing = sorted((n, s) for s, n in numbers.items())
        if mode == "all":
            listing += [(len(listing) + k + 1, s) for k, s in enumerate(i for i in range(len(bib)) if i not in numbers)]
    out += [f"{n}. {bib[s][0]} ({bib[s][1]}). {bib[s][2]}." for n, s in listing]
    return out


SOLVER = r'''
import re
PROMPT = __PROMPT__
text = PROMPT.split("Text:\n")[1].split("\n\n")[0].split("\n")
bib = re.findall(r"^- (\w+) \((\d{4})\)\. (.+)\.$", PROMPT.split("Bibliography:\n")[1], re.M)
number = {}
out = []
for line in text:
    keys = re.findall(r"\((\w+) (\d{4})\)", line)
    for k in keys:
        number.setdefault(k, len(number) + 1)
    claim = re.sub(r"(?: \(\w+ \d{4}\))+\.$", "", line)
    out.append(claim + " [" + ", ".join(str(n) for n in sorted(number[k] for k in keys)) + "].")
out.append("References")
for (author, year), n in sorted(number.items(), key=lambda kv: kv[1]):
    title = next(t for a, y, t in bib if a == author and y == year)
    out.append("%d. %s (%s). %s." % (n, author, year, title))
print("\n".join(out))
'''


def _case(index: int, rng: random.Random, n_sent: int, n_cited: int, n_bib: int, n_double: int) -> dict:
    for _ in range(2000):
        bib = sorted(rng.sample(SOURCES, n_bib))
        cited = rng.sample(range(n_bib), n_cited)
        claims = rng.sample(CLAIMS, n_sent)
        cites = [[cited[k]] if k < n_cited else [rng.choice(cited)] for k in range(n_sent)]
        rng.shuffle(cites)
        for k in rng.sample(range(n_sent), n_double):
            cites[k] = cites[k] + [rng.choice([c for c in cited if c not in cites[k]])]
        final = _render(claims, cites, bib)
        traps = {m: _render(claims, cites, bib, m) for m in ("bib", "fresh", "all", "asis")}
        repeats = n_sent + n_double > n_cited
        if repeats and sum(t != final for t in traps.values()) >= (3 if n_double else 2):
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw")
    text = [f"{c} " + " ".join(_key(bib[s]) for s in cs) + "." for c, cs in zip(claims, cites)]
    prompt = ("Text:\n" + "\n".join(text) + "\n\nBibliography:\n"
              + "\n".join(f"- {a} ({y}). {t}." for a, y, t in bib) + "\n\n"
              "Convert the citations to numbers. The first source cited in the text is [1], the next new source "
              "[2], and so on; a source cited again keeps its number. A sentence that cites several sources gets "
              "one bracket with their numbers in ascending order, like [2, 5]. Write the citation before the final "
              "full stop, with a space before the bracket, replacing the author-year citations. After the text "
              "write a line `References` and then one line per cited source, in number order, in the form "
              "`N. Author (Year). Title.`; leave out sources the text does not cite. Keep every other word of the "
              "sentences as it is, one sentence per line, and write nothing after the references.\n")
    constraints = [{"kind": "lines_equal", "lines": final}]
    wrong = [REFUSAL, *("\n".join(t) for t in traps.values()), "\n".join(text),
             "\n".join(final[:-1]), "\n".join(final) + "\n\nOr, numbered by the bibliography:\n"
             + "\n".join(traps["bib"])]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    n_traps = sum(t != final for t in traps.values())
    hardness = {"steps": n_sent + n_double, "search": 1, "traps": n_traps}
    notes = (f"{n_sent} sentences citing {n_cited} of {n_bib} sources" + (f", {n_double} with two citations" if n_double
                                                                         else "")
             + ": numbering by first citation is a left-to-right scan where every citation depends on the ones "
               "before it (new number or an old one), double citations are re-sorted, and the reference list "
               "keeps only cited sources in number order. Stored traps: "
             + ", ".join({"bib": "the bibliography's order", "fresh": "a new number for each citation",
                          "all": "uncited sources listed", "asis": "double citations in written order"}[m]
                         for m, t in traps.items() if t != final) + ".")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"{n_sent} sentences to numbered citations and a reference list", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 8192, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "Here is the text with numbered citations:\n\n```\n" + "\n".join(final) + "\n```",
                       "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
