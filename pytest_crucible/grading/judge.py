"""judge grader: an open answer graded by a judge model against a gold answer and a rubric.

    grader:
      type: judge
      rubric: explanation           # facts | explanation | summary (judge.RUBRICS says what each checks)
      gold: "..."                   # the reference answer, shown to the judge
      points:                       # required points, shown to the judge; each must be in the answer
        - text: "..."
          any: [word, "two words", "leak*"]  # screen: the answer must hold one of these (optional;
                                    # whole words, case ignored; a trailing * matches any ending)
      forbidden: [word]             # screen: an answer containing one fails (the trap, a hedge)
      max_words: 60                 # screen: a longer answer fails (summaries)

Before any judge is asked, a screen checks what a program can: an empty answer, a length limit, a
forbidden word, a required point none of whose words appears. An answer that fails the screen fails
without a judge (and costs nothing); one that passes is graded by the judge, whose verdict decides. The
screen's words are necessary, never sufficient: a near miss that uses the right words is the judge's to
catch. Without a judge (`--crucible-judge`) judged items are skipped before they are asked.
"""

from __future__ import annotations

import re

from pytest_crucible.grading.base import BaseGrader, Grade, VerifyContext, as_list
from pytest_crucible.grading.extract import clean_answer, plain, word_pattern, words
from pytest_crucible.grading.judge_model import RUBRICS, JudgeError


def check(spec: dict) -> list[tuple[str | None, str]]:
    problems: list[tuple[str | None, str]] = []
    if spec.get("rubric") not in RUBRICS:
        problems.append(("rubric", f"rubric must be one of {', '.join(RUBRICS)}"))
    if not isinstance(spec.get("gold"), str) or not spec["gold"].strip():
        problems.append(("gold", "gold is the reference answer the judge compares with (a non-empty string)"))
    points = spec.get("points")
    if not isinstance(points, list) or not points:
        problems.append(("points", "points lists the required points (strings, or {text, any: [words]})"))
    else:
        for i, point in enumerate(points):
            if isinstance(point, str) and point.strip():
                continue
            if not isinstance(point, dict) or not isinstance(point.get("text"), str) or set(point) - {"text", "any"}:
                problems.append((f"points[{i}]", "a point is a string or {text, any: [words]}"))
            elif "any" in point and not _words_list(point["any"]):
                problems.append((f"points[{i}].any", "any is a non-empty list of words the answer must hold one of"))
    if "forbidden" in spec and not _words_list(spec["forbidden"]):
        problems.append(("forbidden", "forbidden is a non-empty list of words an answer must not hold"))
    limit = spec.get("max_words")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0):
        problems.append(("max_words", "max_words is a positive number of words"))
    unknown = set(spec) - {"type", "rubric", "gold", "points", "forbidden", "max_words"}
    if unknown:
        problems.append((sorted(unknown)[0], "unknown key; allowed: rubric, gold, points, forbidden, max_words"))
    return problems


def _words_list(value) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(w, str) and w.strip() for w in value)


def screen(spec: dict, answer: str) -> str | None:
    """Why the answer fails before any judge is asked, or None."""
    if not answer.strip():
        return "empty response"
    text = plain(answer)
    limit = spec.get("max_words")
    count = len(words(answer))
    if limit and count > limit:
        return f"{count} words, at most {limit}"
    for word in spec.get("forbidden") or []:
        if _keyword(word).search(text):
            return f"says {word!r}, which the reference rules out"
    for i, point in enumerate(spec.get("points") or [], 1):
        wanted = point.get("any") if isinstance(point, dict) else None
        if wanted and not any(_keyword(w).search(text) for w in wanted):
            return f"misses point {i} ({point['text']})"
    return None


def _keyword(word: str) -> re.Pattern:
    """A screen word: whole, case ignored; `leak*` is a word that starts with `leak`."""
    if word.endswith("*"):
        return re.compile(word_pattern(word[:-1]).pattern.removesuffix(r"(?!\w)"), re.I)
    return word_pattern(word)


def grade(case, response, judge=None) -> Grade:
    if judge is not None:  # a judge that fails its canary grades nothing, not even what the screen would fail
        judge.ensure_canary()
    if response.truncated:  # nothing complete to judge; graders.grade() gives the truncation as the reason
        return Grade(passed=False, reason="")
    answer = clean_answer(response.content)
    failed = screen(case.grader, answer)
    if failed:
        return Grade(passed=False, reason=failed, answer=answer)
    if judge is None:
        raise JudgeError("a judged case passed the screen, and no judge was given to grade it "
                         "(--crucible-judge MODEL)")
    verdict = judge.grade(case, answer)
    reason = "" if verdict.passed else f"judge {verdict.judge}: {verdict.reasons or 'fail'}"
    return Grade(passed=verdict.passed, reason=reason, answer=answer, details={"judge": verdict.to_row()})


class JudgeGrader(BaseGrader):
    """Verified without a judge, a judged case's reference must pass the screen (or the screen would fail
    right answers), its wrong answers that fail the screen are checked there, and at least one must pass
    the screen: a near miss that only the judge can fail, so the case tests the judge and not just the
    screen. With a judge, the reference must pass and every near miss fail."""

    needs_judge = True

    def check(self, spec: dict) -> list[tuple[str | None, str]]:
        return check(spec)

    def grade(self, case, response, judge=None) -> Grade:
        return grade(case, response, judge=judge)

    def verification_problems(self, case, verify: dict) -> list[str]:
        problems = super().verification_problems(case, verify)
        wrong = as_list(verify.get("wrong"))
        if len(wrong) < 3 or not all(isinstance(w, str) for w in wrong) or not isinstance(verify.get("reference"), str):
            problems.append("a judged case needs verify.reference (an answer the judge must pass) and at least three "
                            "verify.wrong answers (a refusal, an off-task answer and a near miss the judge must fail)")
        return problems

    def verify_replies(self, case, context: VerifyContext) -> None:
        verify, spec = case.verify if isinstance(case.verify, dict) else {}, case.grader
        if isinstance(verify.get("reference"), str):
            failed = screen(spec, clean_answer(verify["reference"]))
            context.count("references_graded")
            if failed:
                context.problem(f"verify.reference fails the screen of its judged case: {failed}")
        near_misses = 0
        for wrong in as_list(verify.get("wrong")):
            if not isinstance(wrong, str):
                continue
            if screen(spec, clean_answer(wrong)) is None:
                near_misses += 1
            else:
                context.count("references_graded")
        context.count("left_to_judge", near_misses)
        if not near_misses:
            context.problem("no verify.wrong answer passes the screen: add a near miss (the reference's words, a "
                            "wrong claim) that only the judge can fail")

    def judged_replies(self, case) -> list[tuple[str, str, bool]]:
        verify, spec = case.verify if isinstance(case.verify, dict) else {}, case.grader
        if not isinstance(verify.get("reference"), str):
            return []
        replies = [("verify.reference", clean_answer(verify["reference"]), True)]
        replies += [(f"verify.wrong[{i}]", clean_answer(w), False) for i, w in enumerate(as_list(verify.get("wrong")))
                    if isinstance(w, str) and screen(spec, clean_answer(w)) is None]
        return replies


GRADER = JudgeGrader()
