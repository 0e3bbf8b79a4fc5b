"""exact, contains and regex graders."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_crucible.client.response import Response
from pytest_crucible.grading import check_spec, grade
from pytest_crucible.suite.case import Case


def run(grader: dict, content: str, **response):
    assert check_spec(grader) == []
    case = Case(id="t", category="reasoning", difficulty="easy",
                messages=({"role": "user", "content": "Question?"},), grader=grader)
    return grade(case, Response(content=content, **response))


# ---------------------------------------------------------------- exact

PARIS = {"type": "exact", "answer": "Paris", "alternatives": ["Paris, France"]}


@pytest.mark.parametrize("content", [
    "Paris", "paris.", "**Paris**", "Sure! Here's your answer:\n\nParis", "Answer: PARIS",
    "The capital has a long history.\nIt is on the Seine.\n\n**Final answer:** Paris",
    "Answer: Paris (the capital)", "Paris, France", "`Paris`", "<think>Lyon?</think>Paris",
    "The answer is Paris.",
])
def test_exact_passes(content):
    g = run(PARIS, content)
    assert g.passed, g.reason


@pytest.mark.parametrize("content, reason", [
    ("Lyon", 'answer "Lyon", expected "Paris"'),
    # a hedge is ambiguous (the commitment rule), whichever of its answers is right
    ("Answer: Paris or Lyon", 'ambiguous answer ("Paris or Lyon" offers Lyon)'),
    ("Answer: Paris (or Lyon)", 'ambiguous answer ("Paris (or Lyon" offers Lyon)'),
    ("Answer: Paris (maybe Lyon)", 'ambiguous answer ("Paris (maybe Lyon" offers Lyon)'),
    ("Answer: Paris (possibly Lyon?)", 'ambiguous answer ("Paris (possibly Lyon" offers Lyon)'),
    ("I think the city you are looking for is most likely Paris, the capital of France and more",
     "no answer line (reply is 18 words; expected 'Answer: ...' or a short reply)"),
    ("Paris\nis the capital", "no answer line (reply is 4 words; expected 'Answer: ...' or a short reply)"),
    ("", "empty response"),
])
def test_exact_fails(content, reason):
    g = run(PARIS, content)
    assert not g.passed
    assert g.reason == reason


def test_exact_keeps_underscores():
    spec = {"type": "exact", "answer": "__init__"}
    assert run(spec, "Answer: `__init__`").passed
    assert not run(spec, "Answer: init").passed


def test_exact_case_sensitive_and_numbers():
    assert not run({"type": "exact", "answer": "NaCl", "case_sensitive": True}, "nacl").passed
    assert run({"type": "exact", "answer": "NaCl", "case_sensitive": True}, "NaCl").passed
    assert run({"type": "exact", "answer": 1066}, "Answer: 1066").passed


@given(st.text(alphabet=st.characters(whitelist_categories=("L", "N")), min_size=1, max_size=20),
       st.sampled_from(["{}", "**{}**", "Answer: {}", "{}.", "  {}  ", "Sure! {}", "`{}`"]))
def test_exact_accepts_its_own_answer_in_any_wrapper(word, wrapper):
    assert run({"type": "exact", "answer": word}, wrapper.format(word)).passed


# ---------------------------------------------------------------- contains

FACTS = {"type": "contains", "all": ["Ada Lovelace", "1843", "Babbage", ["Analytical Engine", "engine"]],
         "forbidden": ["as an AI"]}


def test_contains_all_present():
    reply = "In **1843** Ada Lovelace published notes on Babbage's Analytical Engine."
    g = run(FACTS, reply)
    assert g.passed, g.reason


@pytest.mark.parametrize("content, reason", [
    ("In 1843 Ada Lovelace wrote about an engine.", 'missing "Babbage"'),
    ("Lovelace and Babbage in 18431.",
     'missing "Ada Lovelace" (3 of 4 missing: "Ada Lovelace", "1843", "Analytical Engine" / "engine")'),
    ("As an AI, 1843 Ada Lovelace Babbage engine", 'contains forbidden "as an AI"'),
    ("", "empty response"),
])
def test_contains_fails(content, reason):
    g = run(FACTS, content)
    assert not g.passed
    assert g.reason == reason


def test_contains_sees_the_preamble_but_not_the_reasoning():
    spec = {"type": "contains", "all": ["Paris"], "forbidden": ["certainly"]}
    assert run(spec, "Certainly! Paris.").reason == 'contains forbidden "certainly"'
    assert run(spec, "<think>certainly not Lyon</think>Paris.").passed
    assert run({"type": "contains", "all": ["Lyon"]}, "<think>Lyon?</think>Paris.").reason == 'missing "Lyon"'


def test_contains_any_and_case():
    spec = {"type": "contains", "any": ["O(n log n)", "n log n"]}
    assert run(spec, "It runs in O(n log n) time").passed
    assert run({"type": "contains", "any": ["n log n"]}, "It is N LOG N").passed
    assert not run({"type": "contains", "any": ["n log n"], "case_sensitive": True}, "N LOG N").passed
    assert run(spec, "quadratic").reason == 'none of "O(n log n)", "n log n" found'


def test_contains_max_words_counts_the_reply_as_read():
    spec = {"type": "contains", "all": ["Varnholt", "1911"], "max_words": 6}
    assert run(spec, "<think>many many words of thought here</think>Varnholt opened in 1911.").passed
    g = run(spec, "Sure, here it is: Varnholt opened in 1911.")
    assert not g.passed and g.reason == "8 words, at most 6 asked" and g.details["words"] == 8
    assert [f for f, _ in check_spec({"type": "contains", "all": ["x"], "max_words": 0})] == ["max_words"]


@pytest.mark.parametrize("needle, reply, hit", [
    (27, "the value is 27.", True), (27, "the value is 127", False), (27, "the 27th", True),
    (27, "27.5 units", False), ("27", "2,700", False), ("cat", "category", False), ("cat", "a cat!", True),
])
def test_contains_is_word_bounded(needle, reply, hit):
    assert run({"type": "contains", "all": [needle]}, reply).passed is hit


@given(st.integers(0, 10**6), st.integers(0, 9), st.sampled_from(["pre", "post"]))
def test_contains_never_matches_inside_a_longer_number(n, digit, where):
    longer = f"{digit}{n}" if where == "pre" else f"{n}{digit}"
    assert not run({"type": "contains", "all": [n]}, f"We counted {longer} in total.").passed
    assert run({"type": "contains", "all": [n]}, f"We counted {n} in total.").passed


@given(st.text(alphabet="abcdefghij", min_size=1, max_size=8),
       st.text(alphabet="xyz_0", min_size=1, max_size=3),
       st.booleans())
def test_contains_never_matches_inside_a_longer_word(word, glue, before):
    glued = glue + word if before else word + glue
    assert not run({"type": "contains", "all": [word]}, f"the {glued} here").passed
    assert run({"type": "contains", "all": [word]}, f"the ({word}) here").passed


@pytest.mark.parametrize("spec", [
    {"type": "contains"}, {"type": "contains", "all": "x"}, {"type": "contains", "all": [""]},
    {"type": "contains", "any": [[1]]}, {"type": "contains", "all": [None]},
])
def test_contains_check(spec):
    assert check_spec(spec)


# ---------------------------------------------------------------- regex


def test_regex():
    spec = {"type": "regex", "pattern": r"^\d{4}-\d{2}-\d{2}$", "fullmatch": True}
    assert run(spec, "Sure! 2026-05-04").passed
    assert run(spec, "```\n2026-05-04\n```").passed
    assert run(spec, "It is 2026-05-04").reason == r"does not fully match /^\d{4}-\d{2}-\d{2}$/"
    search = {"type": "regex", "pattern": "^def solve", "flags": ["MULTILINE"]}
    assert run(search, "Here:\n\ndef solve(x): pass").passed
    assert run({"type": "regex", "pattern": "^def solve"}, "x\ndef solve(x): pass").reason == \
        "no match for /^def solve/"
    banned = {"type": "regex", "pattern": "lorem", "flags": ["IGNORECASE"], "must_match": False}
    assert run(banned, "no filler").passed
    assert run(banned, "LOREM ipsum").reason == 'matches /lorem/ (must not): "LOREM"'
    assert run(spec, "").reason == "empty response"


@pytest.mark.parametrize("spec, field", [
    ({"type": "regex", "pattern": "("}, "pattern"),
    ({"type": "regex"}, "pattern"),
    ({"type": "regex", "pattern": "x", "flags": ["CASELESS"]}, "flags"),
    ({"type": "regex", "pattern": "x", "fullmatch": "yes"}, "fullmatch"),
])
def test_regex_check(spec, field):
    problems = check_spec(spec)
    assert field in [f for f, _ in problems]
    if field == "pattern" and "pattern" in spec:
        assert "does not compile" in problems[0][1]


BOATS_PROMPT = ("Read the document, then answer.\n\n<document>\nThe yard launched Dunlin on 3 May, then Curlew on "
                "9 June.\n\nDunlin, Curlew and Eider were painted, tarred, and named.\n</document>\n\n"
                "Here is a list of boats: Kittiwake, Gannet Rock, Dunlin, Curlew, Eider. Which one did the yard "
                "launch second? Finish with a final line of the form `Answer: <boat name>`.")


@pytest.mark.parametrize(("content", "passed"), [
    ("Answer: Curlew", True),
    ("The yard launched Dunlin first.\n\n**Answer:** The boat is Curlew.", True),
    ("Answer: Curlew, as the dates show", True),
    ("Answer: Curlew, Dunlin", False),                      # a second boat from the question's list
    ("Answer: Curlew, Gannet Rock", False),                 # a second choice of two words
    ("Answer: Curlew\n\nActually, it is Kittiwake.", False),
    ("Answer: Curlew\n\nCorrection: the boat name is Eider.", False),  # named after the format's wording
])
def test_exact_reads_the_choices_a_question_lists_as_candidates_not_wording(content, passed):
    case = Case(id="t", category="longctx", difficulty="medium", messages=({"role": "user", "content": BOATS_PROMPT},),
                grader={"type": "exact", "answer": "Curlew"})
    result = grade(case, Response(content=content))
    assert result.passed is passed, result.reason


HALL_PROMPT = ("<document>\nThe regatta was booked for 3 May. The harvest supper was booked for 9 June. The shanty "
               "night was moved from 9 June to 2 July.\n</document>\n\nWhich event will the hall hold on 9 June? "
               "Finish with a final line of the form `Answer: <event>`.")


@pytest.mark.parametrize(("content", "passed"), [
    ("Answer: harvest supper", True),
    ("The shanty night moved away.\n\n**Answer:** The harvest supper.", True),
    ("Answer: harvest supper (held on the night of 9 June)", True),  # a rival's word alone is no rival
    ("Answer: harvest supper, regatta", False),
    ("Answer: harvest supper\n\nCorrection: the event is shanty night.", False),
    ("Answer: harvest supper or the regatta", False),
])
def test_exact_reads_the_cases_rivals_as_candidates(content, passed):
    case = Case(id="t", category="longctx", difficulty="medium", messages=({"role": "user", "content": HALL_PROMPT},),
                grader={"type": "exact", "answer": "harvest supper", "rivals": ["regatta", "shanty night",
                                                                                  "harvest supper"]})
    result = grade(case, Response(content=content))
    assert result.passed is passed, result.reason
    without = dataclasses.replace(case, grader={"type": "exact", "answer": "harvest supper"})
    if content == "Answer: harvest supper, regatta":
        assert grade(without, Response(content=content)).passed  # what `rivals` is for


def test_exact_rivals_must_be_a_list_of_texts():
    assert [f for f, _ in check_spec({"type": "exact", "answer": "a", "rivals": "b"})] == ["rivals"]
    assert [f for f, _ in check_spec({"type": "exact", "answer": "a", "rivals": ["b", ""]})] == ["rivals"]
    assert check_spec({"type": "exact", "answer": "a", "rivals": ["b"]}) == []


def test_what_a_grader_derives_from_a_case_is_kept_on_the_case_and_not_copied_by_replace():
    case = Case(id="t", category="math", difficulty="easy", messages=({"role": "user", "content": "7 and 5?"},),
                grader={"type": "numeric", "answer": 12})
    assert grade(case, Response(content="Answer: 12")).passed
    assert case.derived["prompt_numbers"] == frozenset({7, 5})
    other = dataclasses.replace(case, messages=({"role": "user", "content": "3 and 9?"},))
    assert other.derived == {}
    assert grade(other, Response(content="Answer: 12")).passed
    assert other.derived["prompt_numbers"] == frozenset({3, 9})
