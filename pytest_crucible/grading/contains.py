"""contains: required, optional and forbidden phrases, matched as whole words or numbers, and facts with their
subjects.

    grader: {type: contains, all: [...], any: [...], forbidden: [...], case_sensitive: false,
             max_words: 60, facts: [{subject: [opened, opening], fact: "1911"}, ...]}

`all`: every item must appear; an item may itself be a list of alternatives (["Lovelace", "Ada King"]).
`any`: at least one must appear. `forbidden`: none may appear.
`facts`: each fact must be stated next to its subject (nearer to one of its own subjects than to another fact's), in
one clause (a sentence, cut at `;`, `, `, dashes and the words and, but, after, before, while, whereas, which, who,
with; a line wrapped inside a paragraph is joined): `{subject: [opened], fact: "1911"}` passes "it opened in 1911
and is 186 metres long" and fails "it opened in 186 and is 1911 metres long", so a summary that lists the right
names and numbers against the wrong subjects (or none: keyword soup) fails, and so does a fact hedged in its clause
("opened in 1911 or 1912"). Subject and fact are phrases or lists of alternatives; a trailing `*` matches any ending
(`reopen*`).
The commitment rule (commitment.py) applies: labelled alternatives ("Version one: ... Version two: ..."), a
correction that names a number no fact or required phrase holds, or an admitted error fail as ambiguous.
Matching is word-bounded (see extract.word_pattern): "27" is not found in "127", "27.5" or "2,700";
"cat" is not found in "category". Reasoning is not searched; a preamble is (a forbidden "Certainly"
must be caught where the user would read it). `max_words` caps the length of the reply as read
(reasoning excluded, a preamble included), for prompts such as "summarise in at most 60 words".
"""

from __future__ import annotations

import re

from pytest_crucible.grading import commitment
from pytest_crucible.grading.base import BaseGrader, Grade, as_list, json_answer
from pytest_crucible.grading.extract import normalize, numbers, plain, sentences, strip_reasoning, word_pattern, words

_FIELDS = {"type", "all", "any", "forbidden", "case_sensitive", "max_words", "facts"}
_CLAUSE = re.compile(r";|,\s|\s[-\u2013\u2014]\s|\s(?:and|but|after|before|while|whereas|which|who|with)\s", re.I)
_SOFT_BREAK = re.compile(r"(?<=\S)[ \t]*\n(?![ \t]*(?:[-*+\u2022]|[0-9]+[.)]|#)\s)(?=[ \t]*\S)")


def _is_needle(item) -> bool:
    return isinstance(item, (str, int, float)) and not isinstance(item, bool) and str(item).strip() != ""


def check(spec: dict) -> list[tuple[str | None, str]]:
    problems = [(k, f"unknown field; allowed: {', '.join(sorted(_FIELDS))}") for k in spec
                if k not in _FIELDS]
    if not any(spec.get(k) for k in ("all", "any", "forbidden", "facts")):
        problems.append((None, "give at least one of all, any, forbidden (lists of phrases) or facts"))
    problems += _fact_problems(spec.get("facts", []))
    for key in ("all", "any", "forbidden"):
        items = spec.get(key, [])
        if not isinstance(items, list):
            problems.append((key, f"{key} is a list of phrases, e.g. {key}: [\"Ada Lovelace\", 1843]"))
            continue
        for item in items:
            group = item if key == "all" and isinstance(item, list) else [item]
            if not group or not all(_is_needle(n) for n in group):
                allowed = " (or a list of alternatives)" if key == "all" else ""
                problems.append((key, f"{item!r}: each item is a non-empty phrase or number{allowed}"))
                break
    limit = spec.get("max_words")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        problems.append(("max_words", f"max_words is a whole number of words >= 1, got {limit!r}"))
    if not isinstance(spec.get("case_sensitive", False), bool):
        problems.append(("case_sensitive", "case_sensitive is true or false"))
    return problems


def _fact_problems(facts) -> list[tuple[str | None, str]]:
    if not isinstance(facts, list):
        return [("facts", "facts is a list of {subject, fact}, e.g. [{subject: [opened], fact: \"1911\"}]")]
    for i, fact in enumerate(facts):
        parts = [as_list(fact.get(k)) for k in ("subject", "fact")] if isinstance(fact, dict) else []
        if not parts or set(fact) != {"subject", "fact"} or not all(p and all(map(_is_needle, p)) for p in parts):
            return [(f"facts[{i}]", "a fact is {subject: phrase or list, fact: phrase or list}")]
    return []


def found(text: str, needle, case_sensitive: bool = False) -> bool:
    needle = str(needle)
    if needle.endswith("*") and len(needle) > 1:
        stem = word_pattern(needle[:-1], case_sensitive).pattern.removesuffix(r"(?!\w)")
        return re.search(stem, text, 0 if case_sensitive else re.I) is not None
    return word_pattern(needle, case_sensitive).search(text) is not None


def clauses(text: str) -> list[str]:
    """The clauses of a text: its sentences, cut where one statement ends and the next begins (see _CLAUSE)."""
    return [c for s in sentences(_SOFT_BREAK.sub(" ", text)) for c in _CLAUSE.split(s) if c.strip()]


def _spans(text: str, needles, case_sensitive: bool) -> list[tuple[int, int]]:
    out = []
    for needle in needles:
        needle = str(needle)
        if needle.endswith("*") and len(needle) > 1:
            pattern = re.compile(word_pattern(needle[:-1], case_sensitive).pattern.removesuffix(r"(?!\w)") + r"\w*",
                                 0 if case_sensitive else re.I)
        else:
            pattern = word_pattern(needle, case_sensitive)
        out += [m.span() for m in pattern.finditer(text)]
    return out


