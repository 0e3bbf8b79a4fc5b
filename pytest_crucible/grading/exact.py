"""exact: the answer equals a gold string, after normalising.

    grader: {type: exact, answer: "Paris", alternatives: ["Paris, France"], case_sensitive: false}

Compares the answer line, or the whole reply when it is short (one line, at most 12 words). Case, whitespace,
markdown emphasis, LaTeX dressing (`$\\boxed{\\text{amber}}$`), typographic characters (`FP‑3948` with a
non-breaking hyphen) and surrounding punctuation do not count.

An answer line may word its answer: the gold together with words of the question and plain wording passes
(`Answer: state amber`, `Answer: The door code is FP-3948.`), and so does a trailing remark that only explains
(`Paris (the capital)`, `FP-3948 (not BZ-1359, the other chest's)`). The commitment rule (commitment.py) fails
as ambiguous an answer that offers another one: a second value joined by `or`, `/`, `=`, `vs` (`amber or fjord`),
a remark that hedges (`Paris (maybe Lyon)`) or names another candidate without setting it aside, two marked
answers that differ, a correction after the answer (`Actually, it is fjord.`), labelled alternatives. A candidate
is a token shaped like the gold when the gold has a distinctive shape (`BZ-1359` beside `FP-3948`), or one of the
gold's siblings in the prompt (the other states of a table the gold appears in).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_crucible.grading import commitment
from pytest_crucible.grading.base import BaseGrader, Grade, derivation_problems
from pytest_crucible.grading.extract import clean_answer, counted_answers, normalize, plain, word_pattern
from pytest_crucible.grading.latex import latex_text

_FIELDS = {"type", "answer", "alternatives", "case_sensitive", "rivals"}
_SHORT_WORDS = 12
_TOKEN = re.compile(r"[^\W_]+(?:[-_'.][^\W_]+)*|_+\w+_*")
# Words that only lead up to an answer or restate that it is one.
_WORDING = frozenset([
    "a", "an", "the", "is", "it", "its", "it's", "was", "are", "be", "will", "would", "final", "answer", "result",
    "results", "therefore", "so", "thus", "hence", "ends", "end", "ending", "ended", "up", "in", "at", "on", "of",
    "for", "as", "with", "to", "this", "that", "which", "my", "our", "we", "get", "gets", "got", "gives", "given",
    "has", "have", "holds", "carries", "shows", "reads", "remains", "stays", "lands", "finishes", "stops",
    "correct", "right", "exactly", "just", "here", "there", "namely", "i.e", "e.g", "value", "one", "called",
    "named", "number", "code",
])
_REMARK_PIECES = re.compile(r"[;()\[\]]|\.\s+|^\s*,")  # brackets and sentences: a rejection covers its own
_EITHER = re.compile(r"\s+(?:or|vs\.?|versus)\s+", re.I)
_REMARK_BREAK = re.compile(r"\s*(?:[(\[]|;|,\s|\s[-—–]\s|\.\s+(?=\S))")


def check(spec: dict) -> list[tuple[str | None, str]]:
    problems = [(k, f"unknown field; allowed: {', '.join(sorted(_FIELDS))}") for k in spec
                if k not in _FIELDS]
    answer = spec.get("answer")
    if isinstance(answer, (dict, list)) or answer is None or not str(answer).strip():
        problems.append(("answer", "write the expected answer as a string, e.g. answer: Paris"))
    alternatives = spec.get("alternatives", [])
    if not isinstance(alternatives, list) or any(isinstance(a, (dict, list)) or a is None
                                                 for a in alternatives):
        problems.append(("alternatives", "alternatives is a list of strings, e.g. [\"Paris, France\"]"))
    if not isinstance(spec.get("case_sensitive", False), bool):
        problems.append(("case_sensitive", "case_sensitive is true or false"))
    rivals = spec.get("rivals", [])
    if not isinstance(rivals, list) or not all(isinstance(r, str) and r.strip() for r in rivals):
        problems.append(("rivals", "rivals is a list of the other answers the material offers, e.g. [regatta, "
                                   "shanty night]"))
    return problems


# ------------------------------------------------------------------------------------------ what counts as what

def _shape(token: str) -> str:
    """A regex for tokens written like `token`: letters, digits and the rest kept in order, run lengths free."""
    out: list[str] = []
    for ch in token:
        cls = "[A-Za-z]" if ch.isalpha() else "[0-9]" if ch.isdigit() else re.escape(ch)
        if not out or out[-1] != cls:
            out.append(cls)
    return "".join(c + "+" if c.startswith("[") else c for c in out)


@dataclass(frozen=True)
class Answers:
    """What grading one case's replies knows: the accepted answers, the words a reply may word them with, and
    what else could be offered as an answer."""
    accepted: frozenset[str]
    golds: tuple[str, ...]
    case_sensitive: bool
    wording: frozenset[str]      # plain wording and the words of the question
    distinctive: re.Pattern | None  # tokens shaped like a gold with digits or symbols (codes)
    siblings: frozenset[str]     # the gold's neighbours in a table or list of the prompt
    rivals: re.Pattern | None    # the case's `rivals`: other answers its material offers

    @classmethod
    def of(cls, case) -> Answers:
        spec = case.grader
        cs = bool(spec.get("case_sensitive", False))
        golds = tuple(str(g) for g in [spec["answer"], *(spec.get("alternatives") or [])])
        prompt = "\n".join(m.get("content") for m in case.messages if isinstance(m.get("content"), str))
        # the question is asked outside a quoted <document> (a haystack's last paragraph is not the question)
        asked = re.sub(r"<document>.*?</document>", "\n\n", prompt, flags=re.S)
        question = " ".join(p for p in re.split(r"\n\s*\n", asked)[-2:]) + " " + " ".join(
            s for s in re.findall(r"[^.!?\n]*\?", asked))
        # the question's own list of choices holds candidates, never wording ("Razorbill, Kittiwake" hedges)
        offered = _offered(plain(question), golds)
        wording = (_WORDING | {t.casefold() for t in _TOKEN.findall(plain(question))}) - offered
        shapes = [_shape(g) for g in golds if re.search(r"[0-9]|[^\w\s]|_", g) and " " not in g.strip()]
        distinctive = re.compile(rf"(?<![\w-])(?:{'|'.join(shapes)})(?![\w-])") if shapes else None
        gold_words = {normalize(g) for g in golds}
        siblings = (_siblings(plain(prompt), golds) - gold_words - wording) | offered
        # the case's own list of the other answers its material offers (events in a haystack): whole phrases
        rivals = [word_pattern(str(r), cs).pattern for r in spec.get("rivals") or []
                  if normalize(str(r)) not in gold_words]
        return cls(frozenset(normalize(g, cs) for g in golds), golds, cs, frozenset(wording - gold_words),
                   distinctive, frozenset(siblings), re.compile("|".join(rivals)) if rivals else None)

    def is_gold(self, text: str) -> bool:
        return normalize(text, self.case_sensitive) in self.accepted

    def gold_in(self, text: str) -> re.Match | None:
        return next((m for g in self.golds for m in [word_pattern(g, self.case_sensitive).search(text)] if m), None)

    def candidates(self, text: str) -> list[str]:
        """Tokens in `text` that could be offered as an answer, other than a gold."""
        found = [m.group(0) for m in self.distinctive.finditer(text)] if self.distinctive else []
        found += [t for t in _TOKEN.findall(text) if t.casefold() in self.siblings]
        found += [m.group(0) for m in self.rivals.finditer(text)] if self.rivals else []
        return [t for t in found if not self.is_gold(t)]

    def content(self, text: str) -> list[str]:
        """The words of `text` that are neither a gold nor wording."""
        rest = text
        for g in self.golds:
            rest = word_pattern(g, self.case_sensitive).sub(" ", rest)
        return [t for t in _TOKEN.findall(rest)
                if t.casefold() not in self.wording and not commitment.HEDGE.fullmatch(t)]


def _offered(question: str, golds: tuple[str, ...]) -> set[str]:
    """The words of the other choices when the question lists the gold among comma-separated choices
    ("Here is a list of boats: Kittiwake, Gannet Rock, Razorbill."): the words of each short item but the gold's."""
    gold_tokens = {t.casefold() for g in golds for t in _TOKEN.findall(g)}
    out: set[str] = set()
    for sentence in re.split(r"(?<=[.?!])\s+|\n", question):
        if sentence.count(",") < 2 or not any(word_pattern(g).search(sentence) for g in golds):
            continue
        items = [re.sub(r"^\s*(?:and|or)\s+", "", part.split(":")[-1]).strip(" .?!") for part in sentence.split(",")]
        out |= {t.casefold() for item in items if len(item.split()) <= 3 for t in _TOKEN.findall(item)}
    return out - gold_tokens - _WORDING


