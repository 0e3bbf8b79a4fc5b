"""The code grader: spec checks, picking the code out of a reply, readable reasons, time limits."""

from __future__ import annotations

import dis
import json
import threading
import time
import types
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_crucible import grading as graders
from pytest_crucible.client.response import Response
from pytest_crucible.common.errors import CaseError, SandboxError
from pytest_crucible.grading import code as code_grader
from pytest_crucible.grading.code import check, extract_code, run_code
from pytest_crucible.sandbox import SKIP_REASON, Sandbox, bwrap_available, testrun
from pytest_crucible.suite.case import build_case

needs_bwrap = pytest.mark.skipif(not bwrap_available(), reason=SKIP_REASON)

MEDIAN_TESTS = """
def check(candidate):
    assert candidate([3, 1, 2]) == 2
    assert candidate([5]) == 5
    assert candidate([1, 2, 3, 4]) == 2.5
    assert candidate([7, 1, 7, 1, 4]) == 4
"""
MEDIAN = """
def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
"""


def make_case(tests=MEDIAN_TESTS, entry_point="median", solution=MEDIAN, timeout_s=None, **grader):
    entry = {"id": "T-code", "category": "coding", "difficulty": "medium", "prompt": "Write median(xs).",
             "grader": {"type": "code", "entry_point": entry_point, "tests": tests, **grader},
             "verify": {"solution": solution} if solution else {}}
    if timeout_s is not None:
        entry["timeout_s"] = timeout_s
    return build_case(entry, Path("cases/coding/test.cases.yaml"))


def reply(code: str, before: str = "Here is my solution:\n\n", after: str = "\n\nIt sorts first.") -> Response:
    return Response(content=f"{before}```python\n{code.strip()}\n```{after}")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Calibrations made by these tests go to a temporary folder, not the user's cache."""
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def sandbox():
    if not bwrap_available():
        pytest.skip(SKIP_REASON)
    return Sandbox()


def grade(case, response: Response, sandbox):
    code = extract_code(response.content, case.grader["entry_point"])
    if code is None:
        return graders.Grade(passed=False, reason="no code in response")
    return run_code(case, code, sandbox=sandbox)


# ---------------------------------------------------------------------------------------- spec

def test_check_accepts_a_good_spec_and_explains_bad_ones():
    good = {"type": "code", "entry_point": "median", "tests": MEDIAN_TESTS}
    assert check(good) == []
    assert check({**good, "language": "python", "memory_mb": 512, "setup": "X = 1", "prelude": "import math",
                  "perf": {"input": "args = ([1, 2, 3],)", "check": "assert result == 2"}}) == []
    cases = {
        "colour": {**good, "colour": "red"},
        "language": {**good, "language": "rust"},
        "entry_point": {**good, "entry_point": "not an identifier"},
        "tests": {**good, "tests": "x = 1\n"},
        "memory_mb": {**good, "memory_mb": 10},
        "perf": {**good, "perf": {"check": "assert True"}},
        "prelude": {**good, "prelude": "def broken(:\n"},
    }
    for field, spec in cases.items():
        problems = check(spec)
        assert problems and problems[0][0] == field, (field, problems)
    assert "SyntaxError line 2" in check({**good, "tests": "x = 1\nassert (\n"})[0][1]
    assert "reserved" in check({**good, "tests": "assert __crucible_check__ is None"})[0][1]
    assert "takes arguments" in check({**good, "tests": "def test_a(fixture):\n    assert fixture\n"})[0][1]


def test_case_files_validate_through_the_registry():
    with pytest.raises(CaseError, match="entry_point"):
        make_case(entry_point="")
    assert make_case().grader["type"] == "code"


# ---------------------------------------------------------------------------------------- extraction

