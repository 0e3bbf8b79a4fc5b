"""The grading corpus (tests/grading_corpus/): for every text grader type, replies written the way models fail
(retractions, hedges, bounds, swapped facts, parroting, two answers, refusals) must fail, and right answers dressed
the way models write them (LaTeX, markdown, preambles, sign-offs, typographic characters, explanations with other
numbers, decoys set aside) must pass: 0 wrong replies pass, 0 right replies fail, at least 40 of each per type.
Run with -s to see the table of counts (test_the_corpus_counts prints it)."""

from __future__ import annotations

import pytest
from grading_corpus import answers, prose, structured, traces

from pytest_crucible.grading import grade
from pytest_crucible.grading.extract import clean_answer
from pytest_crucible.grading.judge import prompt_of, screen
from pytest_crucible.suite.agent_loop import run_case_loop, scripted
from pytest_crucible.suite.case import load_cases
from pytest_crucible.verify import response_from

GENERATORS = {"numeric": answers.numeric, "exact": answers.exact, "contains": prose.contains, "regex": structured.regex,
              "json": structured.json_replies, "checks": structured.checks, "mapping": structured.mapping,
              "trace": traces.trace, "judge-screen": prose.screen}
AT_LEAST = 40
# grader types the built-in suite uses in few cases (contains grades one summary; no case uses regex, so the
# corpus writes its own): the others must spread over many cases
FEW_CASES = {"contains", "regex"}


@pytest.fixture(scope="module")
def corpus():
    cases = load_cases(None)
    return {kind: make(cases) for kind, make in GENERATORS.items()}


def outcome(entry) -> tuple[bool, str]:
    """(passed, reason) of one corpus entry."""
    if entry.kind == "judge-screen":
        why = screen(entry.case.grader, clean_answer(entry.content), prompt_of(entry.case))
        return why is None, why or ""
    if entry.case.simulation:
        trace = run_case_loop(entry.case, scripted([response_from(turn) for turn in entry.content]))
        result = grade(entry.case, None, trace)
    else:
        result = grade(entry.case, response_from(entry.content))
    return result.passed, result.reason


def table(corpus) -> str:
    rows = [f"{'grader':<13} {'wrong (fail)':>12} {'right (pass)':>12} {'cases':>6}"]
    for kind, entries in corpus.items():
        wrong = sum(not e.must_pass for e in entries)
        rows.append(f"{kind:<13} {wrong:>12} {len(entries) - wrong:>12} {len({e.case.id for e in entries}):>6}")
    return "\n".join(rows)


@pytest.mark.parametrize("kind", list(GENERATORS))
def test_wrong_replies_fail_and_dressed_right_replies_pass(corpus, kind):
    entries = corpus[kind]
    wrongly = []
    for entry in entries:
        passed, reason = outcome(entry)
        if passed != entry.must_pass:
            shown = " ".join(str(entry.content).split())[:120]
            wrongly.append(f"{entry.case.id} [{entry.label}] {'failed' if entry.must_pass else 'passed'}: {shown}"
                           + (f" ({reason})" if reason else ""))
    assert wrongly == [], \
        f"{len(wrongly)} of {len(entries)} {kind} replies graded the wrong way:\n" + "\n".join(wrongly)


def test_the_corpus_counts(corpus):
    print("\n" + table(corpus))
    for kind, entries in corpus.items():
        wrong = [e for e in entries if not e.must_pass]
        right = [e for e in entries if e.must_pass]
        assert len(wrong) >= AT_LEAST and len(right) >= AT_LEAST, f"{kind}: too few replies\n{table(corpus)}"
        assert kind in FEW_CASES or len({e.case.id for e in entries}) >= 5, f"{kind}: too few cases\n{table(corpus)}"
        assert len({e.label for e in wrong}) >= 5, f"{kind}: too few ways of failing"
