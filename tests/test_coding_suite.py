"""The built-in coding cases: the spec, bug-fix and class families re-roll with the seed and keep
their ids, every case states its limits and carries enough wrong solutions, and a right solution
wrapped the way models write it (headings, prose, a usage example after the code) passes."""

from __future__ import annotations

import pytest
from builtin_suite import builtin_cases

from pytest_crucible.client.response import Response
from pytest_crucible.grading import grade
from pytest_crucible.sandbox import SKIP_REASON, bwrap_available
from pytest_crucible.suite.case import DEFAULT_SEED, builtin_cases_dir, load_case_file

CODING = [c for c in builtin_cases() if c.category == "coding"]
KINDS = ("CO-spec-", "CO-fix-", "CO-class-")
FAMILY_FILES = sorted(p for p in (builtin_cases_dir() / "coding").glob("*_cases.py")
                      if p.name.startswith(("spec_", "class_")))


def test_spec_fix_and_class_cases_are_many():
    ours = [c for c in CODING if c.id.startswith(KINDS)]
    hard = [c for c in ours if c.hard]  # by the tier rule: no search and fewer than 8 steps make most medium
    assert len(ours) >= 36 and len(hard) >= 1, (len(ours), len(hard))
    for kind in KINDS:
        assert sum(c.id.startswith(kind) for c in ours) >= 10, kind


@pytest.mark.parametrize("case", CODING, ids=lambda c: c.id)
def test_every_coding_case_states_its_limits_and_can_fail(case):
    prompt = case.messages[-1]["content"]
    assert "standard library" in prompt, "the sandbox has nothing else; the prompt must say so"
    assert case.grader["entry_point"] in prompt
    assert len(case.verify.get("wrong") or []) >= 3, "at least three plausible wrong solutions"
    if case.id.startswith(KINDS):
        assert case.notes, "the notes argue the tier"
        assert case.max_tokens >= (16384 if case.hard else 8192)


@pytest.mark.parametrize("path", FAMILY_FILES, ids=lambda p: p.name)
def test_families_reroll_with_the_seed_and_keep_their_ids(path):
    default = load_case_file(path)
    assert default == load_case_file(path, DEFAULT_SEED), "the default seed is fixed"
    for seed in (1, 12345):
        other = load_case_file(path, seed)
        assert [c.id for c in other] == [c.id for c in default]
        for a, b in zip(default, other):
            assert a.family and a.id.startswith(a.family), a.id
            assert a.content_hash != b.content_hash, f"{a.id} does not change with the seed"


@pytest.mark.skipif(not bwrap_available(), reason=SKIP_REASON)
@pytest.mark.parametrize("case", CODING, ids=lambda c: c.id)
def test_a_right_solution_in_a_chatty_reply_passes(case):
    entry = case.grader["entry_point"]
    reply = (f"## Solution\n\nHere is a careful implementation of `{entry}`; it follows every rule.\n\n"
             f"```python\n{case.verify['solution'].rstrip()}\n```\n\n"
             f"Usage:\n\n```python\nprint({entry})\n```\n\n**Complexity:** fine for the given sizes.")
    result = grade(case, Response(content=reply, finish_reason="stop"))
    assert result.passed, result.reason
