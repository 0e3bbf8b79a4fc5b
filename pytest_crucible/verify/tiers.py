"""The tier check: a case that declares its hardness facts must carry the tier the rule gives them
(suite/tiers.py), and every trap it counts must be a stored wrong reply. The built-in suite declares
hardness on every case; a user's case may leave it out (its tier is then the author's word)."""

from __future__ import annotations

from pathlib import Path

from pytest_crucible.grading.base import as_list
from pytest_crucible.suite.case import builtin_cases_dir
from pytest_crucible.suite.tiers import tier_of
from pytest_crucible.verify.case_run import CaseRun


def check_tier(run: CaseRun, builtin: Path | None = None) -> None:
    """`builtin`: the built-in suite's folder (default: builtin_cases_dir())."""
    case = run.case
    if case.speed is not None:
        return  # a speed case is a measurement, not a problem with a tier
    if not case.hardness:
        if _inside(case.file, builtin or builtin_cases_dir()):
            run.problem(f"declare hardness {{steps, search, traps}} (README \"How tiers are assigned\"); "
                        f"every case of the built-in suite does, and its difficulty {case.difficulty!r} "
                        f"must follow from it")
        return
    ruled = tier_of(case.hardness)
    if case.difficulty != ruled:
        facts = ", ".join(f"{key} {value}" for key, value in case.hardness.items())
        run.problem(f"difficulty is {case.difficulty!r} but the tier rule gives {ruled!r} for its hardness "
                    f"({facts}); relabel it or correct the facts")
    wrong = len(as_list(run.verify.get("wrong")))
    if case.hardness["traps"] > wrong:
        run.problem(f"hardness.traps is {case.hardness['traps']} but verify.wrong holds {wrong}: "
                    f"every trap counted is a stored wrong reply (or wrong solution) that must fail")


def _inside(file: str, folder: Path) -> bool:
    try:
        return Path(file).resolve().is_relative_to(folder.resolve())
    except (OSError, ValueError):
        return False


__all__ = ["check_tier"]
