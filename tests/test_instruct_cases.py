"""The instruction-following suite (cases/instruct): right answers phrased differently pass, every seed
gives sound cases, and no seed's case passes a refusal, a parrot or a spray."""

from __future__ import annotations

import json
import re

import pytest
from adversarial import adversarial_replies
from builtin_suite import builtin_cases

from pytest_crucible.client.response import Response
from pytest_crucible.grading import grade
from pytest_crucible.suite.case import builtin_cases_dir, load_case_file
from pytest_crucible.suite.tiers import tier_of
from pytest_crucible.verify import verify_cases

INSTRUCT = builtin_cases_dir() / "instruct"
SEEDS = (1, 777, 12345)
# families in their own files, each case declaring its hardness (suite/tiers.py)
TIERED_FAMILIES = {"IN-edits", "IN-columns", "IN-override", "IN-outline", "IN-wrap", "IN-wordrules",
                   "IN-precedence", "IN-schema", "IN-initials"}
SESSION9_FAMILIES = {"IN-fill", "IN-redact", "IN-pivot", "IN-citations", "IN-idcase", "IN-ladder", "IN-csv", "IN-diff",
                     "IN-numstyle", "IN-signups", "IN-sms", "IN-cadence", "IN-recipe"}


def instruct_cases(seed=None):
    return [c for f in sorted(INSTRUCT.glob("*")) if f.is_file() and f.name.endswith(("_cases.py", ".yaml"))
            for c in load_case_file(f, seed)]


@pytest.fixture(scope="module")
def suite():
    return {c.id: c for c in instruct_cases()}


def passes(case, text: str) -> bool:
    result = grade(case, Response(content=text, finish_reason="stop"))
    return result.passed


def test_counts_and_families(suite):
    hard = [c for c in suite.values() if c.difficulty == "hard"]
    assert len(suite) >= 40 and len(hard) >= 8  # the tier rule: 8+ binding constraints
    families = {c.family for c in suite.values() if c.family}
    assert families == {"IN-memo", "IN-tips", "IN-json", "IN-acrostic", "IN-lipogram", "IN-letter", "IN-ranked",
                        "IN-template", *TIERED_FAMILIES, *SESSION9_FAMILIES}
    for case in suite.values():
        if case.family:
            assert case.notes and re.fullmatch(rf"{case.family}-\d\d", case.id), case.id


def test_every_grade_records_each_constraint_and_both_scores(suite):
    for case in suite.values():
        if case.grader["type"] != "checks":
            continue
        result = grade(case, Response(content=case.verify["reference"], finish_reason="stop"))
        assert result.passed, (case.id, result.reason)
        assert len(result.details["constraints"]) == len(case.grader["constraints"])
        assert result.details["strict"] == result.details["loose"] == 1.0


@pytest.mark.parametrize("seed", SEEDS)
def test_every_seed_gives_cases_whose_references_pass_and_wrong_replies_fail(seed):
    cases = instruct_cases(seed)
    assert len(cases) >= 40
    report = verify_cases(cases)
    assert report.problems == [], "\n".join(map(str, report.problems))


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_no_seed_passes_a_refusal_a_parrot_or_a_spray(seed):
    passed = [f"{case.id}: {label}" for case in instruct_cases(seed) for label, reply in adversarial_replies(case)
              if grade(case, reply).passed]
    assert passed == []


def test_seeds_reroll_the_families():
    a, b = ({c.id: c.messages for c in instruct_cases(s)} for s in SEEDS[:2])
    assert a.keys() == b.keys()
    assert sum(a[k] != b[k] for k in a) >= 30


# ---------------------------------------------------------------- right answers, other phrasings

def _bold_word(text: str, word: str) -> str:
    return re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", lambda m: f"**{m.group(0)}**", text, count=1, flags=re.I)


def test_emphasis_on_words_is_not_a_violation(suite):
    for case in suite.values():
        if case.grader["type"] != "checks":
            continue
        required = [w for c in case.grader["constraints"] if c["kind"] == "required_words" for w in c["words"]]
        if not required:
            continue
        text = case.verify["reference"]
        for word in required:
            text = _bold_word(text, str(word))
        assert passes(case, text), (case.id, grade(case, Response(content=text)).reason)


@pytest.mark.parametrize("numbering", ["{n}. ", "{n}) ", "**{n}.** ", "*{n}.* ", "({n}) "])
def test_in05_accepts_markdown_numbering(suite, numbering):
    case = suite["IN05-five-numbered-steps"]
    steps = [re.sub(r"^\d\. ", "", ln) for ln in case.verify["reference"].strip().split("\n")]
    text = "\n".join(numbering.format(n=i + 1) + s for i, s in enumerate(steps))
    assert passes(case, text)