def test_extract_the_fenced_block_that_defines_the_entry_point():
    text = ("Sure! Here you go:\n\n```python\ndef median(xs):\n    return sorted(xs)[len(xs) // 2]\n```\n\n"
            "Usage:\n\n```python\nprint(median([3, 1, 2]))\n```\n")
    assert extract_code(text, "median") == "def median(xs):\n    return sorted(xs)[len(xs) // 2]\n"


def test_extract_prefers_the_last_definition_and_keeps_helper_blocks():
    text = ("First try:\n```py\ndef median(xs):\n    return 0\n```\nA helper:\n```python\nimport statistics\n"
            "def _mid(s):\n    return s[len(s) // 2]\n```\nFinal:\n```python\ndef median(xs):\n"
            "    return _mid(sorted(xs))\n```\n")
    code = extract_code(text, "median")
    assert code.startswith("import statistics\ndef _mid(s):") and code.rstrip().endswith("return _mid(sorted(xs))")
    assert "return 0" not in code


def test_extract_an_unclosed_fence_at_the_end():
    text = "Here:\n```python\ndef median(xs):\n    return sorted(xs)[len(xs) // 2]\n"
    assert extract_code(text, "median") == "def median(xs):\n    return sorted(xs)[len(xs) // 2]\n"


def test_extract_a_bare_reply_that_is_code():
    bare = "import math\n\ndef median(xs):\n    return sorted(xs)[len(xs) // 2]"
    assert extract_code(bare, "median") == bare + "\n"
    prose = "The answer is below.\n\ndef median(xs):\n    return sorted(xs)[len(xs) // 2]\n\nHope that helps!"
    assert extract_code(prose, "median") == "def median(xs):\n    return sorted(xs)[len(xs) // 2]\n"


def test_extract_nothing_from_prose_or_other_languages():
    assert extract_code("I think the median is the middle value.", "median") is None
    assert extract_code("", "median") is None
    assert extract_code("```bash\nls -la\n```", "median") is None
    assert extract_code("```\ndef median(xs): return 1\n```", "median") == "def median(xs): return 1\n"
    # a block tagged with another language still counts when it defines the entry point
    assert extract_code("```python3\ndef median(xs): return 1\n```", "median") == "def median(xs): return 1\n"


_prose = st.text(alphabet=st.characters(blacklist_characters="`~\x00", blacklist_categories=("Cs",)),
                 max_size=200).filter(lambda s: "def median" not in s)


@settings(max_examples=150, deadline=None)
@given(before=_prose, after=_prose,
       body=st.sampled_from(["return 1", "return sorted(xs)[0]", "s = sorted(xs)\n    return s[len(s) // 2]"]))
def test_extracted_code_is_exactly_the_fenced_solution(before, after, body):
    solution = f"def median(xs):\n    {body}"
    text = f"{before}\n```python\n{solution}\n```\n{after}"
    assert extract_code(text, "median") == solution + "\n"


# ---------------------------------------------------------------------------------------- grading

@needs_bwrap
def test_a_correct_solution_passes_through_the_registry(sandbox, monkeypatch):
    monkeypatch.setattr(code_grader, "get_sandbox", lambda: sandbox)
    result = graders.grade(make_case(), reply(MEDIAN))
    assert result.passed, result.reason
    assert result.answer.strip() == MEDIAN.strip()
    assert result.details["asserts"] == 4 and result.details["time_limit_s"] == 15
    assert result.details["unsandboxed"] is False


@needs_bwrap
@pytest.mark.parametrize("code, reason", [
    ("def median(xs):\n    return sorted(xs)[len(xs) // 2]\n", "AssertionError in test 3: expected 2.5, got 3"),
    ("def median(xs)\n    return 1\n", "SyntaxError line 1: expected ':'"),
    ("def median(xs):\n    return foo\n", "NameError in test 1: name 'foo' is not defined"),
    ("import foo_missing_module\n", "ModuleNotFoundError: No module named 'foo_missing_module'"),
    ("x = undefined_name\n", "NameError: name 'undefined_name' is not defined"),
    ("def middle(xs):\n    return 2\n", "entry point median not defined"),
    ("def median(xs):\n    return [0] * 10**10\n", "memory limit exceeded"),
    ("def median(xs):\n    return xs[10]\n", "IndexError in test 1: list index out of range"),
    ("def median(xs):\n    return None\n", "AssertionError in test 1: expected 2, got None"),
])
def test_failures_read_clearly(sandbox, code, reason):
    result = grade(make_case(), reply(code), sandbox)
    assert not result.passed
    assert result.reason == reason


