"""The README's numbers about the built-in suite agree with the suite: the generated table between the
suite-counts markers, and each count its prose quotes. A drift fails here, naming the statement."""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from pathlib import Path

import pytest

from pytest_crucible.suite.case import load_cases
from pytest_crucible.suite.profiles import BUILTIN_PROFILES, select

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _suite_counts_module():
    spec = importlib.util.spec_from_file_location("suite_counts", ROOT / "docs" / "suite_counts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def cases():
    return load_cases()


def _profile(cases, name):
    return select(cases, BUILTIN_PROFILES[name])[0]


def _quoted(pattern: str) -> int:
    """The one number the README writes where `pattern` (with one group) matches; it must match once."""
    found = re.findall(pattern, README)
    assert len(found) == 1, f"README: expected one statement matching {pattern!r}, found {found}"
    return int(found[0].replace(",", ""))


def test_generated_table_is_current(cases):
    suite_counts = _suite_counts_module()
    table = suite_counts.counts_markdown(cases)
    assert suite_counts.replace_block(README, table) == README, (
        "README's suite-counts table is out of date: run python docs/suite_counts.py --write")


def test_replace_block_changes_a_stale_table():
    suite_counts = _suite_counts_module()
    stale = f"a\n{suite_counts.BEGIN}\n| old |\n{suite_counts.END}\nb\n"
    assert suite_counts.replace_block(stale, "| new |") == f"a\n{suite_counts.BEGIN}\n| new |\n{suite_counts.END}\nb\n"


def test_prose_counts_match_the_suite(cases):
    by_category = Counter(c.category for c in cases)
    hard = Counter(c.category for c in cases if c.difficulty == "hard")
    starter = [c for c in cases if "starter" in c.tags]
    standard = _profile(cases, "standard")
    assert _quoted(r"the starter tier \((\d+)\), and one case") == len(starter)
    assert _quoted(r"`-m starter`\): (\d+) one-step cases") == len(starter)
    assert _quoted(r"contexts up to 8k: (\d+) cases") == len(_profile(cases, "quick"))
    assert _quoted(r"profile \((\d+) items, a few minutes") == len(_profile(cases, "quick"))
    assert abs(_quoted(r"no starter case: about (\d+)") - len(standard)) <= 5
    assert _quoted(r"its (\d+) accuracy cases outside `prose`") == sum(
        c.category not in ("prose", "speed") for c in standard)
    assert _quoted(r"plus the\s+(\d+) speed cases") == sum(c.category == "speed" for c in standard)
    assert _quoted(r"The (\d+) `prose`\s+cases are asked only with a judge") == sum(
        c.category == "prose" for c in standard)
    assert _quoted(r"`tooluse` category \((\d+) cases, \d+ hard\)") == by_category["tooluse"]
    assert _quoted(r"`tooluse` category \(\d+ cases, (\d+) hard\)") == hard["tooluse"]
    assert _quoted(r"the `prose` category \((\d+) cases\)") == by_category["prose"]
    assert abs(_quoted(r"About ([\d,]+) cases in") - len(cases)) <= 25
