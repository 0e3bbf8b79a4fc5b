"""mapping grader: logic-grid assignments in lines, tables and prose."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pytest_crucible.case import Case
from pytest_crucible.graders import check_spec, grade
from pytest_crucible.response import Response

PETS = {"type": "mapping", "answer": {"Alice": "cat", "Bob": "dog", "Carol": "fish", "Dan": "bird"}}


def run(grader: dict, content: str):
    assert check_spec(grader) == []
    case = Case(id="t", category="reasoning", difficulty="medium",
                messages=({"role": "user", "content": "Who owns which pet?"},), grader=grader)
    return grade(case, Response(content=content))


@pytest.mark.parametrize("content", [
    "Alice: cat\nBob: dog\nCarol: fish\nDan: bird",
    "- **Alice** - cat\n- **Bob** → dog\n- Carol = fish\n- Dan: bird",
    "1. Alice: Cat\n2. Bob: Dog\n3. Carol: Fish\n4. Dan: Bird",
    "| Person | Pet |\n|---|---|\n| Alice | cat |\n| Bob | dog |\n| Carol | fish |\n| Dan | bird |",
    "Alice owns the cat, Bob owns the dog, the fish belongs to Carol and Dan has the bird.",
    "Alice has the cat and Bob has the dog. Carol keeps the fish; Dan keeps the bird.",
    "Alice: cat, Bob: dog, Carol: fish, Dan: bird",
    # working-out with hypotheses and denials, then the answer
    "If Alice had the dog, Bob would have the cat, a contradiction. Bob does not own the fish.\n"
    "Suppose Carol has the bird: clue 3 fails.\n\n"
    "Final answer:\nAlice: cat\nBob: dog\nCarol: fish\nDan: bird",
    # tentative lines in the reasoning, the last block is the answer
    "Try: Alice: dog? That breaks clue 2.\n\nAlice: cat\nBob: dog\nCarol: fish\nDan: bird\n\n"
    "All clues check out.",
])
def test_mapping_passes(content):
    g = run(PETS, content)
    assert g.passed, g.reason


@pytest.mark.parametrize("content, reason", [
    ("Alice: cat\nBob: fish\nCarol: dog\nDan: bird", "Bob: fish, expected dog (2 of 4 wrong)"),
    ("Alice: cat\nBob: hamster\nCarol: fish\nDan: bird", "Bob: hamster, expected dog"),
    ("Alice: cat\nBob: dog\nDan: bird", "no assignment found for Carol"),
    ("Alice: cat\nBob: dog\nCarol: fish\nDan: bird\nCarol: dog",
     "Carol: fish and dog (conflicting), expected fish"),
    ("I am not sure.", "no assignment found for Alice (4 of 4 wrong)"),
    ("Alice: cat or dog\nBob: dog\nCarol: fish\nDan: bird", "no assignment found for Alice"),
    ("", "empty response"),
])
def test_mapping_fails(content, reason):
    g = run(PETS, content)
    assert not g.passed
    assert g.reason == reason


def test_mapping_case_and_number_values():
    houses = {"type": "mapping", "answer": {"Red": 1, "Blue": 2}}
    assert run(houses, "Red: 1\nBlue: 2").passed
    assert run(houses, "Red: 2\nBlue: 1").reason == "Red: 2, expected 1 (2 of 2 wrong)"
    cs = {"type": "mapping", "answer": {"Alice": "Cat"}, "case_sensitive": True}
    assert not run(cs, "Alice: cat").passed


@pytest.mark.parametrize("spec, field", [
    ({"type": "mapping"}, "answer"),
    ({"type": "mapping", "answer": {"Alice": ["cat"]}}, "answer.Alice"),
    ({"type": "mapping", "answer": {"Alice": "Bob", "Bob": "Alice"}}, "answer"),
])
def test_mapping_check(spec, field):
    assert field in [f for f, _ in check_spec(spec)]


_names = ["Alice", "Bob", "Carol", "Dan", "Erin"]
_values = ["cat", "dog", "fish", "bird", "snake"]
_LINE_FORMS = ["{k}: {v}", "- {k} - {v}", "**{k}**: {v}", "| {k} | {v} |", "{k} owns the {v}.",
               "The {v} belongs to {k}."]


@given(st.permutations(_values), st.lists(st.sampled_from(_LINE_FORMS), min_size=5, max_size=5),
       st.permutations(range(5)))
def test_mapping_reads_any_mix_of_forms_in_any_order(values, forms, order):
    answer = dict(zip(_names, values))
    reply = "\n".join(forms[i].format(k=_names[i], v=values[i]) for i in order)
    g = run({"type": "mapping", "answer": answer}, reply)
    assert g.passed, (reply, g.reason)


@given(st.permutations(_values), st.permutations(_values), st.sampled_from(_LINE_FORMS))
def test_mapping_wrong_assignment_never_passes(truth, given_values, form):
    assume(truth != given_values)
    reply = "\n".join(form.format(k=k, v=v) for k, v in zip(_names, given_values))
    g = run({"type": "mapping", "answer": dict(zip(_names, truth))}, reply)
    assert not g.passed
    wrong = sum(a != b for a, b in zip(truth, given_values))
    assert g.reason.endswith(f"({wrong} of 5 wrong)")