@needs_bwrap
def test_errors_outside_asserts_name_the_test_function(sandbox):
    tests = ("def test_empty_raises():\n    try:\n        median([])\n    except ValueError:\n        return\n"
             "    raise AssertionError('an empty list must raise ValueError')\n"
             "def test_sorted():\n    assert median([2, 1, 3]) == 2\n")
    result = grade(make_case(tests=tests), reply("def median(xs):\n    return sorted(xs)[len(xs) // 2] if xs else 0\n"),
                   sandbox)
    assert result.reason == "AssertionError in test_empty_raises: an empty list must raise ValueError"
    perf = make_case(tests="assert median([1]) == 1\n", perf={"name": "big", "input": "args = ([1] * 10,)"})
    result = grade(perf, reply("def median(xs):\n    if len(xs) > 5:\n        raise KeyError('big')\n    return xs[0]\n"),
                   sandbox)
    assert result.reason == "KeyError in perf test big: big"


@needs_bwrap
def test_timeout_reason_uses_the_case_limit(sandbox):
    result = grade(make_case(timeout_s=1.5), reply("def median(xs):\n    while True:\n        pass\n"), sandbox)
    assert not result.passed and result.reason == "timeout >1.5s"
    assert result.details["time_limit_source"] == "case"


def test_no_code_in_response(monkeypatch):
    monkeypatch.setattr(code_grader, "get_sandbox", lambda: pytest.fail("no sandbox needed"))
    result = code_grader.grade(make_case(), Response(content="The median is the middle element."))
    assert not result.passed and result.reason == "no code in response"


@needs_bwrap
def test_other_comparisons_name_the_assert(sandbox):
    case = make_case(tests="def check(candidate):\n    assert candidate([1]) == 1\n"
                           "    assert abs(candidate([1, 2]) - 1.5) < 1e-9, 'halfway'\n"
                           "    assert candidate([2, 4]) in (3, 3.0)\n")
    result = grade(case, reply("def median(xs):\n    return xs[0]\n"), sandbox)
    assert result.reason == ("AssertionError in test 2: abs(candidate([1, 2]) - 1.5) < 1e-9 is false (0.5 < 1e-09) "
                             "(halfway)")
    assert result.details["message"] == "halfway" and result.details["test"] == 2


def test_assert_sources_are_the_text_of_each_assert():
    import ast
    tests = ("x = 'é'\r\nassert median(['ü',\r\n    2]) == [\n 1]\n"
             "def test_a():\n    assert  median([1])   != 'ß' * 3, 'msg'\n")
    prepared = testrun.prepare_tests(tests, entry_point="median")
    tree = ast.parse(tests)
    want = [" ".join(ast.get_source_segment(tests, n.test).split()) for n in ast.walk(tree) if isinstance(n, ast.Assert)]
    assert [site.source for site in prepared.sites] == want == ["median(['ü', 2]) == [ 1]", "median([1]) != 'ß' * 3"]


@needs_bwrap
def test_an_equality_assert_with_a_message_names_the_step_that_failed(sandbox):
    tests = ("def test_script():\n    for step, (xs, want) in enumerate([([1], 1), ([1, 3], 2), ([4, 2, 9], 4)]):\n"
             "        assert median(xs) == want, f'step {step}: median({xs})'\n")
    result = grade(make_case(tests=tests), reply("def median(xs):\n    return xs[len(xs) // 2]\n"), sandbox)
    assert result.reason == "AssertionError in test 1: expected 2, got 3 (step 1: median([1, 3]))"
    assert result.details["message"] == "step 1: median([1, 3])"
    long_note = make_case(tests="assert median([1, 3]) == 2, 'x' * 500\n")
    result = grade(long_note, reply("def median(xs):\n    return xs[-1]\n"), sandbox)
    assert result.reason == "AssertionError in test 1: expected 2, got 3 (" + "x" * 197 + "...)"


