"""regex: the cleaned reply matches (or must not match) a pattern.

    grader: {type: regex, pattern: "...", flags: [IGNORECASE, MULTILINE, DOTALL], fullmatch: false,
             must_match: true}

Applied to the reply with reasoning, preambles and whole-reply markdown wrappers removed, and the characters
models write for ASCII ones (typographic quotes, Unicode hyphens and dashes, non-breaking spaces) folded to
ASCII. `fullmatch: true` needs the whole (stripped) reply to match. A reply that offers labelled alternatives or
takes itself back ("I made an error") fails as ambiguous (the commitment rule, commitment.py).
"""

from __future__ import annotations

import re

from pytest_crucible.grading import commitment
from pytest_crucible.grading.base import BaseGrader, Grade, RegexProbe
from pytest_crucible.grading.extract import clean_answer
from pytest_crucible.grading.text import typographic

_FIELDS = {"type", "pattern", "flags", "fullmatch", "must_match"}
FLAGS = {"IGNORECASE": re.I, "I": re.I, "MULTILINE": re.M, "M": re.M, "DOTALL": re.S, "S": re.S,
         "VERBOSE": re.X, "X": re.X, "ASCII": re.A, "A": re.A}


def check(spec: dict) -> list[tuple[str | None, str]]:
    problems = [(k, f"unknown field; allowed: {', '.join(sorted(_FIELDS))}") for k in spec
                if k not in _FIELDS]
    flags = spec.get("flags", [])
    if isinstance(flags, str):
        flags = [flags]
    if not isinstance(flags, list) or any(f not in FLAGS for f in flags):
        problems.append(("flags", "flags is a list of IGNORECASE, MULTILINE, DOTALL, VERBOSE, ASCII"))
    pattern = spec.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        problems.append(("pattern", "write the regular expression as a string, e.g. pattern: '^\\d+$'"))
    elif not problems or problems[-1][0] != "flags":
        try:
            compile_spec(spec)
        except re.error as exc:
            problems.append(("pattern", f"does not compile: {exc}"))
    for key in ("fullmatch", "must_match"):
        if not isinstance(spec.get(key, False), bool):
            problems.append((key, f"{key} is true or false"))
    return problems


def compile_spec(spec: dict) -> re.Pattern:
    flags = spec.get("flags", [])
    value = 0
    for name in [flags] if isinstance(flags, str) else flags:
        value |= FLAGS[name]
    return re.compile(spec["pattern"], value)


def grade(case, response) -> Grade:
    spec = case.grader
    answer = typographic(clean_answer(response.content))
    if not answer:
        return Grade(False, "empty response")
    offered = commitment.alternatives(answer)
    taken_back = commitment.admission(answer)
    if offered or taken_back:
        why = f"alternatives offered ({', '.join(offered[:3])})" if offered else f'taken back ("{taken_back}")'
        return Grade(False, f"ambiguous answer: {why}", answer=answer)
    pattern = compile_spec(spec)
    match = pattern.fullmatch(answer) if spec.get("fullmatch", False) else pattern.search(answer)
    must = spec.get("must_match", True)
    details = {"matched": match.group(0)[:200] if match else None}
    if match and not must:
        return Grade(False, f"matches /{spec['pattern']}/ (must not): \"{match.group(0)[:60]}\"",
                     answer=answer, details=details)
    if not match and must:
        how = "does not fully match" if spec.get("fullmatch", False) else "no match for"
        return Grade(False, f"{how} /{spec['pattern']}/", answer=answer, details=details)
    return Grade(True, "", answer=answer, details=details)


class RegexGrader(BaseGrader):
    def check(self, spec: dict) -> list[tuple[str | None, str]]:
        return check(spec)

    def grade(self, case, response) -> Grade:
        return grade(case, response)

    def patterns(self, spec: dict) -> list[RegexProbe]:
        if not isinstance(spec.get("pattern"), str):
            return []
        try:
            flags = compile_spec(spec).flags
        except (re.error, KeyError, TypeError):
            flags = 0  # check() already reported it; the probe reports the compile error again
        return [RegexProbe("grader.pattern", spec["pattern"], flags,
                           "fullmatch" if spec.get("fullmatch") else "search")]


GRADER = RegexGrader()
