"""`speed` plans: speed cases are measured by the speed runner, not graded from one reply.

Registered so a speed case can be written in YAML like any other case and its plan is validated.
"""

from __future__ import annotations

from ..speed.runner import check_plan as check


def grade(case, response):
    raise TypeError(f"{case.id} is a speed case: run it with pytest_crucible.speed.runner.run_speed_case")


__all__ = ["check", "grade"]