def _gap(text: str, a: tuple[int, int], b: tuple[int, int]) -> int:
    """Words between two spans; a bracket between them counts as three (it closes a remark)."""
    between = text[min(a[1], b[1]):max(a[0], b[0])] if a[0] != b[0] else ""
    return len(between.split()) + 3 * sum(between.count(c) for c in "()[]")


def fact_stated(parts: list[str], fact: dict, facts: list[dict], case_sensitive: bool = False) -> bool:
    """Is the fact stated with its subject in one clause: a value of the fact whose nearest subject (of all the
    facts' subjects) is one of its own, in a clause that does not hedge ("in 1911 or 1912")?"""
    own = as_list(fact["subject"])
    others = [s for f in facts if f is not fact for s in as_list(f["subject"]) if s not in own]
    for clause in parts:
        if commitment.hedges(clause):
            continue
        mine, theirs = _spans(clause, own, case_sensitive), _spans(clause, others, case_sensitive)
        for value in _spans(clause, as_list(fact["fact"]), case_sensitive):
            near = min((_gap(clause, value, s) for s in mine), default=None)
            if near is not None and all(_gap(clause, value, s) > near for s in theirs):
                return True
    return False


def _uncommitted(text: str, spec: dict) -> str:
    """Why the reply does not commit to one text (the commitment rule), or ""."""
    offered = commitment.alternatives(text)
    if offered:
        return f"ambiguous answer: alternatives offered ({', '.join(offered[:3])})"
    held = {n.value for item in [*spec.get("all", []), *(v for f in spec.get("facts", []) for v in as_list(f["fact"]))]
            for x in as_list(item) for n in numbers(str(x))}
    for claim in commitment.claims(text):
        other = [n.text for n in numbers(claim.value) if n.value not in held]
        if other:
            return f"ambiguous answer: corrected ({claim.cue} ... {other[0]})"
    taken_back = commitment.admission(text)
    return f'ambiguous answer: taken back ("{taken_back}")' if taken_back else ""


def _label(item) -> str:
    return " / ".join(f'"{n}"' for n in item) if isinstance(item, list) else f'"{item}"'


def grade(case, response) -> Grade:
    spec = case.grader
    answer = strip_reasoning(response.content)
    if not answer:
        return Grade(False, "empty response")
    text = plain(answer)
    cs = bool(spec.get("case_sensitive", False))
    required = spec.get("all", [])
    missing = [item for item in required
               if not any(found(text, n, cs) for n in (item if isinstance(item, list) else [item]))]
    optional = spec.get("any", [])
    any_ok = not optional or any(found(text, n, cs) for n in optional)
    banned = [n for n in spec.get("forbidden", []) if found(text, n, cs)]
    parts = clauses(text)
    unstated = [f for f in spec.get("facts", []) if not fact_stated(parts, f, spec["facts"], cs)]
    details = {"missing": missing, "forbidden_found": banned, "any_found": any_ok, "facts_missing": unstated}
    limit = spec.get("max_words")
    if limit is not None:
        details["words"] = len(words(answer))

    if banned:
        more = (f" ({len(banned)} forbidden phrases: {', '.join(map(_label, banned))})"
                if len(banned) > 1 else "")
        return Grade(False, f"contains forbidden {_label(banned[0])}{more}", answer=answer, details=details)
    if limit is not None and details["words"] > limit:
        return Grade(False, f"{details['words']} words, at most {limit} asked", answer=answer, details=details)
    if missing:
        more = (f" ({len(missing)} of {len(required)} missing: {', '.join(map(_label, missing))})"
                if len(missing) > 1 else "")
        return Grade(False, f"missing {_label(missing[0])}{more}", answer=answer, details=details)
    if unstated:
        more = f" ({len(unstated)} of {len(spec['facts'])} facts not stated)" if len(unstated) > 1 else ""
        first = unstated[0]
        return Grade(False, f"{_label(as_list(first['fact']))} not stated with {_label(as_list(first['subject']))} in "
                            f"one clause{more}", answer=answer, details=details)
    uncommitted = _uncommitted(text, spec)
    if uncommitted:
        return Grade(False, uncommitted, answer=answer, details=details)
    if not any_ok:
        return Grade(False, f"none of {', '.join(map(_label, optional))} found", answer=answer,
                     details=details)
    return Grade(True, "", answer=answer, details=details)


class ContainsGrader(BaseGrader):
    compares_answers = True

    def check(self, spec: dict) -> list[tuple[str | None, str]]:
        return check(spec)

    def grade(self, case, response) -> Grade:
        return grade(case, response)

    def read_solver_output(self, spec: dict, lines: list[str]):
        line = super().read_solver_output(spec, lines)
        return json_answer(spec, line) if line[:1] in "[{" else line

    def compare_answer(self, spec: dict, derived) -> str | None:
        """A solver derives the phrases (a list or an object's values) that `all` must require."""
        values = list(derived.values()) if isinstance(derived, dict) else as_list(derived)
        required = {normalize(str(x)) for x in spec.get("all") or [] if not isinstance(x, list)}
        missing = [x for x in values if normalize(str(x)) not in required]
        if missing:
            return f"the grader's `all` does not require {missing[0]!r}"
        return None


GRADER = ContainsGrader()
