"""The tier rule (suite/tiers.py) and the `hardness` facts a case declares."""

from __future__ import annotations

import pytest

from pytest_crucible.common.errors import CaseError
from pytest_crucible.suite.case import load_case_file
from pytest_crucible.suite.tiers import hardness_problem, tier_of


@pytest.mark.parametrize(("facts", "tier"), [
    ({"steps": 1, "search": 1, "traps": 0}, "easy"),
    ({"steps": 2, "search": 99, "traps": 0}, "easy"),
    ({"steps": 2, "search": 100, "traps": 0}, "medium"),
    ({"steps": 2, "search": 1, "traps": 1}, "medium"),
    ({"steps": 7, "search": 999, "traps": 3}, "medium"),   # many steps but neither long enough nor a search
    ({"steps": 8, "search": 1, "traps": 0}, "medium"),     # no trap: not hard however long
    ({"steps": 8, "search": 1, "traps": 1}, "hard"),
    ({"steps": 5, "search": 1000, "traps": 1}, "hard"),
    ({"steps": 4, "search": 10**9, "traps": 2}, "medium"),
])
def test_the_rule_gives_the_tier(facts, tier):
    assert tier_of(facts) == tier


def test_a_case_declares_its_facts_and_bad_ones_are_refused_with_the_line(tmp_path):
    path = tmp_path / "t.cases.yaml"
    path.write_text("category: math\ndifficulty: hard\ncases:\n  - id: T-1\n    prompt: p\n"
                    "    grader: {type: numeric, answer: 1}\n    hardness: {steps: 9, search: 1, traps: 2}\n")
    (case,) = load_case_file(path)
    assert case.hardness == {"steps": 9, "search": 1, "traps": 2}
    path.write_text(path.read_text().replace("traps: 2", "traps: -1"))
    with pytest.raises(CaseError, match=r"hardness.traps must be a whole number from 0, got -1") as info:
        load_case_file(path)
    assert ":7" in str(info.value)
    missing = hardness_problem({"steps": 3, "search": 1})
    assert missing == "hardness takes exactly steps, search and traps; missing: traps"
