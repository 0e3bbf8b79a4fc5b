"""The grader types a case may name: a registry from `grader.type` to the grader's module.

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
    "numeric": f"{_GRADING}.numeric",
    "exact": f"{_GRADING}.exact",
    "contains": f"{_GRADING}.contains",
    "regex": f"{_GRADING}.regex",
    "json": f"{_GRADING}.json_object",
    "checks": f"{_GRADING}.checks",
    "mapping": f"{_GRADING}.mapping",
    "tool_calls": f"{_GRADING}.tool_calls",
    "trace": f"{_GRADING}.trace",
    "code": f"{_GRADING}.code",
    "judge": f"{_GRADING}.judge",
}, needs=("check", "grade"))


def grader_module(kind: str):
    """The grader of a type (built in, or from an entry point); RegistryError when none fits."""
    return GRADERS.get(kind)


def known_types() -> list[str]:
    return GRADERS.names()


def check_spec(spec: dict) -> list[tuple[str | None, str]]:
    try:
        module = grader_module(spec.get("type"))
    except RegistryError as exc:
        return [("type", str(exc))]
    except ModuleNotFoundError:
        return [("type", f"grader type {spec.get('type')!r} is not available in this installation")]
    return list(module.check(spec))


__all__ = ["ENTRY_POINT_GROUP", "GRADERS", "check_spec", "grader_module", "known_types"]
