"""The answer-commitment rule, one for every text grader: a reply commits to one answer.

A reply fails as `ambiguous` when
1. it marks two different answers: two `Answer:` lines or `\\boxed{}` that differ, two different JSON objects,
   labelled alternatives ("Option 1: ... Option 2: ...", "Alternatively: ...");
2. text after its final marked answer asserts a different value ("Actually, ...", "Correction: ...", "the true
   count is ...", "Final: ...", "but honestly it is ...", "or maybe ...") or takes the answer back ("I made an
   error");
3. the answer is a bound, range or comparison rather than a value ("at least 935", "between 3 and 5", "≤ 7");
4. an answer line states two values joined by `=`, `or`, `vs` ("3/8 = 7/24" where they differ).
It passes when the text around the answer only explains: units, a restated question, numbers that are inputs (they
appear in the prompt), dates and times, intermediate steps that agree with the answer, a range in the working, a
value named only to reject it ("not 35", "the withdrawn plan").

This module finds those pieces in a text (claims after the answer, bounds, joins, labelled alternatives, hedge and
rejection cues); each grader compares them with its own idea of the same value (numeric.py, exact.py,
json_object.py, mapping.py, contains.py, checks.py, final_answer.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Words that offer another answer beside the one given.
HEDGE = re.compile(r"\b(?:or|maybe|perhaps|possibly|possible|probably|likely|either|alternatively|might|could|unless|"
                   r"otherwise|unsure|uncertain|guess)\b"
                   r"|[?±]|\bvs\b\.?|\bversus\b", re.I)
# Words that name a value only to set it aside: a mention, not an answer.
REJECTION = re.compile(r"\b(?:not|no|never|nor|other|another|except|excluding|without|unlike|instead\s+of|"
                       r"rather\s+than|withdrawn|superseded|rejected|replaced|discarded|dropped|cancell?ed|postponed|"
                       r"unaffected|previous|different|unrelated|"
                       r"untouched|unchanged|kept|skipped|left\s+(?:open|alone|as\s+it\s+was)|remains?|taken|busy|"
                       r"occupied|unavailable|blocked|clash(?:es)?|conflicts?|"
                       r"previously|earlier|former|old|wrong|incorrect|decoy|namesake|ignored?|ruled\s+out)\b|n't\b",
                       re.I)
# What corrects an answer after it was given ("Actually, ...", "Correction: ...", "the true count is ...").
_CORRECTS = (r"\bactually\b|\bcorrection\b|\bcorrected\b|\bcorrecting\b|\bwait\b(?=\s*[,.!:;\-])|\boops\b|"
             r"\bscratch\s+that\b|\bon\s+second\s+thought\b|\bon\s+reflection\b|\bhonestly\b|"
             r"\bto\s+be\s+(?:precise|exact|honest)\b|\bi\s+meant\b|\bshould\s+(?:be|read|have\s+been)\b|"
             r"\bfinal\s*[:=]|\bnot\s+\S+\s+but\b|\bthe\s+(?:true|correct|real|actual|right|revised|corrected|updated|"
             r"proper)\s+(?:answer|count|total|value|number|result|figure|sum|amount|one|state|code|date|time|price|"
             r"solution|serial)\b")
# What offers another answer beside the one given ("or maybe 45", "it could also be 45").
_OFFERS = (r"\bor\s+(?:maybe|possibly|perhaps|rather|else)\b|\balternatively\b|"
           r"\b(?:could|might|may)\s+(?:also\s+)?be\b|\bpossibly\b|\bperhaps\b|\bmaybe\b")
_ASSERTS = f"(?P<corrects>{_CORRECTS})|(?P<offers>{_OFFERS})"
_CLAIM = re.compile(_ASSERTS, re.I)
# A reply that takes its answer back.
_ADMITS = re.compile(r"\bi\s+(?:have\s+)?(?:made|make)\s+an?\s+(?:error|mistake|slip)\b|"
                     r"\b(?:that|this|the\s+above|my\s+(?:\w+\s+)?answer)(?:'s|\s+is|\s+was)\s+(?:wrong|incorrect|"
                     r"a\s+mistake|an\s+error|off)\b|\bscratch\s+that\b|\bignore\s+(?:that|the\s+above|my)\b|"
                     r"\bdisregard\b|\bi\s+miscounted\b|\bi\s+miscalculated\b|\bi\s+was\s+wrong\b", re.I)
# Between a claim's cue and its value: words that only lead up to it ("Actually, no, it is 1420").
_FILLER = re.compile(r"(?:[\s,:;=\-]+|\b(?:no|so|then|it|it's|its|is|was|are|be|would|will|should|also|the|a|an|"
                     r"answer|total|count|value|number|result|sum|amount|figure|correct|right|true|real|actual|final|"
                     r"one|in\s+fact|rather|really|now|just|that|this|comes\s+to|equals|here|state|code)\b)*", re.I)
_CLAIM_SPAN = 300  # characters read after a cue: a claim is a clause, not the rest of a long reply
_CLAUSE_END = re.compile(r"[.;!?\n](?=\s|$)|[;\n]")
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+(?=\s|$)|$)|[^\n]+")
# A bound or comparison just before a value: the answer is then not a value.
BOUND = re.compile(r"(?:\bat\s+(?:least|most)|\bno\s+(?:more|less|fewer|later|earlier)\s+than|"
                   r"\bnot\s+(?:more|less|fewer)\s+than|\bmore\s+than|\bless\s+than|\bfewer\s+than|\bgreater\s+than|"
                   r"\bsmaller\s+than|\bover|\bunder|"
                   r"\bup\s+to|\babove|\bbelow|\bminimum(?:\s+of)?|\bmaximum(?:\s+of)?|\bupwards\s+of|[≥≤<>⩾⩽]=?|>=|<=)"
                   r"\s*[$€£]?\s*$", re.I)
# Joins that make one answer line state two values: "3/8 = 7/24", "amber or fjord", "44 vs 45".
JOIN = re.compile(r"\s+(?:or|vs\.?|versus)\s+|\s*(?<![=<>!])={1,2}(?!=)\s*", re.I)
# A line that labels one of several answers offered side by side.
_ALTERNATIVE = re.compile(
    r"^[ \t>*_#\-]*(?:(?:option|version|variant|draft|alternative|interpretation|reading|answer|solution)\s*"
    r"(?:[0-9]+|[a-d]|one|two|three|four|[ivx]{1,3})\b(?!\s*(?:of|\.\d))|alternatively\b|"
    r"or,?\s+(?:if|in\s+case|should|assuming|supposing)\b[^\n]*:\s*$)", re.I | re.M)


@dataclass(frozen=True)
class Claim:
    """A value a text asserts after the answer: the cue ("Actually"), and what follows the cue and its lead-in
    words up to the end of the clause ("1420"; "" when nothing does)."""
    cue: str
    value: str
    start: int  # where the cue is, in the text searched
    corrects: bool = True  # a correction ("Actually"), not an offer ("or maybe"): what it names anywhere counts


def hedges(text: str) -> bool:
    return HEDGE.search(text) is not None


def rejects(text: str) -> bool:
    return REJECTION.search(text) is not None


def claims(text: str, start: int = 0) -> list[Claim]:
    """Every value asserted in text[start:] by a cue that corrects, revises or offers an answer."""
    out = []
    for m in _CLAIM.finditer(text, start):
        lead = _FILLER.match(text, m.end(), m.end() + _CLAIM_SPAN)
        rest = text[lead.end():lead.end() + _CLAIM_SPAN]
        end = _CLAUSE_END.search(rest)
        out.append(Claim(m.group(0), (rest[:end.start()] if end else rest).strip(), m.start(),
                         m.group("corrects") is not None))
    return out


def admission(text: str, start: int = 0) -> str | None:
    """The words with which text[start:] takes an answer back ("I made an error"), or None."""
    m = _ADMITS.search(text, start)
    return m.group(0) if m else None


def bound(before: str) -> str | None:
    """The bound or comparison that the text just before a value ends with ("at least", "≤"), or None."""
    m = BOUND.search(before[-40:])
    return " ".join(m.group(0).split()) if m else None


def joined(text: str) -> list[str]:
    """The sides of an answer line that joins values with `=`, `or`, `vs`; [text] when it joins none."""
    return [part for part in JOIN.split(text) if part.strip()] or [text]


def alternatives(text: str, numbered_only: bool = False) -> list[str]:
    """Labels of answers offered side by side ("Option 1:", "Version two", "Alternatively", "Or, if ...:"):
    two numbered labels, or any "alternatively" / "or, if" line (unless `numbered_only`: a grader that reads
    what such a line offers itself), make a reply that does not commit."""
    labels = [" ".join(m.group(0).split()).strip(" >*_#-") for m in _ALTERNATIVE.finditer(text)]
    numbered = [label for label in labels if not re.match(r"(?:alternatively|or\b)", label, re.I)]
    offered = [] if numbered_only else [label for label in labels if label not in numbered]
    return (numbered + offered) if len(numbered) >= 2 or offered else []


def sentences_after(text: str, start: int) -> list[tuple[int, str]]:
    """(position, sentence) for the sentences of text[start:]."""
    return [(m.start(), m.group(0)) for m in _SENTENCE.finditer(text, start) if m.group(0).strip()]


__all__ = ["BOUND", "HEDGE", "JOIN", "REJECTION", "Claim", "admission", "alternatives", "bound", "claims", "hedges",
           "joined", "rejects", "sentences_after"]