def _siblings(prompt: str, golds: tuple[str, ...]) -> set[str]:
    """Words written like a gold in the prompt's table rows (when the gold is in the table) or in the
    comma-separated lists that name the gold."""
    rows = [ln for ln in prompt.split("\n") if ln.lstrip().startswith("|")]
    lists = [ln for ln in prompt.split("\n") if ln.count(",") >= 2]
    out: set[str] = set()
    for gold in golds:
        if re.search(r"\s", gold.strip()):
            continue
        pattern, shape = word_pattern(gold), re.compile(rf"(?<!\w){_shape(gold)}(?!\w)")
        lines = rows if any(pattern.search(r) for r in rows) else [ln for ln in lists if pattern.search(ln)]
        out |= {m.group(0).casefold() for ln in lines for m in shape.finditer(ln)}
    return out


# ------------------------------------------------------------------------------------------ reading one answer

@dataclass(frozen=True)
class Verdict:
    kind: str    # "right", "wrong" or "ambiguous"
    shown: str   # the answer as read
    why: str = ""  # for "ambiguous": what else it offers


def judge(answer: str, known: Answers) -> Verdict:
    """One marked answer (or the short reply) against the gold, by the commitment rule."""
    text = plain(latex_text(answer))
    shown = normalize(text, True)
    if known.is_gold(text):
        return Verdict("right", shown)
    cut = _REMARK_BREAK.search(text)
    head, remarks = (text[:cut.start()], text[cut.start():]) if cut else (text, "")
    if known.is_gold(head) and not remarks.strip(" .!"):
        return Verdict("right", shown)
    hit = known.gold_in(head)
    offered = (_offers(head, known, in_head=True) if hit else "") or _offers(remarks, known, in_head=False)
    if offered:
        return Verdict("ambiguous", shown, offered)
    said = commitment.bound(head[:hit.start()]) if hit else None
    if said:
        return Verdict("ambiguous", shown, f"{said}: a bound, not a value")
    if hit is None or known.content(head):
        return Verdict("wrong", normalize(head, True) or shown)
    return Verdict("right", shown)


