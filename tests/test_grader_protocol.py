"""Graders are grading.base.Grader objects; what `crucible cases verify` checks of a case its grader says
through the protocol's hooks, so a grader from another package is verified like a built-in one: a solver
check it defines runs, with no change to the verify code. A grader written as a plain module with check()
and grade() (0.1's form) still works, wrapped in a ModuleGrader."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_crucible import grading
from pytest_crucible.client.response import Response
from pytest_crucible.grading.base import BaseGrader, Grader, ModuleGrader
from pytest_crucible.sandbox import RunResult, bwrap_available
from pytest_crucible.suite.case import build_case
from pytest_crucible.verify import verify_cases

needs_bwrap = pytest.mark.skipif(not bwrap_available(), reason="bubblewrap (bwrap) is not installed: "
                                 "solvers only run in the sandbox")

# A grader as another package writes it: a BaseGrader with check() and grade(), and a solver check.
LETTERS_GRADER = """
    from pytest_crucible.grading.base import BaseGrader, Grade

    class Letters(BaseGrader):
        compares_answers = True

        def check(self, spec):
            ok = isinstance(spec.get("word"), str) and isinstance(spec.get("count"), int)
            return [] if ok else [(None, "give the word and the count of its letter a")]

        def grade(self, case, response):
            said = response.content.strip()
            right = said == str(case.grader["count"])
            return Grade(right, "" if right else f"said {said!r}", answer=said)

        def compare_answer(self, spec, derived):
            return None if derived == str(spec["count"]) else f"the grader expects {spec['count']}"

    GRADER = Letters()
"""

# The same in 0.1's form: a module with check() and grade(), abilities as module flags.
BOXED_GRADER = """
    from pytest_crucible.grading.base import Grade

    USES_SANDBOX = True

    def check(spec):
        return [] if isinstance(spec.get("word"), str) else [("word", "word is the text the reply must say")]

    def grade(case, response, sandbox=None):
        said = response.content.strip()
        right = said == case.grader["word"] and sandbox == "the run's sandbox"
        return Grade(right, "" if right else f"said {said!r} in {sandbox!r}", answer=said)
"""

CASE_FILE = """
    cases:
      - id: LT01-letters
        difficulty: easy
        prompt: How many times does the letter a occur in "banana"? Reply with the number only.
        grader: {{type: letters, word: banana, count: {count}}}
        verify:
          solver: print("banana".count("a"))
          reference: "{count}"
          wrong: ["7"]
