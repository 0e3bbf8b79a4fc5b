"""A speed case's measurement plan: the case's `speed:` field, checked at load.

    speed: {warmup: 1, repeats: 3, concurrency: 1}

`warmup` rounds are thrown away, `repeats` rounds are measured, each round sends `concurrency` requests at
once. The run's --crucible-speed-warmup / --crucible-speed-repeats override the first two.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_WARMUP = 1
DEFAULT_REPEATS = 3
PLAN_KEYS = ("warmup", "repeats", "concurrency")
_MINIMUM = {"warmup": 0, "repeats": 1, "concurrency": 1}


@dataclass(frozen=True)
class SpeedPlan:
    warmup: int = DEFAULT_WARMUP
    repeats: int = DEFAULT_REPEATS
    concurrency: int = 1


def check_plan(spec: dict) -> list[tuple[str | None, str]]:
    """Problems in a speed plan mapping, as (field, message) pairs (the graders' convention)."""
    problems: list[tuple[str | None, str]] = []
    for key in sorted(set(spec) - set(PLAN_KEYS)):
        problems.append((key, f"unknown speed setting; allowed: {', '.join(PLAN_KEYS)}"))
    for key, minimum in _MINIMUM.items():
        value = spec.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < minimum):
            problems.append((key, f"{key} must be a whole number of at least {minimum}"))
    return problems


def plan_for(case, settings=None) -> SpeedPlan:
    """The case's plan, with the run's warm-up / repeat overrides (a SpeedSettings) on top."""
    spec = case.speed or {}
    warmup = getattr(settings, "warmup", None)
    repeats = getattr(settings, "repeats", None)
    return SpeedPlan(
        warmup=warmup if warmup is not None else int(spec.get("warmup", DEFAULT_WARMUP)),
        repeats=repeats if repeats is not None else int(spec.get("repeats", DEFAULT_REPEATS)),
        concurrency=int(spec.get("concurrency", 1)),
    )