def _offers(text: str, known: Answers, in_head: bool) -> str:
    """What else the text offers as an answer ("" when nothing): in an answer that holds the gold, a second
    value joined to it or another candidate; anywhere, a candidate not set aside, a hedge that names more than
    wording."""
    if not text.strip():
        return ""
    if in_head:
        parts = commitment.joined(text)
        if "/" not in "".join(known.golds):
            parts = [p for part in parts for p in part.split("/") if p.strip()]
        values = {normalize(v) for p in parts for v in (known.candidates(p) or
                                                         ([known.golds[0]] if known.gold_in(p) else []))}
        if len(values) > 1:
            return ", ".join(sorted(values))
    for piece in [text] if in_head else _REMARK_PIECES.split(text):
        others = known.candidates(piece) or ([] if in_head else [n for n in [_lone_name(piece, known, 2)] if n])
        if others and (commitment.hedges(piece) or not commitment.rejects(piece)):
            return ", ".join(dict.fromkeys(others))
        if commitment.hedges(piece) and known.content(piece):
            return ", ".join(dict.fromkeys(known.content(piece)))
    if in_head:  # "Sam Reed or T-4471": a side joined by `or` that is not the gold but says something
        others = [p.strip() for p in _EITHER.split(text) if not known.gold_in(p)
                  and any(t.casefold() not in _WORDING for t in _TOKEN.findall(p))]
        if others:
            return ", ".join(others)
    return ""


