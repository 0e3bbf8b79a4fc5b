"""pytest_crucible.suite.code_family (building blocks of coding case families) and the built-in families."""

from __future__ import annotations

import pytest

from pytest_crucible.suite.case import DEFAULT_SEED, build_case, builtin_cases_dir, load_case_file
from pytest_crucible.suite.code_family import STANDARD_LIBRARY_ONLY, code_case, family_rng, literal, mutate


def test_mutate_replaces_each_pair_once():
    source = "def f(x):\n    return x + 1\n"
    assert mutate(source, ("x + 1", "x - 1"), ("def f", "def g")) == "def g(x):\n    return x - 1\n"


@pytest.mark.parametrize("old", ["x * 2", "x"])
def test_mutate_refuses_a_missing_or_ambiguous_target(old):
    with pytest.raises(ValueError, match="occurs"):
        mutate("def f(x):\n    return x + 1\n", (old, "y"))


def test_family_rng_is_stable_and_independent():
    first = [family_rng("CO-a", 7).random() for _ in range(2)]
    assert first == [family_rng("CO-a", 7).random()] * 2
    assert family_rng("CO-a", 7).random() != family_rng("CO-b", 7).random()
    assert family_rng("CO-a", 7).random() != family_rng("CO-a", 8).random()


def test_literal_rebuilds_plain_data():
    value = [(1, b"\x00x", None), {"k": [True, -2.5, "q'\"\n"]}, {b"a": 3}]
    namespace: dict = {}
    exec(f"value = {literal(value)}", namespace)
    assert namespace["value"] == value
    assert type(namespace["value"][0]) is tuple


def test_code_case_builds_a_valid_case(tmp_path):
    entry = code_case(family="CO-demo", number=3, difficulty="hard", title="Demo",
                      prompt="\n    Write `double(x)`.\n", entry_point="double",
                      tests="def test_table():\n    for x, want in TABLE:\n        assert double(x) == want\n",
                      solution="def double(x):\n    return 2 * x\n", wrong=["    def double(x):\n        return x\n"],
                      notes="Two\n   lines.", data={"TABLE": [(1, 2), (5, 10)]})
    case = build_case(entry, tmp_path / "cases" / "coding" / "demo_cases.py")
    assert (case.id, case.family, case.category, case.max_tokens) == ("CO-demo-03", "CO-demo", "coding", 16384)
    assert case.messages[0]["content"].startswith("Write `double(x)`.\n\n" + STANDARD_LIBRARY_ONLY)
    assert case.messages[0]["content"].endswith("Reply with the complete function in a single ```python code block.")
    assert case.verify["wrong"] == ["def double(x):\n    return x\n"]
    assert case.notes == "Two lines."
    namespace: dict = {}
    exec(case.grader["setup"], namespace)
    assert namespace["TABLE"] == [(1, 2), (5, 10)]


def _families():
    files = sorted(p for p in (builtin_cases_dir() / "coding").glob("*_cases.py"))
    return [p for p in files if any(c.family for c in load_case_file(p))]


def test_there_are_coding_families():
    assert len(_families()) >= 30


@pytest.mark.parametrize("path", _families(), ids=lambda p: p.stem)
def test_family_rerolls_hidden_tests_but_keeps_ids(path):
    default = load_case_file(path)
    other = load_case_file(path, DEFAULT_SEED + 1)
    assert [c.id for c in default] == [c.id for c in other]
    assert load_case_file(path)[0].grader == default[0].grader, "a seed must give the same case twice"
    for a, b in zip(default, other):
        hidden = lambda c: (c.grader.get("setup"), c.grader["tests"])  # noqa: E731 - data sits in either
        assert hidden(a) != hidden(b), f"{a.id}: the seed does not change the hidden tests"
        assert a.notes and a.family and a.id.startswith(a.family)
        assert len(a.verify["wrong"]) >= 3
        assert "standard library" in a.messages[0]["content"]
