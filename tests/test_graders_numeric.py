"""numeric grader: the answer line first, no guessing among several numbers."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pytest_crucible.case import Case
from pytest_crucible.graders import check_spec, grade
from pytest_crucible.response import Response, Usage


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
    "Answer: 40\nWait, that is wrong; recount.\nAnswer: 44",
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
