"""Profiles: filters, per-tier quotas with top-up, sampling across families, and the built-in profiles."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from builtin_suite import builtin_cases

from pytest_crucible.suite.case import Case
from pytest_crucible.suite.profiles import BUILTIN_PROFILES, check_profile, select


def case(cid, category="math", difficulty="hard", family="", min_context=None):
    return Case(id=cid, category=category, difficulty=difficulty, messages=({"role": "user", "content": "q"},),
                grader={"type": "exact", "answer": "a"}, family=family, min_context=min_context)


def ids(cases):
    return [c.id for c in cases]


def test_a_capped_category_samples_every_family_before_a_second_case_of_one():
    cases = [case("A1", family="A"), case("A2", family="A"), case("A3", family="A"),
             case("B1", family="B"), case("C1")]
    kept, dropped = select(cases, {"max_per_category": 3})
    assert ids(kept) == ["A1", "B1", "C1"]          # suite order, one per family
    assert ids(dropped) == ["A2", "A3"]


def test_per_difficulty_quotas_top_up_from_the_easiest_other_tier():
    cases = [case("H1", difficulty="hard", family="H"), case("H2", difficulty="hard", family="H"),
             case("H3", difficulty="hard", family="H"), case("M1", difficulty="medium"),
             case("M2", difficulty="medium")]
    # no easy case: one medium and one hard by quota, then the cap of 3 is filled with the other medium
    kept, _ = select(cases, {"per_difficulty": {"easy": 1, "medium": 1, "hard": 1}, "max_per_category": 3})
    assert ids(kept) == ["H1", "M1", "M2"]
    kept, _ = select(cases, {"per_difficulty": {"hard": 2}})
    assert ids(kept) == ["H1", "H2"]


def test_filters_and_max_context():
    cases = [case("S", min_context=4096), case("L", min_context=131072), case("C", category="coding")]
    assert ids(select(cases, {"max_context": 8192})[0]) == ["S", "C"]
    assert ids(select(cases, {"categories": ["coding"]})[0]) == ["C"]
    assert ids(select(cases, {})[0]) == ["S", "L", "C"]


def test_uncapped_tags_are_kept_besides_the_caps_and_exclude_tags_drop():
    cases = [case("S1", difficulty="easy"), case("S2", difficulty="easy"), case("A1", family="A"),
             case("A2", family="A"), case("B1", family="B")]
    tagged = [dataclasses.replace(c, tags=("starter",)) if c.id.startswith("S") else c for c in cases]
    kept, _ = select(tagged, {"max_per_category": 1, "uncapped_tags": ["starter"]})
    assert ids(kept) == ["S1", "S2", "A1"]
    assert ids(select(tagged, {"exclude_tags": ["starter"]})[0]) == ["A1", "A2", "B1"]


def test_judged_cases_only_with_a_judge():
    judged = Case(id="P1", category="prose", difficulty="easy", messages=({"role": "user", "content": "q"},),
                  grader={"type": "judge", "rubric": "facts"}, tags=("judged",))
    cases = [judged, case("M1")]
    profile = {"judged_only_with_judge": True}
    assert ids(select(cases, profile)[0]) == ["M1"]
    assert ids(select(cases, profile, judge=True)[0]) == ["P1", "M1"]
    assert ids(select(cases, {})[0]) == ["P1", "M1"]


@pytest.mark.parametrize("spec, field", [
    ({"max_per_category": 0}, "max_per_category"),
    ({"per_difficulty": {"extreme": 1}}, "per_difficulty"),
    ({"categories": "math"}, "categories"),
    ({"colour": "red"}, "colour"),
    ({"uncapped_tags": "starter"}, "uncapped_tags"),
    ({"judged_only_with_judge": "yes"}, "judged_only_with_judge"),
])
def test_bad_profiles_name_the_field(spec, field):
    assert [f for f, _ in check_profile(spec)] == [field]


def test_builtin_profiles_on_the_suite():
    suite = builtin_cases()
    counts = {name: Counter(c.category for c in select(suite, spec)[0]) for name, spec in BUILTIN_PROFILES.items()}
    assert counts["full"] == Counter(c.category for c in suite)
    # quick: at most 3 per category, plus every starter case; without a judge, no judged (prose) case
    starters = Counter(c.category for c in suite if "starter" in c.tags)
    assert set(starters) == {"math", "instruct", "tooluse", "coding"} and 10 <= sum(starters.values()) <= 16
    assert all(1 <= n - starters[k] <= 3 for k, n in counts["quick"].items()), counts["quick"]
    assert set(counts["quick"]) == set(counts["full"]) - {"prose"}
    with_judge = select(suite, BUILTIN_PROFILES["quick"], judge=True)[0]
    assert Counter(c.category for c in with_judge)["prose"] in (1, 2, 3)
    assert not any("starter" in c.tags for c in select(suite, BUILTIN_PROFILES["standard"])[0])
    assert {c.id for c in select(suite, BUILTIN_PROFILES["starter"])[0]} == \
        {c.id for c in suite if "starter" in c.tags}
    standard = select(suite, BUILTIN_PROFILES["standard"])[0]
    assert 50 <= len(standard) <= 72, len(standard)  # 8 per accuracy category (9 with prose), speed
    assert all((c.min_context or 0) <= 32768 for c in standard)
    accuracy = [c for c in standard if c.category != "speed"]
    tiers = Counter(c.difficulty for c in accuracy)
    assert tiers["hard"] > tiers["medium"] > 0, tiers
    assert set(counts["coding"]) == {"coding"}
    assert {c.difficulty for c in select(suite, BUILTIN_PROFILES["hard"])[0]} == {"hard"}
