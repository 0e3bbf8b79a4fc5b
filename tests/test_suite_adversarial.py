"""No built-in case passes a refusal, a parroted prompt or a spray (tests/adversarial.py)."""

from __future__ import annotations

import pytest
from adversarial import adversarial_models, adversarial_replies
from builtin_suite import builtin_cases

from pytest_crucible.grading import grade
from pytest_crucible.sandbox import bwrap_available
from pytest_crucible.suite.agent_loop import run_case_loop
from pytest_crucible.suite.case import CATEGORIES

SUITE = [c for c in builtin_cases() if c.category != "speed"]


@pytest.mark.parametrize("category", [c for c in CATEGORIES if c != "speed"])
def test_no_case_passes_a_refusal_a_parrot_or_a_spray(category):
    cases = [c for c in SUITE if c.category == category]
    if category == "coding" and not bwrap_available():
        pytest.skip("code replies are graded in the bubblewrap sandbox")
    passed, runs = [], 0
    for case in cases:
        if case.simulation:  # multi-turn: adversarial models driven through the agent loop
            for label, model in adversarial_models(case):
                trace = run_case_loop(case, model)
                runs += 1
                if grade(case, None, trace).passed:
                    passed.append(f"{case.id}: {label} ({len(trace.turns)} turns)")
            continue
        for label, reply in adversarial_replies(case):
            if grade(case, reply).passed:
                passed.append(f"{case.id}: {label}")
    assert passed == [], f"{len(passed)} adversarial replies passed:\n" + "\n".join(passed)
    if any(c.simulation for c in cases):
        assert runs >= 3 * sum(1 for c in cases if c.simulation)
