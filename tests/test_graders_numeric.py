"""numeric grader: the answer line first, no guessing among several numbers."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pytest_crucible.client.response import Response, Usage
from pytest_crucible.grading import check_spec, grade
from pytest_crucible.suite.case import Case


def run(grader: dict, content: str, **response):
    assert check_spec(grader) == []
    case = Case(id="t", category="math", difficulty="easy",
                messages=({"role": "user", "content": "How many?"},), grader=grader)
    return grade(case, Response(content=content, **response))


@pytest.mark.parametrize("content", [
    "44",
    "44.",
    "**44**",
    "$44$",
    "44 sheep",
    "The farmer has 44 sheep.",
    "11 * 4 = 44",
    "Step 1: 40 + 4.\nAnswer: 44",
    "We try 40 and 42 first.\n\n**Final answer:** 44",
    "So the total is $\\boxed{44}$.",
    "Natalia sold 48/2 = 24 clips in May.\n#### 44",
    "The answer is 44. Check: 4 * 11 = 44.",
    "Answer: 4 x 11 = 44",
    "<think>maybe 40? or 42</think>Answer: 44",
    "Sure! Here's your answer:\n\n44",
    "Answer: forty? no. Answer: 44.0",
])
def test_passes(content):
    g = run({"type": "numeric", "answer": 44}, content)
    assert g.passed, g.reason
    assert g.answer == "44"


@pytest.mark.parametrize("content, reason", [
    ("Answer: 40", "answer 40, expected 44"),
    ("**Final answer:** 4,400", "answer 4400, expected 44"),
    ("40", "answer 40, expected 44"),
    ("We get 40, then 42, then 44.", "no answer line (found 3 numbers, none marked as the answer)"),
    ("First 12 and then 44", "no answer line (found 2 numbers, none marked as the answer)"),
    ("It is forty-four.", "no number in the reply"),
    ("Answer: forty-four", "answer line 'forty-four' holds no number"),
    ("", "empty response"),
    ("<think>the answer is 44</think>", "empty response"),
    ("Answer: 440", "answer 440, expected 44"),
    ("Answer: -44", "answer -44, expected 44"),
    # two marked answers that disagree are a hedge, even when the later one is right
    ("Answer: 40\nWait, that is wrong; recount.\nAnswer: 44", "ambiguous answer (40, 44)"),
])
def test_fails_with_reason(content, reason):
    g = run({"type": "numeric", "answer": 44}, content)
    assert not g.passed
    assert g.reason == reason


def test_several_numbers_never_fall_back_to_the_last():
    g = run({"type": "numeric", "answer": 44}, "Counting: 10, 20, 30 and finally 44")
    assert not g.passed and g.reason.startswith("no answer line (found 4 numbers")


@pytest.mark.parametrize("answer, content", [
    ("3/4", "Answer: 3/4"), ("3/4", "Answer: 0.75"), ("3/4", "\\boxed{\\frac{3}{4}}"),
    (0.75, "Answer: \\dfrac{3}{4}"), (2.5, "Answer: 2 1/2"), (-7, "Answer: −7"),
    (1234567, "Answer: 1,234,567"), (1234567, "Answer: 1\u202f234\u202f567"), (0.1, "Answer: 0.1"),
    (1500000, "Answer: 1.5 × 10^6"), (12, "Answer: $12.00"), (25, "Answer: 25%"),
    (0.5, "Answer: ½"), (0.5, "½"), (1234, "1\u202f234"), (44, "４４"),
])
def test_number_forms(answer, content):
    g = run({"type": "numeric", "answer": answer}, content)
    assert g.passed, g.reason


def test_tolerances():
    spec = {"type": "numeric", "answer": 3.14159, "tolerance": 0.001}
    assert run(spec, "Answer: 3.1416").passed
    assert run(spec, "Answer: 3.14").reason == "answer 3.14, expected 3.14159"
    rel = {"type": "numeric", "answer": 1000, "rel_tolerance": 0.01}
    assert run(rel, "Answer: 1009").passed
    assert not run(rel, "Answer: 1011").passed
    assert not run({"type": "numeric", "answer": 2.5}, "Answer: 2.50001").passed


def test_truncated_reply_is_never_graded_complete():
    g = run({"type": "numeric", "answer": 44}, "Answer: 44", finish_reason="length", max_tokens=100,
            usage=Usage(reasoning_tokens=90))
    assert not g.passed
    assert g.reason == "TRUNCATED at 100 tokens (90 reasoning)"


def test_a_reply_cut_inside_its_reasoning_says_so_with_its_tokens_and_budget():
    spec = {"type": "numeric", "answer": 44}
    # llama.cpp gives no reasoning count: every completion token was reasoning
    g = run(spec, "", reasoning="first the sheep, then", finish_reason="length", max_tokens=80,
            usage=Usage(completion_tokens=80))
    assert not g.passed and g.reason == "TRUNCATED in reasoning after 80 tokens (budget 80)"
    g = run(spec, "", reasoning="counting", finish_reason="length", max_tokens=300,
            usage=Usage(completion_tokens=300, reasoning_tokens=300))
    assert g.reason == "TRUNCATED in reasoning after 300 tokens (budget 300)"
    g = run(spec, "", reasoning="counting", finish_reason="length", max_tokens=300,
            usage=Usage(completion_tokens=120, reasoning_tokens=120))
    assert g.reason.startswith("TRUNCATED in reasoning after 120 tokens (budget 300): the server stopped early")


def test_a_reply_cut_before_max_tokens_blames_the_server_not_max_tokens():
    g = run({"type": "numeric", "answer": 44}, "Answer: 4", finish_reason="length", max_tokens=100,
            usage=Usage(prompt_tokens=8150, completion_tokens=42))
    assert not g.passed
    assert g.reason.startswith("TRUNCATED after 42 of max_tokens 100: the server stopped early (its context window")
    # counted tokens are only an estimate: no claim about who stopped
    g = run({"type": "numeric", "answer": 44}, "Answer: 4", finish_reason="length", max_tokens=100,
            usage=Usage(completion_tokens=42, estimated=True))
    assert g.reason.startswith("TRUNCATED at 100 tokens")


@pytest.mark.parametrize("spec, field", [
    ({"type": "numeric"}, "answer"),
    ({"type": "numeric", "answer": "forty"}, "answer"),
    ({"type": "numeric", "answer": True}, "answer"),
    ({"type": "numeric", "answer": 1, "tolerance": -1}, "tolerance"),
    ({"type": "numeric", "answer": 1, "rel_tolerance": "5%"}, "rel_tolerance"),
    ({"type": "numeric", "answer": 1, "tol": 1}, "tol"),
])
def test_check_reports_bad_specs(spec, field):
    assert field in [f for f, _ in check_spec(spec)]


# ---------------------------------------------------------------- properties

_MARKERS = ["Answer: {}", "**Final answer:** {}", "**Answer:**\n{}", "The answer is {}.", "\\boxed{{{}}}",
            "#### {}", "Final Answer: $\\boxed{{{}}}$"]


def _spellings(value: Fraction) -> st.SearchStrategy[str]:
    if value.denominator == 1:
        n = value.numerator
        forms = [str(n), f"{n:,}", f"{n:,}".replace(",", "\u202f"), f"**{n:,}**", f"{n}.", f"{n} units",
                 f"${n}$", f"{n}.0"]
    else:
        sign = "-" if value < 0 else ""
        a, b = abs(value.numerator), value.denominator
        forms = [f"{sign}{a}/{b}", f"{sign}\\frac{{{a}}}{{{b}}}", f"**{sign}{a}/{b}**"]
    return st.sampled_from(forms)


_values = st.one_of(st.integers(-10**12, 10**12).map(Fraction),
                    st.fractions(min_value=-1000, max_value=1000, max_denominator=500))
_noise = st.lists(st.integers(-10**6, 10**6), max_size=4).map(
    lambda ns: "".join(f"We tried {n} first. " for n in ns))


@given(_values, st.data(), st.sampled_from(_MARKERS), _noise)
def test_any_marked_number_round_trips(value, data, marker, noise):
    written = data.draw(_spellings(value))
    g = run({"type": "numeric", "answer": f"{value.numerator}/{value.denominator}"},
            f"{noise}\n{marker.format(written)}")
    assert g.passed, (written, g.reason)


@given(_values, _values, st.data(), st.sampled_from(_MARKERS), _noise)
def test_a_different_number_never_passes(value, other, data, marker, noise):
    assume(value != other)
    written = data.draw(_spellings(value))
    expected = f"{other.numerator}/{other.denominator}"
    g = run({"type": "numeric", "answer": expected}, f"{noise}\n{marker.format(written)}")
    assert not g.passed
    assert g.reason.endswith(f", expected {expected}") and g.reason.startswith("answer ")


@given(st.lists(st.integers(0, 10**6), min_size=2, max_size=6), st.integers(0, 10**6))
def test_unmarked_numbers_never_pass(numbers, answer):
    g = run({"type": "numeric", "answer": answer}, "I computed " + ", then ".join(map(str, numbers)) + ".")
    assert not g.passed
    assert g.reason == f"no answer line (found {len(numbers)} numbers, none marked as the answer)"


# ---------------------------------------------------------------- hedges and explanations


@pytest.mark.parametrize("content", [
    "Answer: 44",
    "**Answer:** 44 cents",
    "Answer: 44 (that is, 4 × 11)",
    "Answer: 44 (= 4 × 11)",
    "Answer: 44 = 4 × 11",
    "Answer: 4 × 11 = 44",
    "Answer: $4 \\times 11 = 44$",
    "Answer: 44 (4 · 11)",
    "Answer: 44 (2^2 × 11)",
    "Answer: (2 + 2) × 11 = 44",
    "Answer: 44. That is the whole count.",
    "Answer: 44 (forty-four)",
    "Answer: 44 (or 44.0)",
    "Answer: m + n = 19 + 25 = 44",
    "Answer: 7^2026 mod 1000 = 44",
    "Answer: 7^2026 ≡ 44 (mod 1000)",
    "Answer: 44 \\pmod{1000}",
    "Answer: 44 m^2",
    "Answer: \\boxed{44}",
    "The answer is 44.\n\nAnswer: 44",
    "If order mattered, the answer would be 88. It does not.\n\n**Answer:** 44",
    "\\boxed{44}\n\nSo the final answer is 44.",
    "## Answer\n\nWe first count 40 and 2 more pairs...\n\nAnswer: 44",   # a heading over the solution
    "Final Answer: $\\boxed{44}$",
    "Answer: 44\n\n\\boxed{44}",
])
def test_explanations_that_restate_the_answer_pass(content):
    g = run({"type": "numeric", "answer": 44}, content)
    assert g.passed, g.reason


@pytest.mark.parametrize("content, reason", [
    ("Answer: 5413 or 4738", "ambiguous answer (5413, 4738)"),
    ("Answer: 486 (maybe 495)", "ambiguous answer (486, 495)"),
    ("Answer: 44 or 45", "ambiguous answer (44, 45)"),
    ("Answer: 44\nAnswer: 45", "ambiguous answer (44, 45)"),
    ("\\boxed{44} ... or rather \\boxed{45}", "ambiguous answer (44, 45)"),
    ("Answer: 44 (45 if zero counts)", "ambiguous answer (44, 45)"),
    ("Answer: 44; possibly 45", "ambiguous answer (44, 45)"),
    ("Answer: 44, 45", "ambiguous answer (44, 45)"),
    ("Answer: x = 44 or x = 45", "ambiguous answer (44, 45)"),
    ("Answer: 44 [45 with the other reading]", "ambiguous answer (44, 45)"),
    ("Answer: between 40 and 50", "ambiguous answer (40, 50)"),
    ("Answer: 44 (±1)", "ambiguous answer (44, 1)"),
    ("Answer: 127 (m = 19, n = 108)", "ambiguous answer (127, 19, 108)"),
    ("Answer: 44. A second count gives 46.", "ambiguous answer (44, 46)"),
    ("\\boxed{44}\nso the final answer is 45.", "ambiguous answer (44, 45)"),
    ("The answer is 44 or 45.", "ambiguous answer (44, 45)"),
    ("Answer: 44 = 4 × 11 or 45", "ambiguous answer (44, 45)"),
    ("Answer: " + ", ".join(str(n) for n in range(201)), "ambiguous answer (0, 1, 2, 3 and 197 more)"),
    ("\n".join(f"Answer: {n}" for n in range(201)), "ambiguous answer (0, 1, 2, 3 and 197 more)"),
])
def test_two_different_stated_values_are_ambiguous(content, reason):
    g = run({"type": "numeric", "answer": 44}, content)
    assert not g.passed
    assert g.reason == reason


def test_a_restatement_within_the_tolerance_is_not_a_hedge():
    spec = {"type": "numeric", "answer": 3.14159, "tolerance": 0.001}
    assert run(spec, "Answer: 3.14159 (≈ 3.1416)").passed
    assert run(spec, "Answer: 3.1416\nAnswer: 3.1415").passed
    assert run(spec, "Answer: 3.1416 or 3.2").reason == "ambiguous answer (3.1416, 3.2)"


def test_an_arithmetic_answer_line_is_evaluated_exactly():
    assert run({"type": "numeric", "answer": 1024}, "Answer: 2^10").passed
    assert run({"type": "numeric", "answer": "5/6"}, "Answer: 1/2 + 1/3").passed
    assert run({"type": "numeric", "answer": 44}, "Answer: 4 × 11 = 45").reason == "answer 45, expected 44"
    # a power too large to evaluate is read as the numbers it is made of, never computed
    assert run({"type": "numeric", "answer": 2}, "Answer: 2^3^100000").reason == "ambiguous answer (2, 3, 100000)"


_EXPLAINED = [
    "Answer: {v}", "**Answer:** {v} cents", "Answer: {v} (that is, {a} × {b})", "Answer: {a} × {b} = {v}",
    "Answer: {v} = {a} · {b}", "Answer: {a} * {b} = {v}. Nothing else counts.", "\\boxed{{{v}}}\n\nAnswer: {v}",
    "The answer is {v}.\n\nAnswer: {v}",
]
_HEDGES = [
    "Answer: {v} or {w}", "Answer: {v} (maybe {w})", "Answer: {v}\n\nAnswer: {w}", "\\boxed{{{v}}} and \\boxed{{{w}}}",
    "Answer: {v}, or {w} if the ends count", "Answer: {w} (perhaps {v})", "The answer is {v} or {w}.",
    "**Final answer:** {v}\n\nOn reflection, the answer is {w}.", "Answer: {a} × {b} = {v} or {w}",
]


@given(st.integers(1, 10**4), st.integers(1, 10**4), st.sampled_from(_EXPLAINED), _noise)
def test_an_explanation_that_restates_the_answer_passes(a, b, template, noise):
    v = a * b
    g = run({"type": "numeric", "answer": v}, noise + "\n" + template.format(v=f"{v:,}", a=a, b=b))
    assert g.passed, g.reason


@given(st.integers(1, 10**4), st.integers(1, 10**4), st.integers(-10**9, 10**9), st.booleans(),
       st.sampled_from(_HEDGES))
def test_a_hedge_never_passes_whichever_value_is_right(a, b, other, right_first, template):
    v = a * b
    assume(other != v)
    g = run({"type": "numeric", "answer": v if right_first else other},
            template.format(v=v, w=other, a=a, b=b))
    assert not g.passed
    first, second = (other, v) if template.startswith("Answer: {w}") else (v, other)
    assert g.reason == f"ambiguous answer ({first}, {second})"


@pytest.mark.parametrize("content", [
    "Answer: 7/24 = 0.2917",
    "Answer: 7/24 ≈ 0.29167",
    "Answer: $\\frac{7}{24} \\approx 0.2917$",
    "Answer: 7/24 (≈ 29.17%)",
    "Answer: 7/24, about 0.29",
    "Answer: 7/24 ≈ 0.291666...",
    "\\boxed{\\dfrac{7}{24}}\n\nAnswer: 7/24 (approximately 0.292)",
])
def test_a_decimal_that_rounds_the_exact_answer_restates_it(content):
    g = run({"type": "numeric", "answer": "7/24"}, content)
    assert g.passed, g.reason


@pytest.mark.parametrize("content, reason", [
    ("Answer: 0.2917", "answer 0.2917, expected 7/24"),          # asked for the exact value
    ("Answer: 7/24 ≈ 0.28", "answer 0.28, expected 7/24"),        # not a rounding of 7/24
    ("Answer: 7/24 (or 0.28)", "ambiguous answer (7/24, 0.28)"),
    ("Answer: 7/24 or 5/17", "ambiguous answer (7/24, 5/17)"),
    ("Answer: 7/24 (29%... or 30%)", "ambiguous answer (7/24, 30)"),
])
def test_a_decimal_that_does_not_round_the_answer_is_a_value_of_its_own(content, reason):
    g = run({"type": "numeric", "answer": "7/24"}, content)
    assert not g.passed
    assert g.reason == reason


@given(st.fractions(min_value=-1000, max_value=1000, max_denominator=10**4), st.integers(1, 8),
       st.sampled_from(["Answer: {v} ≈ {d}", "Answer: {v} = {d}", "Answer: {v} (≈ {d})", "Answer: {v}, about {d}"]))
def test_rounding_restates_and_a_different_decimal_does_not(value, places, template):
    exact = f"{value.numerator}/{value.denominator}"
    rounded = round(value, places)
    assume(rounded != value)
    shown = f"{float(rounded):.{places}f}"
    assert run({"type": "numeric", "answer": exact}, template.format(v=exact, d=shown)).passed
    off = f"{float(rounded + Fraction(2, 10 ** places)):.{places}f}"
    assert not run({"type": "numeric", "answer": exact}, template.format(v=exact, d=off)).passed


@pytest.mark.parametrize("content, passed", [
    ("Answer: 44 five-digit numbers", True),
    ("Answer: 44 5-digit numbers", True),
    ("Answer: 44 integers n with 1 ≤ n ≤ 119,826", True),
    ("Answer: 44 values of $n \\leq 500$", True),
    ("Answer: 44 integers up to 119,826", False),      # a restated bound without a comparison is a value
    ("Answer: 44 (out of 90 numbers)", False),
])
def test_words_and_bounds_beside_the_answer(content, passed):
    g = run({"type": "numeric", "answer": 44}, content)
    assert g.passed == passed, g.reason
