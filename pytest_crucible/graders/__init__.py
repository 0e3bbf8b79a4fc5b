"""Grader registry. One module per grader kind; each exposes

    check(spec: dict) -> list[tuple[str | None, str]]   # (field, message) problems in the case's grader spec
    grade(case: Case, response: Response) -> Grade       # pure; spec is case.grader

A grader of multi-turn runs sets GRADES_TRACE = True and takes the agent_loop.Trace instead of one
response. A grader that runs code sets `USES_SANDBOX = True` and takes `sandbox=` (the run's, or None for
the process default). `grade()` below is the single entry point: it refuses to grade a truncated reply as
complete.
"""

from __future__ import annotations

import importlib

from .base import Grade

# type name in a case's `grader.type` -> module under pytest_crucible.graders
_MODULES = {
    "numeric": "numeric",
    "exact": "exact",
    "contains": "contains",
    "regex": "regex",
    "json": "json_object",
    "checks": "checks",
    "mapping": "mapping",
    "tool_calls": "tool_calls",
    "trace": "trace",
    "code": "code",
}


def grader_module(kind: str):
    return importlib.import_module(f"{__name__}.{_MODULES[kind]}")


def known_types() -> list[str]:
    return sorted(_MODULES)


def check_spec(spec: dict) -> list[tuple[str | None, str]]:
    kind = spec.get("type")
    if kind not in _MODULES:
        return [("type", f"unknown grader type {kind!r}; use one of {', '.join(known_types())}")]
    try:
        module = grader_module(kind)
    except ModuleNotFoundError:
        return [("type", f"grader type {kind!r} is not available in this installation")]
    return list(module.check(spec))


def uses_sandbox(spec: dict) -> bool:
    """Whether this grader runs code (its module sets USES_SANDBOX): it is handed the run's sandbox."""
    return bool(getattr(grader_module(spec["type"]), "USES_SANDBOX", False))


def grade(case, response, trace=None, *, sandbox=None) -> Grade:
    """Grade one reply; for a case graded on a multi-turn run, its trace (`response` is then the final
    turn's, or None for trace.final)."""
    module = grader_module(case.grader["type"])
    if getattr(module, "GRADES_TRACE", False):
        if trace is None:
            raise ValueError(f"case {case.id}: the {case.grader['type']} grader needs the run's trace")
        response = response if response is not None else trace.final
        result = module.grade(case, trace)
    elif getattr(module, "USES_SANDBOX", False):
        result = module.grade(case, response, sandbox=sandbox)
    else:
        result = module.grade(case, response)
    if response.truncated:
        reason = _truncation(response, case)
        if not result.passed and result.reason:
            reason += f"; {result.reason}"
        return Grade(passed=False, reason=reason, answer=result.answer, details=result.details)
    return result


def _truncation(response, case) -> str:
    usage = response.usage
    limit = response.max_tokens or case.max_tokens
    thought = f" ({usage.reasoning_tokens} reasoning)" if usage.reasoning_tokens else ""
    used = usage.completion_tokens
    if used is not None and not usage.estimated and used < limit:
        # raising max_tokens would not help here: say so, or the case's author chases the wrong limit
        return (f"TRUNCATED after {used} of max_tokens {limit}{thought}: the server stopped early (its context "
                "window filled, or its own output limit)")
    return f"TRUNCATED at {limit} tokens{thought}"


__all__ = ["Grade", "check_spec", "grade", "known_types", "uses_sandbox"]
