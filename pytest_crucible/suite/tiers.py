"""The tier rule: a case's difficulty follows from facts it declares, so "hard" means one thing.

A case declares `hardness: {steps, search, traps}`:
- steps: the dependent steps the shortest correct method takes (a step uses the result of the one before);
- search: how many candidates a solver that does not see the idea must consider (1 when there is no search);
- traps: how many plausible wrong answers a confident shortcut lands on (each one stored in `verify.wrong`).

The rule (README "How tiers are assigned"):
- hard: steps >= 5, at least one trap, and steps >= 8 or search >= 1,000;
- easy: steps <= 2, no trap and search < 100;
- medium: everything else.
"""

from __future__ import annotations

HARDNESS_KEYS = ("steps", "search", "traps")
MAX_FACT = 10**18  # a search space is a count, and bigger ones do not change the tier


def tier_of(hardness: dict) -> str:
    """The difficulty the rule gives for declared facts."""
    steps, search, traps = (int(hardness[key]) for key in HARDNESS_KEYS)
    if steps >= 5 and traps >= 1 and (steps >= 8 or search >= 1000):
        return "hard"
    if steps <= 2 and traps == 0 and search < 100:
        return "easy"
    return "medium"


def hardness_problem(hardness: object) -> str | None:
    """Why `hardness` is not a valid declaration; None when it is."""
    if not isinstance(hardness, dict):
        return "hardness must be a mapping {steps: N, search: N, traps: N}"
    unknown = sorted(set(hardness) - set(HARDNESS_KEYS))
    missing = [key for key in HARDNESS_KEYS if key not in hardness]
    if unknown or missing:
        return (f"hardness takes exactly steps, search and traps"
                f"{'; unknown: ' + ', '.join(map(str, unknown)) if unknown else ''}"
                f"{'; missing: ' + ', '.join(missing) if missing else ''}")
    lowest = {"steps": 1, "search": 1, "traps": 0}
    for key in HARDNESS_KEYS:
        value = hardness[key]
        if isinstance(value, bool) or not isinstance(value, int) or not lowest[key] <= value <= MAX_FACT:
            return f"hardness.{key} must be a whole number from {lowest[key]}, got {value!r}"
    return None


def distinct_templates(cases: list) -> dict[tuple[str, str], int]:
    """Distinct problem templates per (category, difficulty): a family counts once in each tier its siblings
    have (siblings are one template with new numbers), a case without a family is a template of its own."""
    seen: dict[tuple[str, str], set[str]] = {}
    for case in cases:
        seen.setdefault((case.category, case.difficulty), set()).add(case.family or f"case:{case.id}")
    return {cell: len(templates) for cell, templates in seen.items()}


def distinct_total(cases: list, difficulty: str | None = None) -> int:
    """Distinct templates over all categories (of one tier, with `difficulty`)."""
    return len({(case.category, case.family or f"case:{case.id}") for case in cases
                if difficulty is None or case.difficulty == difficulty})


def declare(case: dict, steps: int, search: int, traps: int) -> dict:
    """Put the hardness facts on a generated case mapping and give it the tier the rule makes of them."""
    case["hardness"] = {"steps": steps, "search": search, "traps": traps}
    case["difficulty"] = tier_of(case["hardness"])
    return case


def ruled(steps: int, search: int, traps: int) -> dict:
    """{"hardness": the facts, "difficulty": the rule's tier}, to spread into a generated case mapping."""
    hardness = {"steps": steps, "search": search, "traps": traps}
    return {"hardness": hardness, "difficulty": tier_of(hardness)}
