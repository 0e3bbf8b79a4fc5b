"""Profiles: named selections of the suite (`--crucible-profile NAME`, `crucible cases list --profile NAME`).

A profile filters cases (categories, difficulties, tags, ids, tags to leave out, the most context a case
may need) and can cap how many of each category it keeps: `per_difficulty` takes that many of each tier per category,
`max_per_category` caps the category (and tops up from the other tiers, easiest first, when a tier has
too few cases). Within a category the cases are taken across families in turn, so a capped profile
samples every family before it takes a second case of one. Cases with an `uncapped_tags` tag (the
`starter` tier in `quick`) are kept besides the capped selection. `judged_only_with_judge` leaves the
judged cases out of a run without a judge (they would all be skipped). The selection is a pure function
of the suite and whether the run has a judge, so every process of a run (xdist workers too) selects the
same cases.
"""

from __future__ import annotations

from collections import defaultdict

from pytest_crucible.suite.case import DIFFICULTIES

FIELDS = {"categories", "difficulties", "tags", "ids", "max_per_category", "per_difficulty", "max_context",
          "exclude_tags", "uncapped_tags", "judged_only_with_judge"}
JUDGED_TAG = "judged"

BUILTIN_PROFILES: dict[str, dict] = {
    "full": {},
    "smoke": {"tags": ["smoke"]},
    # the starter tier, and one case of each tier per category, short contexts: a first look in minutes on
    # the embedded model that still tells a small model from a big one
    "quick": {"per_difficulty": {"easy": 1, "medium": 1, "hard": 1}, "max_per_category": 3,
              "max_context": 8192, "uncapped_tags": ["starter"], "judged_only_with_judge": True},
    # about 60 cases stratified by tier; contexts up to 32k keep it within an hour on a local model
    "standard": {"per_difficulty": {"easy": 1, "medium": 2, "hard": 5}, "max_per_category": 8,
                 "max_context": 32768, "exclude_tags": ["starter"]},
    "starter": {"tags": ["starter"]},
    "coding": {"categories": ["coding"]},
    "hard": {"difficulties": ["hard"]},
}


def check_profile(spec) -> list[tuple[str | None, str]]:
    """(field, message) for each problem in a profile mapping."""
    if not isinstance(spec, dict):
        return [(None, "a profile is a mapping, e.g. {categories: [math], max_per_category: 5}")]
    problems = [(key, f"unknown field; a profile holds {', '.join(sorted(FIELDS))}") for key in spec
                if key not in FIELDS]
    for key in ("categories", "difficulties", "tags", "ids", "exclude_tags", "uncapped_tags"):
        value = spec.get(key)
        if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
            problems.append((key, f"{key} is a list of names, e.g. {key}: [{_example(key)}]"))
    for key in ("max_per_category", "max_context"):
        value = spec.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            problems.append((key, f"{key} is a positive integer, got {value!r}"))
    if not isinstance(spec.get("judged_only_with_judge", False), bool):
        problems.append(("judged_only_with_judge", "judged_only_with_judge is true or false"))
    quotas = spec.get("per_difficulty")
    if quotas is not None and (not isinstance(quotas, dict) or not all(
            k in DIFFICULTIES and isinstance(v, int) and not isinstance(v, bool) and v >= 0
            for k, v in quotas.items())):
        problems.append(("per_difficulty", "per_difficulty maps easy / medium / hard to a count per "
                         "category, e.g. {easy: 1, medium: 2, hard: 5}"))
    return problems


def _example(key: str) -> str:
    return {"categories": "math, coding", "difficulties": "hard", "tags": "smoke", "ids": "MA01-three-or-five",
            "exclude_tags": "starter", "uncapped_tags": "starter"}[key]


def matches(profile: dict, case, judge: bool = False) -> bool:
    """Whether a case passes the profile's filters (the caps are applied by `select`); `judge`: whether
    the run has a judge."""
    if profile.get("categories") and case.category not in profile["categories"]:
        return False
    if profile.get("difficulties") and case.difficulty not in profile["difficulties"]:
        return False
    if profile.get("tags") and not set(profile["tags"]) & set(case.tags):
        return False
    if profile.get("ids") and case.id not in profile["ids"]:
        return False
    if set(profile.get("exclude_tags") or ()) & set(case.tags):
        return False
    if profile.get("judged_only_with_judge") and not judge and JUDGED_TAG in case.tags:
        return False
    if profile.get("max_context") and (case.min_context or 0) > profile["max_context"]:
        return False
    return True


def _across_families(cases: list) -> list:
    """Suite order, but one case of each family in turn (cases without a family are each their own)."""
    groups: dict[str, list] = defaultdict(list)
    for case in cases:
        groups[case.family or case.id].append(case)
    queues = list(groups.values())
    out = []
    for depth in range(max((len(q) for q in queues), default=0)):
        out += [q[depth] for q in queues if depth < len(q)]
    return out


def _cap_category(cases: list, profile: dict) -> list:
    quotas, limit = profile.get("per_difficulty"), profile.get("max_per_category")
    ordered = _across_families(cases)
    if quotas is None:
        return ordered[:limit] if limit else ordered
    chosen = []
    for tier in DIFFICULTIES:
        chosen += [c for c in ordered if c.difficulty == tier][:quotas.get(tier, 0)]
    if limit:
        taken = {id(c) for c in chosen}
        rest = sorted((c for c in ordered if id(c) not in taken), key=lambda c: DIFFICULTIES.index(c.difficulty))
        chosen = (chosen + rest)[:limit] if len(chosen) < limit else chosen[:limit]
    return chosen


def select(cases: list, profile: dict, judge: bool = False) -> tuple[list, list]:
    """(selected, deselected), both in suite order; `judge`: whether the run has a judge."""
    by_category: dict[str, list] = defaultdict(list)
    uncapped = set(profile.get("uncapped_tags") or ())
    kept = set()
    for case in cases:
        if not matches(profile, case, judge):
            continue
        if uncapped & set(case.tags):
            kept.add(id(case))
        else:
            by_category[case.category].append(case)
    kept |= {id(c) for group in by_category.values() for c in _cap_category(group, profile)}
    return [c for c in cases if id(c) in kept], [c for c in cases if id(c) not in kept]


__all__ = ["BUILTIN_PROFILES", "FIELDS", "check_profile", "matches", "select"]