@needs_bwrap
def test_module_asserts_test_functions_and_check_all_run(sandbox):
    tests = ("assert median([1]) == 1\n"
             "def test_pairs():\n    assert median([1, 3]) == 2\n"
             "def test_odd():\n    for xs, want in CASES:\n        assert median(xs) == want\n"
             "def check(candidate):\n    assert candidate([9, 8, 7]) == 8\n")
    case = make_case(tests=tests, setup="CASES = [([5, 1, 3], 3), ([2, 2, 2], 2)]\n")
    result = grade(case, reply(MEDIAN), sandbox)
    assert result.passed, result.reason
    assert result.details["units"] == 4 and result.details["asserts"] == 5
    wrong = grade(case, reply(MEDIAN.replace("n % 2", "n % 2 and n != 3")), sandbox)
    assert wrong.reason == "AssertionError in test 3: expected 3, got 2.0"


@needs_bwrap
def test_prelude_is_visible_to_the_solution_and_setup_keeps_trusted_helpers(sandbox):
    prelude = "def helper(x):\n    return x * 2\n"
    case = make_case(tests="def check(candidate):\n    assert helper(candidate(2)) == 8\n", entry_point="f",
                     solution="def f(x):\n    return helper(x)\n", prelude=prelude, setup=prelude)
    assert grade(case, reply("def f(x):\n    return helper(x)\n"), sandbox).passed
    # the solution may redefine the helper for itself, but the tests keep calling the original
    cheat = "def helper(x):\n    return 8\n\ndef f(x):\n    return 0\n"
    assert grade(case, reply(cheat), sandbox).reason == "AssertionError in test 1: expected 8, got 0"


@needs_bwrap
def test_a_swallowed_assert_still_fails_and_some_assert_must_run(sandbox):
    tests = ("def check(candidate):\n    try:\n        assert candidate([1, 2, 3]) == 99\n"
             "    except BaseException:\n        pass\n    assert candidate([1]) == 1\n")
    result = grade(make_case(tests=tests), reply(MEDIAN), sandbox)
    assert result.reason == "AssertionError in test 1: expected 99, got 2"
    empty = make_case(tests="def check(candidate):\n    for xs in []:\n        assert candidate(xs)\n")
    assert grade(empty, reply(MEDIAN), sandbox).reason == "no assertion ran"


@needs_bwrap
def test_builtin_subclasses_compare_by_their_builtin_value(sandbox):
    tests = ("from collections import Counter, OrderedDict, namedtuple\n"
             "def check(candidate):\n"
             "    assert candidate('aab') == {'a': 2, 'b': 1}\n"
             "    assert candidate('aab').keys() == {'a', 'b'}\n"
             "    assert type(candidate('a')) is not None\n")
    case = make_case(tests=tests, entry_point="hist")
    for code in ("from collections import Counter\ndef hist(s):\n    return Counter(s)\n",
                 "from collections import OrderedDict\ndef hist(s):\n    d = OrderedDict()\n"
                 "    for c in s:\n        d[c] = d.get(c, 0) + 1\n    return d\n",
                 "import enum\nclass N(enum.IntEnum):\n    ONE = 1\n    TWO = 2\n"
                 "def hist(s):\n    return {c: N(s.count(c)) for c in s}\n"):
        result = grade(case, reply(code), sandbox)
        assert result.passed, (code, result.reason)
    pair = make_case(tests="def check(candidate):\n    assert candidate() == (1, 2)\n", entry_point="pair")
    assert grade(pair, reply("from collections import namedtuple\nP = namedtuple('P', 'a b')\n"
                             "def pair():\n    return P(1, 2)\n"), sandbox).passed


