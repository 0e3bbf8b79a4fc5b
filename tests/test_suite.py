"""The built-in suite (cases/): its shape, and `crucible cases verify` finding nothing wrong in it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter

import pytest
from builtin_suite import builtin_cases

from pytest_crucible.sandbox import bwrap_available
from pytest_crucible.suite.case import CATEGORIES
from pytest_crucible.suite.haystack import TOKENIZER_MARGIN, estimate_tokens
from pytest_crucible.verify import verify_cases

ACCURACY_CATEGORIES = [c for c in CATEGORIES if c != "speed"]


@pytest.fixture(scope="module")
def suite():
    return builtin_cases()


@pytest.fixture(scope="module")
def accuracy(suite):
    return [c for c in suite if c.category != "speed"]


def test_suite_loads_with_at_least_30_accuracy_cases(accuracy):
    assert len(accuracy) >= 30


@pytest.mark.parametrize("category", ACCURACY_CATEGORIES)
def test_every_accuracy_category_has_at_least_three_cases(accuracy, category):
    assert sum(c.category == category for c in accuracy) >= 3


def test_difficulty_mix(accuracy):
    counts = Counter(c.difficulty for c in accuracy)
    assert counts["hard"] >= 10 and counts["medium"] >= 5 and counts["easy"] >= 5, counts


def test_ids_are_unique(suite):
    ids = [c.id for c in suite]
    assert len(ids) == len(set(ids))


def test_the_first_tools_ability_and_agent_checks_are_present(accuracy):
    by_id = {c.id: c for c in accuracy}
    assert by_id["CO01-median-of-list"].grader["type"] == "code"
    assert by_id["RE01-pet-ownership"].grader["type"] == "mapping"
    assert by_id["IN02-json-exact-keys"].grader["type"] == "json"
    assert by_id["IN01-evens-marked-and-summed"].grader["type"] == "checks"
    assert by_id["IN03-summary-six-facts"].grader["type"] == "contains"
    six = by_id["IN03-summary-six-facts"].grader
    assert len(six["all"]) + len(six["facts"]) == 6, "the name, then five facts each bound to its subject"
    # the agent-fitness checks (format, acknowledge, concise) run over simulated logs, graded on content
    syslog = [by_id[f"AG-syslog-0{i}"] for i in (1, 2, 3)]
    assert all(c.simulation and c.grader["type"] == "trace" for c in syslog)
    assert syslog[0].tools == syslog[1].tools == syslog[2].tools, "one simulated host, three tasks"
    report, unreadable, brief = (c.grader["answer"] for c in syslog)
    assert report["json"]["exact"]["total_errors"] > 0 and report["json"]["extra_keys"] is False
    assert unreadable["values"] and "Unreadable: none" in unreadable["forbidden"]
    assert brief["max_words"] == 25 and len(brief["values"]) == 1


def test_every_case_carries_verification_data(accuracy):
    for case in accuracy:
        v = case.verify
        if case.grader.get("type") == "code":
            assert "solution" in v, case.id
        else:
            assert "reference" in v and v.get("wrong"), case.id
        if case.category in ("math", "reasoning"):
            assert "solver" in v, case.id


def test_long_context_cases_fit_their_declared_context(accuracy):
    longctx = [c for c in accuracy if c.category == "longctx"]
    small = [c for c in longctx if c.min_context <= 8192]
    big = [c for c in longctx if c.min_context > 8192]
    assert len(small) >= 3 and len(big) >= 3
    for case in longctx:  # the estimate is checked against a real tokenizer in test_haystack.py
        need = estimate_tokens(case.messages[-1]["content"]) * (1 + TOKENIZER_MARGIN) + case.max_tokens
        assert need <= case.min_context, case.id


@pytest.mark.skipif(not bwrap_available(), reason="bubblewrap (bwrap) is not installed: the suite's "
                    "solvers and reference solutions only run in the sandbox")
def test_verify_finds_no_problem_in_the_builtin_suite(suite):
    started = time.monotonic()
    report = verify_cases(suite)
    elapsed = time.monotonic() - started
    assert report.problems == [], "\n".join(str(p) for p in report.problems)
    code = sum(c.grader.get("type") == "code" for c in suite)
    solvers = sum("solver" in c.verify for c in suite)
    haystacks = sum("haystack" in c.verify for c in suite)
    assert (report.solutions_run, report.answers_derived, report.haystacks_rebuilt) == (code, solvers, haystacks)
    assert report.references_graded >= 2 * (len(suite) - code - sum(c.category == "speed" for c in suite))
    print(f"\n{report.summary()} in {elapsed:.1f} s")


def test_no_two_cases_ask_the_same_question(accuracy):
    """Replies scripted per prompt (tests/suite_replies.py), and a reader, tell every case apart."""
    seen: dict[str, str] = {}
    for case in accuracy:
        prompt = "\n".join(str(m.get("content")) for m in case.messages)
        assert seen.setdefault(prompt, case.id) == case.id, f"{case.id} asks what {seen[prompt]} asks"


def test_every_process_generates_the_same_suite(tmp_path):
    """A family that draws from a set's order makes other cases in every process (str hashes are salted per
    process): resume, compare and the gate would then pair different questions under one id."""
    code = ("from pytest_crucible.suite.case import load_cases\n"
            "print('\\n'.join(f'{c.id} {c.content_hash}' for c in load_cases()))")
    outputs = []
    for salt in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": salt, "CRUCIBLE_CACHE_DIR": str(tmp_path / salt)}  # generated anew
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        outputs.append(done.stdout.splitlines())
    assert len(outputs[0]) == len(builtin_cases()) > 900
    assert [a for a, b in zip(*outputs) if a != b] == []
