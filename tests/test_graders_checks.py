"""checks grader: instruction constraints, each recorded."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_crucible.case import Case
from pytest_crucible.graders import check_spec, grade
from pytest_crucible.graders.checks import sentences, words
from pytest_crucible.response import Response

PROMPT = "x" * 100


def run(constraints: list[dict], content: str, prompt: str = PROMPT):
    grader = {"type": "checks", "constraints": constraints}
    assert check_spec(grader) == []
    case = Case(id="t", category="instruct", difficulty="easy",
                messages=({"role": "user", "content": prompt},), grader=grader)
    return grade(case, Response(content=content))


def one(constraint: dict, content: str, prompt: str = PROMPT) -> tuple[bool, str]:
    g = run([constraint], content, prompt)
    result = g.details["constraints"][0]
    assert result["kind"] == constraint["kind"] and result["passed"] is g.passed
    return result["passed"], result["note"]


def test_every_constraint_is_recorded_and_the_reason_names_the_failed_ones():
    reply = "Sure! Here is my summary:\n\n" + " ".join(["word"] * 212) + ". All set."
    g = run([{"kind": "word_count", "max": 150}, {"kind": "ends_with", "text": "Done."},
             {"kind": "starts_with", "text": "word word"}, {"kind": "case", "value": "lower"},
             {"kind": "no_preamble"}], reply)
    assert not g.passed
    assert [c["passed"] for c in g.details["constraints"]] == [False, False, True, False, False]
    assert g.reason.startswith("4 of 5 constraints failed: word_count 214 > 150; ends_with \"Done.\" "
                               "(reply ends \"…")
    assert "case 1 word not lowercase: \"All\"" in g.reason
    assert 'no_preamble opens with "Sure! Here is my summary: word…"' in g.reason


@pytest.mark.parametrize("constraint, content, passed, note", [
    ({"kind": "word_count", "min": 3, "max": 5}, "one two three four", True, "4"),
    ({"kind": "word_count", "min": 5}, "don't well-known 3.14 1,000", False, "4 < 5"),
    ({"kind": "sentence_count", "max": 2}, "One. Two! Three?", False, "3 > 2"),
    ({"kind": "sentence_count", "min": 2, "max": 2}, "Pi is 3.14 exactly. Done.", True, "2"),
    ({"kind": "line_count", "max": 2}, "a\n\nb\n\nc", False, "3 > 2"),
    ({"kind": "char_count", "max": 5}, "Sure! abcdef", False, "6 > 5"),
    ({"kind": "starts_with", "text": "Dear team,"}, "**Dear team,** hello", True, '"Dear team,"'),
    ({"kind": "starts_with", "text": "Dear team,", "case_sensitive": True}, "dear team, hi", False,
     '"Dear team," (reply starts "dear team, hi")'),
    ({"kind": "ends_with", "text": "Done."}, "All good. Done.  \n", True, '"Done."'),
    ({"kind": "case", "value": "upper"}, "ALL CAPS 123", True, "upper"),
    ({"kind": "case", "value": "upper"}, "ALL Caps and more", False,
     '3 words not uppercase: "Caps", "and", "more"'),
    ({"kind": "required_words", "words": ["alpha", "beta"]}, "Alpha and gamma", False, 'missing "beta"'),
    ({"kind": "forbidden_words", "words": ["very", "really"]}, "every day, really", False, 'found "really"'),
    ({"kind": "forbidden_words", "words": ["very"]}, "every day", True, "none present"),
    ({"kind": "forbidden_words", "words": ["certainly"]}, "Certainly! Every day.", False,
     'found "certainly"'),
    ({"kind": "keyword_count", "word": "AI", "min": 2, "max": 3}, "AI, ai and AIs. AI", True, '"AI" 3'),
    ({"kind": "keyword_count", "word": "AI", "max": 1}, "AI and AI", False, '"AI" 2 > 1'),
    ({"kind": "line_format", "pattern": r"\d+\. .+"}, "1. a\n2. b\n\n3. c", True, "3 lines match"),
    ({"kind": "line_format", "pattern": r"\d+\. .+"}, "1. a\nb", False, 'line 2 "b" does not match'),
    ({"kind": "line_format", "pattern": r"\d+\. .+", "min_lines": 3}, "1. a\n2. b", False, "2 lines < 3"),
    ({"kind": "line_format", "pattern": r"[A-Z]+", "all": False, "min_lines": 2}, "AB\nxy\nCD", True,
     "2 matching lines"),
    ({"kind": "bullet_count", "min": 3}, "- a\n* b\n+ c\n• d\nnot -e", True, "4"),
    ({"kind": "numbered_list", "min": 3}, "1. a\n2) b\n3 c", False, "2 < 3"),
    ({"kind": "json_shape", "required": {"n": "integer"}}, 'Here:\n```json\n{"n": "3"}\n```', False,
     'key "n" is string, expected integer'),
    ({"kind": "json_shape", "required": {"n": "integer"}}, "nothing", False, "no JSON object"),
    ({"kind": "json_shape", "required": {"n": "integer"}}, 'x {"n": 3} y', True, "shape ok"),
    ({"kind": "max_ratio", "value": 0.5}, "y" * 50, True, "0.5 <= 0.5 (50 chars for a 100-char prompt)"),
    ({"kind": "max_ratio", "value": 0.5}, "Sure! " + "y" * 50, False,
     "0.56 > 0.5 (56 chars for a 100-char prompt)"),
    ({"kind": "no_preamble"}, "<think>ok</think>Paris", True, "none"),
    ({"kind": "no_preamble"}, "Certainly. Paris", False, 'opens with "Certainly. Paris"'),
    ({"kind": "contains_number", "value": 1234}, "about 1,234 items", True, "1234"),
    ({"kind": "contains_number", "value": 27}, "127 items", False, "no 27 in the reply"),
])
def test_constraints(constraint, content, passed, note):
    assert one(constraint, content) == (passed, note)


def test_checks_apply_to_the_answer_without_reasoning_or_preamble():
    reply = "<think>Lots of reasoning here with many words.</think>Sure! Here you go:\n\nshort answer"
    assert one({"kind": "word_count", "max": 2}, reply) == (True, "2")
    assert one({"kind": "starts_with", "text": "short"}, reply)[0]
    assert not one({"kind": "no_preamble"}, reply)[0]


def test_empty_reply():
    g = run([{"kind": "word_count", "max": 10}], "<think>only thoughts</think>")
    assert not g.passed and g.reason == "empty response"


@pytest.mark.parametrize("constraint, field", [
    ({"kind": "word_count"}, "constraints[0].min"),
    ({"kind": "word_count", "min": 5, "max": 2}, "constraints[0].max"),
    ({"kind": "word_count", "max": -1}, "constraints[0].max"),
    ({"kind": "words", "max": 1}, "constraints[0].kind"),
    ({"kind": "starts_with"}, "constraints[0].text"),
    ({"kind": "case", "value": "title"}, "constraints[0].value"),
    ({"kind": "required_words", "words": []}, "constraints[0].words"),
    ({"kind": "line_format", "pattern": "("}, "constraints[0].pattern"),
    ({"kind": "json_shape", "required": {"a": "int"}}, "constraints[0].required.a"),
    ({"kind": "max_ratio", "value": 0}, "constraints[0].value"),
    ({"kind": "contains_number", "value": "many"}, "constraints[0].value"),
    ({"kind": "ends_with", "text": "x", "tex": "y"}, "constraints[0].tex"),
])
def test_check_reports_bad_constraints(constraint, field):
    problems = check_spec({"type": "checks", "constraints": [constraint]})
    assert field in [f for f, _ in problems]


def test_check_needs_constraints():
    assert check_spec({"type": "checks"}) == [
        ("constraints", "constraints is a non-empty list, e.g. [{kind: word_count, max: 150}]")]


_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)


@given(st.lists(_word, min_size=1, max_size=40), st.sampled_from([" ", "  ", "\n", " - ", ", "]))
def test_word_count_counts_the_words_written(ws, sep):
    assert len(words(sep.join(ws))) == len(ws)


@given(st.lists(st.lists(_word, min_size=1, max_size=6), min_size=1, max_size=8), st.sampled_from(".!?"))
def test_sentence_count_counts_the_sentences_written(sents, end):
    text = " ".join(" ".join(s).capitalize() + end for s in sents)
    assert len(sentences(text)) == len(sents)


@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 60))
def test_word_count_bounds_pass_exactly_when_in_range(n, lo, hi):
    bounds = {"kind": "word_count", "min": min(lo, hi), "max": max(lo, hi)}
    passed, _ = one(bounds, " ".join(["w"] * n) or "-")
    assert passed is (min(lo, hi) <= n <= max(lo, hi))
