"""pytest_crucible.suite.code_family: prose reflow, seeded randomness, and test code generated from rows and
scripts, run for real in the sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_crucible.grading.code import run_code
from pytest_crucible.sandbox import SKIP_REASON, Sandbox, bwrap_available
from pytest_crucible.suite.case import build_case
from pytest_crucible.suite.code_family import family_rng, flow, row_tests, script_tests


def test_flow_refills_paragraphs_and_list_items():
    text = ("Write a function\nthat adds.\n\nRules:\n1. The first rule is long enough that it must wrap "
            "onto a second line here.\n2. Short.\n   - a nested item\n")
    assert flow(text, width=40) == (
        "Write a function that adds.\n\n"
        "Rules:\n"
        "1. The first rule is long enough that it\n"
        "   must wrap onto a second line here.\n"
        "2. Short.\n"
        "   - a nested item\n")


def test_flow_keeps_code_and_never_starts_a_line_with_a_fence():
    code = "Example:\n    def f():\n        return 1"
    assert flow(code) == code + "\n"
    reply = flow("word " * 18 + "Reply in a single ```python code block.", width=100)
    assert "\n```" not in reply and "single ```python code block." in reply


def test_family_rng_is_stable_and_separates_families_and_seeds():
    first = [family_rng("CO-x", 7).random() for _ in range(2)]
    assert first[0] == first[1] == pytest.approx(family_rng("CO-x", 7).random())
    assert family_rng("CO-x", 7).random() != family_rng("CO-y", 7).random()
    assert family_rng("CO-x", 7).random() != family_rng("CO-x", 8).random()


def test_data_must_survive_json():
    with pytest.raises(ValueError, match="dict keys must be strings"):
        row_tests("f", [((1,), {1: "one"})])


# ---------------------------------------------------------------------------------------- in the sandbox

@pytest.fixture(scope="module")
def sandbox():
    if not bwrap_available():
        pytest.skip(SKIP_REASON)
    return Sandbox()


def _case(entry, tests):
    return build_case({"id": "T-gen", "category": "coding", "difficulty": "medium", "prompt": "p",
                       "grader": {"type": "code", "entry_point": entry, "tests": tests}},
                      Path("cases/coding/gen_cases.py"))


def test_row_tests_pass_a_right_function_and_name_the_failing_row(sandbox):
    rows = [((2, 3), [5, "2+3"]), ((-1, 1), [0, "-1+1"]), ((0, 0), "!ZeroDivisionError")]
    case = _case("add", row_tests("add", rows, errors=("ZeroDivisionError",), prefix=(10,), suffix=("x",)))
    right = ("def add(scale, a, b, tag):\n    if a == b == 0:\n        raise ZeroDivisionError\n"
             "    return (a + b, f'{a}+{b}')\n")   # a tuple compares as the list it stands for
    assert run_code(case, right, sandbox=sandbox).passed
    wrong = "def add(scale, a, b, tag):\n    return [a + b, f'{a}+{b}']\n"
    result = run_code(case, wrong, sandbox=sandbox)
    assert result.reason == "AssertionError in test 1: expected '!ZeroDivisionError', got [0, '0+0'] (row 3: add(0, 0))"


def test_script_tests_drive_a_class_with_the_injected_clock(sandbox):
    scripts = [((5,), [(100, "add", [2], 7), (100, "elapsed", [], 0), (130, "elapsed", [], 30), (130, "add", [-9], "!ValueError")]),
               ((0,), [(7, "elapsed", [], 0)])]
    case = _case("Counter", script_tests("Counter", scripts, clock=True))
    right = ("class Counter:\n    def __init__(self, start, clock):\n        self.total, self.clock = start, clock\n"
             "        self.born = clock()\n"
             "    def add(self, n):\n        if self.total + n < 0:\n            raise ValueError(n)\n"
             "        self.total += n\n        return self.total\n"
             "    def elapsed(self):\n        return self.clock() - self.born\n")
    assert run_code(case, right, sandbox=sandbox).passed
    result = run_code(case, right.replace("return self.clock() - self.born", "return self.clock()"), sandbox=sandbox)
    assert result.reason == "AssertionError in test 1: expected 0, got 100 (script 1 step 2 at t=100: elapsed())"


def test_script_tests_without_a_clock(sandbox):
    scripts = [((), [("push", [1], None), ("push", [2], None), ("pop", [], 2), ("pop", [], 1), ("pop", [], "!IndexError")])]
    case = _case("Stack", script_tests("Stack", scripts, errors=("IndexError",)))
    right = "class Stack:\n    def __init__(self):\n        self.items = []\n    def push(self, x):\n        self.items.append(x)\n    def pop(self):\n        return self.items.pop()\n"
    assert run_code(case, right, sandbox=sandbox).passed
    fifo = right.replace("return self.items.pop()", "return self.items.pop(0)")
    assert run_code(case, fifo, sandbox=sandbox).reason == "AssertionError in test 1: expected 2, got 1 (script 1 step 3: pop())"