"""


def add_distribution(folder: Path, modules: dict[str, str], entry_points: str, name: str) -> Path:
    """A distribution as pip leaves one: its modules and NAME-1.0.dist-info (METADATA, entry_points.txt)."""
    folder.mkdir(parents=True, exist_ok=True)
    for module, source in modules.items():
        (folder / f"{module}.py").write_text(textwrap.dedent(source))
    dist = folder / f"{name.replace('-', '_')}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    return folder


def crucible_verify(site: Path, cases: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "pytest_crucible.apps.cli", "cases", "verify", str(cases)]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


@needs_bwrap
@pytest.mark.parametrize("count, problem", [
    (3, None),
    (4, "LT01-letters: verify.solver derives 3, but the grader expects 4"),
])
def test_verify_runs_the_solver_check_of_a_grader_from_an_entry_point(tmp_path, count, problem):
    site = add_distribution(tmp_path / "site", {"letters_grader": LETTERS_GRADER}, """
        [pytest_crucible.graders]
        letters = letters_grader:GRADER
        """, name="crucible-letters")
    cases = tmp_path / "cases" / "reasoning" / "letters.cases.yaml"
    cases.parent.mkdir(parents=True)
    cases.write_text(textwrap.dedent(CASE_FILE.format(count=count)))
    result = crucible_verify(site, cases)
    summary = ("1 cases checked, {} with problems (0 reference solutions executed, 1 answers re-derived, "
               "0 haystacks rebuilt)").format(0 if problem is None else 1)
    assert summary in result.stdout.splitlines(), result.stdout + result.stderr
    problems = [line.split(": ", 1)[1] for line in result.stdout.splitlines() if ".cases.yaml:" in line]
    assert problems == ([] if problem is None else [problem])
    assert result.returncode == (0 if problem is None else 1)


@pytest.fixture
def boxed(tmp_path, monkeypatch):
    site = add_distribution(tmp_path, {"boxed_grader": BOXED_GRADER}, """
        [pytest_crucible.graders]
        boxed = boxed_grader
        """, name="crucible-boxed")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "boxed_grader", raising=False)


def boxed_case(**verify):
    return build_case({"id": "BX1", "category": "instruct", "difficulty": "easy", "prompt": "Say hello.",
                       "grader": {"type": "boxed", "word": "hello"}, "verify": verify},
                      Path("/suite/instruct/t.cases.yaml"))


def test_a_module_with_check_and_grade_is_wrapped_and_keeps_its_flags(boxed):
    grader = grading.get_grader("boxed")
    assert isinstance(grader, ModuleGrader) and isinstance(grader, Grader)
    assert (grader.uses_sandbox, grader.needs_judge, grader.grades_trace, grader.compares_answers) == \
        (True, False, False, False)
    case = boxed_case()
    hello = Response(content="hello", finish_reason="stop")
    assert grading.grade(case, hello, sandbox="the run's sandbox").passed
    assert grading.grade(case, hello).reason == "said 'hello' in None"
    assert grading.check_spec({"type": "boxed", "word": 3}) == [("word", "word is the text the reply must say")]


class _PrintsHello:
    """A stand-in sandbox whose every program prints hello."""

    def run_python(self, code, **kwargs):
        return RunResult(0, "hello\n", "", False, False, False, 0.0, None)


def test_verify_checks_a_module_graders_cases_with_the_defaults(boxed):
    report = verify_cases([boxed_case(solver="print('hello')", accepted=["hello"])], sandbox=_PrintsHello())
    assert [p.message for p in report.problems] == [
        "verify.accepted is a list of single replies (not for code or multi-turn cases)",
        "verify.solver cannot be compared with a boxed grader (supported: checks, contains, exact, json, mapping, "
        "numeric, tool_calls, trace)",
        "verify.solver derives hello, but answers cannot be compared with a boxed grader",
        # verify grades accepted replies without a sandbox, which is why they are not for such a grader
        "1 of 1 possible answers rejected (100.00%; at most 1% may be), e.g. /suite/instruct/t.cases.yaml:0: BX1: "
        "verify.accepted[0] hello: said 'hello' in None",
    ]
    assert report.answers_derived == 1


def test_a_module_graders_replies_are_graded_through_grade(tmp_path, monkeypatch):
    site = add_distribution(tmp_path, {"echo_grader": """
        from pytest_crucible.grading.base import Grade

        def check(spec):
            return []

        def grade(case, response):
            return Grade(response.content == case.grader["word"], "not the word")
        """}, "[pytest_crucible.graders]\necho = echo_grader\n", name="crucible-echo")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "echo_grader", raising=False)
    case = build_case({"id": "EC1", "category": "instruct", "difficulty": "easy", "prompt": "Say hi.",
                       "grader": {"type": "echo", "word": "hi"}, "verify": {"reference": "hi", "wrong": ["hi"]}},
                      Path("/suite/instruct/t.cases.yaml"))
    report = verify_cases([case])
    assert report.references_graded == 2
    assert [p.message for p in report.problems] == ["verify.wrong[0] passes the grader but must fail: hi"]


def test_every_built_in_grader_is_a_grader_object():
    for kind in grading.known_types():
        grader = grading.get_grader(kind)
        assert isinstance(grader, BaseGrader) and isinstance(grader, Grader), kind
    assert [k for k in grading.known_types() if grading.get_grader(k).compares_answers] == \
        ["checks", "contains", "exact", "json", "mapping", "numeric", "tool_calls", "trace"]


def test_a_grader_needs_check_and_grade_only():
    class Minimal(BaseGrader):
        def check(self, spec):
            return []

        def grade(self, case, response):
            return grading.Grade(True)

    grader = Minimal()
    assert isinstance(grader, Grader)
    assert grader.tools_named({}) == [] and grader.patterns({}) == [] and grader.judged_replies(None) == []
    with pytest.raises(TypeError, match="abstract"):
        type("NoGrade", (BaseGrader,), {"check": lambda self, spec: []})()
