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

Before any judge is asked, a screen fails what is certainly wrong: an empty answer, one over the length limit, a
refusal, an answer that says both yes and no or opens with two answers to choose from ("Either ... or ..."),
the prompt parroted back, an off-task answer (one that makes fewer than half of the points that list
`any` words, by those words), and one that asserts a forbidden word (says it, not only to set it aside: "not the
withdrawn Quarry Lane plan" passes, "Quarry Lane or Mill Street" fails). Everything else, every paraphrase of a
right answer above all, goes to the judge, whose verdict decides; the screen's words are necessary for half the
points, never sufficient. Without a judge (`--crucible-judge`) judged items are skipped before they are asked.

Verification: each judged case's `verify` holds a reference, at least three `accepted` paraphrases (right
answers in other words, which must pass the screen and which a judge must pass) and at least three `wrong`
answers (a refusal, an off-task answer and a near miss that passes the screen for the judge to fail).
"""

from __future__ import annotations

import re

from pytest_crucible.grading import commitment
from pytest_crucible.grading.base import BaseGrader, Grade, VerifyContext, as_list
from pytest_crucible.grading.extract import clean_answer, plain, word_pattern, words

# A refusal opens the answer: "I'm sorry, but I can't ...", "I cannot help with that", "As an AI ...".
_REFUSAL = re.compile(
    r"^\W*(?:(?:i'?m|i\s+am)\s+(?:sorry|afraid)\b[^.!?\n]{0,40}?\b(?:can(?:no|')?t|unable|won'?t|not\s+able)|"
    r"i\s+(?:can(?:no|')?t|won'?t|will\s+not|am\s+unable\s+to|am\s+not\s+able\s+to)\s+"
    r"(?:help|assist|answer|do|provide|comply|summari[sz]e|explain|share|complete)|as\s+an\s+ai\b|"
    r"sorry,?\s+(?:but\s+)?i\s+can(?:no|')?t)", re.I)
# "Either print caches its output or ...", "Maybe range is lazy, or maybe ...": two answers offered at the start
_HEDGED_OPENING = re.compile(r"^\W*(?:it\s+is\s+)?(?:either(?!\s+way)|maybe|perhaps|possibly|"
                             r"it\s+(?:could|might|may)\s+be)\b[^.!?\n]*\bor\b", re.I)
_VERDICTS = frozenset({"yes", "no", "true", "false", "maybe", "possibly"})
_OPENING = 15    # words at the start of an answer where a verdict is given
_GRAM = 5        # words in the runs a parroted answer shares with the prompt
_PARROTED = 0.5  # share of the prompt's runs an answer that parrots it repeats
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


def screen(spec: dict, answer: str, prompt: str = "") -> str | None:
    """Why the answer is certainly wrong before any judge is asked (see the module docstring), or None."""
    if not answer.strip():
        return "empty response"
    text = plain(answer)
    limit = spec.get("max_words")
    count = len(words(answer))
    if limit and count > limit:
        return f"{count} words, at most {limit}"
    points = [p for p in spec.get("points") or [] if isinstance(p, dict) and p.get("any")]
    made = [p for p in points if any(_keyword(w).search(text) for w in p["any"])]
    if _REFUSAL.search(text) and len(made) * 2 < len(points) + 1:
        return "a refusal"
    if _both_ways(text):
        return "a hedge: says both yes and no"
    if _HEDGED_OPENING.search(text):
        return "a hedge: opens with two answers to choose from"
    if prompt and _parrots(text, plain(prompt)):
        return "repeats the prompt instead of answering it"
    for word in spec.get("forbidden") or []:
        if _asserts(text, word):
            return f"says {word!r}, which the reference rules out"
    if points and len(made) * 2 < len(points):
        missed = [p for p in points if p not in made]
        return f"off-task: makes {len(made)} of {len(points)} points (misses point " \
               f"{points.index(missed[0]) + 1}: {missed[0]['text']})"
    return None


def _both_ways(text: str) -> bool:
    """Does the answer open with both verdicts ("Yes. No. It depends.", "yes no true false")?"""
    opening = {w.casefold() for w in words(text)[:_OPENING]}
    return {"yes", "no"} <= opening or len(opening & _VERDICTS) >= 3


def _grams(text: str) -> set[tuple[str, ...]]:
    tokens = [w.casefold() for w in words(text)]
    return {tuple(tokens[i:i + _GRAM]) for i in range(len(tokens) - _GRAM + 1)}


def _parrots(answer: str, prompt: str) -> bool:
    asked = _grams(prompt)
    return bool(asked) and len(asked & _grams(answer)) >= _PARROTED * len(asked)


def _asserts(text: str, word: str) -> bool:
    """Does the answer say a forbidden word as a claim of its own, not only to set it aside?"""
    pattern = _keyword(word)
    for clause in re.split(r"\n|(?<=[.!?;])\s+", text):
        if pattern.search(clause):
            rest = pattern.sub(" ", clause)
            if commitment.hedges(rest) or not commitment.rejects(rest):
                return True
    return False


def _keyword(word: str) -> re.Pattern:
    """A screen word: whole, case ignored; `leak*` is a word that starts with `leak`."""
    if word.endswith("*"):
        return re.compile(word_pattern(word[:-1]).pattern.removesuffix(r"(?!\w)"), re.I)
    return word_pattern(word)


def prompt_of(case) -> str:
    """What the model was asked: the case's user messages."""
    return "\n".join(m.get("content") for m in case.messages
                     if m.get("role") == "user" and isinstance(m.get("content"), str))


