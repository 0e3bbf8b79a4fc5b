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


# ---------------------------------------------------------------- `crucible cases verify` checks the tier

def _write(path, cases: str):
    path.write_text("category: math\ncases:\n" + cases)
    return path


def test_verify_reports_a_mislabelled_case_and_traps_it_does_not_store(tmp_path):
    from pytest_crucible.verify import verify_paths
    path = _write(tmp_path / "mine.cases.yaml",
                  "  - id: T-label\n    difficulty: hard\n    prompt: p\n    grader: {type: numeric, answer: 1}\n"
                  "    hardness: {steps: 3, search: 1, traps: 1}\n"
                  "    verify: {reference: 'Answer: 1', wrong: ['Answer: 2']}\n"
                  "  - id: T-traps\n    difficulty: medium\n    prompt: p\n    grader: {type: numeric, answer: 1}\n"
                  "    hardness: {steps: 3, search: 1, traps: 2}\n"
                  "    verify: {reference: 'Answer: 1', wrong: ['Answer: 2']}\n"
                  "  - id: T-mine\n    difficulty: hard\n    prompt: p\n    grader: {type: numeric, answer: 1}\n"
                  "    verify: {reference: 'Answer: 1', wrong: ['Answer: 2']}\n")
    report = verify_paths([path])
    by_id = {p.case_id: p for p in report.problems if "hardness" in p.message or "tier" in p.message}
    assert set(by_id) == {"T-label", "T-traps"}  # a user's own case may leave hardness out
    label = by_id["T-label"]
    assert (label.file, label.line) == (str(path), 3)
    assert "difficulty is 'hard' but the tier rule gives 'medium'" in label.message
    assert "steps 3, search 1, traps 1" in label.message
    assert "hardness.traps is 2 but verify.wrong holds 1" in by_id["T-traps"].message


def test_a_builtin_case_without_hardness_is_a_problem_and_a_speed_case_is_exempt(tmp_path):
    from pytest_crucible.suite.case import builtin_cases_dir, load_case_file, load_cases
    from pytest_crucible.verify.case_run import CaseRun
    from pytest_crucible.verify.tiers import check_tier
    path = _write(tmp_path / "suite.cases.yaml",
                  "  - id: T-bare\n    difficulty: easy\n    prompt: p\n    grader: {type: numeric, answer: 1}\n")
    (case,) = load_case_file(path)
    run = CaseRun(case)
    check_tier(run, builtin=tmp_path)  # as if tmp_path were the built-in suite
    (problem,) = run.problems
    assert problem.case_id == "T-bare" and problem.message.startswith("declare hardness {steps, search, traps}")
    elsewhere = CaseRun(case)
    check_tier(elsewhere, builtin=tmp_path / "other")
    assert elsewhere.problems == []
    speed = [c for c in load_cases() if c.speed is not None]
    assert speed
    for c in speed:
        run = CaseRun(c)
        check_tier(run, builtin=builtin_cases_dir())
        assert run.problems == []


def test_every_builtin_case_declares_facts_that_give_its_tier():
    """The static half of `crucible cases verify` over the whole suite: fast, so it runs with every test run."""
    from pytest_crucible.suite.case import load_cases
    from pytest_crucible.verify.case_run import CaseRun
    from pytest_crucible.verify.tiers import check_tier
    problems = []
    for case in load_cases():
        run = CaseRun(case)
        check_tier(run)
        problems += [str(p) for p in run.problems]
    assert problems == []


# ---------------------------------------------------------------- `crucible cases list` counts templates

FAMILY_FILE = '''
def cases(seed):
    return [{"id": f"FAM-{i:02d}", "family": "FAM", "category": "math", "difficulty": tier,
             "prompt": "p", "grader": {"type": "numeric", "answer": i}}
            for i, tier in enumerate(["medium", "medium", "hard"], 1)]
'''


def test_cases_list_counts_a_family_once_per_tier(tmp_path):
    import subprocess
    import sys
    (tmp_path / "fam_cases.py").write_text(FAMILY_FILE)
    _write(tmp_path / "solo.cases.yaml",
           "  - {id: SOLO-1, difficulty: easy, prompt: p, grader: {type: numeric, answer: 1}}\n"
           "  - {id: SOLO-2, difficulty: hard, prompt: p, grader: {type: numeric, answer: 2}}\n")
    result = subprocess.run([sys.executable, "-m", "pytest_crucible.apps.cli", "cases", "list", str(tmp_path)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    table = lines[lines.index("distinct templates (a family counts once per tier it has)"):]
    assert ["math", "1", "1", "2", "3"] in [line.split() for line in table]   # FAM in medium and hard
    assert "3 distinct templates, 2 distinct hard" in lines
    assert ["math", "1", "2", "2", "5"] in [line.split() for line in lines]   # the case counts beside it


def test_code_case_takes_its_tier_from_the_facts():
    from pytest_crucible.suite.code_family import code_case
    common = dict(family="CO-demo", title="Demo", prompt="Write f.", entry_point="f", tests="def test(): pass",
                  solution="def f(): pass", wrong=["def f(): 1"], notes="n")
    hard = code_case(hardness={"steps": 5, "search": 20000, "traps": 1}, **common)
    assert (hard["difficulty"], hard["hardness"], hard["max_tokens"]) == (
        "hard", {"steps": 5, "search": 20000, "traps": 1}, 16384)
    assert code_case(hardness={"steps": 5, "search": 1, "traps": 1}, **common)["difficulty"] == "medium"
    with pytest.raises(ValueError, match="give hardness"):
        code_case(**common)


def test_numeric_case_takes_its_tier_from_the_facts_and_refuses_a_label_that_disagrees():
    from pytest_crucible.suite.families import numeric_case

    fields = dict(family="T-num", index=1, prompt="How many?", answer=12, solver="print(12)",
                  reference="Answer: 12", traps=[13], notes="n", max_tokens=64)
    hard = {"steps": 9, "search": 1, "traps": 1}
    case = numeric_case(hardness=hard, **fields)
    assert case["difficulty"] == "hard" and case["hardness"] == hard
    assert numeric_case(difficulty="hard", hardness=hard, **fields)["difficulty"] == "hard"
    with pytest.raises(ValueError, match=r"T-num-01: difficulty 'easy', but its hardness .* makes it 'hard'"):
        numeric_case(difficulty="easy", hardness=hard, **fields)
    assert "hardness" not in numeric_case(difficulty="easy", **fields)
