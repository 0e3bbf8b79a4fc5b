"""The grader types a case may name: a registry from `grader.type` to the grader (grading.base.Grader).

The graders live a layer up (pytest_crucible/grading/: they take a Case). The registry names them by module,
as an entry point names another package's, so loading a case checks its `grader:` through its grader's
`check()` without the suite importing the graders' layer. Other packages add types through the entry point
group `pytest_crucible.graders`; see pytest_crucible/common/registry.py.
"""

from __future__ import annotations

from pytest_crucible.common.errors import RegistryError
from pytest_crucible.common.registry import Registry

ENTRY_POINT_GROUP = "pytest_crucible.graders"
_GRADING = "pytest_crucible.grading"

# type name in a case's `grader.type` -> module of the built-in grader
GRADERS = Registry(ENTRY_POINT_GROUP, "grader type", {
    "numeric": f"{_GRADING}.numeric:GRADER",
    "exact": f"{_GRADING}.exact:GRADER",
    "contains": f"{_GRADING}.contains:GRADER",
    "regex": f"{_GRADING}.regex:GRADER",
    "json": f"{_GRADING}.json_object:GRADER",
    "checks": f"{_GRADING}.checks:GRADER",
    "mapping": f"{_GRADING}.mapping:GRADER",
    "tool_calls": f"{_GRADING}.tool_calls:GRADER",
    "trace": f"{_GRADING}.trace:GRADER",
    "bfcl_multi_turn": f"{_GRADING}.bfcl_multi_turn:GRADER",
    "code": f"{_GRADING}.code:GRADER",
    "judge": f"{_GRADING}.judge:GRADER",
}, needs=("check", "grade"))


def known_types() -> list[str]:
    return GRADERS.names()


def check_spec(spec: dict) -> list[tuple[str | None, str]]:
    try:
        grader = GRADERS.get(spec.get("type"))  # type: ignore[arg-type]  # a missing type is reported unknown
    except RegistryError as exc:
        return [("type", str(exc))]
    except ModuleNotFoundError:
        return [("type", f"grader type {spec.get('type')!r} is not available in this installation")]
    return list(grader.check(spec))


def grades_trace(type_name: object) -> bool:
    """Whether the grader type grades a multi-turn run (a case with a simulation) rather than one reply."""
    try:
        return bool(getattr(GRADERS.get(type_name), "grades_trace", False))  # type: ignore[arg-type]
    except (RegistryError, ModuleNotFoundError):
        return type_name == "trace"


__all__ = ["ENTRY_POINT_GROUP", "GRADERS", "check_spec", "grades_trace", "known_types"]
