"""No built-in case passes a refusal, a parroted prompt or a spray (tests/adversarial.py)."""

from __future__ import annotations

import pytest

from adversarial import adversarial_replies
from pytest_crucible.case import CATEGORIES, load_cases
from pytest_crucible.graders import grade
from pytest_crucible.sandbox import bwrap_available

SUITE = [c for c in load_cases() if c.category != "speed"]


@pytest.mark.parametrize("category", [c for c in CATEGORIES if c != "speed"])
def test_no_case_passes_a_refusal_a_parrot_or_a_spray(category):
    cases = [c for c in SUITE if c.category == category]
    if category == "coding" and not bwrap_available():
        pytest.skip("code replies are graded in the bubblewrap sandbox")
    passed = []
    for case in cases:
        for label, reply in adversarial_replies(case):
            result = grade(case, reply)
            if result.passed:
                passed.append(f"{case.id}: {label}")
    assert passed == [], f"{len(passed)} adversarial replies passed:\n" + "\n".join(passed)
