"""Answer extraction: reasoning, preambles, fences, answer lines, JSON, numbers, normalising."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_crucible.grading.extract import (
    clean_answer,
    code_blocks,
    find_answer,
    find_json,
    format_number,
    has_preamble,
    json_error,
    line_text,
    list_item,
    normalize,
    numbers,
    paragraphs,
    parse_number,
    strip_preamble,
    strip_reasoning,
    word_pattern,
)

# ---------------------------------------------------------------- reasoning and preambles


@pytest.mark.parametrize("text, expected", [
    ("<think>6*7 is 42</think>42", "42"),
    ("<THINK>\nmulti\nline\n</THINK>\n\nParis", "Paris"),
    ("<think>a</think>x<think>b</think>y", "xy"),
    ("the opening tag was in the prompt</think>\nAnswer: 3", "Answer: 3"),
    ("<think>still thinking when the tokens ran out", ""),
    ("  <thinking>unclosed", ""),
    ("plain answer", "plain answer"),
    ("mentions <think> in the middle", "mentions <think> in the middle"),
])
def test_strip_reasoning(text, expected):
    assert strip_reasoning(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("Sure! Here's your answer:\n\n42", "42"),
    ("Certainly. The capital is Paris.", "The capital is Paris."),
    ("Of course!\nParis", "Paris"),
    ("Sure thing! Absolutely, happy to help.\nParis", "Paris"),
    ("Here is the JSON you asked for:\n{\"a\": 1}", "{\"a\": 1}"),
    ("Great question! Here are three reasons: speed, cost, size.", "speed, cost, size."),
    ("I'd be happy to help with that. Paris.", "Paris."),
    ("Sure! Here you go:\n\nshort answer", "short answer"),
    # not preambles, or nothing would be left
    ("OK", "OK"),
    ("Sure.", "Sure."),
    ("Sure enough, it rained.", "Sure enough, it rained."),
    ("Great Britain is an island.", "Great Britain is an island."),
    ("Absolutely not.", "Absolutely not."),
    ("Sure, the answer is 42.", "Sure, the answer is 42."),
])
def test_strip_preamble(text, expected):
    assert strip_preamble(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("Sure! 42", True), ("Sure, the answer is 42.", True), ("Here are the steps", True),
    ("**Certainly** - done", True), ("<think>x</think>Of course. Done", True), ("Okay, so", True),
    ("42", False), ("OK.", False), ("Certainly.", False), ("Sure enough it works", False),
    ("Great Britain", False), ("Heresy", False),
    ("The result is here", False),
])
def test_has_preamble(text, expected):
    assert has_preamble(text) is expected


@pytest.mark.parametrize("text, expected", [
    ("<think>hmm</think>Sure! Here's your answer:\n\n**Paris**", "Paris"),
    ("```\nParis\n```", "Paris"),
    ("```text\nSure! Paris\n```", "Paris"),
    ("`ls -la`", "ls -la"),
    ("*italic answer*", "italic answer"),
    ("**bold** and **bold**", "**bold** and **bold**"),
    ("```py\nx = 1\n```\nand more", "```py\nx = 1\n```\nand more"),
    ("__init__", "__init__"),
])
def test_clean_answer(text, expected):
    assert clean_answer(text) == expected


_pieces = st.sampled_from(["<think>", "</think>", "Sure! ", "Here's the answer:\n", "```", "```python\n",
                           "**", "*", "`", "\n", " ", "Paris", "42", "Of course.", "Answer: 7", "OK"])


@given(st.one_of(st.text(max_size=60), st.lists(_pieces, max_size=12).map("".join)))
def test_clean_answer_is_idempotent(text):
    once = clean_answer(text)
    assert clean_answer(once) == once


@given(st.lists(_pieces, max_size=12).map("".join))
def test_clean_answer_never_invents_text(text):
    cleaned = clean_answer(text)
    # every character kept comes from the reply, in order (a subsequence)
    it = iter(text)
    assert all(ch in it for ch in cleaned)


# ---------------------------------------------------------------- fences

REPLY_WITH_BLOCKS = """Here is a helper and the solution.

```python
def helper():
    return 1
```

```python
def solve(xs):
    total = 0
    for x in xs:
        total += x
    return total
```

Usage:

