"""exact: the answer equals a gold string, after normalising.

    grader: {type: exact, answer: "Paris", alternatives: ["Paris, France"], case_sensitive: false}

Compares the answer line, or the whole reply when it is short (one line, at most 12 words).
Case, whitespace, markdown emphasis and surrounding punctuation do not count, nor does a
trailing parenthetical remark ("Paris (the capital)") unless it offers an alternative ("Paris (or
Lyon)", "Paris (maybe Lyon)"), which is a hedge and fails.
"""

from __future__ import annotations

import re

from pytest_crucible.grading.base import BaseGrader, Grade, derivation_problems
from pytest_crucible.grading.extract import clean_answer, find_answer, normalize

_FIELDS = {"type", "answer", "alternatives", "case_sensitive"}
_SHORT_WORDS = 12
_TRAILING_REMARK = re.compile(r"\s*\([^()]*\)\s*[.!]?\s*$")
_HEDGE = re.compile(r"\b(?:or|maybe|perhaps|possibly|probably|either|alternatively|might|could)\b|[/?]", re.I)


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
    return problems


def candidate(content: str) -> tuple[str | None, str]:
    """(answer text, why none)."""
    text = clean_answer(content)
    line = find_answer(text)
    if line is not None:
        return line, ""
    words = len(text.split())
    if "\n" not in text and words <= _SHORT_WORDS:
        return text, ""
    return None, f"no answer line (reply is {words} words; expected 'Answer: ...' or a short reply)"


def grade(case, response) -> Grade:
    spec = case.grader
    if not clean_answer(response.content):
        return Grade(False, "empty response")
    answer, why = candidate(response.content)
    if answer is None:
        return Grade(False, why)
    cs = bool(spec.get("case_sensitive", False))
    gold = [str(spec["answer"]), *(str(a) for a in spec.get("alternatives", []))]
    accepted = {normalize(g, cs) for g in gold}
    tried = {normalize(answer, cs)}
    remark = _TRAILING_REMARK.search(answer)
    if remark and not _HEDGE.search(remark.group()):
        tried.add(normalize(answer[:remark.start()], cs))
    shown = normalize(answer, True)
    if tried & accepted:
        return Grade(True, "", answer=shown)
    return Grade(False, f'answer "{shown[:80]}", expected "{spec["answer"]}"', answer=shown)


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