@needs_bwrap
def test_classes_defined_by_the_tests_compare_with_their_own_eq(sandbox):
    tests = ("class Point:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n"
             "    def __eq__(self, other):\n        return (self.x, self.y) == (other.x, other.y)\n"
             "def check(candidate):\n    x, y = candidate()\n    assert Point(x, y) == Point(1, 2)\n")
    case = make_case(tests=tests, entry_point="coords")
    assert grade(case, reply("def coords():\n    return 1, 2\n"), sandbox).passed
    assert not grade(case, reply("def coords():\n    return 2, 1\n"), sandbox).passed


@needs_bwrap
def test_unsandboxed_grading_works_and_is_marked():
    bare = Sandbox(allow_unsandboxed=True, bwrap="")
    result = grade(make_case(), reply(MEDIAN), bare)
    assert result.passed and result.details["unsandboxed"] is True


# ---------------------------------------------------------------------------------------- limits

PERF_TESTS = "def check(candidate):\n    assert candidate([2, 1, 3]) == [1, 2, 3]\n"
PERF = {"input": "import random\nrng = random.Random(11)\nargs = ([rng.randrange(10**9) for _ in range(30_000)],)",
        "check": "assert result == sorted(args[0])"}
FAST_SORT = "def sort_list(xs):\n    return sorted(xs)\n"
SLOW_SORT = ("def sort_list(xs):\n    xs = list(xs)\n    for i in range(len(xs)):\n        for j in range(len(xs) - 1 - i):\n"
             "            if xs[j] > xs[j + 1]:\n                xs[j], xs[j + 1] = xs[j + 1], xs[j]\n    return xs\n")


@needs_bwrap
def test_perf_limit_is_calibrated_cached_and_enforces_complexity(sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(tmp_path))
    case = make_case(tests=PERF_TESTS, entry_point="sort_list", solution=FAST_SORT, perf=PERF)
    limit, source = code_grader.time_limit(case, sandbox=sandbox)
    assert source == "calibrated" and limit >= code_grader.CALIBRATION_FLOOR_S
    [cached] = list((tmp_path / "calibration").glob("T-code-*.json"))
    data = json.loads(cached.read_text())
    assert data["limit_s"] == limit and data["rule"] == "max(2 s, 10 x reference)" and len(data["runs_s"]) == 3
    assert limit == max(2.0, 10 * min(data["runs_s"]))
    # measured once: a second call reads the cache
    monkeypatch.setattr(code_grader, "run_code", lambda *a, **k: pytest.fail("measured twice"))
    assert code_grader.time_limit(case, sandbox=sandbox) == (limit, "calibrated")
    monkeypatch.undo()
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(tmp_path))
    fast = grade(case, reply(FAST_SORT), sandbox)
    assert fast.passed and fast.details["time_limit_source"] == "calibrated" and "perf" in fast.details["perf_s"]
    slow = grade(case, reply(SLOW_SORT), sandbox)    # O(n^2) on 30k items: about 10^9 steps
    assert not slow.passed and slow.reason == f"timeout >{round(limit, 2):g}s"