```bash
python solve.py
```
"""


def test_code_blocks_languages_and_order():
    blocks = code_blocks(REPLY_WITH_BLOCKS)
    assert [b.language for b in blocks] == ["python", "python", "bash"]
    assert all(b.closed for b in blocks)
    assert blocks[0].code == "def helper():\n    return 1"


def test_unclosed_fence_at_end_of_reply():
    blocks = code_blocks("Solution:\n```python\ndef f():\n    return 2\n")
    assert blocks == [blocks[0]] and not blocks[0].closed
    assert blocks[0].code == "def f():\n    return 2\n"


def test_fence_inside_list_item_and_longer_fences():
    text = "1. Code:\n   ```python\n   x = 1\n     y = 2\n   ```\n````md\n```python\ninner\n```\n````"
    blocks = code_blocks(text)
    assert blocks[0].code == "x = 1\n  y = 2"
    assert blocks[1].language == "markdown" and blocks[1].code == "```python\ninner\n```"


@given(st.text(alphabet=st.characters(blacklist_characters="`~\r", blacklist_categories=("Cs",)),
               max_size=80),
       st.sampled_from(["python", "js", "", "bash"]))
def test_any_code_survives_a_fence(code, lang):
    code = code.strip("\n")
    reply = f"Here you go:\n```{lang}\n{code}\n```\nThat's it."
    assert code_blocks(reply)[0].code == code


# ---------------------------------------------------------------- answer line


@pytest.mark.parametrize("text, expected", [
    ("Working...\nAnswer: 42", "42"),
    ("**Final answer:** 42", "42"),
    ("**Final Answer**: 42", "42"),
    ("Final Answer: $\\boxed{42}$", "42"),
    ("so it is \\boxed{\\frac{3}{4}}.", "3/4"),
    ("steps\n#### 72", "72"),
    ("The answer is 3.5. Check: 2 = 2", "3.5"),
    ("**Answer:**\n\n44 sheep", "44 sheep"),
    ("## Final answer\nParis", "Paris"),
    ("Answer: 40\nWait, I made an error.\nAnswer: 44", "44"),   # the last marker wins
    ("\\boxed{1}\nso the final answer is 2.", "2"),
    ("- Answer = 17", "17"),
    ("So. Answer: 9", "9"),
])
def test_find_answer(text, expected):
    assert find_answer(text) == expected


@pytest.mark.parametrize("text", [
    "42",
    "I will write the answer as `Answer: <n>` below.",   # mid-sentence mention, not a marker
    "The answer is not obvious.",
    "#### Step 2\nwe add them: 40 + 4",                 # a heading that is not the last line
    "Answer the question.",
])
def test_find_answer_none(text):
    assert find_answer(text) is None


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize("text, values", [
    ("44", ["44"]), ("-44", ["-44"]), ("−7", ["-7"]), ("2.50", ["2.5"]), (".5", ["0.5"]),
    ("1,234,567", ["1234567"]), ("1\u202f234\u202f567", ["1234567"]), ("1 234", ["1", "234"]),
    ("3/4", ["0.75"]), ("-3/4", ["-0.75"]), ("2 1/2", ["2.5"]), ("\\frac{3}{4}", ["0.75"]), ("2/3", ["2/3"]),
    ("\\dfrac{-1}{8}", ["-0.125"]), ("1.5 × 10^6", ["1500000"]), ("2e3", ["2000"]),
    ("$1,234.50", ["1234.5"]), ("44 km/h.", ["44"]), ("3-4", ["3", "4"]), ("x2 and CO2", []),
    ("the 3rd", ["3"]), ("1, 2, 3", ["1", "2", "3"]), ("1/0", []), ("10 11/3", ["10", "11/3"]),
    ("1e99999", ["1"]), ("٤٤", []),
])
def test_numbers(text, values):
    assert [format_number(n.value) for n in numbers(text)] == values


@given(st.integers(-10**15, 10**15))
def test_numbers_round_trip_integers_with_separators(n):
    assert [x.value for x in numbers(f"{n:,}")] == [n]
    assert [x.value for x in numbers(f"value {n}.")] == [n]


@given(st.fractions(max_denominator=10**6))
def test_format_number_round_trips(value):
    assert parse_number(format_number(value)) == value


@pytest.mark.parametrize("value, expected", [
    (44, Fraction(44)), (2.5, Fraction(5, 2)), (0.1, Fraction(1, 10)), ("3/4", Fraction(3, 4)),
    ("1,234", Fraction(1234)), (" -7 ", Fraction(-7)), (True, None), ("4 apples", None),
    ("1 2", None), (None, None), (float("nan"), None),
])
def test_parse_number(value, expected):
    assert parse_number(value) == expected


# ---------------------------------------------------------------- JSON


def test_find_json_in_fence_after_preamble():
    reply = 'Sure! Here is the report:\n```json\n{"total": 3, "note": "a } in a string"}\n```\nDone.'
    assert find_json(reply).value == {"total": 3, "note": "a } in a string"}


def test_find_json_prefers_json_fence_over_prose_braces():
    reply = 'The set {x} is small. See [1].\n```json\n{"a": [1, 2]}\n```'
    assert find_json(reply).value == {"a": [1, 2]}
    assert find_json("see [1] and {\"b\": 2}", "object").value == {"b": 2}
    assert find_json("see {x} and [1, 2]", "array").value == [1, 2]


def test_find_json_skips_invalid_candidates():
    assert find_json("{ not json { \"a\": 1 } trailing }").value == {"a": 1}
    assert find_json("{'a': 1}") is None
    assert json_error("{'a': 1}").startswith("Expecting property name")
    assert json_error("nothing here") is None
    assert find_json("<think>{\"x\": 1}</think>no json") is None


_prose = st.text(alphabet=st.characters(blacklist_characters="{", blacklist_categories=("Cs",)), max_size=40)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(), children, max_size=3),
    max_leaves=10)


@settings(max_examples=200)
@given(_prose, st.dictionaries(st.text(), _json_values, max_size=4), _prose,
       st.sampled_from([None, 2]), st.sampled_from(["", "```json\n", "```\n"]))
def test_find_json_recovers_any_dict_in_prose_or_fences(before, data, after, indent, fence):
    body = json.dumps(data, indent=indent)
    reply = f"{before}\n{fence}{body}\n{'```' if fence else ''}\n{after}"
    assert find_json(reply, "object").value == data


# ---------------------------------------------------------------- normalising and matching


@pytest.mark.parametrize("a, b", [
    ("Paris", "  **paris**. "), ("“Paris”", '"Paris"'), ("New   York", "new york"),
    ("Hello, World!", "hello, world"), ("`x`", "X"),
])
def test_normalize_equal(a, b):
    assert normalize(a) == normalize(b)


def test_normalize_case_sensitive():
    assert normalize("Paris", case_sensitive=True) != normalize("paris", case_sensitive=True)


@given(st.text(max_size=40))
def test_normalize_is_idempotent(text):
    assert normalize(normalize(text)) == normalize(text)


@pytest.mark.parametrize("needle, text, hit", [
    ("27", "there are 27 of them", True), ("27", "127", False), ("27", "270", False),
    ("27", "1.27", False), ("27", "27.5", False), ("27", "2,700", False), ("27", "27.", True),
    ("27", "the 27th", True), ("cat", "category", False), ("cat", "a cat.", True),
    ("Ada Lovelace", "ada\nlovelace", True), ("C++", "I like C++!", True), ("C++", "ABC++", False),
])
def test_word_pattern(needle, text, hit):
    assert bool(word_pattern(needle).search(text)) is hit


@given(st.integers(0, 10**6), st.text(alphabet="0123456789", min_size=1, max_size=3),
       st.sampled_from(["left", "right", "both"]))
def test_word_pattern_never_matches_inside_a_longer_number(n, extra, side):
    needle = str(n)
    longer = {"left": extra + needle, "right": needle + extra, "both": extra + needle + extra}[side]
    assert not word_pattern(needle).search(f"total {longer} items")
    assert word_pattern(needle).search(f"total {needle} items")


# ---------------------------------------------------------------- prose structure

@pytest.mark.parametrize("line, kind, number, text", [
    ("**1.** Water the plant", "numbered", 1, "Water the plant"),
    ("*2)* Choose a pot", "numbered", 2, "Choose a pot"),
    ("(3) Add soil", "numbered", 3, "Add soil"),
    ("  10. Ten", "numbered", 10, "Ten"),
    ("- a bullet", "bullet", None, "a bullet"),
    ("* a bullet", "bullet", None, "a bullet"),
    ("> + quoted bullet", "bullet", None, "quoted bullet"),
    ("*an italic line*", None, None, None),
    ("**Bold** opening", None, None, None),
    ("* * *", None, None, None),
    ("1990 was a dry year", None, None, None),
])
def test_list_item(line, kind, number, text):
    item = list_item(line)
    assert (item.kind, item.number, item.text) == (kind, number, text) if kind else item is None


@pytest.mark.parametrize("line, text", [
    ("**1.** *Water* the plant", "Water the plant"), ("## A heading", "A heading"),
    ("> *quoted*", "quoted"), ("---", ""), ("- **bold** item", "bold item"),
])
def test_line_text(line, text):
    assert line_text(line) == text


def test_paragraphs_split_at_blank_lines_and_rules():
    assert paragraphs("a\nb\n\n\nc\n***\nd\n- - -\n") == ["a\nb", "c", "d"]
    assert paragraphs("  \n") == []