def _lone_name(text: str, known: Answers, limit: int) -> str:
    """The one capitalised word of a short text (at most `limit` words) that is neither the gold nor wording,
    when the gold is a name too: "the boat name is Dunlin" names another boat; "as shown" names nothing."""
    tokens = _TOKEN.findall(text)
    if not known.golds[0][:1].isupper() or not tokens or len(tokens) > limit or known.gold_in(text):
        return ""
    rest = [t for t in tokens if t.casefold() not in known.wording and not commitment.HEDGE.fullmatch(t)]
    return rest[0] if len(rest) == 1 and rest[0][:1].isupper() else ""


def _after(text: str, start: int, known: Answers) -> str:
    """What the text after the final answer offers instead of it: a correction naming another value, or the words
    that take the answer back."""
    for claim in commitment.claims(text, start):
        bare = _TOKEN.fullmatch(claim.value.strip(" .!\"'*`"))
        if known.candidates(claim.value) or _lone_name(claim.value, known, limit=4) or (
                bare and not known.is_gold(claim.value) and claim.value.casefold() not in known.wording):
            return f"{claim.cue} {claim.value}"
    taken_back = commitment.admission(text, start)
    return f'taken back after it was given ("{taken_back}")' if taken_back else ""


def candidate(content: str) -> tuple[list[str], int, str]:
    """(answer texts the reply marks or its short reply, where the last one ends, why none)."""
    text = clean_answer(content)
    counted = counted_answers(text)
    if counted:
        return [m.text for m in counted], counted[-1].end, ""
    words = len(text.split())
    if "\n" not in text and words <= _SHORT_WORDS:
        return [text], len(text), ""
    return [], 0, f"no answer line (reply is {words} words; expected 'Answer: ...' or a short reply)"


def grade(case, response) -> Grade:
    spec = case.grader
    text = clean_answer(response.content)
    if not text:
        return Grade(False, "empty response")
    answers, end, why = candidate(response.content)
    if not answers:
        return Grade(False, why)
    derived = getattr(case, "derived", {})
    if "exact_answers" not in derived:
        derived["exact_answers"] = Answers.of(case)
    known = derived["exact_answers"]
    verdicts = [judge(a, known) for a in answers]
    last = verdicts[-1]
    unsure = next((v for v in verdicts if v.kind == "ambiguous"), None)
    if unsure:
        return Grade(False, f'ambiguous answer ("{unsure.shown[:80]}" offers {unsure.why[:80]})', answer=unsure.shown)
    if len({normalize(v.shown) if v.kind == "wrong" else "" for v in verdicts}) > 1:
        shown = ", ".join(dict.fromkeys(f'"{v.shown[:40]}"' for v in verdicts))
        return Grade(False, f"ambiguous answer ({shown})", answer=last.shown)
    offered = _after(text, end, known) or ", ".join(commitment.alternatives(text))
    if offered:
        return Grade(False, f'ambiguous answer ("{last.shown[:60]}", then {offered[:80]})', answer=last.shown)
    if last.kind == "right":
        return Grade(True, "", answer=last.shown)
    return Grade(False, f'answer "{last.shown[:80]}", expected "{spec["answer"]}"', answer=last.shown)


class ExactGrader(BaseGrader):
    compares_answers = True

    def check(self, spec: dict) -> list[tuple[str | None, str]]:
        return check(spec)

    def grade(self, case, response) -> Grade:
        return grade(case, response)

    def verification_problems(self, case, verify: dict) -> list[str]:
        return super().verification_problems(case, verify) + derivation_problems(case, verify)

    def compare_answer(self, spec: dict, derived) -> str | None:
        cs = bool(spec.get("case_sensitive", False))
        accepted = [spec.get("answer"), *(spec.get("alternatives") or [])]
        if normalize(str(derived), cs) not in {normalize(str(a), cs) for a in accepted}:
            return f"the grader expects {spec.get('answer')!r}"
        return None


GRADER = ExactGrader()