def test_parallel_workers_calibrate_once(tmp_path, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(tmp_path))
    case = make_case(tests=PERF_TESTS, entry_point="sort_list", solution=FAST_SORT, perf=PERF)
    calls = []

    def fake_run(case_, code, *, sandbox=None, timeout_s=None):
        calls.append(threading.get_ident())
        threading.Event().wait(0.05)
        return graders.Grade(passed=True, details={"duration_s": 0.01})

    monkeypatch.setattr(code_grader, "run_code", fake_run)
    bare = Sandbox(allow_unsandboxed=True, bwrap="")
    results = []
    threads = [threading.Thread(target=lambda: results.append(code_grader.calibrated_limit(case, sandbox=bare)))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [2.0] * 4 and len(calls) == code_grader.CALIBRATION_RUNS


def test_a_failing_reference_is_a_case_error_not_a_model_failure(tmp_path, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(code_grader, "run_code",
                        lambda *a, **k: graders.Grade(passed=False, reason="expected 1, got 2", details={}))
    case = make_case(tests=PERF_TESTS, entry_point="sort_list", solution="def sort_list(xs):\n    return xs\n",
                     perf=PERF)
    with pytest.raises(CaseError, match="reference solution fails"):
        code_grader.calibrated_limit(case, sandbox=Sandbox(allow_unsandboxed=True, bwrap=""))


def test_cases_without_perf_use_timeout_s_or_15_s():
    assert code_grader.time_limit(make_case()) == (15.0, "default")
    assert code_grader.time_limit(make_case(timeout_s=4)) == (4.0, "case")


# ---------------------------------------------------------------------------------------- canary, harness

@needs_bwrap
def test_canary_passes_and_fails_loudly_on_a_broken_sandbox(sandbox, tmp_path):
    code_grader.canary(sandbox)
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(SandboxError):
        code_grader.canary(Sandbox(bwrap=str(fake)))


def test_a_broken_sandbox_makes_code_items_errors_not_failures(tmp_path, monkeypatch):
    from pytest_crucible.common.errors import InfraError
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    broken = Sandbox(bwrap=str(fake))
    monkeypatch.setattr(code_grader, "get_sandbox", lambda: broken)
    for _ in range(2):   # the canary's verdict is kept: every code item is an error, none a failure
        with pytest.raises(SandboxError, match="canary.*No permissions") as info:
            graders.grade(make_case(), reply(MEDIAN))
        assert isinstance(info.value, InfraError)


def test_the_harness_never_reads_a_global_after_start():
    """Every name the harness uses is bound to a local before the code under test exists, so
    replacing builtins or module attributes cannot reach into it (class bodies aside, which run at
    start)."""
    module = compile(testrun.HARNESS_SOURCE, "harness.py", "exec")
    [main] = [c for c in module.co_consts if isinstance(c, types.CodeType) and c.co_name == "_crucible_harness"]
    found = []

    def walk(co, in_class=False):
        for ins in dis.get_instructions(co):
            if ins.opname in ("LOAD_GLOBAL", "STORE_GLOBAL", "DELETE_GLOBAL", "LOAD_NAME", "STORE_NAME",
                              "DELETE_NAME"):
                if not (in_class and ins.argval in ("__name__", "__module__", "__qualname__")):
                    found.append((co.co_name, ins.opname, ins.argval))
        for const in co.co_consts:
            if isinstance(const, types.CodeType):
                walk(const, in_class=not const.co_flags & 0x02)   # no CO_NEWLOCALS: a class body
    walk(main)
    assert found == []


def test_threads_parse_code_one_at_a_time():
    """CPython 3.11 keeps the AST conversion depth in interpreter-wide state; a finalizer that lets
    another thread run mid-parse made `ast.parse` fail with "AST constructor recursion depth mismatch"
    (seen in `crucible cases verify`, which grades in threads). Threads at different stack depths parse
    while cyclic garbage whose finalizer yields the GIL is collected."""
    source = Path(testrun.__file__).read_text(encoding="utf-8")
    failures: list[str] = []

    class Garbage:
        def __init__(self):
            self.me = self

        def __del__(self):
            time.sleep(0)

    def parse_at_depth(depth: int) -> None:
        if depth:
            return parse_at_depth(depth - 1)
        for _ in range(40):
            for _ in range(50):
                Garbage()
            try:
                testrun.parse_python(source)
            except SystemError as exc:
                failures.append(str(exc))
                return

    threads = [threading.Thread(target=parse_at_depth, args=(10 * (i + 1),)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