def grade(case, response, judge=None) -> Grade:
    if judge is not None:  # a judge that fails its canary grades nothing, not even what the screen would fail
        judge.ensure_canary()
    if response.truncated:  # nothing complete to judge; graders.grade() gives the truncation as the reason
        return Grade(passed=False, reason="")
    answer = clean_answer(response.content)
    failed = screen(case.grader, answer, prompt_of(case))
    if failed:
        return Grade(passed=False, reason=failed, answer=answer)
    if judge is None:
        raise JudgeError("a judged case passed the screen, and no judge was given to grade it "
                         "(--crucible-judge MODEL)")
    verdict = judge.grade(case, answer)
    reason = "" if verdict.passed else f"judge {verdict.judge}: {verdict.reasons or 'fail'}"
    return Grade(passed=verdict.passed, reason=reason, answer=answer, details={"judge": verdict.to_row()})


class JudgeGrader(BaseGrader):
    """Verified without a judge, a judged case's reference and its accepted paraphrases must pass the screen (or
    the screen would fail right answers), its wrong answers that fail the screen are checked there, and at least
    one must pass the screen: a near miss that only the judge can fail, so the case tests the judge and not just
    the screen. With a judge, the reference and every paraphrase must pass and every near miss fail."""

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
        accepted = verify.get("accepted")
        if not isinstance(accepted, list) or len(accepted) < 3 or not all(isinstance(a, str) for a in accepted):
            problems.append("a judged case needs at least three verify.accepted paraphrases: right answers in other "
                            "words, which the screen must let through to the judge")
        return problems

    def verify_replies(self, case, context: VerifyContext) -> None:
        verify, spec, prompt = case.verify if isinstance(case.verify, dict) else {}, case.grader, prompt_of(case)
        right = [("verify.reference", verify.get("reference"))]
        right += [(f"verify.accepted[{i}]", a) for i, a in enumerate(as_list(verify.get("accepted")))]
        for label, answer in right:
            if not isinstance(answer, str):
                continue
            failed = screen(spec, clean_answer(answer), prompt)
            context.count("references_graded")
            if failed:
                context.problem(f"{label} fails the screen of its judged case: {failed}")
        near_misses = 0
        for wrong in as_list(verify.get("wrong")):
            if not isinstance(wrong, str):
                continue
            if screen(spec, clean_answer(wrong), prompt) is None:
                near_misses += 1
            else:
                context.count("references_graded")
        context.count("left_to_judge", near_misses)
        if not near_misses:
            context.problem("no verify.wrong answer passes the screen: add a near miss (the reference's words, a "
                            "wrong claim) that only the judge can fail")

    def judged_replies(self, case) -> list[tuple[str, str, bool]]:
        verify, spec, prompt = case.verify if isinstance(case.verify, dict) else {}, case.grader, prompt_of(case)
        if not isinstance(verify.get("reference"), str):
            return []
        replies = [("verify.reference", clean_answer(verify["reference"]), True)]
        replies += [(f"verify.accepted[{i}]", clean_answer(a), True)
                    for i, a in enumerate(as_list(verify.get("accepted"))) if isinstance(a, str)]
        replies += [(f"verify.wrong[{i}]", clean_answer(w), False) for i, w in enumerate(as_list(verify.get("wrong")))
                    if isinstance(w, str) and screen(spec, clean_answer(w), prompt) is None]
        return replies


GRADER = JudgeGrader()
