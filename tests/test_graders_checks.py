"""checks grader: instruction constraints, each recorded."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_crucible.client.response import Response
from pytest_crucible.grading import check_spec, get_grader, grade
from pytest_crucible.grading.base import AnswerError
from pytest_crucible.grading.checks import sentences, words
from pytest_crucible.suite.case import Case

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
    assert [c["loose"] for c in g.details["constraints"]] == [False, False, True, False, True]
    assert (g.details["strict"], g.details["loose"]) == (0.2, 0.4)
    assert g.reason.startswith("4 of 5 constraints failed (loose 2/5): word_count 214 > 150; ends_with \"Done.\" "
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
    ({"kind": "char_count", "max": 6}, "Sure! **abc**def", True, "6"),  # emphasis dresses, is not text
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


_long_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=7, max_size=10)  # no abbreviation


@given(st.lists(st.tuples(st.lists(_word, max_size=5), _long_word), min_size=1, max_size=8),
       st.sampled_from(".!?"))
def test_sentence_count_counts_the_sentences_written(sents, end):
    text = " ".join(" ".join([*s, last]).capitalize() + end for s, last in sents)
    assert len(sentences(text)) == len(sents)


@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 60))
def test_word_count_bounds_pass_exactly_when_in_range(n, lo, hi):
    bounds = {"kind": "word_count", "min": min(lo, hi), "max": max(lo, hi)}
    passed, _ = one(bounds, " ".join(["w"] * n) or "-")
    assert passed is (min(lo, hi) <= n <= max(lo, hi))


@pytest.mark.parametrize("constraint, content, passed, note", [
    ({"kind": "paragraph_count", "min": 3, "max": 3}, "One.\n\nTwo.\n***\nThree.", True, "3"),
    ({"kind": "paragraph_count", "max": 1}, "One.\nStill one.\n\nTwo.", False, "2 > 1"),
    ({"kind": "numbered_list", "min": 3, "max": 3}, "**1.** a\n*2)* b\n(3) c", True, "3"),
    ({"kind": "numbered_list", "min": 2, "sequential": True}, "1. a\n1. b\n1. c", False,
     "numbered 1, 1, 1, expected 1 to 3"),
    ({"kind": "bullet_count", "min": 2, "max": 2}, "*an italic line*\n- one\n* two", True, "2"),
    ({"kind": "words_per_line", "min": 3, "max": 4}, "- one two three\n**two three four five**", True,
     "every line"),
    ({"kind": "words_per_line", "max": 2}, "a b\nc d e", False, 'line 2 "c d e" has 3 > 2'),
    ({"kind": "sentence_words", "max": 4}, "Dr. Okoro came. It rained all day long.", False,
     'sentence 2 "It rained all day long." has 5 > 4 words'),
    ({"kind": "any_words", "words": ["tide", "wave", "shore"], "min": 2}, "A wave hit the shore.", True,
     "2 of 3 (wave, shore)"),
    ({"kind": "any_words", "words": ["tide", "wave"]}, "Nothing here.", False, "0 of 2 < 1"),
    ({"kind": "letter_count", "letter": "e", "max": 0}, "A dog ran far.", True, '"e" 0'),
    ({"kind": "letter_count", "letter": "e", "max": 0}, "Sure! A dog ran far.", False, '"e" 1 > 0'),
    ({"kind": "line_format", "pattern": r"Part \d", "all": False, "min_lines": 2, "max_lines": 2},
     "Part 1\nx\nPart 2\nPart 3", False, "3 > 2 matching lines"),
    ({"kind": "line_matches", "line": -1, "pattern": r"P\.S\. .+"}, "Hi.\nP.S. Bring tea.", True,
     'line -1 "P.S. Bring tea."'),
    ({"kind": "line_matches", "line": 3, "pattern": "x"}, "a\nb", False, "no line 3 (2 lines)"),
    ({"kind": "lines_equal", "lines": ["1) FIG (3)", "2) OAK (7)"]}, "1)  FIG (3)\n\n2) OAK (7)", True, "2 lines"),
    ({"kind": "lines_equal", "lines": ["1) FIG (3)", "2) OAK (7)"]}, "1) FIG (3)\n2) ELM (7)", False,
     'line 2 is "2) ELM (7)", expected "2) OAK (7)"'),
    ({"kind": "acrostic", "text": "TIDE"}, "*Tall waves*\n**I**nk the sand\n- Drawn back\n> Each night", True,
     'initials "TIDE"'),
    ({"kind": "acrostic", "text": "TIDE"}, "Tide\n\nTall\nInk\nDraw\nEach", False,
     'initials "TTIDE", expected "TIDE"'),
    ({"kind": "paragraph_starts", "paragraph": 2, "word": "Meanwhile"}, "A.\n\n**Meanwhile,** b.", True,
     'paragraph 2 opens "Meanwhile"'),
    ({"kind": "paragraph_starts", "paragraph": 2, "word": "Then"}, "A.", False, "no paragraph 2 (1 paragraphs)"),
    ({"kind": "placeholders", "min": 2, "names": ["recipient", "start date"]},
     "Dear [Recipient], from [START_DATE] see [link](http://x).", True, "2 placeholders"),
    ({"kind": "placeholders", "names": ["date"]}, "Dear [name],", False, "missing [date]"),
])
def test_structure_constraints(constraint, content, passed, note):
    assert one(constraint, content) == (passed, note)


@pytest.mark.parametrize("text, count", [
    ("Use rye flour, e.g. a dark one. Dr. Okoro agreed.", 2),
    ("She moved to the U.S. in 1990. Then she left.", 2),
    ("She lives in the U.S. The winters are long.", 2),
    ("It costs 3.5 euros. See No. 4 for more.", 2),
    ("J. R. Okafor wrote it. It sold well!", 2),
    ("1. Water the plant.\n2. Choose a pot.", 2),
    ("we left at 8 a.m. sharp. the bus was late.", 2),
])
def test_sentences_know_abbreviations_decimals_and_list_markers(text, count):
    assert len(sentences(text)) == count, sentences(text)


def test_loose_score_forgives_emphasis_and_a_leading_or_trailing_line():
    grader = [{"kind": "line_format", "pattern": r"\d\) [A-Z ]+"}, {"kind": "line_count", "max": 2},
              {"kind": "word_count", "max": 12}]
    plainly = run(grader, "1) FIG TREE IN THE YARD\n2) OAK BY THE OLD GATE")
    assert plainly.passed and plainly.details["strict"] == plainly.details["loose"] == 1.0
    bold = run(grader, "**1) FIG TREE IN THE YARD**\n**2) OAK BY THE OLD GATE**")
    assert not bold.passed
    assert [(c["passed"], c["loose"]) for c in bold.details["constraints"]] == [(False, True), (True, True),
                                                                               (True, True)]
    assert (bold.details["strict"], bold.details["loose"]) == (round(2 / 3, 4), 1.0)
    chatty = run(grader, "My list:\n1) FIG TREE IN THE YARD\n2) OAK BY THE OLD GATE\nHope it helps!")
    assert [c["loose"] for c in chatty.details["constraints"]] == [True, True, True]
    assert not chatty.passed and chatty.details["strict"] == 0.0
    # the body itself is never the line that is dropped
    long_body = run([{"kind": "word_count", "max": 3}], "Sure:\n" + "word " * 40)
    assert long_body.details["constraints"][0]["loose"] is False


def test_new_kinds_report_bad_parameters():
    for constraint, field in [
        ({"kind": "letter_count", "letter": "ee", "max": 0}, "constraints[0].letter"),
        ({"kind": "line_matches", "line": 0, "pattern": "x"}, "constraints[0].line"),
        ({"kind": "lines_equal", "lines": []}, "constraints[0].lines"),
        ({"kind": "acrostic", "text": "T-1"}, "constraints[0].text"),
        ({"kind": "sentence_initials", "text": "A B"}, "constraints[0].text"),
        ({"kind": "ordered_words", "words": []}, "constraints[0].words"),
        ({"kind": "paragraph_starts", "paragraph": 0, "word": "So"}, "constraints[0].paragraph"),
        ({"kind": "paragraph_starts", "paragraph": 1, "word": "two words"}, "constraints[0].word"),
        ({"kind": "any_words", "words": ["a"], "min": 2}, "constraints[0].min"),
        ({"kind": "placeholders", "names": "date"}, "constraints[0].names"),
        ({"kind": "numbered_list", "min": 1, "sequential": "yes"}, "constraints[0].sequential"),
        ({"kind": "line_format", "pattern": "x", "all": False, "min_lines": 3, "max_lines": 2},
         "constraints[0].max_lines"),
    ]:
        assert field in [f for f, _ in check_spec({"type": "checks", "constraints": [constraint]})], constraint


def test_paragraph_sentences_and_labels():
    letter = "One. Two.\n\nThree. Four. Five.\n\nP.S. We hope to see you there."
    assert one({"kind": "paragraph_sentences", "min": 2, "max": 2, "paragraphs": [1, 2]}, letter) == \
        (False, "paragraph 2 has 3 > 2 sentences")
    assert one({"kind": "paragraph_sentences", "max": 3}, letter) == (True, "every paragraph")
    assert one({"kind": "sentence_count", "min": 6, "max": 6}, letter) == (True, "6")  # "P.S." ends nothing
    assert one({"kind": "sentence_count", "max": 2}, "Notice:\nDoors open at ten. Bring a cup.") == (True, "2")
    assert one({"kind": "word_count", "max": 3}, "Hello [recipient_name], bye") == (True, "3")


def test_sentence_initials_and_ordered_words():
    text = "Gulls circle. **Boats** knock, e.g. softly. \"Salt\" hangs in the air."
    assert one({"kind": "sentence_initials", "text": "gbs"}, text) == (True, 'sentence initials "GBS"')
    assert one({"kind": "sentence_initials", "text": "GSB"}, text) == \
        (False, 'sentence initials "GBS", expected "GSB"')
    assert one({"kind": "ordered_words", "words": ["gulls", "softly", "air"]}, text) == (True, "in order")
    assert one({"kind": "ordered_words", "words": ["salt", "boats"]}, text) == \
        (False, '"boats" first appears before "salt"')
    assert one({"kind": "ordered_words", "words": ["gulls", "terns"]}, text) == (False, 'missing "terns"')


def test_a_solver_is_compared_with_the_exact_content():
    checks = get_grader("checks")
    lines = {"type": "checks", "constraints": [{"kind": "lines_equal", "lines": ["A  1", "B 2"]}]}
    assert checks.compare_answer(lines, checks.read_solver_output(lines, ["A 1", "B 2"])) is None
    assert checks.compare_answer(lines, ["A 1", "B 3"]) == "lines_equal expects line 2 'B 2', not 'B 3'"
    assert checks.compare_answer(lines, ["A 1"]) == "lines_equal expects 2 lines, not 1"
    shape = {"type": "checks", "constraints": [
        {"kind": "json_shape", "required": {"n": "integer"}, "exact": {"n": 3}, "extra_keys": False}]}
    assert checks.compare_answer(shape, ['{"n": 3}']) is None
    assert checks.compare_answer(shape, ['{"n": 4}']).startswith("json_shape: ")
    assert checks.compare_answer(shape, ['{"n": 3, "m": 1}']).startswith("json_shape: ")
    with pytest.raises(AnswerError, match="nothing to compare with"):
        checks.read_solver_output({"type": "checks", "constraints": [{"kind": "word_count", "max": 3}]}, ["x"])


def test_table_reads_one_markdown_table_however_it_is_padded():
    table = {"kind": "table", "header": ["Name", "Mon", "Tue"], "rows": [["Ada", "2", "-"], ["Bo", "0", "1"]]}
    padded = "Here it is:\n\n| Name | Mon | Tue |\n|:-----|----:|:---:|\n|  **Ada** | 2 | - |\n| Bo | 0 | 1 |\n"
    assert one(table, padded) == (True, "2 rows")
    assert one(table, "Name | Mon | Tue\n--- | --- | ---\nAda | 2 | -\nBo | 0 | 1") == (True, "2 rows")
    assert one(table, "| Name | Mon | Tue |\n|---|---|---|\n| Bo | 0 | 1 |\n| Ada | 2 | - |") == \
        (False, 'row 1 is "Bo | 0 | 1", expected "Ada | 2 | -"')
    assert one(table, "| Name | Tue | Mon |\n|---|---|---|\n| Ada | - | 2 |\n| Bo | 1 | 0 |")[0] is False
    assert one(table, "| Name | Mon | Tue |\n|---|---|---|\n| Ada | 2 | - |") == (False, "1 rows, expected 2")
    two = "| Name | Mon | Tue |\n|---|---|---|\n| Ada | 2 | - |\n| Bo | 0 | 1 |"
    assert one(table, f"{two}\n\nOr, counting Sunday:\n\n{two}") == (False, "2 tables, expected 1")
    assert one(table, "Ada 2 -\nBo 0 1") == (False, "0 tables, expected 1")


def test_table_parameters_and_solver_comparison():
    for constraint in ({"kind": "table", "header": ["A"], "rows": []},
                       {"kind": "table", "header": ["A", "B"], "rows": [["1"]]},
                       {"kind": "table", "header": "A", "rows": [["1"]]}):
        assert "constraints[0].rows" in [f for f, _ in check_spec({"type": "checks", "constraints": [constraint]})]
    checks = get_grader("checks")
    spec = {"type": "checks", "constraints": [{"kind": "table", "header": ["A", "B"], "rows": [["1", "x"]]}]}
    assert checks.compare_answer(spec, checks.read_solver_output(spec, ["| A | B |", "|---|---|", "| 1 | x |"])) is None
    assert checks.compare_answer(spec, ["| A | B |", "|---|---|", "| 1 | y |"]) == \
        'table: row 1 is "1 | y", expected "1 | x"'


def test_sentence_ends_follow_a_repeating_pattern():
    pattern = {"kind": "sentence_ends", "marks": "?.!"}
    assert one(pattern, "Why do gulls cry? They are hungry. Look at them! Is it late? It is. **Go!**") == \
        (True, "6 sentences in the pattern ?.!")
    assert one(pattern, 'Why? "They are hungry." Look!') == (True, "3 sentences in the pattern ?.!")
    assert one(pattern, "Why do gulls cry? They are hungry. Look at them. Is it late?") == \
        (False, "sentence 3 ends '.', expected '!'")
    assert one(pattern, "Why do gulls cry? They are hungry") == (False, "sentence 2 ends '', expected '.'")
    for marks in ("", "?;", 3):
        spec = {"type": "checks", "constraints": [{"kind": "sentence_ends", "marks": marks}]}
        assert "constraints[0].marks" in [f for f, _ in check_spec(spec)]