@pytest.mark.parametrize("wrap", ["{}", "*{}*", "_{}_", "**{}**", "> {}"])
def test_in07_acrostic_accepts_italic_bold_or_quoted_lines(suite, wrap):
    case = suite["IN07-acrostic-tide"]
    lines = [ln.strip("*") for ln in case.verify["reference"].strip().split("\n")]
    assert passes(case, "\n".join(wrap.format(ln) for ln in lines))


def test_in04_and_in06_do_not_split_at_abbreviations(suite):
    assert "e.g." in suite["IN04-lowercase-kettle"].verify["reference"]
    assert "U.S." in suite["IN06-uppercase-two-sentences"].verify["reference"]
    kettle = ("this kettle has a brushed steel body, i.e. no plastic, and can boil a litre of water in three "
              "minutes. the lid opens with one press, the handle stays cool, and a window shows the level, "
              "approx. one cup at a time. switch it on before breakfast and every cup will brew well.")
    assert passes(suite["IN04-lowercase-kettle"], kettle)


def test_in03_checks_its_word_limit(suite):
    case = suite["IN03-summary-six-facts"]
    assert passes(case, case.verify["reference"])
    padded = case.verify["reference"] + " " + "It is a fine old bridge. " * 6
    assert grade(case, Response(content=padded)).reason.endswith("words, at most 60 asked")


def test_json_family_accepts_plain_compact_or_fenced_json(suite):
    for case in (c for c in suite.values() if c.family == "IN-json"):
        data = json.loads(case.verify["reference"].split("\n", 1)[1].rsplit("\n", 1)[0])
        for text in (json.dumps(data), json.dumps(data, indent=4), f"```\n{json.dumps(data)}\n```"):
            assert passes(case, text), case.id
        reordered = {k: data[k] for k in reversed(list(data))}
        assert passes(case, json.dumps(reordered)), case.id


def test_ranked_family_accepts_a_fenced_block_but_not_extra_lines(suite):
    for case in (c for c in suite.values() if c.family == "IN-ranked"):
        reference = case.verify["reference"]
        assert passes(case, f"```text\n{reference}\n```")
        assert passes(case, reference.replace("\n", "\n\n"))
        assert not passes(case, "Sorted list:\n" + reference)


def test_suite_wide_load_keeps_the_instruct_ids():
    ids = {c.id for c in builtin_cases() if c.category == "instruct"}
    assert {"IN01-evens-marked-and-summed", "IN02-json-exact-keys", "IN03-summary-six-facts"} <= ids


# ---------------------------------------------------------------- the families with declared hardness

@pytest.mark.parametrize("seed", (None, 1))
def test_tiered_families_follow_the_tier_rule_and_have_hard_siblings(seed):
    cases = [c for c in instruct_cases(seed) if c.family in TIERED_FAMILIES]
    for family in TIERED_FAMILIES:
        siblings = [c for c in cases if c.family == family]
        assert 3 <= len(siblings) <= 5, family
        assert any(c.difficulty == "hard" for c in siblings), family
    for case in cases:
        assert case.difficulty == tier_of(case.hardness), case.id
        assert case.hardness["traps"] <= len(case.verify["wrong"]), case.id


def test_exact_line_families_accept_fences_and_blank_lines_but_not_a_preamble(suite):
    exact = [c for c in suite.values() if c.family in TIERED_FAMILIES
             and any(k["kind"] == "lines_equal" for k in c.grader["constraints"])]
    assert len(exact) >= 20
    for case in exact:
        lines = next(k["lines"] for k in case.grader["constraints"] if k["kind"] == "lines_equal")
        body = "\n".join(lines)
        assert passes(case, body) and passes(case, f"```\n{body}\n```"), case.id
        assert passes(case, body.replace("\n", "\n\n")), case.id
        assert not passes(case, "Here is the result:\n" + body), case.id
        assert not passes(case, "\n".join(lines[:-1] + [lines[-1] + " x"])), case.id


def test_initials_family_fails_a_banned_letter_or_keywords_out_of_order(suite):
    for case in (c for c in suite.values() if c.family == "IN-initials"):
        kinds = {k["kind"]: k for k in case.grader["constraints"]}
        reference = case.verify["reference"]
        banned = kinds["letter_count"]["letter"]
        slipped = reference.replace(" the ", f" {banned}the ", 1)
        assert slipped != reference and not passes(case, slipped), case.id
        first, last = kinds["ordered_words"]["words"][0], kinds["ordered_words"]["words"][-1]
        grade_ = grade(case, Response(content=reference.replace(first, "@@").replace(last, first)
                                      .replace("@@", last)))
        assert not grade_.passed, case.id
