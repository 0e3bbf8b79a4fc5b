"""The math case families (cases/math/*_cases.py) under several seeds: every answer re-derived by its
stored solver, ids stable and saying the family, the tier's budget and notes present, the reference
and differently phrased right answers passing, every wrong reply and every adversarial reply failing."""

from __future__ import annotations

import contextlib
import io
import re
from collections import Counter
from fractions import Fraction

import pytest
from adversarial import adversarial_replies
from builtin_suite import builtin_cases

from pytest_crucible.client.response import Response
from pytest_crucible.grading import grade
from pytest_crucible.grading.extract import parse_number
from pytest_crucible.suite.case import DEFAULT_SEED, builtin_cases_dir, load_case_file

MATH = builtin_cases_dir() / "math"
FAMILY_FILES = sorted(MATH.glob("*_cases.py"))
SEEDS = [DEFAULT_SEED, 12345, 2027]
ID = re.compile(r"^(MA-[a-z]+)-(\d\d)$")


@pytest.fixture(scope="module", params=SEEDS, ids=lambda s: f"seed{s}")
def family_cases(request):
    return [c for path in FAMILY_FILES for c in load_case_file(path, request.param)]


def _solve(source: str) -> Fraction:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<solver>", "exec"), {"__name__": "__main__"})
    lines = out.getvalue().split()
    assert len(lines) == 1, lines
    return parse_number(lines[0])


def _reply(text: str) -> Response:
    return Response(content=text, finish_reason="stop")


def test_there_are_many_families_of_several_cases(family_cases):
    per_family = Counter(c.family for c in family_cases)
    assert len(per_family) >= 10, per_family
    assert all(3 <= n <= 8 for n in per_family.values()), per_family  # session 9: new families have 3


def test_ids_say_the_family_and_are_stable_per_seed(family_cases):
    for case in family_cases:
        m = ID.match(case.id)
        assert m and m.group(1) == case.family, case.id
    again = [c for path in FAMILY_FILES for c in load_case_file(path, None)]
    first = [c for path in FAMILY_FILES for c in load_case_file(path, DEFAULT_SEED)]
    assert [(c.id, c.content_hash) for c in again] == [(c.id, c.content_hash) for c in first]


def test_a_new_seed_asks_new_questions():
    base = {c.id: c.content_hash for path in FAMILY_FILES for c in load_case_file(path, DEFAULT_SEED)}
    other = {c.id: c.content_hash for path in FAMILY_FILES for c in load_case_file(path, 12345)}
    assert base.keys() == other.keys()
    assert sum(base[k] != other[k] for k in base) >= 0.9 * len(base)


def test_every_solver_re_derives_the_graders_answer(family_cases):
    for case in family_cases:
        assert _solve(case.verify["solver"]) == parse_number(case.grader["answer"]), case.id


def test_hard_cases_argue_their_tier_and_get_a_thinking_budget(family_cases):
    for case in family_cases:
        assert len(case.notes) > 150 and "Traps" in case.notes, case.id
        if case.hard:
            assert 16384 <= case.max_tokens <= 32768, case.id
    assert sum(c.hard for c in family_cases) >= 50


def test_references_pass_and_wrong_replies_fail(family_cases):
    for case in family_cases:
        result = grade(case, _reply(case.verify["reference"]))
        assert result.passed, (case.id, result.reason)
        wrong = case.verify["wrong"]
        assert any(" or " in w for w in wrong) and any("Answer" not in w for w in wrong), case.id
        for reply in wrong:
            assert not grade(case, _reply(reply)).passed, (case.id, reply)


def _phrasings(answer: Fraction) -> list[str]:
    spelled = str(answer.numerator) if answer.denominator == 1 else f"{answer.numerator}/{answer.denominator}"
    forms = [
        f"Answer: {spelled}",
        f"**Answer:** {spelled}",
        f"Sure! Here is the working.\n\nAfter the count, the result is {spelled}.\n\n**Final answer:** {spelled}",
        f"So the result is $\\boxed{{{spelled}}}$.",
        f"Answer: {spelled}. That completes the count.",
        f"<think>maybe {answer + 1}?</think>\nAnswer: {spelled}",
    ]
    if answer.denominator == 1:
        forms += [f"Answer: {answer.numerator:,}", f"**Answer: {answer.numerator:,} in total**"]
    else:
        forms += [f"Answer: $\\frac{{{answer.numerator}}}{{{answer.denominator}}}$",
                  f"Answer: {spelled} ≈ {float(answer):.4f}", f"**Answer:** {spelled} (about {float(answer):.2%})"]
    return forms


def test_the_right_answer_phrased_differently_passes(family_cases):
    for case in family_cases:
        for text in _phrasings(parse_number(case.grader["answer"])):
            result = grade(case, _reply(text))
            assert result.passed, (case.id, text, result.reason)


def test_no_refusal_parrot_or_spray_passes(family_cases):
    for case in family_cases:
        for label, reply in adversarial_replies(case):
            assert not grade(case, reply).passed, (case.id, label)


def test_the_math_category_is_large_and_mostly_hard():
    math = [c for c in builtin_cases() if c.category == "math"]
    tiers = Counter(c.difficulty for c in math)
    assert len(math) >= 70 and tiers["hard"] >= 50 and tiers["easy"] >= 3, tiers


def test_numeric_case_builds_the_wrong_replies_and_refuses_generator_slips():
    from pytest_crucible.suite.families import REFUSAL, numeric_case

    def build(answer, traps, **kw):
        return numeric_case(family="MA-x", index=3, difficulty="hard", prompt="How many?", answer=answer,
                            solver="print(44)", reference="Answer: 44", traps=traps, notes="n",
                            max_tokens=16384, **kw)

    case = build(44, [40, 44])
    assert case["id"] == "MA-x-03" and case["grader"] == {"type": "numeric", "answer": 44}
    assert case["prompt"].endswith("`Answer: <number>`.")
    assert case["verify"]["wrong"] == [
        "Answer: 40", "Answer: 45", "Answer: 44 or 40", "**Answer:** 40 (though it may be 44)",
        "Answer: 44\n\nOn second thought, recounting gives a different total.\n\nAnswer: 40", REFUSAL]
    with pytest.raises(ValueError, match="no trap differs"):
        build(44, [44])
    with pytest.raises(ValueError, match="is a fraction"):
        build(Fraction(7, 24), [Fraction(1, 3)])
    fraction = build(Fraction(7, 24), [Fraction(1, 2)], as_fraction=True)
    assert fraction["grader"]["answer"] == "7/24" and fraction["prompt"].endswith("`Answer: <fraction>`.")
    # the off-by-one of a fraction moves its numerator: 8/24, written in lowest terms
    assert fraction["verify"]["wrong"][:3] == ["Answer: 1/2", "Answer: 1/3", "Answer: 7/24 or 1/2"]
